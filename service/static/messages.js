// paiscan page, messages: what the server's error codes, the reader's problems and notes mean to a
// player, in the page's words (a library's wording never reaches the page). Uses app.js's state.
"use strict";

const PHOTO_ERRORS = {
  not_an_image: "This file is not a photo the page can read (JPEG, PNG, WebP or HEIC).",
  unreadable_image: "The photo file is damaged or was cut short (perhaps it did not finish copying). Take or choose it again.",
  too_many_pixels: "This photo has more pixels than the server reads. Take it again at a lower resolution.",
  file_too_large: "This photo file is larger than the server accepts. Take it again at a lower resolution.",
  payload_too_large: "This photo file is larger than the server accepts. Take it again at a lower resolution.",
  busy: "The server is busy reading other photos; try again in a moment.",
  not_ready: "The server is still starting; try again in a moment.",
  reader_unavailable: "Photo reading is not available on this server; type the tiles instead.",
  network: "The server could not be reached. Check the Wi-Fi and try again.",
  timeout: "Reading the photo took too long; try again.",
};

function cleanServerText(text) {
  // the server's own words, less any parenthesised detail (where a library's wording would sit)
  return String(text || "").replace(/\s*\([^)]*\)/g, "").trim();
}

function photoErrorText(code, message, status) {
  if (PHOTO_ERRORS[code]) return t_(PHOTO_ERRORS[code]);
  if (status === 413) return t_(PHOTO_ERRORS.file_too_large);
  const own = cleanServerText(message);
  return own ? `${t_("The photo could not be read")}: ${own}.`.replace("..", ".") : t_("The photo could not be read.");
}

function problemText(p) {
  const code = p && p.code;
  if (code === "no_hand_row") return t_("No row of tiles was found in this photo. Photograph the hand from above, the whole row inside the frame.");
  if (code === "wrong_tile_count" && Number.isInteger(p.found) && Number.isInteger(p.expected)) {
    return t_("{found} tiles were found in the hand's row, but a finished hand with these melds shows {expected}: add the missing tile or remove the extra one.", p);
  }
  if (code === "five_of_a_kind") {
    const tiles = Array.isArray(p.tiles) ? p.tiles.join(", ") : "";
    return t_("More than four of {tiles} were read: one of them is misread; tap it to change it.", { tiles });
  }
  if (code === "face_down_tile") return t_("A face-down tile was found where no closed kan is: turn it up, or tell the page what it is.");
  if (code === "unreadable_layout") return t_("The sideways and face-down tiles do not split into melds: check the melds.");
  return cleanServerText((p && p.message) || code || "");
}

function noteText(n) {
  const s = String(n);
  let m = s.match(/^tile (\d+)'s face, read sideways, taken as upright/);
  if (m) return t_("Tile {n} on the photo looks sideways; it was read as standing upright. Check its face and the melds.", { n: Number(m[1]) + 1 });
  if (/^enumeration capped/.test(s)) return t_("Many readings were possible; only the likeliest are offered below.");
  if (/^left and right of the row are a guess/.test(s)) return t_("The page guessed which end of the row is which: check the winning tile.");
  if (/^the row runs near 45°/.test(s)) return t_("The row is photographed at a slant: check the sideways (called) tiles.");
  if (/^sideways tiles judged from the boxes alone/.test(s)) return t_("The sideways tiles were judged from their shape alone: check the melds.");
  if (/^a tile by the hand that the photo's edge cuts was left out/.test(s)) return t_("A tile cut by the photo's edge was left out: if it belongs to the hand or is a dora indicator, add it.");
  if (/^the photo's edge cuts/.test(s)) return t_("The photo's edge cuts some tiles: check them, or take the photo with the whole hand inside.");
  return cleanServerText(s);
}

function countTiles() {
  const n = (role) => tilesOf(role).length;
  return { concealed: n("hand"), win: n("win"), melds: state.melds.length };
}

function markTile(face) {
  // mark the first tile of this kind on the photo (for a message about it); its detection, or null
  const t = state.tiles.find((x) => x.face === face || kindOf(x.face) === kindOf(face));
  state.highlight = t && t.det !== null && t.det !== undefined ? t.det : null;
  renderBoxes();
  return t || null;
}

function scoreErrorText(err) {
  // a score error in a player's words; with the tile concerned marked on the photo where there is one
  const code = err.code;
  const msg = String(err.message || "");
  state.highlight = null;
  if (code === "wrong_tile_count") {
    const c = countTiles();
    const need = 13 - 3 * c.melds;
    if (!c.win) return t_("Which tile won? Tap a tile of the hand and choose \"Winning tile\".");
    const more = need - c.concealed;
    return more > 0
      ? t_("The hand is {n} tile(s) short: add the missing tile (tap \"+\" in the hand, or tap it on the photo).", { n: more })
      : t_("The hand has {n} tile(s) too many: tap the extra tile and choose \"Not a tile\", or move it to dora.", { n: -more });
  }
  if (code === "not_a_winning_hand") return t_("These tiles do not make a finished hand (four sets and a pair, seven pairs or thirteen orphans): check the tiles marked in blue on the photo and the winning tile.");
  if (code === "no_yaku") return t_("This hand has no yaku, so it cannot win under these rules.");
  if (code === "tile_not_in_ruleset") {
    const face = (msg.match(/\b([0-9][mpsz])\b/) || [])[1];
    if (face) markTile(face);
    return t_("{face} is not in the tile set of these rules: tap the marked tile to change it, or pick other rules.", { face: face ? tileName(face) : t_("A tile") });
  }
  if (code === "too_many_red_fives") {
    const m = msg.match(/(\d+) red 5([mps]).* has (\d+)/);
    if (m) {
      markTile(`0${m[2]}`);
      return t_("{have} red 5 {suit} in the hand, but these rules' set has {max}: make it a plain 5.", { have: m[1], suit: tileName(`5${m[2]}`).slice(2), max: m[3] });
    }
  }
  if (code === "too_many_of_kind") return t_("More than four of one tile: one of them is misread; tap it to change it.");
  if (code === "bad_tile") return `${t_("Not a tile")}: ${msg}`;
  if (code === "network") return t_(PHOTO_ERRORS.network);
  return cleanServerText(msg) || t_("The hand cannot be scored.");
}

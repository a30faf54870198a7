// paiscan web page: read a photo, let the player correct it, score it. Plain JS, no build, no network
// beyond this server. The photo is sent once (/v1/read); every correction rebuilds the Hand JSON and
// calls /v1/score.
"use strict";

const SUITS = { m: "萬", p: "筒", s: "索" };
const HONORS = ["", "東", "南", "西", "北", "白", "發", "中"];
const HONOR_EN = ["", "East", "South", "West", "North", "White", "Green", "Red"];
const ALL_FACES = [];
for (const s of "mps") for (let n = 1; n <= 9; n++) ALL_FACES.push(`${n}${s}`);
for (let n = 1; n <= 7; n++) ALL_FACES.push(`${n}z`);
ALL_FACES.push("0m", "0p", "0s");

const WINDS = ["east", "south", "west", "north"];
const WIND_LABEL = { east: "East 東", south: "South 南", west: "West 西", north: "North 北" };
const FLAG_LABEL = {
  riichi: "Riichi リーチ", double_riichi: "Double riichi ダブル立直", open_riichi: "Open riichi オープン立直",
  ippatsu: "Ippatsu 一発", haitei: "Last draw 海底摸月", houtei: "Last discard 河底撈魚",
  rinshan: "After a kan 嶺上開花", chankan: "Robbing a kan 槍槓", tenhou: "Tenhou 天和", chiihou: "Chiihou 地和",
  renhou: "Renhou 人和", nagashi_mangan: "Nagashi mangan 流し満貫",
  dealer_first_discard_ron: "Ron on the dealer's first discard", rinshan_after_daiminkan: "Rinshan after an open kan",
  open_riichi_forced_deal_in: "Dealt into open riichi", discarded_five: "Won on a discarded five",
  ron_paid_as_tsumo: "Ron paid as tsumo",
};
const FLAG_ORDER = ["riichi", "double_riichi", "ippatsu", "open_riichi", "haitei", "houtei", "rinshan", "chankan",
  "tenhou", "chiihou", "renhou", "nagashi_mangan"];
const TSUMO_ONLY = new Set(["haitei", "rinshan", "tenhou", "chiihou", "rinshan_after_daiminkan"]);
const RON_ONLY = new Set(["houtei", "chankan", "renhou", "dealer_first_discard_ron", "open_riichi_forced_deal_in"]);
const LIMIT_JA = {
  mangan: "満貫", haneman: "跳満", baiman: "倍満", sanbaiman: "三倍満", yakuman: "役満",
  kazoe_yakuman: "数え役満", double_yakuman: "ダブル役満", triple_yakuman: "トリプル役満",
};
const PAYER = { discarder: "Discarder", dealer: "Dealer", non_dealer: "Non-dealer", other: "Other player" };
const ROLE_LABEL = { hand: "in the hand", win: "winning tile", meld: "in a meld", dora: "dora indicator",
  ura: "ura dora indicator", nuki: "set aside" };
const EXAMPLE = { hand: "234m406p678s2245s", win: "6s", melds: "", dora: "1p" };

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
};

const state = {
  info: null,
  rulesets: [],
  ruleset: null,
  read: null,          // the last /v1/read answer
  tiles: [],           // {face, role: hand|win|meld|dora|ura|nuki, meld: index|null, det: index|null, fixed: bool}
  melds: [],           // {type, open, added, from}
  resolved: new Set(), // indexes of answered ambiguities
  options: {},         // option values that differ from the ruleset's defaults
  scoreSeq: 0,
  scoreTimer: 0,
  wholePhoto: false,
  allAlternatives: false,
  undo: [],            // snapshots of the hand before each edit (see sheet.js)
  snap: null,          // the snapshot of the hand as it stands
  upload: null,        // the last photo as sent, to read it again under other rules
  lastScore: null,     // the last score shown, with the hand it scored
  highlight: null,     // a detection index marked on the photo by a message
};

// ---------------------------------------------------------------- tiles and MPSZ
function parseMPSZ(text) {
  const out = [];
  let digits = [];
  for (const ch of String(text || "").replace(/\s+/g, "")) {
    if (/[0-9]/.test(ch)) digits.push(ch);
    else if ("mpsz".includes(ch)) {
      if (!digits.length) throw new Error(`'${ch}' without numbers before it`);
      for (const d of digits) {
        if (ch === "z" && (d === "0" || d === "8" || d === "9")) throw new Error(`${d}z is not a tile`);
        out.push(d + ch);
      }
      digits = [];
    } else if (ch === "?") out.push("?");
    else throw new Error(`'${ch}' is not MPSZ (digits followed by m, p, s or z)`);
  }
  if (digits.length) throw new Error(`'${digits.join("")}' needs a suit letter (m, p, s or z)`);
  return out;
}

function faceKey(face) {
  const s = "mpsz?".indexOf(face[1] || "?");
  const n = face[0] === "0" ? 5.5 : Number(face[0]) || 0;
  return s * 10 + n;
}

function formatMPSZ(faces, sort = true) {
  const list = sort ? [...faces].sort((a, b) => faceKey(a) - faceKey(b)) : [...faces];
  let out = "";
  let run = "";
  let suit = "";
  for (const f of list) {
    if (f === "?") { out += run + suit + "?"; run = ""; suit = ""; continue; }
    if (f[1] !== suit && run) { out += run + suit; run = ""; }
    suit = f[1];
    run += f[0];
  }
  return out + (run ? run + suit : "");
}

function kindOf(face) { return face[0] === "0" ? "5" + face[1] : face; }

function tileName(face) {
  if (face === "?") return "face-down tile";
  const n = face[0], s = face[1];
  if (s === "z") return `${HONOR_EN[Number(n)]} ${HONORS[Number(n)]}`;
  const suit = { m: "characters", p: "circles", s: "bamboo" }[s];
  return n === "0" ? `red 5 ${suit}` : `${n} ${suit}`;
}

function tileEl(face, extraClass = "") {
  const t = el("span", `tile ${extraClass}`);
  t.dataset.face = face;
  if (face === "?") { t.classList.add("back"); t.setAttribute("aria-label", "face-down tile"); return t; }
  const n = face[0], s = face[1];
  t.classList.add(`s-${s}`);
  if (s === "z") {
    t.classList.add(`z${n}`);
    t.append(el("b", "", HONORS[Number(n)]));
  } else {
    if (n === "0") t.classList.add("red");
    t.append(el("b", "", n === "0" ? "5" : n), el("i", "", SUITS[s]));
  }
  t.title = `${face} — ${tileName(face)}`;
  return t;
}

// ---------------------------------------------------------------- the hand model
function tilesOf(role, meld = null) {
  return state.tiles.filter((t) => t.role === role && (meld === null || t.meld === meld));
}

function inferMeld(faces, prev) {
  const kinds = faces.map(kindOf);
  const same = kinds.every((k) => k === kinds[0]);
  if (faces.length === 4) return { type: "kan", open: prev && prev.type === "kan" ? prev.open !== false : true,
    added: prev ? !!prev.added : false, from: prev ? prev.from : undefined };
  if (same) return { type: "pon", from: prev ? prev.from : undefined };
  return { type: "chi" };
}

function handFromStructure(h) {
  // h: the contract's tile fields {hand, melds, win_tile, dora_indicators, nuki}
  const tiles = [];
  const push = (faces, role, meld = null) => faces.forEach((face) => tiles.push({ face, role, meld, det: null }));
  push(parseMPSZ(h.hand || ""), "hand");
  if (h.win_tile) push(parseMPSZ(h.win_tile), "win");
  const melds = [];
  (h.melds || []).forEach((m, i) => {
    melds.push({ type: m.type, open: m.open !== false, added: !!m.added, from: m.from });
    push(parseMPSZ(m.tiles), "meld", i);
  });
  const dora = Array.isArray(h.dora_indicators) ? h.dora_indicators.join("") : h.dora_indicators || "";
  push(parseMPSZ(dora), "dora");
  const nuki = Array.isArray(h.nuki) ? h.nuki.join("") : h.nuki || "";
  push(parseMPSZ(nuki), "nuki");
  const ura = Array.isArray(h.ura_indicators) ? h.ura_indicators.join("") : h.ura_indicators || "";
  push(parseMPSZ(ura), "ura");
  return { tiles, melds };
}

function readFace(i) {
  // What the reading took detection i for: its correction when the reader made one, else its class.
  const read = state.read || {};
  const fix = (read.corrections || []).find((c) => c.index === i);
  return fix ? fix.as : read.detections[i].class;
}

function linkDetections() {
  // Tie each detection to a tile of the hand with the same face: by the reader's role when it gives
  // one, otherwise hand, win, meld, dora, nuki in that order.
  const dets = (state.read && state.read.detections) || [];
  state.tiles.forEach((t) => { t.det = null; });
  const order = ["hand", "win", "meld", "dora", "ura", "nuki"];
  const pass = (i, faces, roles) => {
    const d = dets[i];
    for (const face of faces) {
      for (const role of roles) {
        const t = state.tiles.find((x) => x.det === null && x.role === role && x.face === face &&
          (d.meld === undefined || d.meld === null || x.meld === d.meld));
        if (t) { t.det = i; return true; }
      }
    }
    return false;
  };
  // first what the reading took each detection for, then its other likely faces (another reading)
  const left = [];
  dets.forEach((d, i) => {
    if (!pass(i, [readFace(i)], d.role && order.includes(d.role) ? [d.role] : order)) left.push(i);
  });
  left.forEach((i) => {
    const d = dets[i];
    const faces = [d.class, ...(Array.isArray(d.topk) ? d.topk.map((x) => x[0]) : [])];
    pass(i, faces, order);
  });
}

function setStructure(h) {
  const { tiles, melds } = handFromStructure(h);
  state.tiles = tiles;
  state.melds = melds;
  linkDetections();
}

function buildHand() {
  const faces = (role, meld = null) => tilesOf(role, meld).map((t) => t.face);
  const hand = {
    rules: state.ruleset ? state.ruleset.id : "riichi",
    hand: formatMPSZ(faces("hand")),
    melds: state.melds.map((m, i) => {
      const out = { type: m.type, tiles: formatMPSZ(faces("meld", i)) };
      if (m.type === "kan") { out.open = m.open !== false; if (m.added) out.added = true; }
      if (m.from) out.from = m.from;
      return out;
    }),
    win: document.querySelector("input[name=win]:checked").value,
    seat_wind: $("seat-wind").value,
    round_wind: $("round-wind").value,
    honba: $("honba-field").hidden ? 0 : Math.max(0, Math.min(999, parseInt($("honba").value, 10) || 0)),
    dora_indicators: faces("dora"),
    flags: [...document.querySelectorAll("#flags input:checked")].map((c) => c.value),
  };
  const win = faces("win");
  if (win.length) hand.win_tile = win[0];
  const nuki = faces("nuki");
  if (nuki.length) hand.nuki = formatMPSZ(nuki);
  const ura = faces("ura");
  if (ura.length) hand.ura_indicators = ura;
  const sticks = $("sticks-field").hidden ? 0 : Math.max(0, Math.min(99, parseInt($("sticks").value, 10) || 0));
  if (sticks) hand.riichi_sticks = sticks;
  if (Object.keys(state.options).length) hand.options = { ...state.options };
  return hand;
}

// ---------------------------------------------------------------- rendering the hand
function syncInputs() {
  $("in-hand").value = formatMPSZ(tilesOf("hand").map((t) => t.face));
  $("in-win").value = tilesOf("win").map((t) => t.face).join("");
  $("in-melds").value = state.melds.map((m, i) => {
    const s = formatMPSZ(tilesOf("meld", i).map((t) => t.face));
    return m.type === "kan" && m.open === false ? `[${s}]` : s;
  }).join(" ");
  $("in-dora").value = formatMPSZ(tilesOf("dora").map((t) => t.face), false);
  $("in-nuki").value = formatMPSZ(tilesOf("nuki").map((t) => t.face));
  $("in-ura").value = formatMPSZ(tilesOf("ura").map((t) => t.face), false);
  for (const id of ["in-hand", "in-win", "in-melds", "in-dora", "in-ura", "in-nuki"]) $(id).classList.remove("invalid");
}

function renderHandTiles() {
  // One group per role, each with "+" to add a tile to it; a meld's label opens the meld editor.
  const box = $("hand-tiles");
  box.replaceChildren();
  const group = (label, tiles, cls, add, ja, sort = true) => {
    const g = el("div", `group ${cls}`);
    const head = el("span", "glabel", label);
    if (ja) { const j = el("span", "ja", ` ${ja}`); j.lang = "ja"; head.append(j); }
    g.append(head);
    const row = el("div", "trow");
    const list = sort ? [...tiles].sort((a, b) => faceKey(a.face) - faceKey(b.face)) : tiles;
    list.forEach((t) => {
      const b = el("button", "tile-btn");
      b.type = "button";
      b.append(tileEl(t.face, t.fixed ? "fixed" : ""));
      if (t.det !== null && t.det !== undefined) b.dataset.det = String(t.det);
      b.setAttribute("aria-label", `${label}: ${tileName(t.face)}. ${t_("Tap to change.")}`);
      b.addEventListener("click", () => openPalette(t));
      row.append(b);
    });
    if (add) {
      const plus = el("button", "tile-btn add", "+");
      plus.type = "button";
      plus.setAttribute("aria-label", `${t_("add a tile")}: ${label}`);
      plus.addEventListener("click", add);
      row.append(plus);
    }
    g.append(row);
    box.append(g);
    return g;
  };
  const empty = !state.tiles.length && !state.melds.length;
  if (empty && !state.read) box.append(el("p", "note", t_("No tiles yet: take a photo, or add or type the tiles.")));
  group(t_("Hand"), tilesOf("hand"), "hand", () => addTile("hand"), "手牌");
  const winFull = tilesOf("win").length > 0;
  group(t_("Win"), tilesOf("win"), "win", winFull ? null : () => addTile("win"), "和了牌");
  state.melds.forEach((m, i) => {
    const closed = m.type === "kan" && m.open === false;
    const from = m.from ? ` · ${t_(m.from)}` : "";
    const g = group(`${t_(m.type)}${closed ? ` (${t_("closed")})` : m.added ? ` (${t_("added")})` : ""}${from}`,
      tilesOf("meld", i), "meld", null, null, false);
    g.dataset.meld = String(i);
    const edit = el("button", "btn small link edit-meld", t_("edit"));
    edit.type = "button";
    edit.setAttribute("aria-label", `${t_("edit meld")} ${i + 1}`);
    edit.addEventListener("click", () => openMeldEditor(i));
    g.querySelector(".glabel").append(edit);
  });
  group(t_("Dora"), tilesOf("dora"), "dora", () => addTile("dora"), "ドラ表示牌", false);
  if (tilesOf("ura").length || uraAllowed()) group(t_("Ura"), tilesOf("ura"), "ura", () => addTile("ura"), "裏ドラ", false);
  if (tilesOf("nuki").length || (state.ruleset && state.ruleset.players === 3)) {
    group(t_("Set aside"), tilesOf("nuki"), "nuki", () => addTile("nuki"), "抜き");
  }
}

function uraAllowed() {
  const flags = new Set([...document.querySelectorAll("#flags input:checked")].map((c) => c.value));
  return flags.has("riichi") || flags.has("double_riichi") || flags.has("open_riichi");
}

function cropRect(read) {
  // The part of the photo with the tiles (plus a margin), so they show larger on a phone.
  const W = read.image.width || 1, H = read.image.height || 1;
  const dets = read.detections || [];
  if (state.wholePhoto || !dets.length) return { x: 0, y: 0, w: W, h: H };
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const heights = [];
  dets.forEach((d) => {
    x0 = Math.min(x0, d.box[0]); y0 = Math.min(y0, d.box[1]);
    x1 = Math.max(x1, d.box[2]); y1 = Math.max(y1, d.box[3]);
    heights.push(d.box[3] - d.box[1]);
  });
  heights.sort((a, b) => a - b);
  const pad = Math.max(heights[heights.length >> 1] * 0.6, 0.02 * Math.max(W, H));
  x0 = Math.max(0, x0 - pad); y0 = Math.max(0, y0 - pad);
  x1 = Math.min(W, x1 + pad); y1 = Math.min(H, y1 + pad);
  let w = x1 - x0, h = y1 - y0;
  const minH = Math.min(H, w / 2.4);  // not flatter than 2.4:1
  if (h < minH) { const c = (y0 + y1) / 2; h = minH; y0 = Math.min(Math.max(0, c - h / 2), H - h); }
  if (w * h > 0.8 * W * H) return { x: 0, y: 0, w: W, h: H };
  return { x: x0, y: y0, w, h };
}

function renderBoxes() {
  const boxes = $("boxes");
  boxes.replaceChildren();
  const read = state.read;
  if (!read || !read.image) return;
  const W = read.image.width || 1, H = read.image.height || 1;
  const crop = cropRect(read);
  const frame = $("photo-frame"), img = $("photo-img");
  frame.style.aspectRatio = `${crop.w} / ${crop.h}`;
  img.style.width = `${(100 * W) / crop.w}%`;
  img.style.left = `${(-100 * crop.x) / crop.w}%`;
  img.style.top = `${(-100 * crop.y) / crop.h}%`;
  $("btn-whole").hidden = crop.w === W && crop.h === H && !state.wholePhoto;
  $("btn-whole").textContent = t_(state.wholePhoto ? "Zoom to the tiles" : "Show the whole photo");
  const unsure = new Set((read.ambiguities || [])
    .map((a, i) => (a.kind === "tile" && !state.resolved.has(i) ? a.index : null)).filter((x) => x !== null));
  const numbered = mentionedBoxes();
  if (state.highlight !== null) numbered.add(state.highlight);
  (read.detections || []).forEach((d, i) => {
    const [x1, y1, x2, y2] = d.box;
    const tile = state.tiles.find((t) => t.det === i);
    const b = el("button", "box");
    b.type = "button";
    b.style.left = `${(100 * (x1 - crop.x)) / crop.w}%`;
    b.style.top = `${(100 * (y1 - crop.y)) / crop.h}%`;
    b.style.width = `${(100 * (x2 - x1)) / crop.w}%`;
    b.style.height = `${(100 * (y2 - y1)) / crop.h}%`;
    const face = tile ? tile.face : readFace(i);
    if (!tile) b.classList.add("unused");
    else {
      b.classList.add(`role-${tile.role}`);
      if (tile.fixed) b.classList.add("fixed");
    }
    if (unsure.has(i)) b.classList.add("unsure");
    b.dataset.index = String(i);
    b.dataset.face = face;
    if (state.highlight === i) b.classList.add("highlight");
    if (numbered.has(i)) b.append(el("span", "num", String(i + 1)));
    const tag = el("span", "tag");
    tag.append(tileEl(face, "mini"));
    b.append(tag);
    const conf = typeof d.confidence === "number" ? ` (${Math.round(d.confidence * 100)}%)` : "";
    const role = tile ? ROLE_LABEL[tile.role] : "not used in the hand";
    b.setAttribute("aria-label", `${tileName(face)}${conf}, ${t_(role)}. ${t_("Tap to correct.")}`);
    b.addEventListener("click", () => openPalette(tile || null, i));
    boxes.append(b);
  });
}

function renderQuestions() {
  const q = $("questions");
  q.replaceChildren();
  const read = state.read;
  const amb = (read && read.ambiguities) || [];
  const alts = ((read && read.alternatives) || []).filter((a) => a && typeof a === "object" && "hand" in a);
  if (!amb.length && !alts.length) { q.hidden = true; return; }
  q.hidden = false;
  q.append(el("h3", "", t_("Please check")));
  amb.forEach((a, i) => {
    const item = el("div", `question${state.resolved.has(i) ? " done" : ""}`);
    item.dataset.amb = String(i);
    const cands = Array.isArray(a.candidates) ? a.candidates : [];
    let text;
    let choose;
    let current = null;
    if (a.kind === "win_tile") {
      text = t_("Which tile completed the hand (the winning tile)?");
      current = (tilesOf("win")[0] || {}).face;
      choose = (c, k) => chooseWinTile(c, Array.isArray(a.indices) ? a.indices[k] : null);
    } else if (a.kind === "meld_split") {
      text = t_("How do the called tiles split into melds?");
      choose = (c) => setMelds(Array.isArray(c) ? c : [c]);
    } else if (a.kind === "role" && Number.isInteger(a.index)) {
      const t = state.tiles.find((x) => x.det === a.index);
      text = t_("The tile numbered {n} on the photo ({face}): what is it?", { n: a.index + 1,
        face: tileName(t ? t.face : readFace(a.index)) });
      current = t ? t.role : null;
      choose = (c) => setRole(a.index, c);
    } else if (a.kind === "tile" && Number.isInteger(a.index)) {
      const t = state.tiles.find((x) => x.det === a.index);
      current = t ? t.face : null;
      text = t_("The tile numbered {n} on the photo: which is it?", { n: a.index + 1 });
      choose = (c) => setDetectionFace(a.index, c);
    } else if (a.kind === "meld" && Number.isInteger(a.index)) {
      text = t_("Meld {n}: which set is it?", { n: a.index + 1 });
      choose = (c) => setMeld(a.index, c);
    } else {
      text = t_("Please check this part of the reading.");
      choose = null;
    }
    item.append(el("p", "", text));
    const row = el("div", "row choices");
    const ROLE_NAME = { hand: "in the hand", win: "winning tile", dora: "dora indicator", nuki: "set aside",
      meld: "in a meld", other: "not part of the hand" };
    cands.forEach((c, k) => {
      const b = el("button", "btn choice");
      b.type = "button";
      if (a.kind === "role" && typeof c === "string") {
        b.append(el("span", "", t_(ROLE_NAME[c] || c)));
      } else if (typeof c === "string" && /^[0-9][mpsz]$/.test(c)) {
        b.classList.add("tilechoice");
        b.append(tileEl(c));
        b.setAttribute("aria-label", tileName(c));
      } else if (Array.isArray(c)) {
        b.append(el("span", "", c.join(" · ")));
      } else {
        const set = c.type === "kan" ? (c.added ? "added kan" : c.open === false ? "closed kan" : "kan") : c.type || "";
        const label = typeof c === "string" ? c : `${set} ${c.tiles || c.hand || JSON.stringify(c)}`;
        b.append(el("span", "", label));
      }
      if (c === current) b.classList.add("chosen");
      if (!choose) b.disabled = true;
      b.addEventListener("click", () => { state.resolved.add(i); choose(c, k); });
      row.append(b);
    });
    item.append(row);
    q.append(item);
  });
  if (alts.length) {
    const item = el("details", "question alternatives");
    item.append(el("summary", "", `Other ways to read this photo (${alts.length})`));
    const row = el("div", "row choices");
    const SHOWN = 4;
    alts.forEach((alt, k) => {
      if (k === SHOWN && !state.allAlternatives) {
        const more = el("button", "btn small link", `${alts.length - SHOWN} more…`);
        more.type = "button";
        more.addEventListener("click", () => { state.allAlternatives = true; renderQuestions(); });
        row.append(more);
      }
      if (k >= SHOWN && !state.allAlternatives) return;
      const b = el("button", "btn choice");
      b.type = "button";
      const melds = (alt.melds || []).map((m) => m.tiles).join(" ");
      const total = typeof alt.score_total === "number" ? ` → ${fmtNum(alt.score_total)}` : "";
      b.textContent = `${alt.hand}${alt.win_tile ? " + " + alt.win_tile : ""}${melds ? " | " + melds : ""}${total}`;
      b.addEventListener("click", () => { setStructure(alt); afterEdit(); });
      row.append(b);
    });
    item.append(row);
    q.append(item);
  }
}

function renderProblems() {
  const ul = $("problems");
  ul.replaceChildren();
  const problems = (state.read && state.read.problems) || [];
  // the reader's notes: what it assumed to make the photo read (check the melds, a box dropped)
  const notes = (state.read && state.read.notes) || [];
  const shown = [...problems.map((p) => ["", problemText(p)]), ...notes.map((n) => ["note", noteText(n)])]
    .filter(([, text]) => text);
  ul.hidden = !shown.length;
  shown.forEach(([cls, text]) => ul.append(el("li", cls, text)));
}

function mentionedBoxes() {
  // detections a question or a note speaks of by number: their boxes show the number
  const out = new Set();
  const read = state.read || {};
  (read.ambiguities || []).forEach((a) => { if (Number.isInteger(a.index) && a.kind !== "meld") out.add(a.index); });
  (read.notes || []).forEach((n) => {
    for (const m of String(n).matchAll(/\btile (\d+)'s/g)) out.add(Number(m[1]));  // the reader counts from 0
  });
  return out;
}

function renderAll() {
  syncInputs();
  renderHandTiles();
  renderBoxes();
  renderQuestions();
  renderProblems();
}

function afterEdit() {
  recordEdit();
  renderAll();
  scheduleScore(0);
}

// ---------------------------------------------------------------- corrections
function resolveTile(detIndex) {
  const amb = (state.read && state.read.ambiguities) || [];
  amb.forEach((a, i) => { if (a.kind === "tile" && a.index === detIndex) state.resolved.add(i); });
}

function setDetectionFace(index, face) {
  resolveTile(index);
  applyDetectionFace(index, face);
  afterEdit();
}

function applyDetectionFace(index, face) {
  let tile = state.tiles.find((t) => t.det === index);
  if (!tile) {
    tile = { face, role: "hand", meld: null, det: index };
    state.tiles.push(tile);
  }
  tile.face = face;
  tile.fixed = true;
}

function applyWinTile(face, detIndex = null) {
  // make `face` (detection detIndex, when the reading knows it) the winning tile in state.tiles
  const win = tilesOf("win")[0];
  const byDet = detIndex !== null && detIndex >= 0 ? state.tiles.find((t) => t.det === detIndex) : null;
  if (byDet && byDet.role === "hand") {
    byDet.role = "win";
    if (win) win.role = "hand";
    return;
  }
  if (win && win.face === face) return;
  const inHand = tilesOf("hand").find((t) => t.face === face);
  if (inHand) {
    inHand.role = "win";
    if (win) win.role = "hand";
  } else if (win) {
    win.face = face;
    win.fixed = true;
  } else {
    state.tiles.push({ face, role: "win", meld: null, det: null, fixed: true });
  }
}

function chooseWinTile(face, detIndex = null) {
  applyWinTile(face, detIndex);
  afterEdit();
}

function handWith(apply) {
  // the Hand JSON as it would be after apply(); the page's state is left as it was
  const savedTiles = state.tiles;
  const savedMelds = state.melds;
  state.tiles = savedTiles.map((t) => ({ ...t }));
  state.melds = savedMelds.map((m) => ({ ...m }));
  try {
    apply();
    return buildHand();
  } finally {
    state.tiles = savedTiles;
    state.melds = savedMelds;
  }
}

// how each kind of question's answer changes the hand, for pricing it (see priceChoices)
const ANSWERS = {
  win_tile: (a, c, i) => applyWinTile(c, Array.isArray(a.indices) ? a.indices[i] : null),
  meld: (a, c) => applyMeld(a.index, c),
  role: (a, c) => applyRole(a.index, c),
  tile: (a, c) => applyDetectionFace(a.index, c),
};

async function priceQuestion(k, a, seq) {
  const prices = await Promise.all(a.candidates.map(async (c, i) => {
    try {
      const r = await fetch("/v1/score", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(handWith(() => ANSWERS[a.kind](a, c, i))) });
      const body = await r.json();
      if (body && typeof body.total === "number") return { total: body.total, text: fmtNum(body.total) };
      return { total: null, text: body && body.error && body.error.code === "no_yaku" ? "no yaku" : "no score" };
    } catch (e) {
      return { total: null, text: "" };
    }
  }));
  if (seq !== state.scoreSeq) return;  // the hand or its context changed meanwhile
  const item = document.querySelector(`#questions .question[data-amb="${k}"]`);
  if (!item) return;
  item.querySelectorAll(".choice").forEach((b, i) => {
    const old = b.querySelector(".price");
    if (old) old.remove();
    if (prices[i] && prices[i].text) {
      const named = a.kind === "win_tile" || a.kind === "tile" ? tileName(a.candidates[i]) : b.textContent;
      b.append(el("span", "price", prices[i].text));
      b.setAttribute("aria-label", `${named}: ${prices[i].text}${prices[i].total !== null ? " points" : ""}`);
    }
  });
  const oldNote = item.querySelector(".same-score");
  if (oldNote) oldNote.remove();
  if (prices.length > 1 && prices.every((x) => x.total !== null && x.total === prices[0].total)) {
    item.append(el("p", "note same-score", t_("Every choice scores the same: answer it only to keep the record exact.")));
  }
}

function priceChoices(seq) {
  // Each answer to an open question about the winning tile, a tile, a meld or a tile's role, scored with
  // the context as it stands now: the photo seldom shows which tile won, and often every choice
  // scores the same.
  const amb = (state.read && state.read.ambiguities) || [];
  amb.forEach((a, k) => {
    if (Object.hasOwn(ANSWERS, a.kind) && !state.resolved.has(k) && Array.isArray(a.candidates)) priceQuestion(k, a, seq);
  });
}

function setMeld(index, cand) {
  applyMeld(index, cand);
  afterEdit();
}

function applyMeld(index, cand) {
  const faces = typeof cand === "string" ? parseMPSZ(cand) : parseMPSZ(cand.tiles || "");
  const old = tilesOf("meld", index);
  state.tiles = state.tiles.filter((t) => !(t.role === "meld" && t.meld === index));
  faces.forEach((face, k) => state.tiles.push({ face, role: "meld", meld: index,
    det: old[k] ? old[k].det : null, fixed: true }));
  state.melds[index] = typeof cand === "object" && cand.type
    ? { type: cand.type, open: cand.open !== false, added: !!cand.added, from: cand.from }
    : inferMeld(faces, state.melds[index]);
}

function setMelds(names) {
  // names: one MPSZ string per meld (a meld_split candidate)
  const old = tilesOf("meld");
  const prev = state.melds.map((m, j) => ({ m, name: formatMPSZ(tilesOf("meld", j).map((t) => t.face)) }));
  state.tiles = state.tiles.filter((t) => t.role !== "meld");
  state.melds = names.map((name, i) => {
    const faces = parseMPSZ(name);
    faces.forEach((face) => {
      const k = old.findIndex((t) => t.face === face || kindOf(t.face) === kindOf(face));
      const was = k >= 0 ? old.splice(k, 1)[0] : null;
      state.tiles.push({ face, role: "meld", meld: i, det: was ? was.det : null });
    });
    const same = prev.find((p) => p.name === formatMPSZ(faces));
    return inferMeld(faces, same ? same.m : null);
  });
  afterEdit();
}

function setRole(detIndex, role) {
  applyRole(detIndex, role);
  afterEdit();
}

function applyRole(detIndex, role) {
  const t = state.tiles.find((x) => x.det === detIndex);
  if (!t) {
    // a tile the reading left out (a doubtful end tile offered as an indicator): add it
    if (role !== "other") state.tiles.push({ face: readFace(detIndex), role, meld: null, det: detIndex });
  } else if (role === "other") state.tiles = state.tiles.filter((x) => x !== t);
  else { t.role = role; t.meld = null; }
}

function removeTile(tile) {
  state.tiles = state.tiles.filter((t) => t !== tile);
  if (tile.role === "meld") {
    const rest = tilesOf("meld", tile.meld);
    if (!rest.length) {
      state.melds.splice(tile.meld, 1);
      state.tiles.forEach((t) => { if (t.role === "meld" && t.meld > tile.meld) t.meld -= 1; });
    } else state.melds[tile.meld] = inferMeld(rest.map((t) => t.face), state.melds[tile.meld]);
  }
  afterEdit();
}

function openPalette(tile, detIndex = null, mode = null) {
  // The tile sheet: the tile's role, its likeliest faces, every face. mode.add: a new tile for that role.
  const dlg = $("palette");
  const det = detIndex !== null ? state.read.detections[detIndex] : tile && tile.det !== null && state.read
    ? state.read.detections[tile.det] : null;
  const current = mode && mode.add ? null : tile ? tile.face : det ? det.class : null;
  const where = tile ? ROLE_LABEL[tile.role] : "not used in the hand";
  $("palette-title").textContent = mode && mode.add ? `${t_("Add a tile")}: ${t_(ROLE_LABEL[mode.add])}`
    : current ? `${tileName(current)} — ${t_(where)}` : t_("Choose a tile");
  const pick = (face) => {
    dlg.close();
    if (mode && mode.add) { addPicked(face, mode.add, mode.at); return; }
    if (tile) {
      const was = tile.face;
      tile.face = face;
      tile.fixed = true;
      if (tile.det !== null) resolveTile(tile.det);
      if (tile.role === "meld") state.melds[tile.meld] = inferMeld(tilesOf("meld", tile.meld).map((t) => t.face),
        state.melds[tile.meld]);
      say(`${tileName(was)} → ${tileName(face)}.`);
      afterEdit();
    } else if (detIndex !== null) setDetectionFace(detIndex, face);
  };
  renderRoles(tile, detIndex, mode);
  const top = $("palette-top");
  top.replaceChildren();
  const topk = det && !(mode && mode.add) && Array.isArray(det.topk)
    ? det.topk.filter((x) => Array.isArray(x) && x[0] !== "?") : [];
  if (topk.length) {
    top.append(el("p", "note", t_("Most likely")));
    const row = el("div", "palette-row");
    topk.forEach(([face, p]) => {
      const b = paletteButton(face, pick, face === current);
      b.append(el("small", "", `${Math.round(p * 100)}%`));
      row.append(b);
    });
    top.append(row);
  }
  const actions = $("palette-actions");
  actions.replaceChildren();
  if (tile) {
    const b = el("button", "btn small danger", t_("Remove"));
    b.type = "button";
    b.addEventListener("click", () => { dlg.close(); removeTile(tile); say(`${tileName(tile.face)}: ${t_("removed")}.`); });
    actions.append(b);
  }
  const all = $("palette-all");
  all.replaceChildren();
  ALL_FACES.forEach((face) => {
    all.append(paletteButton(face, pick, face === current));
    if (face === "7z") all.append(el("span", "pal-gap"), el("span", "pal-gap"));  // red fives on their own row
  });
  if (typeof dlg.showModal === "function") dlg.showModal(); else dlg.setAttribute("open", "");
}

function paletteButton(face, pick, current) {
  const b = el("button", `pal${current ? " current" : ""}`);
  b.type = "button";
  b.dataset.face = face;
  b.setAttribute("aria-label", tileName(face));
  b.append(tileEl(face));
  b.addEventListener("click", () => pick(face));
  return b;
}

// ---------------------------------------------------------------- typed input
function relinkRole(role, faces) {
  const old = tilesOf(role);
  state.tiles = state.tiles.filter((t) => t.role !== role);
  const pool = [...old];
  faces.forEach((face) => {
    const k = pool.findIndex((t) => t.face === face);
    const prev = k >= 0 ? pool.splice(k, 1)[0] : null;
    state.tiles.push({ face, role, meld: null, det: prev ? prev.det : null, fixed: prev ? prev.fixed : false });
  });
}

function parseMelds(text) {
  const groups = String(text || "").split(/[\s,;]+/).filter(Boolean);
  return groups.map((g) => {
    const closed = /^\[.*\]$/.test(g);
    const faces = parseMPSZ(closed ? g.slice(1, -1) : g);
    if (faces.length < 3 || faces.length > 4) throw new Error(`${g}: a meld has 3 or 4 tiles`);
    const m = inferMeld(faces, null);
    if (m.type === "kan") m.open = !closed;
    return { meta: m, faces };
  });
}

function onTyped(event) {
  const input = event.target;
  try {
    if (input.id === "in-hand") relinkRole("hand", parseMPSZ(input.value));
    else if (input.id === "in-win") {
      const f = parseMPSZ(input.value);
      if (f.length > 1) throw new Error("one winning tile");
      relinkRole("win", f);
    } else if (input.id === "in-dora") relinkRole("dora", parseMPSZ(input.value));
    else if (input.id === "in-nuki") relinkRole("nuki", parseMPSZ(input.value));
    else if (input.id === "in-melds") {
      const melds = parseMelds(input.value);
      const old = tilesOf("meld");
      state.tiles = state.tiles.filter((t) => t.role !== "meld");
      state.melds = melds.map((m) => m.meta);
      melds.forEach((m, i) => m.faces.forEach((face) => {
        const k = old.findIndex((t) => t.face === face);
        const prev = k >= 0 ? old.splice(k, 1)[0] : null;
        state.tiles.push({ face, role: "meld", meld: i, det: prev ? prev.det : null });
      }));
    } else if (input.id === "in-ura") relinkRole("ura", parseMPSZ(input.value));
    input.classList.remove("invalid");
    input.title = "";
  } catch (e) {
    input.classList.add("invalid");
    input.title = e.message;
    showScoreError({ code: "bad_tile", message: e.message, field: input.id.replace("in-", "") });
    return;
  }
  recordEdit(input.id);
  renderHandTiles();
  renderBoxes();
  scheduleScore(300);
}

// ---------------------------------------------------------------- rulesets and context
function fillWinds() {
  const players = state.ruleset ? state.ruleset.players : 4;
  for (const [id, winds] of [["seat-wind", WINDS.slice(0, players)], ["round-wind", WINDS]]) {
    const sel = $(id);
    const prev = sel.value || "east";
    sel.replaceChildren(...winds.map((w) => {
      const o = el("option", "", t_(WIND_LABEL[w]) + (id === "seat-wind" && w === "east" ? ` — ${t_("dealer")}` : ""));
      o.value = w;
      return o;
    }));
    sel.value = winds.includes(prev) ? prev : "east";
  }
  dealerNote();
}

function dealerNote() {
  // the dealer follows from the seat wind: say so, so that East is never taken silently
  const east = $("seat-wind").value === "east";
  $("dealer-note").textContent = east ? t_("Seat wind East: the winner is the dealer (親).")
    : t_("The winner is not the dealer (子); the dealer sits East.");
}

function renderFlags() {
  const box = $("flags");
  const checked = new Set([...box.querySelectorAll("input:checked")].map((c) => c.value));
  box.querySelectorAll("label").forEach((l) => l.remove());
  const win = document.querySelector("input[name=win]:checked").value;
  const rank = (f) => (FLAG_ORDER.includes(f) ? FLAG_ORDER.indexOf(f) : FLAG_ORDER.length);
  const flags = (state.ruleset ? state.ruleset.flags : []).filter((f) =>
    !(win === "ron" && TSUMO_ONLY.has(f)) && !(win === "tsumo" && RON_ONLY.has(f)))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  flags.forEach((f) => {
    const l = el("label", "chip");
    const c = el("input");
    c.type = "checkbox";
    c.value = f;
    c.checked = checked.has(f);
    c.addEventListener("change", () => { onFlagsChanged(); scheduleScore(0); });
    l.append(c, el("span", "", FLAG_LABEL[f] || f.replace(/_/g, " ")));
    box.append(l);
  });
  onFlagsChanged();
}

function onFlagsChanged() {
  const flags = new Set([...document.querySelectorAll("#flags input:checked")].map((c) => c.value));
  $("ura-field").hidden = !(flags.has("riichi") || flags.has("double_riichi") || flags.has("open_riichi"));
}

function optionDefault(o) { return o.default; }

// options about the game (its end, its settlement, what is legal at the table), not this hand's score
const GAME_OPTIONS = new Set(["start_points", "c_top_banned", "bust_requires_top", "forbidden_valid_all_last",
  "bust_partial_payment", "same_turn_missed_ron", "yakuman_bonus"]);

function isGameOption(o) {
  return GAME_OPTIONS.has(o.name) || /^settlement\b/.test(o.meaning || "");
}

function optionTitle(name) {
  const words = name.replace(/_/g, " ");
  return words[0].toUpperCase() + words.slice(1);
}

function renderOptions() {
  const box = $("options");
  box.replaceChildren();
  $("game-options").replaceChildren();
  const rs = state.ruleset;
  const opts = rs ? rs.options : [];
  $("options-box").hidden = !opts.length;
  const presets = rs ? Object.keys(rs.presets || {}) : [];
  $("preset-field").hidden = !presets.length;
  const psel = $("preset");
  psel.replaceChildren(el("option", "", "—"), ...presets.map((p) => { const o = el("option", "", p); o.value = p; return o; }));
  psel.firstChild.value = "";
  opts.forEach((o) => {
    const value = o.name in state.options ? state.options[o.name] : optionDefault(o);
    const row = el("div", "opt");
    const label = el("label", "");
    const title = el("span", "oname", optionTitle(o.name));
    const meaning = el("small", "", o.meaning || "");
    let input;
    const set = (v) => {
      if (JSON.stringify(v) === JSON.stringify(o.default)) delete state.options[o.name];
      else state.options[o.name] = v;
      updateOptionsCount();
      saveSettings();
      scheduleScore(200);
    };
    if (o.choices && o.choices.length) {
      input = el("select");
      o.choices.forEach((c) => { const op = el("option", "", String(c)); op.value = JSON.stringify(c); input.append(op); });
      input.value = JSON.stringify(value);
      input.addEventListener("change", () => set(JSON.parse(input.value)));
    } else if (o.type === "bool") {
      input = el("input");
      input.type = "checkbox";
      input.checked = !!value;
      input.addEventListener("change", () => set(input.checked));
      label.classList.add("check");
    } else if (o.type === "int" || o.type === "float") {
      input = el("input");
      input.type = "number";
      input.value = String(value);
      input.addEventListener("change", () => set(o.type === "int" ? parseInt(input.value, 10) || 0 : Number(input.value)));
    } else if (o.type === "object" && value && typeof value === "object" &&
               Object.values(value).every((v) => typeof v === "number")) {
      input = el("span", "kv");
      Object.entries(value).forEach(([k, v]) => {
        const inner = el("label", "kvi");
        const n = el("input");
        n.type = "number";
        n.min = "0";
        n.value = String(v);
        n.setAttribute("aria-label", `${o.name} ${k}`);
        n.addEventListener("change", () => {
          const cur = { ...(o.name in state.options ? state.options[o.name] : o.default) };
          cur[k] = parseInt(n.value, 10) || 0;
          set(cur);
        });
        inner.append(el("span", "", k), n);
        input.append(inner);
      });
    } else {
      input = el("input");
      input.type = "text";
      input.value = typeof value === "string" ? value : JSON.stringify(value);
      input.addEventListener("change", () => {
        let v = input.value;
        if (o.type !== "str") { try { v = JSON.parse(v); } catch (e) { input.classList.add("invalid"); return; } }
        input.classList.remove("invalid");
        set(v);
      });
    }
    input.dataset.option = o.name;
    if (label.classList.contains("check")) label.append(input, title);
    else label.append(title, input);
    row.append(label, meaning);
    (isGameOption(o) ? $("game-options") : box).append(row);
  });
  $("game-options-box").hidden = !$("game-options").childElementCount;
  $("hand-options-title").hidden = $("game-options-box").hidden;
  updateOptionsCount();
}

function updateOptionsCount() {
  const n = Object.keys(state.options).length;
  $("options-count").textContent = n ? `(${n} changed)` : "(defaults)";
}

function selectRuleset(id, options = {}) {
  state.ruleset = state.rulesets.find((r) => r.id === id) || state.rulesets[0] || null;
  const known = new Set(state.ruleset ? state.ruleset.options.map((o) => o.name) : []);
  state.options = Object.fromEntries(Object.entries(options || {}).filter(([k]) => known.has(k)));
  $("nuki-field").hidden = !(state.ruleset && state.ruleset.players === 3) && !tilesOf("nuki").length;
  // Jun counts no honba and no deposits; riichi deposits exist only in riichi mahjong
  const rid = state.ruleset ? state.ruleset.id : "";
  $("honba-field").hidden = rid === "jun";
  $("sticks-field").hidden = rid !== "riichi";
  fillWinds();
  renderFlags();
  renderOptions();
}

// ---------------------------------------------------------------- scoring
function scheduleScore(delay) {
  clearTimeout(state.scoreTimer);
  state.scoreTimer = setTimeout(score, delay);
}

async function score() {
  const bad = document.querySelector("#hand-typing input.invalid");
  if (bad) {
    state.scoreSeq += 1;  // drop answers still on their way
    showScoreError({ code: "bad_tile", message: bad.title, field: bad.id.replace("in-", "") });
    return;
  }
  const hand = buildHand();
  if (!hand.hand && !hand.melds.length) {
    $("score").replaceChildren(el("p", "note", "Take a photo or type a hand to see its score."));
    $("score").dataset.total = "";
    setScoreBar("");
    return;
  }
  const seq = ++state.scoreSeq;
  $("score-card").classList.add("busy");
  let body;
  let status = 0;
  try {
    const r = await fetch("/v1/score", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(hand) });
    status = r.status;
    body = await r.json();
  } catch (e) {
    body = { error: { code: "network", message: "" } };
  }
  if (seq !== state.scoreSeq) return;
  $("score-card").classList.remove("busy");
  if (body && body.error) showScoreError(body.error, status);
  else { renderScore(body); state.lastScore = { score: body, hand }; $("share-row").hidden = false; }
  priceChoices(seq);
}

function setScoreBar(text, bad) {
  const bar = $("score-bar");
  bar.hidden = !text;
  bar.classList.toggle("bad", !!bad);
  $("score-bar-text").textContent = text || "";
}

function showScoreError(err) {
  const box = $("score");
  const div = el("div", "error");
  const text = err.code === "bad_tile" && err.field ? err.message : scoreErrorText(err);
  div.append(el("strong", "", t_("Cannot score this hand")));
  div.append(el("p", "", text));
  box.replaceChildren(div);
  box.dataset.total = "";
  box.dataset.code = err.code || "";
  state.lastScore = null;
  $("share-row").hidden = true;
  setScoreBar(`${t_("Cannot score")}: ${text}`, true);
  if (err.code === "too_many_red_fives") {
    const fix = el("button", "btn small", t_("Make them plain fives"));
    fix.type = "button";
    fix.addEventListener("click", () => remapForRules());
    div.append(fix);
  }
}

function fmtNum(n) { return Number(n).toLocaleString("en-US"); }

function renderScore(s) {
  const box = $("score");
  box.replaceChildren();
  box.dataset.total = String(s.total);
  const head = el("div", "total");
  head.append(el("span", "points", fmtNum(s.total)), el("span", "unit", "points"));
  box.append(head);
  box.dataset.code = "";
  const parts = [];
  if (s.limit) parts.push(`${s.limit.replace(/_/g, " ")}${LIMIT_JA[s.limit] ? " " + LIMIT_JA[s.limit] : ""}`);
  if (s.han) parts.push(`${s.han} han 翻`);
  if (s.han && s.fu) parts.push(`${s.fu} fu 符`);
  if (s.wait) parts.push(`wait: ${s.wait}`);
  if (parts.length) box.append(el("p", "summary", parts.join(" · ")));
  setScoreBar(`${fmtNum(s.total)} points${s.limit ? " · " + s.limit.replace(/_/g, " ") : s.han ? ` · ${s.han} han${s.fu ? ` ${s.fu} fu` : ""}` : ""}`);

  // payments, equal ones grouped
  const pay = el("ul", "payments");
  const groups = [];
  (s.payments || []).forEach((p) => {
    const g = groups.find((x) => x.from === p.from && x.amount === p.amount);
    if (g) g.n += 1; else groups.push({ from: p.from, amount: p.amount, n: 1 });
  });
  groups.forEach((g) => {
    const who = PAYER[g.from] || g.from;
    pay.append(el("li", "", g.n > 1 ? `${who} ×${g.n}: ${fmtNum(g.amount)} each` : `${who} pays ${fmtNum(g.amount)}`));
  });
  box.append(pay);

  if ((s.yaku || []).length) {
    box.append(el("h3", "", "Yaku 役"));
    const ul = el("ul", "yaku");
    s.yaku.forEach((y) => {
      const li = el("li", "");
      const name = el("span", "yname");
      if (y.name_ja) { const ja = el("span", "ja", y.name_ja); ja.lang = "ja"; name.append(ja); }
      name.append(el("span", "en", y.name));
      const unit = { han: "han", yakuman: "yakuman", points: "pt" }[y.unit] || y.unit;
      // value is the yaku's total; count says how many tiles or sets gave it
      const count = y.count && y.count > 1 ? ` (${y.count} ${t_("tiles")})` : "";
      li.append(name, el("span", "yval", `${y.value} ${unit}${count}`));
      ul.append(li);
    });
    box.append(ul);
  }
  if ((s.items || []).length) {
    box.append(el("h3", "", "Other items"));
    const ul = el("ul", "yaku items");
    s.items.forEach((it) => {
      const li = el("li", "");
      li.append(el("span", "yname", `${it.id.replace(/_/g, " ")}${it.detail ? " — " + it.detail : ""}`),
        el("span", "yval", fmtNum(it.value)));
      ul.append(li);
    });
    box.append(ul);
  }
  if ((s.fu_details || []).length) {
    const d = el("details", "fu");
    d.append(el("summary", "", `Fu 符: ${s.fu}`));
    d.hidden = !s.fu;
    const ul = el("ul", "yaku");
    s.fu_details.forEach((f) => {
      const li = el("li", "");
      li.append(el("span", "yname", f.label || f.reason), el("span", "yval", `${f.fu}`));
      ul.append(li);
    });
    d.append(ul);
    box.append(d);
  }
  if ((s.decomposition || []).length) {
    box.append(el("h3", "", "Sets"));
    const row = el("div", "sets");
    s.decomposition.forEach((set) => {
      const g = el("span", "set");
      try { parseMPSZ(set).forEach((f) => g.append(tileEl(f, "mini"))); } catch (e) { g.textContent = set; }
      row.append(g);
    });
    box.append(row);
  }
  if ((s.explanation || []).length) {
    const d = el("details", "explain");
    d.open = true;
    d.append(el("summary", "", "How it adds up"));
    const ol = el("ol", "steps");
    s.explanation.forEach((st) => {
      const li = el("li", "");
      li.append(el("b", "", st.label), document.createTextNode(" " + st.detail));
      ol.append(li);
    });
    d.append(ol);
    box.append(d);
  }
  if ((s.warnings || []).length) {
    const ul = el("ul", "problems");
    s.warnings.forEach((w) => ul.append(el("li", "", w)));
    box.append(ul);
  }
}

// ---------------------------------------------------------------- photos
const SEND_LONG_SIDE = 2000;   // px: the long side a photo is shrunk to before upload (the reader works near 1000)
const SEND_QUALITY = 0.9;      // JPEG quality of the shrunk photo

async function shrinkImage(file) {
  // The photo at most SEND_LONG_SIDE px long, as JPEG: a 12–50 MP photo uploads in a second, not 12.
  // null when the browser cannot decode it (HEIC in most browsers): the file goes as it is.
  let bitmap;
  try { bitmap = await createImageBitmap(file, { imageOrientation: "from-image" }); } catch (e) { return null; }
  const scale = Math.min(1, SEND_LONG_SIDE / Math.max(bitmap.width, bitmap.height));
  if (scale === 1 && file.size < 1.5e6 && /jpeg|png|webp/.test(file.type)) { bitmap.close(); return null; }
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(bitmap.width * scale);
  canvas.height = Math.round(bitmap.height * scale);
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const blob = await new Promise((res) => canvas.toBlob(res, "image/jpeg", SEND_QUALITY));
  return blob && blob.size < file.size ? blob : null;
}

function postPhoto(form, onProgress) {
  // XMLHttpRequest, not fetch: fetch reports no upload progress
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/v1/read");
    xhr.responseType = "text";
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
    xhr.upload.onload = () => onProgress(1);
    xhr.onload = () => {
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch (e) { body = null; }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => resolve({ status: 0, body: null });
    xhr.ontimeout = () => resolve({ status: 0, body: { error: { code: "timeout" } } });
    xhr.timeout = 120000;
    xhr.send(form);
  });
}

// each photo read gets a number: the answer to an older one, arriving late, is dropped
let readSeq = 0;

function failedRead(msg) {
  // A clear state: the old photo, its tiles and its score go (Undo brings them back); typed tiles stay.
  const fromPhoto = !!state.read;
  state.read = null;
  $("photo-view").hidden = true;
  $("photo-status").textContent = "";
  $("photo-failed").hidden = false;
  $("photo-failed-text").textContent = msg;
  if (fromPhoto) { state.tiles = []; state.melds = []; state.resolved = new Set(); }
  $("photo-failed-kept").textContent = fromPhoto ? t_("The previous photo's hand was cleared (Undo brings it back).")
    : state.tiles.length ? t_("The tiles you entered are kept.") : "";
  afterEdit();
}

function setProgress(text, fraction) {
  $("upload-progress").hidden = fraction === null;
  if (fraction !== null) $("upload-bar").value = Math.round(100 * fraction);
  $("upload-time").textContent = text;
}

async function readPhoto(file, again = false) {
  const status = $("photo-status");
  if (!file) return;
  const seq = ++readSeq;
  const t0 = performance.now();
  const secs = () => ((performance.now() - t0) / 1000).toFixed(1);
  status.className = "note";
  $("photo-failed").hidden = true;
  status.textContent = t_("Preparing the photo…");
  let upload = state.upload && again ? state.upload : null;
  if (!upload) {
    upload = (await shrinkImage(file)) || file;
    if (seq !== readSeq) return;
    state.upload = upload;
  }
  const max = state.info ? state.info.max_upload_bytes : 15e6;
  if (upload.size > max) {
    if (seq === readSeq) failedRead(t_(PHOTO_ERRORS.file_too_large));
    return;
  }
  $("photo-card").classList.add("busy");
  const form = new FormData();
  form.append("file", upload, upload === file ? file.name || "photo.jpg" : "photo.jpg");
  form.append("rules", state.ruleset ? state.ruleset.id : "riichi");
  form.append("preview", "plain");
  let phase = "upload";
  const tick = setInterval(() => {
    if (seq === readSeq && phase === "read") setProgress(`${t_("Reading the tiles…")} ${secs()} s`, 1);
  }, 200);
  const onProgress = (f) => {
    if (seq !== readSeq) return;
    if (f >= 1) phase = "read";
    setProgress(f >= 1 ? `${t_("Reading the tiles…")} ${secs()} s`
      : `${t_("Sending")} ${Math.round((upload.size * f) / 1e3)} / ${Math.round(upload.size / 1e3)} kB · ${secs()} s`, f);
  };
  onProgress(0);
  status.textContent = "";
  const { status: code, body: raw } = await postPhoto(form, onProgress);
  clearInterval(tick);
  if (seq !== readSeq) return;
  $("photo-card").classList.remove("busy");
  setProgress("", null);
  const body = raw || { error: { code: code === 0 ? "network" : code === 413 ? "payload_too_large" : "server" } };
  if (code < 200 || code >= 300 || body.error) {
    const err = body.error || {};
    failedRead(photoErrorText(err.code, err.message, code));
    return;
  }
  state.read = body;
  state.resolved = new Set();
  state.highlight = null;
  $("photo-img").src = body.preview || "";
  $("photo-view").hidden = !body.preview;
  const n = (body.detections || []).length;
  const server = body.timings_ms && body.timings_ms.total ? (body.timings_ms.total / 1000).toFixed(1) : null;
  status.textContent = t_("{n} tiles found in {s} s", { n, s: secs() }) +
    (server ? ` (${t_("reading")} ${server} s)` : "") + ".";
  state.wholePhoto = false;
  state.allAlternatives = false;
  $("hand-typing").open = false;
  if (body.hand) setStructure(body.hand);
  else if (state.tiles.length) status.textContent += " " + t_("No hand was read from it: the tiles you entered are kept.");
  else status.textContent += " " + t_("No hand was read from it.");
  $("nuki-field").hidden = !(state.ruleset && state.ruleset.players === 3) && !tilesOf("nuki").length;
  $("ruleset-note").textContent = "";
  afterEdit();
}

// ---------------------------------------------------------------- start
function example() {
  setStructure({ hand: EXAMPLE.hand, win_tile: EXAMPLE.win, melds: [], dora_indicators: EXAMPLE.dora });
  afterEdit();
}

function stepper(id, minus, plus, max) {
  const set = (v) => { $(id).value = String(Math.max(0, Math.min(max, v))); scheduleScore(0); };
  $(id).addEventListener("input", () => scheduleScore(300));
  $(minus).addEventListener("click", () => set((+$(id).value || 0) - 1));
  $(plus).addEventListener("click", () => set((+$(id).value || 0) + 1));
}

async function start() {
  applyLanguage();
  for (const id of ["camera", "picker"]) {
    $(id).addEventListener("change", (e) => { const f = e.target.files[0]; e.target.value = ""; readPhoto(f); });
    $(`btn-${id}`).addEventListener("click", () => $(id).click());
  }
  $("btn-retry").addEventListener("click", () => $("picker").click());
  $("btn-type").addEventListener("click", () => { $("hand-typing").open = true; $("in-hand").focus(); });
  for (const id of ["in-hand", "in-win", "in-melds", "in-dora", "in-ura", "in-nuki"]) {
    $(id).addEventListener("input", onTyped);
  }
  $("btn-example").addEventListener("click", example);
  $("btn-clear").addEventListener("click", () => {
    state.tiles = []; state.melds = []; state.read = null; state.resolved = new Set(); state.upload = null;
    $("photo-view").hidden = true; $("photo-status").textContent = ""; $("photo-failed").hidden = true;
    afterEdit();
  });
  document.querySelectorAll("input[name=win]").forEach((r) => r.addEventListener("change", () => {
    renderFlags(); scheduleScore(0);
  }));
  for (const id of ["seat-wind", "round-wind"]) {
    $(id).addEventListener("change", () => { dealerNote(); saveSettings(); scheduleScore(0); });
  }
  stepper("honba", "honba-minus", "honba-plus", 999);
  stepper("sticks", "sticks-minus", "sticks-plus", 99);
  $("ruleset").addEventListener("change", (e) => {
    const saved = loadSettings().options || {};
    selectRuleset(e.target.value, saved[e.target.value]);
    saveSettings();
    remapForRules().then(() => scheduleScore(0));
  });
  $("preset").addEventListener("change", (e) => {
    const p = state.ruleset && state.ruleset.presets[e.target.value];
    state.options = {};
    if (p) for (const o of state.ruleset.options) {
      if (o.name in p && JSON.stringify(p[o.name]) !== JSON.stringify(o.default)) state.options[o.name] = p[o.name];
    }
    const keep = e.target.value;
    renderOptions();
    saveSettings();
    $("preset").value = keep;
    scheduleScore(0);
  });
  $("btn-whole").addEventListener("click", () => { state.wholePhoto = !state.wholePhoto; renderBoxes(); });
  $("btn-zoom").addEventListener("click", () => {
    const on = $("photo-view").classList.toggle("zoomed");
    $("btn-zoom").setAttribute("aria-pressed", String(on));
  });
  $("score-bar").addEventListener("click", () => $("score-card").scrollIntoView({ behavior: "smooth" }));
  $("palette").addEventListener("click", (e) => { if (e.target === $("palette")) $("palette").close(); });
  startSheet();
  startShare();

  try {
    const [rs, info] = await Promise.all([fetch("/v1/rulesets").then((r) => r.json()),
      fetch("/v1/info").then((r) => r.json()).catch(() => null)]);
    state.rulesets = rs.rulesets || [];
    state.info = info;
    if (!state.rulesets.length) throw new Error("no rules");
  } catch (e) {
    $("score").replaceChildren(el("p", "error", t_("The server could not be reached. Check the Wi-Fi and try again.")));
  }
  const sel = $("ruleset");
  sel.replaceChildren(...state.rulesets.map((r) => {
    const o = el("option", "", `${r.name} · ${r.name_ja}`);
    o.value = r.id;
    return o;
  }));
  const saved = loadSettings();
  const first = state.rulesets.some((r) => r.id === saved.ruleset) ? saved.ruleset : "riichi";
  selectRuleset(first, (saved.options || {})[first]);
  sel.value = state.ruleset ? state.ruleset.id : "";
  for (const [id, v] of [["seat-wind", saved.seat], ["round-wind", saved.round]]) {
    if (v && [...$(id).options].some((o) => o.value === v)) $(id).value = v;
  }
  dealerNote();
  if (state.info && !state.info.photo_reading) {
    const s = $("photo-status");
    s.textContent = t_("Photo reading is not available on this server; you can still type a hand.");
    s.className = "note bad";
    for (const id of ["btn-camera", "btn-picker"]) $(id).disabled = true;
    $("hand-typing").open = true;
  }
  if ("IntersectionObserver" in window) {
    new IntersectionObserver((entries) => {
      entries.forEach((e) => document.body.classList.toggle("score-visible", e.isIntersecting));
    }, { threshold: 0.15 }).observe($("score-card"));
  }
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => { /* the page works without it */ });
  }
  recordEdit();
  renderAll();
  document.body.classList.add("ready");
}

document.addEventListener("DOMContentLoaded", start);

// "Add to game": the scored hand goes to the game view (game.js picks it up from localStorage)
document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("btn-add-game").addEventListener("click", () => {
    if (!state.lastScore) return;
    localStorage.setItem("paiscan.addToGame", JSON.stringify(state.lastScore));
    location.href = "/static/game.html";
  });
});

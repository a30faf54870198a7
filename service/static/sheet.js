// paiscan page, editing: undo, adding tiles (in a group or on the photo), a tile's role, the meld
// editor, and re-mapping the tiles when the rules change after the photo. Uses app.js's state and helpers.
"use strict";

const UNDO_MAX = 100;

// ---------------------------------------------------------------- undo
function snapshot() {
  return {
    tiles: state.tiles.map((t) => ({ ...t })),
    melds: state.melds.map((m) => ({ ...m })),
    resolved: [...state.resolved],
    read: state.read,
    dets: state.read ? state.read.detections.slice() : null,
  };
}

function snapKey(s) {
  return JSON.stringify([s.tiles, s.melds, s.dets ? s.dets.length : -1, s.read ? 1 : 0]);
}

function recordEdit(coalesce = "") {
  // Called after each edit: the hand as it was before goes on the undo stack. Typing in one field
  // counts as one edit.
  const now = snapshot();
  if (state.snap && snapKey(state.snap) !== snapKey(now)) {
    if (!(coalesce && state.lastCoalesce === coalesce)) {
      state.undo.push(state.snap);
      if (state.undo.length > UNDO_MAX) state.undo.shift();
    }
  }
  state.lastCoalesce = coalesce;
  state.snap = now;
  $("btn-undo").disabled = !state.undo.length;
}

function undo() {
  const s = state.undo.pop();
  if (!s) return;
  state.tiles = s.tiles.map((t) => ({ ...t }));
  state.melds = s.melds.map((m) => ({ ...m }));
  state.resolved = new Set(s.resolved);
  if (s.read !== state.read) {
    state.read = s.read;
    $("photo-img").src = (s.read && s.read.preview) || "";
    $("photo-view").hidden = !(s.read && s.read.preview);
    $("photo-failed").hidden = true;
  }
  if (state.read && s.dets) state.read.detections = s.dets.slice();
  state.snap = snapshot();
  state.lastCoalesce = "";
  $("btn-undo").disabled = !state.undo.length;
  say(t_("Undone."));
  renderAll();
  scheduleScore(0);
}

function say(text) {
  $("edit-note").textContent = text || "";
}

// ---------------------------------------------------------------- adding tiles and roles
const ROLE_ORDER = ["hand", "win", "meld", "dora", "ura", "nuki", "other"];
const ROLE_SHORT = { hand: "Hand", win: "Winning tile", meld: "Meld…", dora: "Dora", ura: "Ura", nuki: "Set aside",
  other: "Not a tile" };

function rolesOffered() {
  return ROLE_ORDER.filter((r) => (r !== "nuki" || (state.ruleset && state.ruleset.players === 3) ||
    tilesOf("nuki").length) && (r !== "ura" || uraAllowed() || tilesOf("ura").length));
}

function addTile(role, at = null) {
  // The palette in "add" mode: the face picked joins `role`; `at` is a point on the photo (image pixels)
  // where the player tapped a tile the localizer missed.
  openPalette(null, null, { add: role, at });
}

function addPicked(face, role, at) {
  let det = null;
  if (at && state.read) {
    const dets = state.read.detections;
    const sizes = dets.map((d) => [d.box[2] - d.box[0], d.box[3] - d.box[1]]);
    const med = (k) => { const v = sizes.map((s) => s[k]).sort((a, b) => a - b); return v.length ? v[v.length >> 1] : 40; };
    const w = med(0), h = med(1);
    dets.push({ class: face, confidence: null, box: [at.x - w / 2, at.y - h / 2, at.x + w / 2, at.y + h / 2],
      topk: [], added: true });
    det = dets.length - 1;
  }
  if (role === "win") tilesOf("win").forEach((t) => { t.role = "hand"; });
  state.tiles.push({ face, role, meld: null, det, fixed: true });
  say(`${t_("Added")} ${tileName(face)} → ${t_(ROLE_LABEL[role] || role)}.`);
  afterEdit();
}

function setTileRole(tile, role) {
  // Move a tile (or an unused box, tile null + det) to another role; "meld" opens the meld editor.
  if (role === "meld") { openMeldEditor(null, tile); return; }
  if (!tile) return;
  const was = tile.role;
  if (role === "other") {
    removeTile(tile);
    say(`${tileName(tile.face)}: ${t_("not a tile of the hand")}.`);
    return;
  }
  if (was === "meld") leaveMeld(tile);
  if (role === "win") tilesOf("win").forEach((t) => { if (t !== tile) t.role = "hand"; });
  tile.role = role;
  tile.meld = null;
  tile.fixed = true;
  if (tile.det !== null && tile.det !== undefined) resolveTile(tile.det);
  say(`${tileName(tile.face)} → ${t_(ROLE_LABEL[role])}.`);
  afterEdit();
}

function leaveMeld(tile) {
  // take `tile` out of its meld: the meld's other tiles go to the hand (a meld is 3 or 4 tiles)
  const i = tile.meld;
  state.tiles.forEach((t) => { if (t.role === "meld" && t.meld === i && t !== tile) { t.role = "hand"; t.meld = null; } });
  dropMeld(i);
}

function dropMeld(i) {
  state.melds.splice(i, 1);
  state.tiles.forEach((t) => { if (t.role === "meld" && t.meld > i) t.meld -= 1; });
}

function renderRoles(tile, detIndex, mode) {
  const box = $("palette-roles");
  box.replaceChildren();
  if (mode && mode.add) { box.hidden = true; return; }
  box.hidden = false;
  const current = tile ? tile.role : "other";
  rolesOffered().forEach((r) => {
    const b = el("button", `btn small role${r === current ? " chosen" : ""}`, t_(ROLE_SHORT[r]));
    b.type = "button";
    b.dataset.role = r;
    b.setAttribute("role", "radio");
    b.setAttribute("aria-checked", String(r === current));
    b.addEventListener("click", () => {
      if (r === current && r !== "meld") return;
      $("palette").close();
      if (!tile && detIndex !== null) {
        if (r === "other") return;
        if (r === "meld") { openMeldEditor(null, { face: readFace(detIndex), det: detIndex, role: "other" }); return; }
        applyRole(detIndex, r);
        say(`${tileName(readFace(detIndex))} → ${t_(ROLE_LABEL[r])}.`);
        afterEdit();
        return;
      }
      setTileRole(tile, r);
    });
    box.append(b);
  });
}

function onPhotoTap(event) {
  // A tap on the photo outside every box: a tile the localizer missed; add it there.
  if (event.target !== $("boxes") || !state.read || !state.read.image) return;
  const r = $("boxes").getBoundingClientRect();
  const crop = cropRect(state.read);
  const at = { x: crop.x + ((event.clientX - r.left) / r.width) * crop.w,
    y: crop.y + ((event.clientY - r.top) / r.height) * crop.h };
  addTile("hand", at);
}

// ---------------------------------------------------------------- the meld editor
const meldDraft = { index: null, type: "pon", kan: "open", from: "", base: "5z", tile: null, reds: [] };

function meldFaces(d) {
  const k = kindOf(d.base);
  const n = Number(k[0]), s = k[1];
  let faces;
  if (d.type === "chi") faces = [0, 1, 2].map((j) => `${n + j}${s}`);
  else faces = Array(d.type === "kan" ? 4 : 3).fill(k);
  // a red five keeps its place: the base when it was picked red, else the old meld's
  const reds = [...d.reds];
  if (d.base[0] === "0") reds.push(d.base);
  return faces.map((f) => {
    const r = reds.findIndex((x) => kindOf(x) === f);
    if (r >= 0) { reds.splice(r, 1); return `0${f[1]}`; }
    return f;
  });
}

function chiOk(face) {
  const k = kindOf(face);
  return k[1] !== "z" && Number(k[0]) <= 7;
}

function openMeldEditor(index, fromTile = null) {
  const d = meldDraft;
  d.index = index;
  d.tile = fromTile;
  if (index !== null) {
    const m = state.melds[index];
    const faces = tilesOf("meld", index).map((t) => t.face).sort((a, b) => faceKey(a) - faceKey(b));
    d.type = m.type;
    d.kan = m.type === "kan" ? (m.open === false ? "closed" : m.added ? "added" : "open") : "open";
    d.from = m.from || "";
    d.base = kindOf(faces[0] || "5z");
    d.reds = faces.filter((f) => f[0] === "0");
  } else {
    d.type = "pon";
    d.kan = "open";
    d.from = "";
    d.base = fromTile ? fromTile.face : "5z";
    d.reds = [];
  }
  $("meld-title").textContent = index === null ? t_("New meld") : `${t_("Meld")} ${index + 1}`;
  $("meld-delete").hidden = index === null;
  document.querySelectorAll("input[name=meld-type]").forEach((r) => { r.checked = r.value === d.type; });
  document.querySelectorAll("input[name=meld-kan]").forEach((r) => { r.checked = r.value === d.kan; });
  $("meld-from").value = d.from;
  renderMeldDraft();
  const dlg = $("meld-editor");
  if (typeof dlg.showModal === "function") dlg.showModal(); else dlg.setAttribute("open", "");
}

function renderMeldDraft() {
  const d = meldDraft;
  if (d.type === "chi" && !chiOk(d.base)) d.base = "1" + (kindOf(d.base)[1] === "z" ? "m" : kindOf(d.base)[1]);
  $("meld-kan-kind").hidden = d.type !== "kan";
  $("meld-from").disabled = d.type === "kan" && d.kan === "closed";
  const prev = $("meld-preview");
  prev.replaceChildren(...meldFaces(d).map((f) => tileEl(f, "mini")));
  const grid = $("meld-tiles");
  grid.replaceChildren();
  ALL_FACES.forEach((face) => {
    if (d.type === "chi" && !chiOk(face)) return;
    const b = paletteButton(face, (f) => { d.base = f; if (f[0] !== "0") d.reds = []; renderMeldDraft(); },
      face === d.base);
    grid.append(b);
  });
}

function saveMeld() {
  const d = meldDraft;
  const faces = meldFaces(d);
  const meta = { type: d.type };
  if (d.type === "kan") { meta.open = d.kan !== "closed"; meta.added = d.kan === "added"; }
  if (d.from && !(d.type === "kan" && d.kan === "closed")) meta.from = d.from;
  let index = d.index;
  let dets = [];
  if (index === null) {
    if (d.tile) {
      if (d.tile.role === "other") dets = [d.tile.det];
      else {
        if (d.tile.role === "meld") leaveMeld(d.tile);
        state.tiles = state.tiles.filter((t) => t !== d.tile);
        dets = [d.tile.det];
      }
    }
    state.melds.push(meta);
    index = state.melds.length - 1;
  } else {
    dets = tilesOf("meld", index).sort((a, b) => faceKey(a.face) - faceKey(b.face)).map((t) => t.det);
    state.tiles = state.tiles.filter((t) => !(t.role === "meld" && t.meld === index));
    state.melds[index] = meta;
  }
  faces.forEach((face, k) => state.tiles.push({ face, role: "meld", meld: index,
    det: dets[k] === undefined ? null : dets[k], fixed: true }));
  $("meld-editor").close();
  say(`${t_(meta.type)} ${formatMPSZ(faces)}${meta.from ? ` ${t_("from")} ${t_(meta.from)}` : ""}.`);
  afterEdit();
}

function deleteMeld() {
  const i = meldDraft.index;
  if (i === null) return;
  state.tiles = state.tiles.filter((t) => !(t.role === "meld" && t.meld === i));
  dropMeld(i);
  $("meld-editor").close();
  say(t_("Meld removed."));
  afterEdit();
}

// ---------------------------------------------------------------- the rules, after the photo
const tileSets = {};

async function tileSetOf(id) {
  if (!tileSets[id]) {
    try { tileSets[id] = await fetch(`/v1/tileset?rules=${encodeURIComponent(id)}`).then((r) => r.json()); } catch (e) {
      tileSets[id] = { kinds: null, red_fives: null, set_aside: [] };
    }
  }
  return tileSets[id];
}

function redLimits(set) {
  const opt = state.ruleset && state.ruleset.options.find((o) => o.name === "red_fives");
  const v = opt ? (opt.name in state.options ? state.options.red_fives : opt.default) : set.red_fives;
  return v || { m: 0, p: 0, s: 0 };
}

async function remapForRules() {
  // The tiles as the new rules' set has them: red fives beyond the set's become plain fives, a kind
  // the rules set aside goes to the set-aside group, a kind the set lacks is marked to be changed.
  if (!state.ruleset || !state.tiles.length) { $("ruleset-note").textContent = ""; return; }
  const set = await tileSetOf(state.ruleset.id);
  const changes = [];
  const reds = redLimits(set);
  for (const s of "mps") {
    const red = state.tiles.filter((t) => t.face === `0${s}`);
    red.slice(Math.max(0, reds[s] || 0)).forEach((t) => { t.face = `5${s}`; changes.push(`0${s} → 5${s}`); });
  }
  const aside = new Set(set.set_aside || []);
  if (aside.size) {
    state.tiles.forEach((t) => {
      if (["hand", "win"].includes(t.role) && aside.has(kindOf(t.face))) { t.role = "nuki"; changes.push(`${t.face} → ${t_("set aside")}`); }
    });
  }
  const kinds = set.kinds ? new Set(set.kinds) : null;
  const missing = kinds ? state.tiles.filter((t) => !kinds.has(kindOf(t.face)) && t.role !== "nuki") : [];
  const name = state.ruleset.name;
  const parts = [];
  if (changes.length) parts.push(`${t_("Changed for")} ${name}: ${changes.join(", ")}.`);
  if (missing.length) {
    parts.push(`${[...new Set(missing.map((t) => t.face))].join(", ")}: ${t_("not in the tile set of")} ${name}; ` +
      t_("tap the marked tile to change it."));
    const first = missing.find((t) => t.det !== null && t.det !== undefined);
    state.highlight = first ? first.det : null;
  }
  $("ruleset-note").textContent = parts.join(" ");
  $("ruleset-note").classList.toggle("bad", missing.length > 0);
  if (changes.length) afterEdit(); else renderAll();
}

// ---------------------------------------------------------------- remembered settings
const STORE = "paiscan.settings.v1";

function saveSettings() {
  try {
    const all = JSON.parse(localStorage.getItem(STORE) || "{}");
    all.ruleset = state.ruleset ? state.ruleset.id : "riichi";
    all.options = all.options || {};
    if (state.ruleset) all.options[state.ruleset.id] = state.options;
    all.seat = $("seat-wind").value;
    all.round = $("round-wind").value;
    localStorage.setItem(STORE, JSON.stringify(all));
  } catch (e) { /* private mode: nothing is kept */ }
}

function loadSettings() {
  try { return JSON.parse(localStorage.getItem(STORE) || "{}"); } catch (e) { return {}; }
}

// ---------------------------------------------------------------- start
function startSheet() {
  $("btn-undo").addEventListener("click", undo);
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "z" && !e.shiftKey &&
        !(e.target instanceof HTMLInputElement && e.target.type !== "checkbox" && e.target.type !== "radio")) {
      e.preventDefault();
      undo();
    }
  });
  $("btn-add-meld").addEventListener("click", () => openMeldEditor(null));
  $("boxes").addEventListener("click", onPhotoTap);
  document.querySelectorAll("input[name=meld-type]").forEach((r) => r.addEventListener("change", () => {
    meldDraft.type = r.value; renderMeldDraft();
  }));
  document.querySelectorAll("input[name=meld-kan]").forEach((r) => r.addEventListener("change", () => {
    meldDraft.kan = r.value; renderMeldDraft();
  }));
  $("meld-from").addEventListener("change", (e) => { meldDraft.from = e.target.value; });
  $("meld-ok").addEventListener("click", saveMeld);
  $("meld-delete").addEventListener("click", deleteMeld);
  $("meld-editor").addEventListener("click", (e) => { if (e.target === $("meld-editor")) $("meld-editor").close(); });
}

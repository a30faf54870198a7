// The game view: stored sheets (/v1/sheets) laid out like the paper sheet — players in seat order, one
// line a hand (winner, from whom, points), running scores, dealer and honba, the end, the settlement, and
// each dispute beside its hand. Hands are added under the sheet's version (If-Match): a sheet changed in
// another tab is reloaded and said, never overwritten. A hand scored on the photo page arrives through
// localStorage ("Add to game", key PENDING_KEY) with its tiles; the replay recomputes its points.
"use strict";

const PENDING_KEY = "paiscan.addToGame";
const PLAYERS_BY_RULES = { boo: 4, kansai_boo: 4, totenko_balance: 3, jun: 4, riichi: 4 };
const REPLAY_SET = ["rules", "win", "seat_wind", "round_wind", "honba", "dealer", "riichi_sticks", "options"];
const $ = (id) => document.getElementById(id);
const game = { id: null, etag: null, record: null, replay: null, pending: null };

function el(tag, attrs = {}, ...kids) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") n.className = v;
    else if (k === "text") n.textContent = v;
    else n.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) n.append(k);
  return n;
}

function say(text, bad = false) {
  $("status").textContent = text;
  $("status").classList.toggle("bad", bad);
}

async function api(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    if (typeof body === "string") init.body = body;
    else { init.body = JSON.stringify(body); init.headers["content-type"] = "application/json"; }
  }
  const res = await fetch(path, init);
  let data = null;
  if (res.status !== 204) {
    const text = await res.text();
    try { data = JSON.parse(text); } catch { data = { error: { code: "bad_answer", message: text.slice(0, 200) } }; }
  }
  return { status: res.status, etag: res.headers.get("etag"), data };
}

function errorText(err) {
  return err ? `${err.message}${err.field ? ` (${err.field})` : ""}` : "failed";
}

// ---------------------------------------------------------------- the list
async function loadList() {
  const { data } = await api("GET", "/v1/sheets");
  const list = $("sheet-list");
  list.replaceChildren();
  for (const s of (data && data.sheets) || []) {
    const open = el("button", { type: "button", class: "btn small", "data-id": s.id, text: "Open" });
    open.addEventListener("click", () => openSheet(s.id));
    list.append(el("li", { "data-id": s.id },
      el("strong", { text: s.title || "(untitled)" }), ` ${s.date || ""} · ${s.rules} · ${s.players.join(", ")} · ${s.hands} hands `, open));
  }
}

function playerInputs() {
  const n = PLAYERS_BY_RULES[$("new-rules").value];
  const box = $("new-players");
  const old = [...box.querySelectorAll("input")].map((i) => i.value);
  box.querySelectorAll("label").forEach((l) => l.remove());
  for (let i = 0; i < n; i++) {
    box.append(el("label", {}, `Seat ${i + 1} `, el("input", { class: "player", "data-seat": String(i), value: old[i] || "", required: "" })));
  }
}

async function createSheet(ev) {
  ev.preventDefault();
  const record = { format: "paiscan-game/1", rules: $("new-rules").value, players: [], hands: [] };
  if ($("new-title").value.trim()) record.title = $("new-title").value.trim();
  if ($("new-date").value) record.date = $("new-date").value;
  record.players = [...$("new-players").querySelectorAll("input")].map((i) => i.value.trim());
  const r = await api("POST", "/v1/sheets", record);
  if (r.status !== 201) return say(`Not created: ${errorText(r.data.error)}`, true);
  $("new-sheet").open = false;
  show(r);
  loadList();
}

async function importCsv(ev) {
  const file = ev.target.files[0];
  if (!file) return;
  const r = await api("POST", "/v1/sheets", await file.text(), { "content-type": "text/csv" });
  ev.target.value = "";
  if (r.status !== 201) return say(`Not imported: ${errorText(r.data.error)}`, true);
  show(r);
  loadList();
}

// ---------------------------------------------------------------- one sheet
async function openSheet(id) {
  const r = await api("GET", `/v1/sheets/${id}`);
  if (r.status !== 200) return say(errorText(r.data.error), true);
  show(r);
}

function show(r) {
  game.id = r.data.id; game.etag = r.etag; game.record = r.data.record; game.replay = r.data.replay;
  history.replaceState(null, "", `#${game.id}`);
  $("game-card").hidden = false;
  render();
  fillForm();
}

function cellPoints(h) {
  const w = h.written;
  const written = w == null ? "" : typeof w === "object" ? Object.entries(w).map(([p, a]) => `${p} ${a}`).join(", ") : String(w);
  const rec = h.recomputed ? h.recomputed.total : null;
  if (rec == null) return written;
  if (written === "" ) return `${rec}`;
  return written === String(rec) ? written : `${written} → ${rec}`;
}

function render() {
  const rec = game.record, rep = game.replay, players = rec.players;
  $("game-title").textContent = rec.title || "(untitled)";
  $("game-meta").textContent = `${rec.date || ""} ${rec.rules} · version ${game.etag || ""}`;
  const thead = $("sheet-table").tHead, tbody = $("sheet-table").tBodies[0], tfoot = $("sheet-table").tFoot;
  thead.replaceChildren(el("tr", {}, ...["#", "deal", "dealer", "honba", "result", "winner", "from", "points"].map((t) => el("th", { text: t })),
    ...players.map((p) => el("th", { class: "player", text: p })), el("th", { text: "flags" })));
  tbody.replaceChildren();
  tbody.append(el("tr", { class: "start" }, el("td", { colspan: "8", text: "start" }),
    ...players.map((p) => el("td", { class: "num", text: String(rep.start[p]) })), el("td")));
  for (const h of rep.hands) {
    const flags = el("td", { class: "flags" });
    for (const d of h.disputes) flags.append(el("div", { class: `flag ${d.kind}`, "data-kind": d.kind, text: `⚑ ${d.message}` }));
    for (const w of h.warnings) flags.append(el("div", { class: "warn", text: `! ${w}` }));
    const row = el("tr", { "data-no": String(h.no), class: h.status },
      el("td", { text: String(h.no) }), el("td", { text: h.label }), el("td", { text: h.dealer }),
      el("td", { class: "num", text: String(h.honba) }), el("td", { text: h.result }),
      el("td", { text: h.winner || "" }), el("td", { text: h.discarder || h.player || "" }),
      el("td", { class: "num points", text: cellPoints(h) }),
      ...players.map((p) => {
        const d = h.deltas[p] || 0;
        return el("td", { class: "num score", "data-player": p },
          String(h.scores[p]), d ? el("small", { text: ` (${d > 0 ? "+" : ""}${d})` }) : null);
      }),
      flags);
    if (h.disputes.length) row.classList.add("disputed");
    tbody.append(row);
  }
  tfoot.replaceChildren(el("tr", { class: "final" }, el("td", { colspan: "8", text: "final" }),
    ...players.map((p) => el("td", { class: "num", "data-player": p, text: String(rep.final[p]) })), el("td")));
  $("game-end").textContent = rep.end ? `The game ended after hand ${rep.end.after}: ${rep.end.message}.`
    : rep.warnings.join(" ") || "The sheet goes on.";
  const st = $("settlement");
  st.replaceChildren(el("h3", { text: rep.settlement.provisional ? "Settlement (provisional)" : "Settlement" }));
  const table = el("table", { class: "standings" }, el("tr", {}, ...["player", "final", "net", "rank", "result"].map((t) => el("th", { text: t }))));
  for (const s of rep.standings) {
    table.append(el("tr", { "data-player": s.player }, el("td", { text: s.player }), el("td", { class: "num", text: String(s.final) }),
      el("td", { class: "num", text: String(s.net) }), el("td", { class: "num", text: String(s.rank) }), el("td", { text: s.result })));
  }
  st.append(table);
  const facts = Object.entries(rep.settlement).filter(([, v]) => v !== null && typeof v !== "object");
  if (facts.length) st.append(el("p", { class: "note", text: facts.map(([k, v]) => `${k}: ${v}`).join(" · ") }));
  if (Array.isArray(rep.settlement.explanation)) for (const line of rep.settlement.explanation) st.append(el("p", { class: "note", text: String(line) }));
  $("export-csv").href = `/v1/sheets/${game.id}/csv`;
  $("export-replay").href = `/v1/sheets/${game.id}/csv?replayed=true`;
}

// ---------------------------------------------------------------- adding a hand
function options(select, names, blank) {
  const keep = select.value;
  select.replaceChildren(...(blank ? [el("option", { value: "", text: "—" })] : []), ...names.map((p) => el("option", { value: p, text: p })));
  if (names.includes(keep)) select.value = keep;
}

function boxes(fieldset, names, cls) {
  fieldset.querySelectorAll("label").forEach((l) => l.remove());
  for (const p of names) fieldset.append(el("label", {}, el("input", { type: "checkbox", class: cls, value: p }), ` ${p}`));
}

function fillForm() {
  const players = game.record.players;
  options($("f-winner"), players, false);
  options($("f-from"), players, false);
  boxes($("f-tenpai"), players, "tenpai");
  boxes($("f-riichi"), players, "riichi");
  $("f-split").querySelectorAll("label").forEach((l) => l.remove());
  $("f-split").hidden = true;
  if (game.pending) usePending();
  syncForm();
}

function syncForm() {
  const result = $("f-result").value;
  const win = result === "ron" || result === "tsumo";
  for (const n of $("hand-form").querySelectorAll("[data-for]")) {
    const tags = n.dataset.for.split(" ");
    let on = tags.includes(result) || (win && tags.includes("win"));
    if (tags.includes("riichi-rules")) on = game.record && game.record.rules === "riichi" && result !== "chombo";
    if (n.id === "f-split") on = result === "tsumo" && !n.hidden;
    n.classList.toggle("off", !on);
  }
  $("f-from-label").textContent = result === "chombo" ? "Who" : "From";
}

function askSplit(example) {
  // the ruleset cannot split this total: ask what each paid, with the server's example filled in
  const box = $("f-split");
  box.querySelectorAll("label").forEach((l) => l.remove());
  const winner = $("f-winner").value;
  for (const p of game.record.players.filter((q) => q !== winner)) {
    box.append(el("label", {}, `${p} `, el("input", { class: "pay", "data-player": p, inputmode: "numeric", value: example && p in example ? String(example[p]) : "" })));
  }
  box.hidden = false;
  syncForm();
}

function words(s) { return s.trim().split(/[\s,]+/).filter(Boolean); }

function handFromForm() {
  const result = $("f-result").value;
  const h = { result };
  const checked = (cls) => [...document.querySelectorAll(`input.${cls}:checked`)].map((i) => i.value);
  if (result === "ron" || result === "tsumo") h.winner = $("f-winner").value;
  if (result === "ron") h.discarder = $("f-from").value;
  if (result === "chombo") h.player = $("f-from").value;
  if (result !== "draw") {
    const split = [...document.querySelectorAll("#f-split:not([hidden]) input.pay")].filter((i) => i.value.trim());
    if (result === "tsumo" && split.length) h.points = Object.fromEntries(split.map((i) => [i.dataset.player, Number(i.value)]));
    else if ($("f-points").value.trim()) h.points = Number($("f-points").value.trim());
  }
  if (result === "draw") h.tenpai = checked("tenpai");
  if (game.record.rules === "riichi" && result !== "chombo" && checked("riichi").length) h.riichi = checked("riichi");
  if ((result === "ron" || result === "tsumo") && $("f-hand").value.trim()) {
    const hand = game.pendingHand ? { ...game.pendingHand } : {};
    hand.hand = $("f-hand").value.trim();
    if ($("f-win-tile").value.trim()) hand.win_tile = $("f-win-tile").value.trim();
    const melds = words($("f-melds").value).map((m) => {
      const [kind, tiles] = m.includes(":") ? m.split(":") : ["pon", m];
      return kind === "ankan" ? { type: "kan", tiles, open: false } : kind === "kan" ? { type: "kan", tiles, open: true } : { type: kind, tiles };
    });
    if (melds.length) hand.melds = melds; else delete hand.melds;
    if (words($("f-dora").value).length) hand.dora_indicators = words($("f-dora").value); else delete hand.dora_indicators;
    if (words($("f-flags").value).length) hand.flags = words($("f-flags").value); else delete hand.flags;
    h.hand = hand;
  }
  if ($("f-note").value.trim()) h.note = $("f-note").value.trim();
  return h;
}

async function addHand(ev) {
  ev.preventDefault();
  $("form-error").textContent = "";
  const hand = handFromForm();
  const r = await api("POST", `/v1/sheets/${game.id}/hands`, hand, game.etag ? { "If-Match": game.etag } : {});
  if (r.status === 409) {
    await openSheet(game.id);
    $("form-error").textContent = "This sheet was changed in another tab or phone: it is reloaded above. Check it, then add the hand again.";
    return;
  }
  if (r.status !== 200) {
    const err = r.data.error || {};
    if (err.code === "ambiguous_points") {
      const m = /e\.g\. (\{.*\})/.exec(err.message || "");
      askSplit(m ? JSON.parse(m[1]) : null);
      $("form-error").textContent = "This total cannot be split among the payers under these rules: write what each paid.";
      return;
    }
    $("form-error").textContent = errorText(err);
    return;
  }
  game.pending = null; game.pendingHand = null;
  localStorage.removeItem(PENDING_KEY);
  $("pending").hidden = true;
  $("hand-form").reset();
  show(r);
  say(`Hand ${r.data.replay.hands.length} added.`);
  loadList();
}

// ---------------------------------------------------------------- a hand from the photo page
function loadPending() {
  try { game.pending = JSON.parse(localStorage.getItem(PENDING_KEY) || "null"); } catch { game.pending = null; }
  if (!game.pending || !game.pending.hand) { game.pending = null; return; }
  $("pending").hidden = false;
  $("pending-hand").textContent = `${game.pending.hand.hand} + ${game.pending.hand.win_tile} (${game.pending.hand.win || "ron"})`;
}

function usePending() {
  const src = game.pending.hand;
  const hand = {};
  for (const [k, v] of Object.entries(src)) if (!REPLAY_SET.includes(k) && v !== null && v !== undefined) hand[k] = v;
  game.pendingHand = hand;
  $("f-result").value = src.win === "tsumo" ? "tsumo" : "ron";
  $("f-hand").value = hand.hand || "";
  $("f-win-tile").value = hand.win_tile || "";
  $("f-melds").value = (hand.melds || []).map((m) => `${m.type === "kan" && m.open === false ? "ankan" : m.type}:${m.tiles}`).join(" ");
  $("f-dora").value = [].concat(hand.dora_indicators || []).join(" ");
  $("f-flags").value = (hand.flags || []).join(" ");
  $("f-points").value = "";
  $("f-tiles").open = true;
  $("hand-form-title").textContent = "Add the scored hand: who won, and from whom?";
}

function exportJson() {
  const blob = new Blob([JSON.stringify(game.record, null, 2)], { type: "application/json" });
  const a = el("a", { href: URL.createObjectURL(blob), download: `sheet-${game.id}.json` });
  document.body.append(a); a.click(); a.remove();
}

async function deleteSheet() {
  if (!confirm("Delete this sheet?")) return;
  const r = await api("DELETE", `/v1/sheets/${game.id}`, undefined, { "If-Match": game.etag });
  if (r.status !== 204) return say(errorText(r.data && r.data.error), true);
  $("game-card").hidden = true; game.id = null;
  say("Sheet deleted.");
  loadList();
}

document.addEventListener("DOMContentLoaded", async () => {
  $("new-rules").addEventListener("change", playerInputs);
  $("new-form").addEventListener("submit", createSheet);
  $("import-csv").addEventListener("change", importCsv);
  $("hand-form").addEventListener("submit", addHand);
  $("f-result").addEventListener("change", syncForm);
  $("f-winner").addEventListener("change", () => { if (!$("f-split").hidden) askSplit(null); });
  $("export-json").addEventListener("click", exportJson);
  $("btn-delete").addEventListener("click", deleteSheet);
  $("btn-pending-drop").addEventListener("click", () => { localStorage.removeItem(PENDING_KEY); game.pending = null; game.pendingHand = null; $("pending").hidden = true; });
  playerInputs();
  loadPending();
  await loadList();
  const id = location.hash.slice(1);
  if (/^[0-9a-f]+$/.test(id)) await openSheet(id);
  document.body.classList.add("ready");
});

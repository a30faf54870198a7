// paiscan page, keeping results: a hand history on this device (localStorage), and a result copied or
// shared as text or as an image (drawn on a canvas). Uses app.js's state and helpers.
"use strict";

const HISTORY_KEY = "paiscan.history.v1";
const HISTORY_MAX = 50;  // hands kept on the device

function resultText(entry) {
  const { score: s, hand: h } = entry;
  const melds = (h.melds || []).map((m) => `${m.type === "kan" && m.open === false ? "[" : ""}${m.tiles}` +
    `${m.type === "kan" && m.open === false ? "]" : ""}`).join(" ");
  const rs = state.rulesets.find((r) => r.id === h.rules);
  const lines = [
    `paiscan · ${rs ? rs.name : h.rules}`,
    `${h.hand}${melds ? " " + melds : ""} + ${h.win_tile || "?"} (${h.win === "tsumo" ? "tsumo" : "ron"})`,
  ];
  if ((h.dora_indicators || []).length) lines.push(`dora indicators: ${h.dora_indicators.join(" ")}`);
  if ((h.ura_indicators || []).length) lines.push(`ura indicators: ${h.ura_indicators.join(" ")}`);
  const head = [`${fmtNum(s.total)} points`];
  if (s.limit) head.push(s.limit.replace(/_/g, " "));
  else if (s.han) head.push(`${s.han} han${s.fu ? ` ${s.fu} fu` : ""}`);
  lines.push(head.join(" · "));
  (s.yaku || []).forEach((y) => lines.push(`  ${y.name}${y.name_ja ? ` ${y.name_ja}` : ""}: ${y.value} ${y.unit}`));
  (s.payments || []).forEach((p) => lines.push(`  ${PAYER[p.from] || p.from}: ${fmtNum(p.amount)}`));
  return lines.join("\n");
}

function resultImage(entry) {
  // the hand's tiles and its score on a canvas, drawn with the page's own tile chips' colours
  const { score: s, hand: h } = entry;
  const faces = [...parseMPSZ(h.hand), ...(h.melds || []).flatMap((m) => parseMPSZ(m.tiles))];
  const win = h.win_tile ? parseMPSZ(h.win_tile) : [];
  const W = 40, H = 54, gap = 4, pad = 24;
  const width = pad * 2 + (faces.length + win.length) * (W + gap) + 16;
  const c = document.createElement("canvas");
  c.width = Math.max(560, width);
  c.height = 200;
  const g = c.getContext("2d");
  g.fillStyle = "#1f5f46";
  g.fillRect(0, 0, c.width, c.height);
  const colour = (f) => (f[0] === "0" ? "#e0241b" : { m: "#a3221b", p: "#1b4f9c", s: "#1f7a3a", z: "#1d2321" }[f[1]]);
  const draw = (f, x) => {
    g.fillStyle = "#c9bfa3";
    g.fillRect(x, pad + 3, W, H);
    g.fillStyle = "#fbf8ef";
    g.fillRect(x, pad, W, H);
    g.fillStyle = colour(f);
    g.textAlign = "center";
    if (f[1] === "z") {
      g.font = "bold 26px serif";
      g.fillText(HONORS[Number(f[0])], x + W / 2, pad + 36);
    } else {
      g.font = "bold 22px sans-serif";
      g.fillText(f[0] === "0" ? "5" : f[0], x + W / 2, pad + 26);
      g.font = "16px serif";
      g.fillText(SUITS[f[1]], x + W / 2, pad + 46);
    }
  };
  let x = pad;
  faces.forEach((f) => { draw(f, x); x += W + gap; });
  x += 16;
  win.forEach((f) => { draw(f, x); x += W + gap; });
  g.fillStyle = "#ffffff";
  g.textAlign = "left";
  g.font = "bold 34px sans-serif";
  g.fillText(`${fmtNum(s.total)} points`, pad, 130);
  g.font = "18px sans-serif";
  const yaku = (s.yaku || []).map((y) => y.name_ja || y.name).join(" · ");
  g.fillText(`${s.limit ? s.limit.replace(/_/g, " ") : s.han ? `${s.han} han${s.fu ? ` ${s.fu} fu` : ""}` : ""}  ${yaku}`, pad, 162);
  g.font = "14px sans-serif";
  g.globalAlpha = 0.7;
  g.fillText("paiscan", pad, 188);
  return c;
}

function history() {
  try { return JSON.parse(localStorage.getItem(HISTORY_KEY) || "[]"); } catch (e) { return []; }
}

function keepInHistory() {
  if (!state.lastScore) return;
  const list = history();
  list.unshift({ at: new Date().toISOString(), ...state.lastScore });
  try {
    localStorage.setItem(HISTORY_KEY, JSON.stringify(list.slice(0, HISTORY_MAX)));
    $("share-note").textContent = t_("Kept in the history on this device.");
  } catch (e) {
    $("share-note").textContent = t_("This browser keeps nothing (private mode?).");
  }
  renderHistory();
}

function renderHistory() {
  const ol = $("history");
  ol.replaceChildren();
  const list = history();
  $("btn-history-clear").hidden = !list.length;
  if (!list.length) { ol.append(el("li", "note", t_("No hands kept yet."))); return; }
  list.forEach((entry) => {
    const li = el("li", "");
    const b = el("button", "btn small hist");
    b.type = "button";
    const when = new Date(entry.at);
    b.append(el("span", "points", `${fmtNum(entry.score.total)}`),
      el("span", "", `${entry.hand.hand} + ${entry.hand.win_tile || "?"}`),
      el("small", "", when.toLocaleString(document.documentElement.lang === "ja" ? "ja-JP" : undefined)));
    b.setAttribute("aria-label", `${fmtNum(entry.score.total)} points, ${when.toLocaleString()}: ${t_("load this hand")}`);
    b.addEventListener("click", () => loadFromHistory(entry));
    li.append(b);
    ol.append(li);
  });
}

function loadFromHistory(entry) {
  const h = entry.hand;
  if (state.ruleset && state.ruleset.id !== h.rules && state.rulesets.some((r) => r.id === h.rules)) {
    selectRuleset(h.rules, h.options || {});
    $("ruleset").value = h.rules;
  }
  state.read = null;
  $("photo-view").hidden = true;
  setStructure(h);
  document.querySelector(`input[name=win][value=${h.win === "tsumo" ? "tsumo" : "ron"}]`).checked = true;
  if (h.seat_wind) $("seat-wind").value = h.seat_wind;
  if (h.round_wind) $("round-wind").value = h.round_wind;
  $("honba").value = String(h.honba || 0);
  $("sticks").value = String(h.riichi_sticks || 0);
  renderFlags();
  document.querySelectorAll("#flags input").forEach((c) => { c.checked = (h.flags || []).includes(c.value); });
  onFlagsChanged();
  dealerNote();
  afterEdit();
  $("hand-card").scrollIntoView({ behavior: "smooth" });
}

async function copyText() {
  if (!state.lastScore) return;
  const text = resultText(state.lastScore);
  try {
    await navigator.clipboard.writeText(text);
    $("share-note").textContent = t_("Copied.");
  } catch (e) {
    // no clipboard (plain http on a LAN address): show the text to copy by hand
    const pre = el("pre", "share-text", text);
    $("share-note").replaceChildren(pre);
  }
}

async function shareImage() {
  if (!state.lastScore) return;
  const canvas = resultImage(state.lastScore);
  const blob = await new Promise((res) => canvas.toBlob(res, "image/png"));
  const file = new File([blob], "paiscan-hand.png", { type: "image/png" });
  if (navigator.canShare && navigator.canShare({ files: [file] })) {
    try { await navigator.share({ files: [file], text: resultText(state.lastScore) }); return; } catch (e) { /* cancelled */ }
  }
  const a = el("a", "btn small link", t_("Save the image"));
  a.href = URL.createObjectURL(blob);
  a.download = "paiscan-hand.png";
  const img = el("img", "share-image");
  img.src = a.href;
  img.alt = resultText(state.lastScore);
  $("share-note").replaceChildren(img, a);
}

function startShare() {
  $("btn-copy").addEventListener("click", copyText);
  $("btn-share-image").addEventListener("click", shareImage);
  $("btn-keep").addEventListener("click", keepInHistory);
  $("btn-history-clear").addEventListener("click", () => {
    try { localStorage.removeItem(HISTORY_KEY); } catch (e) { /* nothing kept */ }
    renderHistory();
  });
  renderHistory();
}

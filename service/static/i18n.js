// paiscan page, languages: English (the source strings) and Japanese. t_(english, values) gives the
// string in the page's language, {name} filled from values; elements with data-i18n are translated
// in place. The choice is kept on the device.
"use strict";

const LANG_KEY = "paiscan.lang";
const JA = {
  "Photograph a finished hand, check the tiles, get the score.": "和了形を撮影し、牌を確かめて、点数を出します。",
  "Rules": "ルール", "Photo": "写真", "Take photo": "撮影する", "Choose photo": "写真を選ぶ",
  "This photo could not be read": "この写真は読めませんでした", "Try another photo": "別の写真で試す",
  "Type the tiles instead": "牌を入力する", "Zoom": "拡大",
  "Tap a tile to correct it; tap where a tile was missed to add it.": "牌をタップで修正、見落とされた牌の位置をタップで追加。",
  "Hand": "手牌", "Undo": "元に戻す", "+ meld": "＋副露", "Type the tiles (MPSZ)": "牌を入力 (MPSZ)",
  "Concealed tiles": "手の内の牌", "without the winning tile": "和了牌を除く", "Winning tile": "和了牌",
  "Melds": "副露", "Dora indicators": "ドラ表示牌", "Ura dora indicators": "裏ドラ表示牌",
  "Set aside (nuki / gari)": "抜き牌", "Example hand": "例の手", "Clear": "消去",
  "m = characters 萬, p = circles 筒, s = bamboo 索, z = honors 1–7 東南西北白發中, 0 = red five.":
    "m = 萬子、p = 筒子、s = 索子、z = 字牌 1–7 東南西北白發中、0 = 赤五。",
  "Situation": "状況", "Seat wind": "自風", "Round wind": "場風", "Honba": "本場",
  "Riichi deposits on the table": "供託リーチ棒", "Also": "その他", "Rule options": "ルールの設定",
  "Preset": "プリセット", "Options for this hand": "この手の設定", "Game and settlement options": "対局・精算の設定",
  "These change the end-of-game settlement, not this hand's score.": "終局の精算に関わる設定で、この手の点数は変わりません。",
  "Score": "点数", "Take a photo or type a hand to see its score.": "写真を撮るか牌を入力すると点数が出ます。",
  "Copy as text": "テキストでコピー", "Share as image": "画像で共有", "Keep in history": "履歴に残す",
  "History on this device": "この端末の履歴", "Forget the history": "履歴を消す",
  "the page works offline once opened; scoring and reading need this server":
    "一度開けばページはオフラインでも開きます。点数計算と読み取りにはこのサーバーが必要です",
  "All tiles": "すべての牌", "Meld": "副露", "open": "明槓", "closed": "暗槓", "added to a pon": "加槓",
  "Called from": "鳴いた相手", "not recorded": "記録しない", "left (previous player)": "上家",
  "across": "対面", "right (next player)": "下家", "Tiles": "牌", "Pick the meld's lowest tile:": "副露のいちばん小さい牌を選ぶ:",
  "Done": "決定", "Remove the meld": "副露を削除", "New meld": "新しい副露",
  "Win": "和了牌", "Dora": "ドラ表示", "Ura": "裏ドラ表示", "Set aside": "抜き", "Not a tile": "牌ではない",
  "Meld…": "副露…", "add a tile": "牌を追加", "Add a tile": "牌を追加", "edit": "編集", "edit meld": "副露を編集",
  "Tap to change.": "タップで変更。", "Tap to correct.": "タップで修正。", "Most likely": "候補", "Remove": "削除",
  "Choose a tile": "牌を選ぶ", "Undone.": "元に戻しました。", "Added": "追加:", "removed": "削除しました",
  "Meld removed.": "副露を削除しました。", "chi": "チー", "pon": "ポン", "kan": "カン", "added": "加槓",
  "left": "上家", "right": "下家", "from": "←",
  "in the hand": "手牌", "winning tile": "和了牌", "in a meld": "副露", "dora indicator": "ドラ表示牌",
  "ura dora indicator": "裏ドラ表示牌", "set aside": "抜き", "not used in the hand": "手に含まない",
  "not part of the hand": "手に含まない", "not a tile of the hand": "手の牌ではありません",
  "No tiles yet: take a photo, or add or type the tiles.": "まだ牌がありません。撮影するか、牌を追加・入力してください。",
  "Please check": "確認してください", "Which tile completed the hand (the winning tile)?": "和了牌はどれですか?",
  "How do the called tiles split into melds?": "鳴いた牌はどう分かれますか?",
  "The tile numbered {n} on the photo ({face}): what is it?": "写真の {n} 番の牌 ({face}) は何ですか?",
  "The tile numbered {n} on the photo: which is it?": "写真の {n} 番の牌はどれですか?",
  "Meld {n}: which set is it?": "副露 {n} はどの面子ですか?",
  "Every choice scores the same: answer it only to keep the record exact.": "どれを選んでも点数は同じです。記録のためだけに答えてください。",
  "Preparing the photo…": "写真を準備中…", "Reading the tiles…": "牌を読み取り中…", "Sending": "送信中",
  "{n} tiles found in {s} s": "{s} 秒で {n} 枚の牌を検出", "reading": "読み取り",
  "No hand was read from it: the tiles you entered are kept.": "手は読み取れませんでした。入力した牌はそのままです。",
  "No hand was read from it.": "手は読み取れませんでした。",
  "The previous photo's hand was cleared (Undo brings it back).": "前の写真の手は消しました (元に戻すで復元できます)。",
  "The tiles you entered are kept.": "入力した牌はそのままです。",
  "Cannot score this hand": "この手は計算できません", "Cannot score": "計算できません",
  "Make them plain fives": "普通の5にする", "tiles": "枚",
  "Seat wind East: the winner is the dealer (親).": "自風が東: 和了者は親です。",
  "The winner is not the dealer (子); the dealer sits East.": "和了者は子です (親は東家)。", "dealer": "親",
  "East 東": "東", "South 南": "南", "West 西": "西", "North 北": "北",
  "Changed for": "ルールに合わせて変更", "not in the tile set of": "はこのルールの牌にありません:",
  "tap the marked tile to change it.": "印の付いた牌をタップして変更してください。",
  "The server could not be reached. Check the Wi-Fi and try again.": "サーバーにつながりません。Wi-Fi を確かめて、もう一度試してください。",
  "Photo reading is not available on this server; you can still type a hand.": "このサーバーでは写真を読めません。牌の入力はできます。",
  "The photo could not be read": "写真を読めませんでした", "The photo could not be read.": "写真を読めませんでした。",
  "This file is not a photo the page can read (JPEG, PNG, WebP or HEIC).": "読める写真ではありません (JPEG、PNG、WebP、HEIC)。",
  "The photo file is damaged or was cut short (perhaps it did not finish copying). Take or choose it again.":
    "写真のファイルが壊れているか途中で切れています。もう一度撮影するか選んでください。",
  "This photo file is larger than the server accepts. Take it again at a lower resolution.": "写真が大きすぎます。解像度を下げて撮り直してください。",
  "This photo has more pixels than the server reads. Take it again at a lower resolution.": "写真の画素数が多すぎます。解像度を下げて撮り直してください。",
  "The server is busy reading other photos; try again in a moment.": "サーバーが混んでいます。少し待ってから試してください。",
  "No row of tiles was found in this photo. Photograph the hand from above, the whole row inside the frame.":
    "牌の列が見つかりません。手牌全体が入るように上から撮ってください。",
  "Tile {n} on the photo looks sideways; it was read as standing upright. Check its face and the melds.":
    "写真の {n} 番の牌は横向きに見えますが、縦向きとして読みました。牌と副露を確かめてください。",
  "Many readings were possible; only the likeliest are offered below.": "読み方が多くあり、可能性の高いものだけを示しています。",
  "Which tile won? Tap a tile of the hand and choose \"Winning tile\".": "和了牌はどれですか? 手牌の牌をタップして「和了牌」を選んでください。",
  "The hand is {n} tile(s) short: add the missing tile (tap \"+\" in the hand, or tap it on the photo).":
    "牌が {n} 枚足りません。手牌の「+」か写真上の位置をタップして追加してください。",
  "The hand has {n} tile(s) too many: tap the extra tile and choose \"Not a tile\", or move it to dora.":
    "牌が {n} 枚多すぎます。余分な牌をタップして「牌ではない」かドラ表示を選んでください。",
  "These tiles do not make a finished hand (four sets and a pair, seven pairs or thirteen orphans): check the tiles marked in blue on the photo and the winning tile.":
    "和了形になっていません (4面子1雀頭・七対子・国士無双)。牌と和了牌を確かめてください。",
  "This hand has no yaku, so it cannot win under these rules.": "役がないため、このルールでは和了できません。",
  "{face} is not in the tile set of these rules: tap the marked tile to change it, or pick other rules.":
    "{face} はこのルールの牌にありません。印の付いた牌をタップして変更するか、別のルールを選んでください。",
  "Copied.": "コピーしました。", "Kept in the history on this device.": "この端末の履歴に残しました。",
  "No hands kept yet.": "まだ履歴はありません。", "Save the image": "画像を保存", "load this hand": "この手を開く",
};

function t_(text, values) {
  let out = document.documentElement.lang === "ja" && Object.hasOwn(JA, text) ? JA[text] : text;
  if (values) out = out.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  return out;
}

function pageLanguage() {
  try {
    const kept = localStorage.getItem(LANG_KEY);
    if (kept === "ja" || kept === "en") return kept;
  } catch (e) { /* nothing kept */ }
  return (navigator.language || "en").toLowerCase().startsWith("ja") ? "ja" : "en";
}

function applyLanguage(lang = pageLanguage()) {
  document.documentElement.lang = lang;
  document.querySelectorAll("[data-i18n]").forEach((e) => { e.textContent = t_(e.dataset.i18n); });
  const b = document.getElementById("btn-lang");
  b.textContent = lang === "ja" ? "English" : "日本語";
  b.lang = lang === "ja" ? "en" : "ja";
}

function switchLanguage() {
  const lang = document.documentElement.lang === "ja" ? "en" : "ja";
  try { localStorage.setItem(LANG_KEY, lang); } catch (e) { /* not kept */ }
  applyLanguage(lang);
  if (typeof renderAll === "function" && document.body.classList.contains("ready")) {
    fillWinds();
    renderAll();
    renderHistory();
    scheduleScore(0);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("btn-lang").addEventListener("click", switchLanguage);
});

// paiscan service worker: keeps the page itself (HTML, script, style, icons) so it opens without a
// connection; the API (/v1/...) always goes to the server. Bump VERSION when the page's files change.
"use strict";

const VERSION = "paiscan-page-2";
const PAGE = [
  "/",
  "/static/style.css",
  "/static/i18n.js",
  "/static/app.js",
  "/static/messages.js",
  "/static/sheet.js",
  "/static/share.js",
  "/static/icon.svg",
  "/static/icon-192.png",
  "/static/icon-512.png",
  "/manifest.webmanifest",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(VERSION).then((c) => c.addAll(PAGE)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== VERSION).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin) return;
  if (!PAGE.includes(url.pathname) && !url.pathname.startsWith("/static/")) return;  // the API: network only
  // network first, so a new version shows at once; the cache when the server cannot be reached
  event.respondWith(fetch(event.request).then((res) => {
    if (res.ok) { const copy = res.clone(); caches.open(VERSION).then((c) => c.put(event.request, copy)); }
    return res;
  }).catch(() => caches.match(event.request, { ignoreSearch: true })));
});

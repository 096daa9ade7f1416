// Kube Warehouse's service worker: keeps the app and its lessons for offline use.
//
// `cargo xtask offline` (Trunk's post-build hook, xtask/src/offline.rs) writes this
// build's files and a hash of their contents below. Each build is its own cache,
// `kube-warehouse-<version>`; activating a new worker deletes every older one.
//
// - Navigations: the network first, so a new build's page is always the one shown
//   online; offline, this build's page (which names this build's files, all cached).
// - Files whose names carry Trunk's content hash (the wasm, its loader, the style):
//   the cache first; they never change under the same name.
// - Every other file of the app's origin (lessons, kubectl's help and field
//   documentation, the manifest, the icon): the network first, then the cache.
// - Requests to other origins (a lesson opened with ?lesson=https://...) and
//   anything but GET are left to the browser: never cached here.

const VERSION = 'build-version';
const FILES = [];
const HASHED = [];

const CACHE = `kube-warehouse-${VERSION}`;
const PREFIX = 'kube-warehouse-';
const scope = new URL(self.registration.scope);
const hashed = new Set(HASHED.map((f) => new URL(f, scope).href));
const page = new URL('index.html', scope).href;

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // `no-cache`: ask the server, not the HTTP cache, so what is kept is this build.
      await cache.addAll(FILES.map((f) => new Request(new URL(f, scope), { cache: 'no-cache' })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== scope.origin || !url.href.startsWith(scope.href)) return;
  if (request.mode === 'navigate') {
    event.respondWith(networkFirst(request, page));
  } else if (hashed.has(url.origin + url.pathname)) {
    event.respondWith(cacheFirst(request));
  } else {
    event.respondWith(networkFirst(request, null));
  }
});

// `caches.match` with the cache's name reads without creating it: a worker that a new
// build has replaced never brings its deleted cache back.
async function cacheFirst(request) {
  return (await caches.match(request, { cacheName: CACHE, ignoreSearch: true })) ?? fetch(request);
}

// The network's answer; when the network cannot be reached, the cached copy of
// `fallback` (or of the request itself).
async function networkFirst(request, fallback) {
  try {
    return await fetch(request);
  } catch (err) {
    const kept = await caches.match(fallback ?? request, { cacheName: CACHE, ignoreSearch: true });
    if (kept) return kept;
    throw err;
  }
}

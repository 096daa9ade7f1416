// Offline and installable: after a first visit the service worker (`sw.js`,
// web/sw.js stamped by xtask/src/offline.rs) keeps the app and its lessons, so a
// reload with the network gone renders the app, runs kubectl and opens a lesson.
// A lesson opened from an https URL (?lesson=URL) is never kept. The page links a
// web app manifest that parses and names the app, its icon and its colour.
//
// App contract: `window.__warehouse` (web/src/test_hook.rs); `#kubectl-input`,
// `#kubectl-output`; `.lesson-card.start button.open-lesson`; `#step-title`,
// `#lesson-title`; `link[rel=manifest]`; caches named `kube-warehouse-<version>`.

import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  DIST_DIR,
  REPO_ROOT,
  WAIT_MS,
  kubectl,
  launchBrowser,
  openApp,
  screenshot,
  serveDir,
  waitForText,
  waitLesson,
} from './harness.mjs';

const REMOTE = 'https://lessons.example.test/01-desired-state/';
const PROBE = 'offline-probe.txt';

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

/** Waits until a service worker controls the page; resolves to its script's URL. */
async function controlled(page) {
  return page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
    }
    return navigator.serviceWorker.controller.scriptURL;
  });
}

/** Navigates to `target` and waits for the app's test hook and its catalogue (so a
 * later navigation aborts no lesson fetch). */
async function visit(page, target) {
  await page.goto(target, { waitUntil: 'load' });
  await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
  await waitLesson(page, (s) => s.catalogueLoaded, `the catalogue of ${target}`);
}

/** Every URL kept in the app's caches, by cache name. */
async function cached(page) {
  return page.evaluate(async () => {
    const out = {};
    for (const name of await caches.keys()) {
      out[name] = (await (await caches.open(name)).keys()).map((r) => r.url);
    }
    return out;
  });
}

test('offline: a reload without the network renders the app, runs kubectl and opens a lesson', { timeout: 120_000 }, async () => {
  const { page, problems, url } = app;
  const context = page.context();
  // Console errors with the address they are about, to tell the ones this test causes.
  const consoleErrors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push({ text: msg.text(), url: msg.location().url });
  });
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await waitLesson(page, (s) => s.catalogueLoaded, 'the catalogue');

    // The manifest is linked, parses, and names the app, its icon and colour.
    const manifestHref = await page.getAttribute('link[rel="manifest"]', 'href');
    assert.ok(manifestHref, 'the page links a manifest');
    const manifestUrl = new URL(manifestHref, url).href;
    const manifestResponse = await page.request.get(manifestUrl);
    assert.equal(manifestResponse.status(), 200);
    assert.match(manifestResponse.headers()['content-type'], /^application\/manifest\+json/);
    const manifest = JSON.parse(await manifestResponse.text());
    assert.equal(manifest.name, 'Kube Warehouse');
    assert.equal(manifest.display, 'standalone');
    assert.equal(new URL(manifest.start_url, manifestUrl).href, url);
    const style = await readFile(path.join(REPO_ROOT, 'web', 'style.css'), 'utf8');
    const accent = style.match(/--accent:\s*(#[0-9a-f]{6})/i)[1];
    assert.equal(manifest.theme_color.toLowerCase(), accent.toLowerCase(), 'the theme colour is the app accent');
    assert.ok(manifest.icons.length > 0);
    for (const icon of manifest.icons) {
      const res = await page.request.get(new URL(icon.src, manifestUrl).href);
      assert.equal(res.status(), 200, icon.src);
      assert.match(res.headers()['content-type'], /^image\/svg\+xml/);
      assert.match(await res.text(), /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    }

    // The first visit registers the worker, which keeps the build, then takes the page.
    const script = await controlled(page);
    assert.equal(script, new URL('sw.js', url).href);
    const workerResponse = await page.request.get(script);
    assert.match(workerResponse.headers()['content-type'], /^text\/javascript/);
    let caches = await cached(page);
    let names = Object.keys(caches).filter((n) => n.startsWith('kube-warehouse-'));
    assert.equal(names.length, 1, `one cache for this build: ${Object.keys(caches)}`);
    const kept = caches[names[0]].map((u) => new URL(u).pathname.replace(new URL(url).pathname, ''));
    for (const want of ['index.html', 'explain.data', 'help.data', 'manifest.webmanifest', 'icon.svg', 'lessons/index.yaml', 'lessons/01-desired-state/packer.yaml']) {
      assert.ok(kept.includes(want), `${want} is kept: ${kept.slice(0, 12)}…`);
    }
    assert.ok(kept.some((f) => /_bg\.wasm$/.test(f)), 'the wasm is kept');

    // A lesson from an https URL opens while online, and is not kept.
    const lessonDir = path.join(REPO_ROOT, 'lessons', '01-desired-state');
    await context.route(`${REMOTE}**`, async (route) => {
      const name = new URL(route.request().url()).pathname.split('/').pop();
      const body = await readFile(path.join(lessonDir, name), 'utf8').catch(() => null);
      await route.fulfill(body === null ? { status: 404, body: '' } : { status: 200, contentType: 'text/plain', body });
    });
    await visit(page, `${url}?lesson=${encodeURIComponent(REMOTE)}`);
    await waitLesson(page, (s) => s.panel === 'lesson' && s.lessonId === 'desired-state', 'the lesson from an https URL');
    await waitLesson(page, (s) => s.catalogueLoaded, 'the catalogue beside it');
    caches = await cached(page);
    const everything = Object.values(caches).flat();
    assert.ok(everything.length > 100, `the caches hold the build: ${everything.length}`);
    assert.deepEqual(everything.filter((u) => !u.startsWith(url)), [], 'nothing from another origin is kept');

    // The network goes away; the reload comes from the worker.
    await context.setOffline(true);
    await visit(page, url);
    // The network really is gone: a file the worker does not keep cannot be had.
    const probe = await page.evaluate((f) => fetch(f).then((r) => `HTTP ${r.status}`, () => 'failed'), PROBE);
    assert.equal(probe, 'failed', 'offline, a file the worker does not keep is not fetched');
    await page.waitForSelector('canvas', { timeout: WAIT_MS });
    const nodes = await kubectl(page, 'kubectl get nodes');
    assert.match(nodes, /zone-a\s+Ready/, nodes);
    // kubectl's field documentation, fetched after start, comes from the cache too.
    const explain = await kubectl(page, 'kubectl explain deployment.spec.replicas');
    assert.match(explain, /FIELD:\s+replicas/, explain);

    // A lesson opens offline: the catalogue, the lesson and its manifest.
    await waitLesson(page, (s) => s.catalogueLoaded, 'the catalogue offline');
    await page.locator('.lesson-card.start button.open-lesson').click();
    await waitLesson(page, (s) => s.panel === 'lesson' && s.lessonId === 'desired-state', 'the lesson offline');
    await waitForText(page, '#step-title', 'Ask for five robots');
    await page.locator('.yaml-block button.open-editor').click();
    assert.match(await page.inputValue('#yaml-editor'), /name: packer/);
    await screenshot(page, 'offline-lesson');

    // The lesson from the https URL was not kept: offline it cannot open.
    await context.unroute(`${REMOTE}**`);
    await visit(page, `${url}?lesson=${encodeURIComponent(REMOTE)}`);
    const failed = await waitLesson(page, (s) => s.panel === 'errors', 'the https lesson to fail offline');
    assert.ok(failed.errors.some((e) => e.includes(REMOTE)), JSON.stringify(failed.errors));

    // What the test itself caused offline: the probe and the https lesson's files
    // could not be loaded. Anything else is a problem.
    const ours = (u) => u.includes(PROBE) || u.startsWith(REMOTE);
    const left = [...problems];
    for (const e of consoleErrors.filter((e) => ours(e.url))) {
      const at = left.indexOf(`console.error: ${e.text}`);
      if (at >= 0) left.splice(at, 1);
    }
    assert.ok(consoleErrors.some((e) => e.url.includes(PROBE)), 'the probe failed to load');
    assert.deepEqual(left.filter((p) => !/^request failed: /.test(p) || !ours(p.slice(16))), [], 'the page logged no other errors');
  } catch (err) {
    await screenshot(page, 'offline-failure').catch(() => {});
    throw err;
  } finally {
    await context.setOffline(false);
  }
});

test('a new build replaces the old one: its page at once, its worker and cache after', { timeout: 120_000 }, async () => {
  // A copy of the build to change as a new deployment would.
  const dir = await mkdtemp(path.join(tmpdir(), 'warehouse-offline-'));
  await cp(DIST_DIR, dir, { recursive: true });
  await rm(path.join(dir, 'sw.js.gz'), { force: true });
  const server = await serveDir(dir);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const problems = [];
    page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
    page.on('pageerror', (err) => problems.push(String(err)));
    await visit(page, server.url);
    await controlled(page);
    const before = Object.keys(await cached(page));
    assert.equal(before.length, 1, String(before));

    // The next build: another page and another worker version.
    const page1 = path.join(dir, 'index.html');
    await writeFile(page1, (await readFile(page1, 'utf8')).replace('<title>', '<!-- the next build --><title>'));
    const worker = path.join(dir, 'sw.js');
    const source = await readFile(worker, 'utf8');
    const next = source.replace(/const VERSION = '[0-9a-f]+';/, "const VERSION = 'next';");
    assert.notEqual(next, source, 'the built worker names its version');
    await writeFile(worker, next);

    // Online, the reload shows the new page at once (network first), never the kept one.
    await visit(page, server.url);
    assert.ok(await page.evaluate(() => document.head.innerHTML.includes('the next build')), 'the new page');
    // The browser finds the new worker, which takes over and deletes the old cache.
    await page.evaluate(() => navigator.serviceWorker.ready.then((r) => r.update()).catch(() => {}));
    const deadline = Date.now() + WAIT_MS;
    let names;
    for (;;) {
      names = Object.keys(await cached(page));
      if (names.length === 1 && names[0] === 'kube-warehouse-next') break;
      assert.ok(Date.now() < deadline, `the old cache is replaced: ${names}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // Offline, the page kept is the new build's, and it runs.
    await page.context().setOffline(true);
    await visit(page, server.url);
    assert.ok(await page.evaluate(() => document.head.innerHTML.includes('the next build')), 'the new page, offline');
    const nodes = await kubectl(page, 'kubectl get nodes');
    assert.match(nodes, /zone-a\s+Ready/, nodes);
    assert.deepEqual(problems, [], 'the page logged no errors');
  } finally {
    await browser.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

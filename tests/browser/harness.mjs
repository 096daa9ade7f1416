// Shared helpers for the browser tests: serve `dist/` over HTTP, drive the
// system Chromium through playwright-core and record every console error.
//
// Environment:
//   WAREHOUSE_URL    the app already served there (`cargo xtask test` serves `dist/`
//                    with the server `cargo xtask serve` uses, xtask/src/serve.rs);
//                    without it the tests serve `dist/` themselves, the same way
//   WAREHOUSE_DIST   folder to serve instead of `<repo>/dist` (e.g. a stub app)
//   CHROMIUM_PATH    browser binary instead of /usr/bin/chromium

import { existsSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const REPO_ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const DIST_DIR = path.resolve(process.env.WAREHOUSE_DIST ?? path.join(REPO_ROOT, 'dist'));
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'target', 'screenshots');

/** Upper bound for any single wait (navigation, selector, predicate). */
export const WAIT_MS = 15_000;

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Without the background-networking flags Chromium floods the (closed)
// network with connection attempts; see TOOLCHAIN.md.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.yaml': 'text/yaml; charset=utf-8',
  '.woff2': 'font/woff2',
};

// Console messages that are known to be harmless. Keep each entry narrow and
// explain why it is here; everything else fails the test.
const HARMLESS_CONSOLE_NOISE = [];

/**
 * Serves `dir` on 127.0.0.1 with an OS-assigned port.
 * Resolves to `{ url, close }`.
 */
export async function serveDir(dir = DIST_DIR) {
  if (process.env.WAREHOUSE_URL && dir === DIST_DIR) {
    const url = new URL(process.env.WAREHOUSE_URL).href;
    return { url, close: async () => {} };
  }
  if (!existsSync(path.join(dir, 'index.html'))) {
    throw new Error(`${dir}/index.html not found: build the app first (trunk build --release --offline)`);
  }
  const server = http.createServer((req, res) => {
    handleRequest(dir, req, res).catch((err) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function handleRequest(root, req, res) {
  const { pathname } = new URL(req.url, 'http://localhost');
  const relative = decodeURIComponent(pathname).replace(/^\/+/, '') || 'index.html';
  const file = path.resolve(root, relative);
  if (file !== root && !file.startsWith(root + path.sep)) {
    res.writeHead(403).end();
    return;
  }
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${pathname}`);
    return;
  }
  const type = MIME_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  // The release build writes NAME.gz beside each large file; like a static host
  // (nginx gzip_static), send it to a client that accepts gzip.
  const gz = `${file}.gz`;
  const acceptsGzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
  if (acceptsGzip && (await stat(gz).catch(() => null))?.isFile()) {
    res.writeHead(200, {
      'content-type': type,
      'content-encoding': 'gzip',
      vary: 'accept-encoding',
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : await readFile(gz));
    return;
  }
  res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : await readFile(file));
}

/** Launches the system Chromium headless. */
export async function launchBrowser() {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} not found: apt-get install -y chromium chromium-driver`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
    timeout: WAIT_MS,
  });
}

/**
 * Serves the app, opens it in a fresh page and starts recording problems.
 * Resolves to `{ page, url, problems, responses, close }`; `problems` is a live
 * array of console errors, uncaught page errors, failed requests and HTTP errors,
 * `responses` of every response since the first navigation, `consoleMessages` of
 * every console message (any level) as `type: text`.
 */
export async function openApp({ dist = DIST_DIR } = {}) {
  const server = await serveDir(dist);
  let browser;
  try {
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(WAIT_MS);
    page.setDefaultNavigationTimeout(WAIT_MS);
    const problems = recordProblems(page);
    // Every response from the first navigation on (headers and status), and
    // every console message of any level.
    const responses = [];
    page.on('response', (res) => responses.push(res));
    const consoleMessages = [];
    page.on('console', (msg) => consoleMessages.push(`${msg.type()}: ${msg.text()}`));
    await page.goto(server.url, { waitUntil: 'load' });
    const close = async () => {
      await browser.close();
      await server.close();
    };
    return { page, url: server.url, problems, responses, consoleMessages, close };
  } catch (err) {
    await browser?.close();
    await server.close();
    throw err;
  }
}

function recordProblems(page) {
  const problems = [];
  const isNoise = (text) => HARMLESS_CONSOLE_NOISE.some((re) => re.test(text));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !isNoise(msg.text())) {
      problems.push(`console.error: ${msg.text()}`);
    }
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.stack || err.message || String(err)}`));
  page.on('requestfailed', (req) => {
    problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  return problems;
}

/**
 * Waits until the text of `selector` contains `needle`. On timeout the error
 * shows the text that was there instead.
 */
export async function waitForText(page, selector, needle, { timeout = WAIT_MS } = {}) {
  try {
    await page.waitForFunction(
      ([sel, text]) => document.querySelector(sel)?.textContent?.includes(text),
      [selector, needle],
      { timeout },
    );
  } catch (err) {
    const actual = await page
      .locator(selector)
      .first()
      .textContent({ timeout: 1_000 })
      .catch(() => '<element not found>');
    throw new Error(`expected ${selector} to contain ${JSON.stringify(needle)}; it shows ${JSON.stringify(actual)}`, {
      cause: err,
    });
  }
}

/** Saves a full-page screenshot as `target/screenshots/<name>.png`. */
export async function screenshot(page, name) {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  // Clicks scroll the page; from the top, sticky headers stay where they belong.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file, fullPage: true, timeout: WAIT_MS });
  return file;
}

/** A Deployment `web` of nginx:1.27 robots requesting 100m CPU and 64Mi each. */
export function webDeployment(replicas) {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: nginx:1.27
          resources:
            requests:
              cpu: 100m
              memory: 64Mi
`;
}

/** Puts `yaml` in the editor and presses Apply. */
export async function applyYaml(page, yaml) {
  await page.fill('#yaml-editor', yaml);
  await page.click('#apply-btn');
}

/** The test hook's robot counts: zone -> state -> count. */
export async function robots(page) {
  return JSON.parse(await page.evaluate(() => window.__warehouse.robots()));
}

/** Sum of Running robots over `zones` (all zones by default). */
export function runningIn(counts, zones = Object.keys(counts)) {
  return zones.reduce((sum, zone) => sum + (counts[zone]?.Running ?? 0), 0);
}

/** Polls the robot counts until `done(counts)` holds (resolves to them) or time runs out (null). */
export async function pollRobots(page, done, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const snapshot = await robots(page);
    if (done(snapshot)) return snapshot;
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The lesson hook's state (`window.__warehouse.lesson()`, web/src/test_hook.rs). */
export async function lesson(page) {
  return JSON.parse(await page.evaluate(() => window.__warehouse.lesson()));
}

/** Polls the lesson state until `done(state)` holds; fails with the last state seen. */
export async function waitLesson(page, done, what, timeoutMs = WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await lesson(page);
    if (done(last)) return last;
    if (Date.now() >= deadline) throw new Error(`timed out waiting for ${what}; lesson state: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs a line in the terminal and waits for its prompt; resolves to what it printed. */
export async function kubectl(page, line) {
  const before = await page.locator('#kubectl-output .prompt').count();
  await page.fill('#kubectl-input', line);
  await page.press('#kubectl-input', 'Enter');
  await page.waitForFunction((n) => document.querySelectorAll('#kubectl-output .prompt').length > n, before, {
    timeout: WAIT_MS,
  });
  return page.evaluate(() => {
    const outs = document.querySelectorAll('#kubectl-output .stdout');
    return outs[outs.length - 1]?.textContent ?? '';
  });
}

/** Pastes `text` into the terminal box (as the clipboard would insert it), runs it,
 * and resolves to what the terminal printed for it (both streams). */
export async function pasteRun(page, text) {
  const output = () => page.locator('#kubectl-output').textContent();
  await page.fill('#kubectl-input', '');
  await page.focus('#kubectl-input');
  await page.keyboard.insertText(text);
  const before = await output();
  await page.press('#kubectl-input', 'Enter');
  await page.waitForFunction(
    (len) => (document.querySelector('#kubectl-output')?.textContent?.length ?? 0) > len,
    before.length,
    { timeout: 60_000 },
  );
  return (await output()).slice(before.length);
}

/** Clicks the toolbar's advance button of `ms` simulated milliseconds. */
export async function advance(page, ms) {
  await page.click(`button.advance[data-ms="${ms}"]`);
}

/** The floor as drawn (the test hook's `floor()`). */
export async function floor(page) {
  return JSON.parse(await page.evaluate(() => window.__warehouse.floor()));
}

/** Waits until the notice board has the line `line` (`what` names it in the
 * error); resolves to the floor. */
export async function waitBoardLine(page, line, what) {
  try {
    await page.waitForFunction(
      (l) => JSON.parse(window.__warehouse.floor()).board.includes(l),
      line,
      { timeout: WAIT_MS },
    );
  } catch (err) {
    throw new Error(`timed out waiting for ${what}; the board: ${JSON.stringify((await floor(page)).board)}`, { cause: err });
  }
  return floor(page);
}

// `cargo xtask bench`: a browser benchmark of the built app (dist/, release). Not a
// timed test: it measures and reports, one line per metric, and writes
// docs/bench-browser.md.
//
// - wasm size, raw and gzip -9 (every dist/*.wasm);
// - first interactive render on localhost (navigation start → the terminal, the canvas
//   and the test hook are there), in headless Chromium;
// - frame time p50/p95 (requestAnimationFrame timestamps) while playing at the top
//   speed with 1,000 and then 10,000 robots, made through the terminal (`sim node add`
//   zones, `kubectl create deployment`, `kubectl scale`);
// - simulated seconds per wall second at 10,000 robots: one +5m jump, timed;
// - frame times while robots move at 10,000: the 3 s after a zone is killed while
//   playing, and the 3 s after a scale by 50;
// - JS heap (CDP Performance.getMetrics) and wasm linear memory.
//
// Environment: as harness.mjs (WAREHOUSE_DIST, CHROMIUM_PATH), plus
//   BENCH_OUT     where to write the table (default <repo>/docs/bench-browser.md)
//   BENCH_ROBOTS  comma-separated robot counts (default 1000,10000)

import { readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { DIST_DIR, launchBrowser, REPO_ROOT, serveDir } from './harness.mjs';

const OUT = path.resolve(process.env.BENCH_OUT ?? path.join(REPO_ROOT, 'docs', 'bench-browser.md'));
const COUNTS = (process.env.BENCH_ROBOTS ?? '1000,10000').split(',').map(Number);
/** Robots a default worker zone takes (kubelet maxPods). */
const PODS_PER_ZONE = 110;
/** Worker zones of the default topology. */
const DEFAULT_WORKERS = 3;
const FRAME_SAMPLE_MS = 5_000;
const SETUP_TIMEOUT_MS = 300_000;

const rows = [];
function report(metric, value, note = '') {
  rows.push({ metric, value, note });
  console.log(`bench: ${metric}: ${value}${note ? ` (${note})` : ''}`);
}

const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KB`;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (x) => `${x.toFixed(1)} ms`;

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

async function wasmSizes() {
  const files = (await readdir(DIST_DIR)).filter((f) => f.endsWith('.wasm'));
  if (files.length === 0) throw new Error(`no .wasm in ${DIST_DIR}: build the app first`);
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const bytes = await readFile(path.join(DIST_DIR, f));
    raw += bytes.length;
    gz += gzipSync(bytes, { level: 9 }).length;
  }
  report('wasm size raw', `${kb(raw)} (${raw} bytes)`);
  report('wasm size gzip -9', `${kb(gz)} (${gz} bytes)`, 'budget ≤ 700 KB');
}

async function kubectl(page, line) {
  await page.fill('#kubectl-input', line);
  await page.press('#kubectl-input', 'Enter');
}

async function running(page) {
  return page.evaluate(() => {
    const counts = JSON.parse(window.__warehouse.robots());
    return Object.values(counts).reduce((n, z) => n + (z.Running ?? 0), 0);
  });
}

async function setPlaying(page, playing) {
  const label = (await page.textContent('#play-pause')) ?? '';
  const isPlaying = /pause|пауза/i.test(label);
  if (isPlaying !== playing) await page.click('#play-pause');
}

/** rAF timestamps over `sampleMs` while the app plays; deltas sorted. */
async function frameTimes(page, sampleMs) {
  const stamps = await page.evaluate(
    (sample) =>
      new Promise((resolve) => {
        const ts = [];
        const tick = (t) => {
          ts.push(t);
          if (t - ts[0] < sample) requestAnimationFrame(tick);
          else resolve(ts);
        };
        requestAnimationFrame(tick);
      }),
    sampleMs,
  );
  const deltas = [];
  for (let i = 1; i < stamps.length; i++) deltas.push(stamps[i] - stamps[i - 1]);
  return deltas.sort((a, b) => a - b);
}

/** Brings the cluster to `n` Running robots of deployment `x`. */
async function grow(page, n, state) {
  const zonesNeeded = Math.max(0, Math.ceil((n * 1.05) / PODS_PER_ZONE) - DEFAULT_WORKERS);
  while (state.zones < zonesNeeded) {
    state.zones += 1;
    await kubectl(page, `sim node add bench-${String(state.zones).padStart(3, '0')}`);
  }
  if (!state.created) {
    await kubectl(page, `kubectl create deployment x --image=nginx --replicas=${n}`);
    state.created = true;
  } else {
    await kubectl(page, `kubectl scale deployment x --replicas=${n}`);
  }
  const started = Date.now();
  for (;;) {
    await page.click('button.advance[data-ms="60000"]');
    const r = await running(page);
    if (r >= n) break;
    if (Date.now() - started > SETUP_TIMEOUT_MS) throw new Error(`only ${r} of ${n} robots running`);
  }
  console.log(`bench: ${n} robots running on ${DEFAULT_WORKERS + state.zones} worker zones (setup ${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

async function memory(page, cdp, label) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN;
  const wasm = await page.evaluate(() => window.__benchWasm?.memory?.buffer?.byteLength ?? NaN);
  report(`JS heap used, ${label}`, mb(heap));
  report(`wasm memory, ${label}`, mb(wasm));
}

/** Sets `window.__firstInteractive` to the time (ms since navigation) the app first
 * shows its floor canvas and terminal with the simulation loaded. */
async function watchFirstInteractive(page) {
  await page.addInitScript(() => {
      const ready = () =>
        window.__warehouse !== undefined &&
        document.querySelector('#warehouse-canvas') &&
        document.querySelector('#kubectl-input');
      const poll = () => {
        if (ready()) window.__firstInteractive = performance.now();
        else requestAnimationFrame(poll);
      };
      requestAnimationFrame(poll);
  });
}

/** The app's first interactive render over an emulated 10 Mbit/s link with 40 ms
 * latency (Chromium's network emulation), the files sent gzip-compressed. */
async function throttledFirstRender(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await watchFirstInteractive(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 40,
      downloadThroughput: (10 * 1000 * 1000) / 8,
      uploadThroughput: (10 * 1000 * 1000) / 8,
    });
    await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
    await page.waitForFunction(() => window.__firstInteractive !== undefined, null, { timeout: 120_000 });
    const first = await page.evaluate(() => window.__firstInteractive);
    report('first interactive render, 10 Mbit/s 40 ms link, gzip', ms(first), 'budget ≤ 2,500 ms');
  } finally {
    await page.close();
  }
}

async function main() {
  await wasmSizes();
  const server = await serveDir();
  const browser = await launchBrowser();
  const problems = [];
  const browserVersion = browser.version();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(120_000);
    page.on('console', (m) => m.type() === 'error' && problems.push(`console.error: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.addInitScript(() => {
      addEventListener('TrunkApplicationStarted', (e) => {
        window.__benchWasm = e.detail?.wasm;
      });
    });
    await watchFirstInteractive(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');

    await page.goto(server.url, { waitUntil: 'load' });
    await page.waitForFunction(() => window.__firstInteractive !== undefined, null, { timeout: 30_000 });
    const first = await page.evaluate(() => window.__firstInteractive);
    report('first interactive render, localhost', ms(first), 'budget ≤ 1,500 ms');
    await throttledFirstRender(browser, server.url);
    await memory(page, cdp, 'settled cluster');

    await setPlaying(page, false);
    await page.click('#use-sandbox').catch(() => {});
    const state = { zones: 0, created: false };
    for (const n of COUNTS) {
      await setPlaying(page, false);
      await grow(page, n, state);
      await page.selectOption('#speed', '60');
      await setPlaying(page, true);
      // Let a few ticks pass before sampling.
      await page.waitForTimeout(1_000);
      const t0 = await page.evaluate(() => window.__warehouse.timeMs());
      const deltas = await frameTimes(page, FRAME_SAMPLE_MS);
      const t1 = await page.evaluate(() => window.__warehouse.timeMs());
      const budget = n <= 1000 ? '≤ 16.7 ms' : '≤ 33 ms';
      report(`frame time p50, ${n} robots, playing at 60×`, ms(percentile(deltas, 50)), `${deltas.length} frames`);
      report(`frame time p95, ${n} robots, playing at 60×`, ms(percentile(deltas, 95)), `budget ${budget}`);
      report(
        `simulated s per wall s while playing at 60×, ${n} robots`,
        ((t1 - t0) / 1000 / (FRAME_SAMPLE_MS / 1000)).toFixed(1),
        'capped by the speed and the 1 s tick cap',
      );
      await setPlaying(page, false);
      await memory(page, cdp, `${n} robots`);
    }

    // Simulated time per wall time at the largest count: one +5m jump.
    const largest = Math.max(...COUNTS);
    const jump = await page.evaluate(async () => {
      const before = window.__warehouse.timeMs();
      const button = document.querySelector('button.advance[data-ms="300000"]');
      const t0 = performance.now();
      button.click();
      while (window.__warehouse.timeMs() < before + 300_000) {
        await new Promise((r) => setTimeout(r, 0));
      }
      await new Promise((r) => requestAnimationFrame(() => r()));
      return { wall: performance.now() - t0, sim: window.__warehouse.timeMs() - before };
    });
    report(
      `simulated s per wall s, ${largest} robots, one +5m jump`,
      `${(jump.sim / jump.wall).toFixed(0)}×`,
      `${(jump.sim / 1000).toFixed(0)} s simulated in ${ms(jump.wall)}; budget ≥ 300×`,
    );

    // While robots move: a zone killed while playing (its robots go not ready, then
    // are evicted), then the deployment scaled by 50. The frames around each.
    await page.selectOption('#speed', '60');
    await setPlaying(page, true);
    await page.waitForTimeout(500);
    const victim = await page.evaluate(() => {
      const zones = JSON.parse(window.__warehouse.robots());
      return Object.keys(zones).find((z) => z.startsWith('bench-') && (zones[z].Running ?? 0) > 0);
    });
    await page.click(`button.kill-zone[data-zone="${victim}"]`);
    const killed = await frameTimes(page, 3_000);
    report(
      `frame time p50 / p95 / max, ${largest} robots at 60×, the 3 s after a zone is killed`,
      `${ms(percentile(killed, 50))} / ${ms(percentile(killed, 95))} / ${ms(killed[killed.length - 1])}`,
      `${killed.length} frames`,
    );
    await kubectl(page, `kubectl scale deployment x --replicas=${largest + 50}`);
    const scaled = await frameTimes(page, 3_000);
    report(
      `frame time p50 / p95 / max, ${largest} robots at 60×, the 3 s after a scale by 50`,
      `${ms(percentile(scaled, 50))} / ${ms(percentile(scaled, 95))} / ${ms(scaled[scaled.length - 1])}`,
      `${scaled.length} frames`,
    );
    await setPlaying(page, false);
  } finally {
    await browser.close();
    await server.close();
  }

  const cpus = os.cpus();
  const machine = `${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${mb(os.totalmem())} RAM, ${os.type()} ${os.release()}, node ${process.version}`;
  const table = [
    '# Browser benchmark',
    '',
    'Written by `cargo xtask bench` (tests/browser/bench.mjs) from the release build in',
    '`dist/`, in headless Chromium (software rendering, 1280×900). Robots are made through',
    'the terminal: `sim node add` zones (110 robots each), then `kubectl create deployment',
    'x --image=nginx --replicas=N` and `kubectl scale`. Frame times are the gaps between',
    'requestAnimationFrame callbacks while the app plays at 60× (a tick every 33 ms).',
    '',
    `Machine: ${machine}; Chromium ${browserVersion}.`,
    '',
    '| metric | value | note |',
    '|---|---|---|',
    ...rows.map((r) => `| ${r.metric} | ${r.value} | ${r.note} |`),
    '',
  ].join('\n');
  await writeFile(OUT, table);
  console.log(`bench: wrote ${path.relative(REPO_ROOT, OUT)}`);
  if (problems.length > 0) {
    console.error(`bench: problems seen in the page:\n  ${problems.join('\n  ')}`);
    process.exitCode = 1;
  }
}

main().catch((err) => {
  console.error(`bench: ${err.stack ?? err}`);
  process.exitCode = 1;
});

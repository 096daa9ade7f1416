// The app as a static host serves it: `cargo xtask serve` and `cargo xtask test`
// serve `dist/` with xtask's server (WAREHOUSE_URL), which sends the release
// build's gzip copies to a browser that accepts them. The first load must show
// no console error under the page's strict Content-Security-Policy.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openApp, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

test('hosting: compressed files, the strict policy, a clean console', { timeout: 60_000 }, async () => {
  const { page, url, problems, responses, consoleMessages } = app;
  if (process.env.WAREHOUSE_URL) {
    assert.equal(url, new URL(process.env.WAREHOUSE_URL).href, 'the tests use the server xtask started');
  }
  // The first load, as a learner's first visit: the app renders and every fetch
  // it starts (lessons, kubectl explain's data) has finished.
  await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
  await page.waitForLoadState('networkidle', { timeout: WAIT_MS });

  const byEnding = (ending) => responses.find((res) => new URL(res.url()).pathname.endsWith(ending));
  const wasm = byEnding('_bg.wasm');
  assert.ok(wasm, `no wasm was fetched: ${responses.map((r) => r.url()).join(', ')}`);
  const wasmHeaders = await wasm.allHeaders();
  assert.equal(wasm.status(), 200);
  assert.equal(wasmHeaders['content-type'], 'application/wasm');
  assert.equal(wasmHeaders['content-encoding'], 'gzip', 'the wasm arrives compressed');
  assert.match(wasmHeaders.vary ?? '', /accept-encoding/i);
  const js = byEnding('.js');
  assert.equal((await js.allHeaders())['content-encoding'], 'gzip', 'the loader arrives compressed');
  // What arrived over the wire is the smaller copy.
  const sizes = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((e) => e.name.endsWith('_bg.wasm'))
      .map((e) => ({ encoded: e.encodedBodySize, decoded: e.decodedBodySize })),
  );
  assert.equal(sizes.length, 1);
  assert.ok(sizes[0].encoded * 2 < sizes[0].decoded, `wasm sizes ${JSON.stringify(sizes[0])}`);

  // The release policy is in force: scripts by hash only, nothing inline allowed.
  const policy = await page.evaluate(
    () => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? '',
  );
  assert.match(policy, /script-src[^;]*'sha256-/);
  assert.doesNotMatch(policy, /'unsafe-inline'|'unsafe-eval'/);
  assert.deepEqual(problems, [], 'no error on the first load');
  assert.deepEqual(consoleMessages, [], 'the console is empty on the first load: no warning either');
});

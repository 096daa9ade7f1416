// Time control beyond play and pause: Step runs the clock to the next thing that
// happens and says what it was; `sim step` does the same from the terminal; the
// fastest speed is 600×.
//
// App contract: `#step-btn` steps and pauses; `#step-note` (a status line) names
// how far the clock went and who did what; `#speed` offers 1×, 10×, 60× and 600×;
// `#clock` shows minutes:seconds.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { applyYaml, kubectl, openApp, screenshot, waitForText, WAIT_MS, webDeployment } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

const timeMs = (page) => page.evaluate(() => window.__warehouse.timeMs());

test('step: the clock goes to the next request, one link of the chain at a time', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
  if ((await page.getAttribute('#play-pause', 'aria-pressed')) === 'false') {
    await page.click('#play-pause');
  }
  await applyYaml(page, webDeployment(1));
  await waitForText(page, '#apply-result', 'deployment.apps/web created');

  const start = await timeMs(page);
  await page.click('#step-btn');
  await waitForText(page, '#step-note', 'replicasets/web-');
  const note = await page.locator('#step-note').textContent();
  assert.match(note, /^Step \+\d+ ms: .*deployment.* → create replicasets\/web-/, note);
  const first = await timeMs(page);
  assert.ok(first > start && first - start < 1000, `one step is a moment, not a jump: ${start} → ${first}`);
  assert.equal(await page.getAttribute('#play-pause', 'aria-pressed'), 'true', 'a step leaves the clock paused');

  await page.click('#step-btn');
  await waitForText(page, '#step-note', 'create pods/web-');
  assert.ok((await timeMs(page)) > first);
  // The next: the dispatcher binds the robot to a zone.
  await page.click('#step-btn');
  await waitForText(page, '#step-note', 'pods/web-');
  assert.match(await page.locator('#step-note').textContent(), /dispatcher|scheduler/);
  await screenshot(page, 'step-en');

  // In Russian.
  await page.click('#lang-toggle');
  await waitForText(page, '#step-note', 'Шаг');
  await screenshot(page, 'step-ru');
  await page.click('#lang-toggle');

  // The terminal's `sim step` moves the same clock and says what it found; the note
  // under the toolbar is about the button's step and goes once time moves otherwise.
  const before = await timeMs(page);
  const out = await kubectl(page, 'sim step');
  assert.match(out, /after the start: /, out);
  assert.ok((await timeMs(page)) >= before);
  await page.click('.advance[data-ms="10000"]');
  await page.waitForFunction(() => document.querySelector('#step-note').textContent === '', null, {
    timeout: WAIT_MS,
  });
  assert.deepEqual(problems, []);
});

test('speed: 600× runs ten simulated minutes a real second', { timeout: 60_000 }, async () => {
  const { page, problems } = app;
  const offered = await page.$$eval('#speed option', (os) => os.map((o) => o.value));
  assert.deepEqual(offered, ['1', '10', '60', '600']);
  await page.selectOption('#speed', '600');
  const sim0 = await timeMs(page);
  const real0 = Date.now();
  await page.click('#play-pause');
  await page.waitForFunction((t) => window.__warehouse.timeMs() - t >= 600_000, sim0, { timeout: 30_000 });
  const real = Date.now() - real0;
  await page.click('#play-pause');
  const sim = (await timeMs(page)) - sim0;
  // 60× at most would need ten real seconds for ten simulated minutes.
  assert.ok(sim / real > 100, `${sim} ms simulated in ${real} ms`);
  assert.deepEqual(problems, []);
});

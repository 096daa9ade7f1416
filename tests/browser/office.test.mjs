// The office above the floor: envelopes (API requests) cross the reception desk's
// gates into the ledger vault, boxes (orders) travel from the loading dock through a
// zone's conveyor router to a robot, and a narration line says what happened and what
// will happen next, with countdowns.
//
// App contract: `.office-svg` holds `g.envelope` (refused: `g.envelope.refused` with
// `data-gate` badge|permission|policy|vault and `data-code`), `g.order` boxes and
// `g.office-station[data-station=NAME]`; `#narration` lists the narration lines and
// `#narration-live` is the polite live region; `window.__warehouse.office()` returns
// JSON {envelopes, envelopesInFlight, writes, orders, ordersFailed, refused, missed,
// narration}. `#requests-mine-only` filters the reception log to the learner.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  applyYaml,
  openApp,
  pollRobots,
  runningIn,
  screenshot,
  SCREENSHOT_DIR,
  waitForText,
  WAIT_MS,
  webDeployment,
} from './harness.mjs';

/** A full-page screenshot and one of the office alone. */
async function shots(page, name) {
  await screenshot(page, name);
  await page.locator('section.office').screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-office.png`), timeout: WAIT_MS });
}

let app;

before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse?.office !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await app?.close();
});

const office = async (page) => JSON.parse(await page.evaluate(() => window.__warehouse.office()));

async function run(page, line) {
  await page.fill('#kubectl-input', line);
  await page.press('#kubectl-input', 'Enter');
}

async function advance(page, ms, times = 1) {
  for (let i = 0; i < times; i++) await page.click(`button.advance[data-ms="${ms}"]`);
}

test('a refused request stops red at the gate that refused it', { timeout: 60_000 }, async () => {
  const { page, problems } = app;
  await applyYaml(page, webDeployment(3).replace('name: web\n', 'name: Bad_Name\n'));
  await waitForText(page, '#apply-result', 'Invalid');
  await page.waitForSelector('.office-svg g.envelope.refused[data-gate="policy"]', { timeout: 5_000 });
  const info = await office(page);
  const last = info.refused.at(-1);
  assert.equal(last.gate, 'policy');
  assert.equal(last.code, 422);
  await waitForText(page, '#narration', 'refused at the policy check', { timeout: 5_000 });
  const title = await page.locator('.office-svg g.envelope.refused title').first().textContent();
  assert.match(title, /422/);
  await shots(page, 'office-refused');
  assert.deepEqual(problems, []);
});

test('a killed zone: countdown, NotReady, eviction, replacement', { timeout: 90_000 }, async () => {
  const { page, problems } = app;
  await applyYaml(page, webDeployment(3));
  await waitForText(page, '#apply-result', 'deployment.apps/web created');
  await advance(page, 30000);
  assert.ok(await pollRobots(page, (c) => runningIn(c) === 3, 10_000), 'three robots run');
  // Kill a zone that has a robot of web.
  const counts = JSON.parse(await page.evaluate(() => window.__warehouse.robots()));
  const zone = Object.keys(counts).find((z) => z !== 'unscheduled' && (counts[z].Running ?? 0) > 0);
  await page.click('#play-pause');
  await page.click(`button.kill-zone[data-zone="${zone}"]`);
  await advance(page, 30000);
  await waitForText(page, '#narration', `Zone ${zone} stopped reporting`, { timeout: 5_000 });
  const line = await page.locator('#narration li').first().textContent();
  assert.match(line, /waits 50 s \(\d+ s left\)/);
  await shots(page, 'office-grace');
  await advance(page, 30000);
  await waitForText(page, '#narration', `marked zone ${zone} not ready`, { timeout: 5_000 });
  await waitForText(page, '#narration', 'Eviction of', { timeout: 5_000 });
  await advance(page, 300000);
  await waitForText(page, '#narration', `evicted from zone ${zone}`, { timeout: 5_000 });
  await advance(page, 30000);
  assert.ok(
    await pollRobots(page, (c) => runningIn(c) === 3 && !(c[zone]?.Running > 0), 10_000),
    'replacements run elsewhere',
  );
  await shots(page, 'office-evicted');
  await page.click(`button.restart-zone[data-zone="${zone}"]`);
  await page.click('#play-pause');
  assert.deepEqual(problems, []);
});

test('the desk stopped: envelopes stop, boxes keep arriving, none fail', { timeout: 90_000 }, async () => {
  const { page, problems } = app;
  await run(page, 'kubectl expose deployment web --port 80 --type NodePort');
  await waitForText(page, '#kubectl-output', 'service/web exposed');
  await advance(page, 10000);
  await run(page, 'sim traffic start shop --to svc/web --rps 20');
  await page.waitForSelector('.office-svg g.order', { timeout: 5_000 });
  await page.click('button.stop-component[data-component="kube-apiserver"]');
  await page.waitForSelector('button.start-component[data-component="kube-apiserver"]');
  // Let the envelopes already in flight land.
  await page.waitForTimeout(2_000);
  const before = await office(page);
  await page.waitForTimeout(3_000);
  const afterStop = await office(page);
  assert.equal(afterStop.envelopes, before.envelopes, 'no requests reach a stopped desk');
  assert.equal(afterStop.envelopesInFlight, 0);
  assert.ok(afterStop.orders > before.orders + 20, `boxes keep flowing: ${before.orders} → ${afterStop.orders}`);
  assert.equal(afterStop.ordersFailed, 0);
  assert.ok((await page.locator('.office-svg g.order').count()) > 0);
  await shots(page, 'office-desk-stopped');
  await page.click('button.start-component[data-component="kube-apiserver"]');
  await page.waitForSelector('button.stop-component[data-component="kube-apiserver"]');
  assert.deepEqual(problems, []);
});

test('the reception log can show only my requests', { timeout: 30_000 }, async () => {
  const { page, problems } = app;
  await page.check('#requests-mine-only');
  await page.waitForFunction(
    () => {
      const rows = [...document.querySelectorAll('.request-log li.request')];
      return rows.length > 0 && rows.every((r) => r.dataset.learner === 'true');
    },
    null,
    { timeout: 5_000 },
  );
  await page.uncheck('#requests-mine-only');
  assert.equal(await page.locator('#narration-live[aria-live="polite"]').count(), 1);
  assert.deepEqual(problems, []);
});

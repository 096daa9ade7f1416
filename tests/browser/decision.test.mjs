// "Why this zone?": picking a robot shows the dispatcher's latest decision for it —
// the control-plane zone ruled out by its taint, every worker zone's plugin scores
// and total, and the chosen zone marked.
//
// App contract: `select#why-pod` lists workload robots as `namespace/name`;
// `.decision-table tr.verdict[data-node]` per zone, `.filtered` with a `.reason` cell
// when a filter ruled it out, `.chosen` for the zone picked.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
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

let app;

before(async () => {
  await rm(path.join(SCREENSHOT_DIR, 'decision-failure.png'), { force: true });
  app = await openApp();
});

after(async () => {
  await app?.close();
});

test('why this zone: the scheduler decision for a robot', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await page.click('#play-pause');
    await applyYaml(page, webDeployment(3));
    await waitForText(page, '#apply-result', 'deployment.apps/web created');
    await page.click('button.advance[data-ms="30000"]');
    const running = await pollRobots(page, (r) => runningIn(r) === 3, 5_000);
    assert.ok(running, 'three robots running');

    const options = await page.$$eval('#why-pod option', (os) => os.map((o) => o.value).filter(Boolean));
    assert.equal(options.length, 3, JSON.stringify(options));
    assert.ok(options.every((o) => o.startsWith('default/web-')), JSON.stringify(options));
    await page.selectOption('#why-pod', options[0]);

    await page.locator('.decision-table tr.verdict').first().waitFor({ timeout: WAIT_MS });
    const rows = await page.$$eval('.decision-table tr.verdict', (trs) =>
      trs.map((tr) => ({
        node: tr.dataset.node,
        chosen: tr.classList.contains('chosen'),
        filtered: tr.classList.contains('filtered'),
        text: tr.textContent,
      })));
    assert.equal(rows.length, 4, JSON.stringify(rows));
    const cp = rows.find((r) => r.node === 'control-plane');
    assert.ok(cp.filtered, 'the control-plane zone is ruled out');
    assert.match(cp.text, /TaintToleration/);
    assert.match(cp.text, /node-role\.kubernetes\.io\/control-plane/);
    const chosen = rows.filter((r) => r.chosen);
    assert.equal(chosen.length, 1, 'exactly one zone chosen');
    assert.ok(!chosen[0].filtered);
    await waitForText(page, '.decision-message', 'Successfully assigned default/web-');
    // Score columns are the default profile's plugins (titles carry the full names).
    const plugins = await page.$$eval('.decision-table thead th[title]', (ths) => ths.map((t) => t.title));
    for (const p of ['TaintToleration', 'NodeResourcesFit', 'NodeResourcesBalancedAllocation', 'ImageLocality']) {
      assert.ok(plugins.includes(p), `${p} in ${JSON.stringify(plugins)}`);
    }

    await page.click('#lang-toggle');
    await waitForText(page, '#decision-heading', 'Почему эта зона?');
    await page.click('#lang-toggle');

    await screenshot(page, 'decision');
  } catch (err) {
    await screenshot(page, 'decision-failure').catch(() => {});
    if (problems.length === 0) throw err;
    throw new Error(`${err.message}\nproblems seen in the page:\n  ${problems.join('\n  ')}`, { cause: err });
  }
  assert.deepEqual(problems, [], 'console errors or page errors during the run');
});

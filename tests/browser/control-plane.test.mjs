// The control plane's components can be stopped and started from the page: with
// the scheduler stopped, a Deployment's robots wait in the bay; once it starts
// again they go to work.
//
// App contract: `button.stop-component[data-component=NAME]` and
// `button.start-component[data-component=NAME]` per control-plane component;
// `window.__warehouse.robots()` counts workload robots (kube-system's are left out)
// per zone and state, with `unscheduled` as its own pseudo-zone.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  applyYaml,
  openApp,
  pollRobots,
  robots,
  runningIn,
  screenshot,
  SCREENSHOT_DIR,
  waitForText,
  WAIT_MS,
  webDeployment,
} from './harness.mjs';

const REPLICAS = 3;

const DEPLOYMENT = webDeployment(REPLICAS);

/** Real time to wait for the app to settle after an action. */
const SETTLE_MS = 3_000;

let app;

before(async () => {
  await rm(path.join(SCREENSHOT_DIR, 'control-plane-failure.png'), { force: true });
  app = await openApp();
});

after(async () => {
  await app?.close();
});

test('control plane: a stopped scheduler leaves robots waiting until it starts', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    // Stop the clock so the counts below depend on the advance buttons only.
    await page.click('#play-pause');

    await page.click('button.stop-component[data-component="kube-scheduler"]');
    await page.waitForSelector('button.start-component[data-component="kube-scheduler"]');
    await waitForText(page, '#zone-notice', 'kube-scheduler stopped');
    await waitForText(page, '#kubectl-output', 'sim stop scheduler');

    await applyYaml(page, DEPLOYMENT);
    await waitForText(page, '#apply-result', 'deployment.apps/web created');

    // A minute later the ReplicaSet has made its pods, but nobody placed them.
    for (let i = 0; i < 2; i++) await page.click('button.advance[data-ms="30000"]');
    const waiting = await pollRobots(page, (r) => (r.unscheduled?.Unscheduled ?? 0) === REPLICAS, SETTLE_MS);
    assert.ok(waiting, `expected ${REPLICAS} robots waiting: ${JSON.stringify(await robots(page))}`);
    assert.equal(runningIn(waiting), 0, JSON.stringify(waiting));

    // The status the components report is the one kubectl sees.
    await page.fill('#kubectl-input', 'get cs');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'Unhealthy');

    await page.click('button.start-component[data-component="kube-scheduler"]');
    await page.waitForSelector('button.stop-component[data-component="kube-scheduler"]');
    await waitForText(page, '#zone-notice', 'kube-scheduler started');
    for (let i = 0; i < 2; i++) await page.click('button.advance[data-ms="30000"]');
    const running = await pollRobots(page, (r) => runningIn(r) === REPLICAS, SETTLE_MS);
    assert.ok(running, `expected ${REPLICAS} robots running: ${JSON.stringify(await robots(page))}`);
    assert.equal(running.unscheduled, undefined, JSON.stringify(running));

    await screenshot(page, 'control-plane');
  } catch (err) {
    await screenshot(page, 'control-plane-failure').catch(() => {});
    if (problems.length === 0) throw err;
    throw new Error(`${err.message}\nproblems seen in the page:\n  ${problems.join('\n  ')}`, { cause: err });
  }
  assert.deepEqual(problems, [], 'console errors or page errors during the run');
});




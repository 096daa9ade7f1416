// End-to-end walk through the app: apply a Deployment, watch the robots come
// up, kill a zone, watch Kubernetes reschedule, use kubectl, and reject bad YAML.
//
// App contract: `window.__warehouse.robots()` returns a JSON string mapping
// zone name -> { pod state -> count }; `window.__warehouse.timeMs()` returns
// the simulated time in milliseconds.

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

const WORKER_ZONES = ['zone-a', 'zone-b', 'zone-c'];
const REPLICAS = 5;

const DEPLOYMENT = webDeployment(REPLICAS);

const MALFORMED = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: [x\n';

/** Real time to wait for the app to settle after each advance click. */
const SETTLE_MS = 3_000;

let app;

before(async () => {
  await rm(path.join(SCREENSHOT_DIR, 'skeleton-failure.png'), { force: true });
  app = await openApp();
});

after(async () => {
  await app?.close();
});

test('skeleton: deploy, lose a zone, recover', { timeout: 180_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });

    await applyYaml(page, DEPLOYMENT);
    await waitForText(page, '#apply-result', 'deployment.apps/web created');

    // Image pulls and container start take simulated time: step the clock in
    // 30 s increments until every replica runs.
    const started = await advanceUntil(page, {
      stepMs: 30_000,
      minSteps: 2,
      maxSteps: 4,
      what: `${REPLICAS} robots Running`,
      done: (robots) => runningIn(robots) === REPLICAS,
    });

    const victim = WORKER_ZONES.find((zone) => (started[zone]?.Running ?? 0) > 0);
    assert.ok(victim, `no worker zone has a Running robot: ${JSON.stringify(started)}`);
    const lost = started[victim].Running;
    await page.click(`button.kill-zone[data-zone="${victim}"]`);

    // Node grace period (50 s) + the default not-ready toleration (300 s)
    // before eviction, then time for the replacements to start.
    await advanceUntil(page, {
      stepMs: 60_000,
      minSteps: 7,
      maxSteps: 9,
      what: `${REPLICAS} robots Running outside ${victim} and none inside it`,
      // Evicted robots may linger as "Terminating" on the dead node, as in a
      // real cluster; only Running counts.
      done: (robots) =>
        runningIn(robots, Object.keys(robots).filter((zone) => zone !== victim)) === REPLICAS &&
        (robots[victim]?.Running ?? 0) === 0,
    });
    // The evicted robots stay listed as Terminating on the dead zone: no kubelet is
    // there to confirm their deletion.
    const afterKill = await robots(page);
    assert.equal(afterKill[victim]?.Terminating ?? 0, lost, JSON.stringify(afterKill));

    await page.fill('#kubectl-input', 'get pods');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'NAME');
    await waitForText(page, '#kubectl-output', 'READY');
    await waitForText(page, '#kubectl-output', 'Terminating');
    await waitForText(page, '#kubectl-output', 'Running');

    // The terminal also takes sim commands: "why" explains a robot back to the request.
    // An original robot (Running since the apply, minutes old), not a replacement:
    // its chain leads back to the Deployment the learner applied.
    const podName = await page.evaluate(() => {
      const rows = document.querySelector('#kubectl-output').textContent.split('\n');
      for (const row of rows) {
        const m = row.match(/^(web-[a-z0-9]+-[a-z0-9]{5})\s+1\/1\s+Running\s+\d+\s+(\S+)/);
        // Minutes old (`9m30s`, `10m`), not seconds (`40s`): kubectl shows
        // seconds too below ten minutes.
        if (m && !/^\d+s$/.test(m[2])) return m[1];
      }
      return null;
    });
    assert.ok(podName, 'a pod name in the kubectl output');
    await page.fill('#kubectl-input', `sim why pod/${podName}`);
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'ADDED deployment/default/web by kubernetes-admin on request');

    // kubectl explain reads its field documentation from explain.data, fetched
    // next to the app after the first render.
    await page.fill('#kubectl-input', 'explain deployment.spec.replicas');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'FIELD: replicas <integer>');

    // --help prints kubectl's own help for the command, from help.data (fetched
    // the same way): description, examples, usage.
    await page.fill('#kubectl-input', 'run --help');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'kubectl run hazelcast --image=hazelcast/hazelcast --port=5701');
    await waitForText(page, '#kubectl-output', 'Usage:\n  kubectl run NAME --image=image');

    await applyYaml(page, MALFORMED);
    await page.waitForSelector('#apply-result.error');
    await waitForText(page, '#apply-result', 'line');

    await screenshot(page, 'skeleton');
  } catch (err) {
    await screenshot(page, 'skeleton-failure').catch(() => {});
    if (problems.length === 0) throw err;
    // The console usually explains why the page did not behave.
    throw new Error(`${err.message}\nproblems seen in the page:\n  ${problems.join('\n  ')}`, { cause: err });
  }
  assert.deepEqual(problems, [], 'console errors or page errors during the run');
});




/**
 * Clicks the `stepMs` advance button `minSteps` times, then keeps polling
 * `done(robots)` (SETTLE_MS of real time per step) and advancing one more step
 * at a time, up to `maxSteps` steps in all. Resolves to the robots snapshot
 * that satisfied `done`.
 */
async function advanceUntil(page, { stepMs, minSteps, maxSteps, what, done }) {
  const button = `button.advance[data-ms="${stepMs}"]`;
  for (let step = 1; step <= maxSteps; step++) {
    await page.click(button);
    if (step < minSteps) continue;
    const snapshot = await pollRobots(page, done, SETTLE_MS);
    if (snapshot) return snapshot;
  }
  const last = await robots(page);
  const timeMs = await page.evaluate(() => window.__warehouse.timeMs());
  assert.fail(`expected ${what} by t=${timeMs} ms; robots: ${JSON.stringify(last)}`);
}


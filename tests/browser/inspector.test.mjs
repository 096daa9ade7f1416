// The inspector: a robot picked in "why this zone?" opens with its kubectl describe,
// live YAML, events, the why-chain and the dispatcher's table; a zone opened from the
// zone list is killed from the inspector (the terminal shows `sim node kill`, the
// list shows it not ready after fast-forward); Escape closes it.
//
// App contract: `#why-pod-inspect` (beside the robot selector) and
// `.inspect-zone[data-zone]` (zone names) open `section#inspector[data-target]`;
// `.inspector-tab[data-tab]` switches `#inspector-describe`, `#inspector-yaml`,
// `#inspector-events`, `#inspector-why` (`.why-step` per write) and
// `#inspector-decision`; `.inspector-kill` kills the zone; `#inspector-close` closes.

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

/** Short waits: everything here answers within one render. */
const SHORT = { timeout: 5_000 };

let app;

before(async () => {
  await rm(path.join(SCREENSHOT_DIR, 'inspector-failure.png'), { force: true });
  app = await openApp();
});

after(async () => {
  await app?.close();
});

async function openTab(page, tab) {
  await page.click(`#inspector .inspector-tab[data-tab="${tab}"]`, SHORT);
  await page.locator(`#inspector .inspector-body[data-tab="${tab}"]`).waitFor(SHORT);
}

test('inspector: a robot, then a zone killed from it, then Escape', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await page.click('#play-pause');
    await applyYaml(page, webDeployment(3));
    await waitForText(page, '#apply-result', 'deployment.apps/web created', SHORT);
    await page.click('button.advance[data-ms="30000"]');
    assert.ok(await pollRobots(page, (r) => runningIn(r) === 3, 5_000), 'three robots running');

    // A robot: picked in "why this zone?", opened in the inspector.
    const options = await page.$$eval('#why-pod option', (os) => os.map((o) => o.value).filter(Boolean));
    assert.equal(options.length, 3, JSON.stringify(options));
    const robot = options[0];
    await page.selectOption('#why-pod', robot);
    await page.click('#why-pod-inspect', SHORT);
    await page.locator(`#inspector[data-target="robot:${robot}"]`).waitFor(SHORT);
    const name = robot.split('/')[1];
    await waitForText(page, '#inspector-describe', `Name:             ${name}`, SHORT);
    const describe = await page.textContent('#inspector-describe');
    assert.match(describe, /^Node:\s+zone-[abc]\//m);
    assert.match(describe, /^Events:/m);
    assert.match(describe, /Successfully assigned/);

    await openTab(page, 'yaml');
    await waitForText(page, '#inspector-yaml', 'kind: Pod', SHORT);
    await waitForText(page, '#inspector-yaml', `name: ${name}`, SHORT);

    await openTab(page, 'events');
    await waitForText(page, '#inspector-events', 'Scheduled', SHORT);

    await openTab(page, 'why');
    const steps = await page.$$eval('#inspector-why .why-step', (lis) => lis.map((li) => li.textContent));
    assert.ok(steps.length >= 4, JSON.stringify(steps));
    // Oldest first: you created the Deployment; the dispatcher placed the robot.
    assert.match(steps[0], /you \(kubernetes-admin\) created deployment\/default\/web/);
    assert.ok(steps.some((s) => /the zone dispatcher changed pod\//.test(s)), JSON.stringify(steps));
    assert.ok(steps.some((s) => /replicaset clerk created pod\//.test(s)), JSON.stringify(steps));

    await openTab(page, 'why-zone');
    const chosen = await page.$$eval('#inspector-decision tr.verdict.chosen', (trs) => trs.map((t) => t.dataset.node));
    assert.equal(chosen.length, 1, JSON.stringify(chosen));
    assert.match(describe, new RegExp(`^Node:\\s+${chosen[0]}/`, 'm'));
    await screenshot(page, 'inspector-robot');

    // A zone: opened from the zone list, killed from the inspector.
    await page.click('.inspect-zone[data-zone="zone-a"]', SHORT);
    await page.locator('#inspector[data-target="zone:zone-a"]').waitFor(SHORT);
    await waitForText(page, '#inspector-describe', 'Name:               zone-a', SHORT);
    await page.click('#inspector .inspector-kill', SHORT);
    await waitForText(page, '#kubectl-output', '$ sim node kill zone-a', SHORT);
    await page.locator('#inspector .inspector-restart').waitFor(SHORT);
    await page.click('button.advance[data-ms="60000"]');
    await waitForText(page, '.zone-row[data-zone="zone-a"]', 'not ready', SHORT);
    await waitForText(page, '#inspector .inspector-status', 'powered off', SHORT);
    await screenshot(page, 'inspector-zone');

    // Escape closes it.
    await page.keyboard.press('Escape');
    await page.locator('#inspector').waitFor({ state: 'detached', ...SHORT });

    // The staff list opens a staff member with its role.
    await page.click('.inspect-component[data-component="kube-scheduler"]', SHORT);
    await page.locator('#inspector[data-target="staff:scheduler"]').waitFor(SHORT);
    await waitForText(page, '#inspector .inspector-role', 'zone dispatcher', SHORT);
    await page.click('#inspector-close', SHORT);
    await page.locator('#inspector').waitFor({ state: 'detached', ...SHORT });
  } catch (err) {
    await screenshot(page, 'inspector-failure').catch(() => {});
    if (problems.length === 0) throw err;
    throw new Error(`${err.message}\nproblems seen in the page:\n  ${problems.join('\n  ')}`, { cause: err });
  }
  assert.deepEqual(problems, [], 'console errors or page errors during the run');
});

// The reception desk's log shows each write with the checks it passed, where it was
// refused, its status code and its modelled latency; `kubectl describe` in the
// terminal prints the object with its Events section.
//
// App contract: `.request-log li.request[data-verb][data-target][data-code]`, each
// with one `.stage[data-stage]` per pipeline stage passed (`.stage.refused` where it
// stopped) and a `.request-latency`; the kubectl box is `#kubectl-input` and
// `#kubectl-output`.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  applyYaml,
  openApp,
  screenshot,
  SCREENSHOT_DIR,
  waitForText,
  WAIT_MS,
  webDeployment,
} from './harness.mjs';

let app;

before(async () => {
  await rm(path.join(SCREENSHOT_DIR, 'reception-failure.png'), { force: true });
  app = await openApp();
});

after(async () => {
  await app?.close();
});

const MISMATCHED = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: broken
spec:
  selector:
    matchLabels:
      app: one
  template:
    metadata:
      labels:
        app: two
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`;

test('reception desk: requests with their stages, refusals and latency; describe with events', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await page.click('#play-pause');

    await applyYaml(page, webDeployment(2));
    await waitForText(page, '#apply-result', 'deployment.apps/web created');
    const created = page.locator('.request-log li.request[data-verb="create"][data-target="deployments/web"]');
    await created.first().waitFor({ timeout: WAIT_MS });
    assert.equal(await created.first().getAttribute('data-code'), '201');
    assert.equal(await created.first().locator('.stage.ok').count(), 6, 'all six checks passed');
    assert.match(await created.first().locator('.request-latency').textContent(), /ms$/);

    // A Deployment whose selector does not match its template is refused at validation.
    await applyYaml(page, MISMATCHED);
    await waitForText(page, '#apply-result', 'selector');
    const refused = page.locator('.request-log li.request.refused').first();
    await refused.waitFor({ timeout: WAIT_MS });
    assert.equal(await refused.getAttribute('data-code'), '422');
    assert.equal(await refused.locator('.stage.refused').getAttribute('data-stage'), 'validation');
    assert.equal(await refused.locator('.stage').count(), 4, 'stopped at the fourth check');

    // The control plane's own writes (kubelets' leases and pod statuses, the
    // controllers' objects) go through the same desk.
    await page.click('button.advance[data-ms="30000"]');
    await page.locator('.request-log li.request[data-user^="system:"]').first().waitFor({ timeout: WAIT_MS });

    await page.fill('#kubectl-input', 'describe deployment web');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'RollingUpdateStrategy:  25% max unavailable, 25% max surge');
    await waitForText(page, '#kubectl-output', 'ScalingReplicaSet');

    // The Russian interface names the desk in Russian.
    await page.click('#lang-toggle');
    await waitForText(page, '#requests-heading', 'Журнал стойки регистрации');
    await page.click('#lang-toggle');

    await screenshot(page, 'reception');
  } catch (err) {
    await screenshot(page, 'reception-failure').catch(() => {});
    if (problems.length === 0) throw err;
    throw new Error(`${err.message}\nproblems seen in the page:\n  ${problems.join('\n  ')}`, { cause: err });
  }
  assert.deepEqual(problems, [], 'console errors or page errors during the run');
});

test('the desk decides who asks: a forged pass stops at the badge, jane at the permission gate, --as is recorded as jane', { timeout: 60_000 }, async () => {
  const { page, problems } = app;
  const run = async (line) => {
    await page.fill('#kubectl-input', line);
    await page.press('#kubectl-input', 'Enter');
  };
  // Only the learner's requests, so the control plane's own writes do not push
  // these rows out of the log.
  await page.check('#requests-mine-only');
  await run('kubectl run forged --image=nginx:1.27 --token=forged-pass');
  await waitForText(page, '#kubectl-output', 'You must be logged in to the server (Unauthorized)');
  const forged = page.locator('.request-log li.request.refused[data-target="pods/forged"]').first();
  await forged.waitFor({ timeout: WAIT_MS });
  assert.equal(await forged.getAttribute('data-code'), '401');
  assert.equal(await forged.locator('.stage').count(), 1, 'stopped at the first check');
  assert.equal(await forged.locator('.stage.refused').getAttribute('data-stage'), 'authentication');
  assert.match(await forged.locator('.request-who').textContent(), /unknown pass/);
  await page.waitForSelector('.office-svg g.envelope.refused[data-gate="badge"]', { timeout: 5_000 });

  await run('sim user add jane');
  await waitForText(page, '#kubectl-output', 'jane-token');
  await run('kubectl run jane-1 --image=nginx:1.27 --token=jane-token');
  await waitForText(page, '#kubectl-output', 'User "jane" cannot create resource "pods"');
  const denied = page.locator('.request-log li.request.refused[data-target="pods/jane-1"]').first();
  await denied.waitFor({ timeout: WAIT_MS });
  assert.equal(await denied.getAttribute('data-user'), 'jane');
  assert.equal(await denied.getAttribute('data-code'), '403');
  assert.equal(await denied.locator('.stage.refused').getAttribute('data-stage'), 'authorization');
  await page.waitForSelector('.office-svg g.envelope.refused[data-gate="permission"]', { timeout: 5_000 });

  await run('kubectl create rolebinding jane-edit --clusterrole=edit --user=jane');
  await waitForText(page, '#kubectl-output', 'rolebinding.rbac.authorization.k8s.io/jane-edit created');
  await run('kubectl run jane-2 --image=nginx:1.27 --as=jane');
  await waitForText(page, '#kubectl-output', 'pod/jane-2 created');
  const made = page.locator('.request-log li.request[data-target="pods/jane-2"]').first();
  await made.waitFor({ timeout: WAIT_MS });
  assert.equal(await made.getAttribute('data-user'), 'jane');
  assert.equal(await made.getAttribute('data-code'), '201');

  // In Russian the unknown pass is named in Russian.
  await page.click('#lang-toggle');
  await waitForText(page, '.request-log li.request[data-target="pods/forged"] .request-who', 'пропуск не опознан');
  await screenshot(page, 'reception-identity');
  await page.click('#lang-toggle');
  await page.uncheck('#requests-mine-only');
  assert.deepEqual(problems, [], 'console errors or page errors during the run');
});

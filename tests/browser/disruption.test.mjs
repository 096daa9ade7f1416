// A staffing minimum (PodDisruptionBudget) in the browser: `kubectl get pdb`
// shows the disruptions allowed; a drain of two zones prints the desk's 429 refusal
// and retries until the replacement robot is Ready; the reception log shows each
// eviction as one request, `create pods/NAME/eviction`, answered 201 or 429.
//
// The floor's staffing-minimum board lists the budget with its counts.
//
// App contract: the terminal is `#kubectl-input` / `#kubectl-output`; the desk's
// log is `.request-log li.request[data-verb][data-target][data-code]`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { applyYaml, floor, kubectl, openApp, screenshot, waitForText, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

// Three robots that pass their readiness check 10 s after they start.
const SLOW_WEB = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        readinessProbe:
          httpGet:
            path: /
            port: 80
          initialDelaySeconds: 10
          periodSeconds: 5
`;

test('a disruption budget holds a drain back with 429 until the replacement is ready', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await page.click('#play-pause');
    await applyYaml(page, SLOW_WEB);
    await waitForText(page, '#apply-result', 'deployment.apps/web created');
    await kubectl(page, 'kubectl create pdb web --selector=app=web --min-available=2');
    await kubectl(page, 'sim advance 30s');
    const budget = await kubectl(page, 'kubectl get pdb web');
    assert.match(budget, /web\s+2\s+N\/A\s+1\s/, budget);
    // The floor's staffing-minimum board says the same.
    await page.waitForFunction(
      () => JSON.parse(window.__warehouse.floor()).board.some((l) => l.includes('1 may leave')),
      null,
      { timeout: WAIT_MS },
    );
    const board = (await floor(page)).board;
    assert.deepEqual(board, ['Staffing minimum web (at least 2 working): 3 of 3 ready, 1 may leave']);

    await kubectl(page, 'kubectl drain zone-a zone-b --ignore-daemonsets');
    const printed = await page.evaluate(() => document.querySelector('#kubectl-output').textContent);
    assert.ok(
      printed.includes("Cannot evict pod as it would violate the pod's disruption budget."),
      printed.slice(-2000),
    );
    assert.ok(printed.includes('node/zone-b drained'), printed.slice(-2000));

    await page.check('#requests-mine-only');
    const evictions = await page.evaluate(() =>
      [...document.querySelectorAll('.request-log li.request')]
        .filter((li) => li.dataset.target.endsWith('/eviction'))
        .map((li) => `${li.dataset.verb} ${li.dataset.target} ${li.dataset.code}`),
    );
    assert.ok(evictions.some((e) => /^create pods\/web-[a-z0-9-]+\/eviction 429$/.test(e)), evictions.join('\n'));
    assert.ok(evictions.some((e) => /^create pods\/web-[a-z0-9-]+\/eviction 201$/.test(e)), evictions.join('\n'));
    const where = await kubectl(page, 'kubectl get pods -l app=web -o wide --no-headers');
    assert.equal(where.trim().split('\n').filter((l) => l.includes('zone-c')).length, 3, where);
    await screenshot(page, 'disruption-budget');
    assert.deepEqual(problems, []);
  } catch (e) {
    await screenshot(page, 'disruption-budget-failure');
    throw e;
  }
});

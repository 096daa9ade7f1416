// Robots run their programs: a command that exits 1 leaves its robot broken and
// retrying (CrashLoopBackOff), an image that does not exist does the same
// (ImagePullBackOff), a Job's robots finish their task (Completed), and the terminal
// shows a container's log; `kubectl exec` runs nslookup in a container and
// `kubectl top` works once the metrics-server add-on is enabled.
//
// App contract: `window.__warehouse.robots()` counts workload robots per zone and
// state (`BackOff`, `Completed`, `Running`, ...); the kubectl box is `#kubectl-input`
// and `#kubectl-output`.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  applyYaml,
  openApp,
  pollRobots,
  robots,
  screenshot,
  SCREENSHOT_DIR,
  waitForText,
  WAIT_MS,
} from './harness.mjs';

let app;

before(async () => {
  await rm(path.join(SCREENSHOT_DIR, 'runtime-failure.png'), { force: true });
  app = await openApp();
});

after(async () => {
  await app?.close();
});

const MANIFESTS = `apiVersion: v1
kind: Pod
metadata:
  name: crasher
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: ["sh", "-c", "echo starting; exit 1"]
---
apiVersion: v1
kind: Pod
metadata:
  name: typo
spec:
  containers:
  - name: web
    image: ngnix:1.27
---
apiVersion: batch/v1
kind: Job
metadata:
  name: count
spec:
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox:1.36
        command: ["sh", "-c", "for i in 1 2 3; do echo step $i; done"]
`;

function inState(counts, state) {
  return Object.values(counts).reduce((n, zone) => n + (zone[state] ?? 0), 0);
}

test('runtime: crash loops, bad images, finished jobs and logs', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await page.click('#play-pause');
    await applyYaml(page, MANIFESTS);
    await waitForText(page, '#apply-result', 'job.batch/count created');
    for (let i = 0; i < 2; i++) await page.click('button.advance[data-ms="30000"]');

    const counts = await pollRobots(
      page,
      (r) => inState(r, 'BackOff') === 2 && inState(r, 'Completed') === 2,
      5_000,
    );
    assert.ok(counts, `expected 2 robots in back-off and 2 done: ${JSON.stringify(await robots(page))}`);

    await page.fill('#kubectl-input', 'get pods');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'CrashLoopBackOff');
    await waitForText(page, '#kubectl-output', 'ImagePullBackOff');
    await waitForText(page, '#kubectl-output', 'Completed');

    await page.fill('#kubectl-input', 'logs crasher --previous');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'starting');

    await page.fill('#kubectl-input', 'describe pod typo');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'Failed to pull image "ngnix:1.27"');

    // A command inside a running container, and CoreDNS answering it.
    await applyYaml(page, `apiVersion: v1
kind: Pod
metadata:
  name: toolbox
spec:
  containers:
  - name: box
    image: busybox:1.28
    command: ["sleep", "3600"]
`);
    await waitForText(page, '#apply-result', 'pod/toolbox created');
    await page.click('button.advance[data-ms="30000"]');
    await page.fill('#kubectl-input', 'exec toolbox -- nslookup kubernetes.default');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'Address 1: 10.96.0.1 kubernetes.default.svc.cluster.local');

    // kubectl top needs the metrics-server add-on.
    await page.fill('#kubectl-input', 'top nodes');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'error: Metrics API not available');
    await page.fill('#kubectl-input', 'sim addons enable metrics-server');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'deployment.apps/metrics-server created');
    for (let i = 0; i < 2; i++) await page.click('button.advance[data-ms="30000"]');
    await page.fill('#kubectl-input', 'top pods');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'MEMORY(bytes)');
    await waitForText(page, '#kubectl-output', 'toolbox');

    // kubectl edit opens the object in the editor; "Save edit" saves it.
    await page.fill('#kubectl-input', 'edit pod toolbox');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'Opened in the manifest editor');
    const opened = await page.inputValue('#yaml-editor');
    assert.ok(opened.startsWith('# Please edit the object below.'), opened.slice(0, 80));
    await waitForText(page, '#apply-btn', 'Save edit');
    await page.fill('#yaml-editor', opened.replace('image: busybox:1.28', 'image: busybox:1.36'));
    await page.click('#apply-btn');
    await waitForText(page, '#apply-result', 'pod/toolbox edited');
    await waitForText(page, '#apply-btn', 'Apply');

    // Tab completes object names from the cluster.
    await page.fill('#kubectl-input', 'exec tool');
    await page.press('#kubectl-input', 'Tab');
    assert.equal(await page.inputValue('#kubectl-input'), 'exec toolbox ');
    await page.fill('#kubectl-input', 'get nodes zone-');
    await page.press('#kubectl-input', 'Tab');
    await waitForText(page, '#kubectl-completions', 'zone-a  zone-b  zone-c');
    await page.fill('#kubectl-input', '');

    await screenshot(page, 'runtime');
  } catch (err) {
    await screenshot(page, 'runtime-failure').catch(() => {});
    if (problems.length === 0) throw err;
    throw new Error(`${err.message}\nproblems seen in the page:\n  ${problems.join('\n  ')}`, { cause: err });
  }
  assert.deepEqual(problems, [], 'console errors or page errors during the run');
});

// Priority levels (PriorityClasses) and preemption in the browser: the two system
// classes are listed from the start; an urgent robot that fits no zone makes the
// dispatcher preempt one batch robot, shows the zone under NOMINATED NODE while the
// victim stops, and the narration tells it in English and Russian, in warehouse
// words and Kubernetes words.
//
// App contract: the editor is `#yaml-editor` / `#apply-btn` / `#apply-result`; the
// terminal is `#kubectl-input` / `#kubectl-output`; `#narration` holds the lines;
// `#lang-toggle` switches the language.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { applyYaml, kubectl, openApp, screenshot, waitForText, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

const BATCH = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: urgent
value: 100000
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: batch
spec:
  replicas: 3
  selector:
    matchLabels:
      app: batch
  template:
    metadata:
      labels:
        app: batch
    spec:
      containers:
      - name: worker
        image: nginx:1.27
        resources:
          requests:
            cpu: "3"
`;

const URGENT = `apiVersion: v1
kind: Pod
metadata:
  name: checkout
spec:
  priorityClassName: urgent
  containers:
  - name: app
    image: nginx:1.27
    resources:
      requests:
        cpu: "3"
`;

test('an urgent robot preempts a batch robot, is nominated, and the narration says so', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await page.click('#play-pause');
    const classes = await kubectl(page, 'kubectl get priorityclass');
    assert.match(classes, /system-cluster-critical\s+2000000000\s+false/);
    assert.match(classes, /system-node-critical\s+2000001000\s+false/);

    await applyYaml(page, BATCH);
    await waitForText(page, '#apply-result', 'deployment.apps/batch created');
    await kubectl(page, 'sim advance 30s');
    await applyYaml(page, URGENT);
    await waitForText(page, '#apply-result', 'pod/checkout created');
    await kubectl(page, 'sim advance 1s');

    const pods = await kubectl(page, 'kubectl get pods -o wide');
    assert.match(pods, /checkout\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s+zone-[abc]\s/, pods);
    const events = await kubectl(page, 'kubectl get events --field-selector reason=Preempted');
    assert.match(events, /Preempted by pod [0-9a-f-]+ on node zone-[abc]/, events);
    const described = await kubectl(page, 'kubectl describe pod checkout');
    assert.match(described, /Priority:\s+100000/);
    assert.match(described, /Priority Class Name:\s+urgent/);
    assert.match(described, /NominatedNodeName:\s+zone-[abc]/);

    await waitForText(page, '#narration', 'The dispatcher sent 1 robot away to make room for a more important robot');
    await screenshot(page, 'priority-preempted');
    await page.click('#lang-toggle');
    await waitForText(page, '#narration', 'Диспетчер убрал, чтобы освободить место более важному роботу');
    await page.click('#lang-toggle');

    await kubectl(page, 'sim advance 40s');
    const after = await kubectl(page, 'kubectl get pod checkout -o wide');
    assert.match(after, /checkout\s+1\/1\s+Running\s+0\s+\S+\s+\S+\s+zone-[abc]\s+<none>/, after);
    assert.deepEqual(problems, []);
  } catch (e) {
    await screenshot(page, 'priority-failure').catch(() => {});
    throw e;
  }
});

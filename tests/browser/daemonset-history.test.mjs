// A DaemonSet's rollout history in the browser: applied from the editor and given a
// new image in the terminal, it has two ControllerRevisions; `kubectl rollout undo`
// puts the first template back and the controller renumbers that revision the
// newest, while every zone's robot is replaced with the old image.
//
// App contract: the editor is `#yaml-editor` / `#apply-btn` / `#apply-result`; the
// terminal is `#kubectl-input` / `#kubectl-output`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { applyYaml, kubectl, openApp, screenshot, waitForText, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await app?.close();
});

const agent = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: busybox:1.36
        command: ["sleep", "3600"]
`;

test('rollout history and undo of a DaemonSet read its ControllerRevisions', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.click('#play-pause');
    await applyYaml(page, agent);
    await waitForText(page, '#apply-result', 'daemonset.apps/agent created');
    await kubectl(page, 'sim advance 20s');
    await kubectl(page, 'kubectl set image ds/agent agent=busybox:1.37');
    await kubectl(page, 'sim advance 60s');
    const history = await kubectl(page, 'kubectl rollout history ds/agent');
    assert.match(history, /daemonset\.apps\/agent\nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/, history);
    const revisions = await kubectl(page, 'kubectl get controllerrevisions -l app=agent --no-headers');
    assert.equal(revisions.trim().split('\n').length, 2, revisions);
    assert.match(revisions, /^agent-[0-9a-f]{8,10}\s+daemonset\.apps\/agent\s+2\s/m, revisions);

    const undo = await kubectl(page, 'kubectl rollout undo ds/agent');
    assert.equal(undo.trim(), 'daemonset.apps/agent rolled back');
    await kubectl(page, 'sim advance 60s');
    const after = await kubectl(page, 'kubectl rollout history ds/agent');
    assert.match(after, /REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/, after);
    const images = await kubectl(page, "kubectl get pods -l app=agent -o jsonpath='{.items[*].spec.containers[0].image}'");
    const list = images.trim().split(/\s+/);
    assert.ok(list.length >= 3, images);
    assert.ok(list.every((i) => i === 'busybox:1.36'), images);
    await screenshot(page, 'daemonset-history');
    assert.deepEqual(problems, []);
  } catch (err) {
    await screenshot(page, 'daemonset-history-failure').catch(() => {});
    throw err;
  }
});

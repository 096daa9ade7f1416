// Server-side apply typed in the terminal: a Deployment applied with
// `kubectl apply --server-side` (pasted as a heredoc), scaled by hand, then applied
// again: the apiserver refuses with upstream's conflict naming the manager and the
// field, and kubectl adds its advice; `--force-conflicts` takes the field back, and
// `get -o yaml --show-managed-fields` shows the applier's FieldsV1.
//
// App contract: the terminal is `#kubectl-input` / `#kubectl-output`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openApp, pasteRun, screenshot, WAIT_MS, webDeployment } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await app?.close();
});

const run = pasteRun;

const APPLY = (flags) => `kubectl apply --server-side${flags} -f - <<'EOF'
${webDeployment(2)}EOF`;

test('apply --server-side reports a conflict and --force-conflicts takes the field over', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    assert.match(await run(page, APPLY('')), /deployment\.apps\/web serverside-applied/);
    assert.match(await run(page, 'kubectl scale deployment web --replicas=5'), /deployment\.apps\/web scaled/);
    const refused = await run(page, APPLY(''));
    assert.match(
      refused,
      /error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps\/v1: \.spec\.replicas/,
    );
    assert.match(refused, /please re-run the apply\s+command with the `--force-conflicts` flag/);
    assert.match(await run(page, "kubectl get deployment web -o jsonpath='{.spec.replicas}'"), /5/);
    await screenshot(page, 'server-side-apply-conflict');
    assert.match(await run(page, APPLY(' --force-conflicts')), /deployment\.apps\/web serverside-applied/);
    assert.match(await run(page, "kubectl get deployment web -o jsonpath='{.spec.replicas}'"), /2/);
    const shown = await run(page, 'kubectl get deployment web -o yaml --show-managed-fields');
    assert.match(shown, /managedFields:/);
    assert.match(shown, /manager: kubectl\s+operation: Apply/);
    assert.match(shown, /k:\{"name":"web"\}:/);
    assert.doesNotMatch(await run(page, 'kubectl get deployment web -o yaml'), /managedFields/);
    assert.deepEqual(problems, []);
  } catch (err) {
    await screenshot(page, 'server-side-apply-failure');
    throw err;
  }
});

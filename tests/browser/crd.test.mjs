// A CustomResourceDefinition in the browser's terminal: pasted as a heredoc, it is
// established (`kubectl wait --for condition=established`), its resource appears in
// `kubectl api-resources`, a custom object applied the same way is listed by
// `kubectl get` with the definition's printer columns, and one its schema refuses
// gets the apiserver's message.
//
// App contract: the terminal is `#kubectl-input` / `#kubectl-output`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openApp, screenshot, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await app?.close();
});

const output = (page) => page.locator('#kubectl-output').textContent();

/** Pastes `text` into the terminal box and runs it; waits until `expected` is printed. */
async function run(page, text, expected) {
  const before = (await output(page)).length;
  await page.fill('#kubectl-input', '');
  await page.focus('#kubectl-input');
  await page.keyboard.insertText(text);
  await page.press('#kubectl-input', 'Enter');
  await page.waitForFunction(
    ([len, want]) => (document.querySelector('#kubectl-output')?.textContent ?? '').slice(len).includes(want),
    [before, expected],
    { timeout: WAIT_MS },
  );
  return (await output(page)).slice(before);
}

const definition = `kubectl apply -f - <<'EOF'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: backups.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: backups
    kind: Backup
    shortNames: [bk]
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - name: Schedule
      type: string
      jsonPath: .spec.schedule
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [schedule]
            properties:
              schedule: {type: string}
              keep: {type: integer, minimum: 1, default: 7}
EOF`;

const backup = (name, spec) => `kubectl apply -f - <<'EOF'
apiVersion: example.com/v1
kind: Backup
metadata:
  name: ${name}
spec:
${spec}
EOF`;

test('a definition pasted in the terminal serves its kind to kubectl get', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  await run(page, definition, 'customresourcedefinition.apiextensions.k8s.io/backups.example.com created');
  await run(
    page,
    'kubectl wait --for condition=established --timeout=60s crd/backups.example.com',
    'condition met',
  );
  const resources = await run(page, 'kubectl api-resources --api-group=example.com', 'Backup');
  assert.match(resources, /backups\s+bk\s+example\.com\/v1\s+true\s+Backup/, resources);
  await run(page, backup('nightly', '  schedule: "0 1 * * *"'), 'backup.example.com/nightly created');
  const refused = await run(page, backup('broken', '  schedule: "@daily"\n  keep: 0'), 'is invalid');
  assert.match(
    refused,
    /The Backup "broken" is invalid: spec\.keep: Invalid value: 0: spec\.keep in body should be greater than or equal to 1/,
    refused,
  );
  const listed = await run(page, 'kubectl get bk', 'nightly');
  assert.match(listed, /NAME\s+SCHEDULE/, listed);
  assert.match(listed, /nightly\s+0 1 \* \* \*/, listed);
  assert.doesNotMatch(listed, /broken/, listed);
  await screenshot(page, 'crd');
  assert.deepEqual(problems, []);
});

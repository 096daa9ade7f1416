// Helm in the browser's terminal: `helm install shop warehouse/web` prints Helm's
// status and the chart's notes, its two robots start on the floor, `helm list`
// shows the release, `helm upgrade --set replicaCount=3` adds a robot and makes
// revision 2, the release's history is a Secret per revision, and `helm uninstall`
// takes the robots away. Tab completes helm's commands and the bundled charts.
//
// App contract: the terminal is `#kubectl-input` / `#kubectl-output` (each command's
// stdout in a `.stdout` element); `window.__warehouse.robots()` counts the robots
// per zone and state.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { kubectl, openApp, robots, runningIn, screenshot, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await app?.close();
});

/** Running robots on the whole floor. */
async function running(page) {
  return runningIn(await robots(page));
}

/** Polls until `want` robots run on the floor. */
async function waitRunning(page, want) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const now = await running(page);
    if (now === want) return;
    if (Date.now() >= deadline) throw new Error(`expected ${want} running robots, the floor shows ${now}`);
    await page.waitForTimeout(100);
  }
}

test('helm installs, upgrades and uninstalls a release the floor shows', async () => {
  const { page } = app;
  const base = await running(page);

  const install = await kubectl(page, 'helm install shop warehouse/web');
  assert.match(install, /^NAME: shop\nLAST DEPLOYED: .+\nNAMESPACE: default\nSTATUS: deployed\nREVISION: 1\nTEST SUITE: None\nNOTES:\n/);
  assert.match(install, /The shop runs 2 pods of nginx:1\.27\.0/);

  await kubectl(page, 'sim advance 30s');
  await waitRunning(page, base + 2);

  const list = await kubectl(page, 'helm list');
  assert.match(list, /^NAME\s+NAMESPACE\s+REVISION\s+UPDATED\s+STATUS\s+CHART\s+APP VERSION\s*\nshop\s+default\s+1\s+.+deployed\s+web-0\.1\.0\s+1\.27\.0/);

  const upgrade = await kubectl(page, 'helm upgrade shop warehouse/web --set replicaCount=3');
  assert.match(upgrade, /^Release "shop" has been upgraded\. Happy Helming!\n/);
  assert.match(upgrade, /REVISION: 2\n/);
  await kubectl(page, 'sim advance 30s');
  await waitRunning(page, base + 3);

  const secrets = await kubectl(page, 'kubectl get secrets -l owner=helm --no-headers');
  assert.match(secrets, /sh\.helm\.release\.v1\.shop\.v1\s+helm\.sh\/release\.v1/);
  assert.match(secrets, /sh\.helm\.release\.v1\.shop\.v2\s+helm\.sh\/release\.v1/);
  await screenshot(page, 'helm-release');

  assert.equal(await kubectl(page, 'helm uninstall shop'), 'release "shop" uninstalled\n');
  await kubectl(page, 'sim advance 1m');
  await waitRunning(page, base);
});

test('a refused helm command prints Helm\'s error and changes nothing', async () => {
  const { page } = app;
  await kubectl(page, 'helm install shop warehouse/nope');
  const text = await page.locator('#kubectl-output').textContent();
  assert.ok(
    text.includes(`Error: INSTALLATION FAILED: chart "nope" matching  not found in warehouse index. (try 'helm repo update'): no chart name found`),
    text.slice(-400),
  );
  const list = await kubectl(page, 'helm list');
  assert.equal(list, 'NAME\tNAMESPACE\tREVISION\tUPDATED\tSTATUS\tCHART\tAPP VERSION\n');
});

test('Tab completes helm commands and the bundled charts', async () => {
  const { page } = app;
  await page.fill('#kubectl-input', 'helm install shop warehouse/w');
  await page.press('#kubectl-input', 'Tab');
  assert.equal(await page.inputValue('#kubectl-input'), 'helm install shop warehouse/web ');
  await page.fill('#kubectl-input', '');
});

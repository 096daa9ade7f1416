// A load gauge (HorizontalPodAutoscaler) in the browser: php-apache and its
// autoscaler applied from the editor, a load generator sending 20 requests a second
// (400m of CPU against one robot's 200m request: 200%): the gauge clerk's first
// reading asks for four robots, and two simulated minutes later they are four, each
// at the aim of 50%.
//
// The floor's notice board lists the gauge after the staffing minimums and the
// schedules, before its first reading and with it; the line opens the autoscaler
// in the inspector, and reads in Russian after the language toggle.
//
// App contract: the editor is `#yaml-editor` / `#apply-btn` / `#apply-result`; the
// terminal is `#kubectl-input` / `#kubectl-output`; the inspector is `#inspector`
// with `data-target`, its tabs `.inspector-tab[data-tab]`.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { applyYaml, floor, kubectl, openApp, REPO_ROOT, screenshot, waitForText, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

const HPA = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: php-apache
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: php-apache
  minReplicas: 1
  maxReplicas: 10
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 50
`;

/** Waits until the board has a line starting with `prefix`; resolves to the floor. */
async function waitBoard(page, prefix, what) {
  try {
    await page.waitForFunction(
      (p) => JSON.parse(window.__warehouse.floor()).board.some((l) => l.startsWith(p)),
      prefix,
      { timeout: WAIT_MS },
    );
  } catch (err) {
    throw new Error(`timed out waiting for ${what}; the board: ${JSON.stringify((await floor(page)).board)}`, { cause: err });
  }
  return floor(page);
}

test('a load gauge scales php-apache to four robots and says so on the board', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await page.click('#play-pause');
    await kubectl(page, 'sim addons enable metrics-server');
    const php = await readFile(path.join(REPO_ROOT, 'tests/k8s-examples/application/php-apache.yaml'), 'utf8');
    await applyYaml(page, php);
    await waitForText(page, '#apply-result', 'deployment.apps/php-apache created');
    await waitForText(page, '#apply-result', 'service/php-apache created');
    await applyYaml(page, HPA);
    await waitForText(page, '#apply-result', 'horizontalpodautoscaler.autoscaling/php-apache created');

    // Before the clerk has read the CPU, the gauge says it does not know it yet.
    const first = await waitBoard(page, 'Load gauge php-apache', 'the gauge line');
    assert.ok(
      first.board.some((l) => /^Load gauge php-apache: cpu unknown of 50%( → 1 robot)? \(1–10\)$/.test(l)),
      JSON.stringify(first.board),
    );

    await kubectl(page, 'kubectl run load-generator --image=busybox:1.28 --restart=Never -- sleep 3600');
    await kubectl(page, 'sim traffic start load --to svc/php-apache --from load-generator --rps 20');
    // Five seconds at a time until the clerk's first reading under load: 200%, so
    // it asks for four robots (its dial turns red while they come); then the rest
    // of two minutes.
    const rising = 'Load gauge php-apache: cpu 200% of 50% → 4 robots (1–10)';
    let waited = 0;
    while (!(await floor(page)).board.includes(rising)) {
      assert.ok(waited < 120, `no reading of 200% in 2m: ${JSON.stringify((await floor(page)).board)}`);
      await kubectl(page, 'sim advance 5s');
      waited += 5;
    }
    await screenshot(page, 'autoscaler-rising');
    if (waited < 120) await kubectl(page, `sim advance ${120 - waited}s`);

    const line = 'Load gauge php-apache: cpu 50% of 50% → 4 robots (1–10)';
    const now = await waitBoard(page, line, 'four robots at the aim');
    assert.deepEqual(now.board, [line]);
    const replicas = await kubectl(page, 'kubectl get deployment php-apache -o jsonpath={.spec.replicas}');
    assert.equal(replicas.trim(), '4');

    // The line opens the autoscaler in the inspector.
    const gauge = now.gauges.find((g) => g.name === 'php-apache');
    assert.ok(gauge, JSON.stringify(now.gauges));
    await page.locator('#warehouse-canvas').click({
      position: { x: (gauge.x + 40) * now.zoom, y: (gauge.y + gauge.h / 2) * now.zoom },
    });
    await page.locator('#inspector[data-target="gauge:default/php-apache"]').waitFor({ timeout: WAIT_MS });
    await waitForText(page, '#inspector .inspector-kind', 'Load gauge');
    await waitForText(page, '#inspector .inspector-name', 'default/php-apache');
    const tabs = await page.$$eval('#inspector .inspector-tab', (ts) => ts.map((t) => t.dataset.tab));
    assert.deepEqual(tabs, ['describe', 'yaml', 'events', 'why']);
    // kubectl describe hpa first.
    await waitForText(page, '#inspector-describe', 'Deployment pods:');
    await waitForText(page, '#inspector-describe', 'ValidMetricFound');
    await page.click('#inspector .inspector-tab[data-tab="yaml"]');
    await waitForText(page, '#inspector-yaml', 'kind: HorizontalPodAutoscaler');
    await waitForText(page, '#inspector-yaml', 'desiredReplicas: 4');
    await page.click('#inspector .inspector-tab[data-tab="events"]');
    await waitForText(page, '#inspector-events', 'SuccessfulRescale');
    await page.click('#inspector .inspector-tab[data-tab="yaml"]');
    await screenshot(page, 'autoscaler');

    // The same line and inspector in Russian.
    await page.click('#lang-toggle');
    const ru = 'Датчик загрузки php-apache: процессор 50%, цель 50% → 4 робота (1–10)';
    const inRussian = await waitBoard(page, ru, 'the Russian line');
    assert.deepEqual(inRussian.board, [ru]);
    await waitForText(page, '#inspector .inspector-kind', 'Датчик загрузки');
    await screenshot(page, 'autoscaler-ru');
    await page.click('#lang-toggle');
    assert.deepEqual(problems, []);
  } catch (e) {
    await screenshot(page, 'autoscaler-failure').catch(() => {});
    throw e;
  }
});

// The page holds against hostile content and input:
// - its Content-Security-Policy is in force (an injected inline script does not run)
//   and the app itself never violates it;
// - a lesson's raw HTML is shown as text and its links go only to http(s) or
//   in-app anchors;
// - oversized or impossible saved progress is reset with a notice, never used;
// - the worst inputs known to break shells, clocks and parsers reach the page
//   through the terminal and the YAML editor, and the tab survives each one: every
//   answer is an error message or a bounded output, and the cluster still answers.

import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { applyYaml, openApp, screenshot, waitForText, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await app?.close();
});

/** Types one line into the terminal and waits until its answer is printed. */
async function terminal(page, line, { timeout = 60_000 } = {}) {
  const before = await page.locator('#kubectl-output').textContent();
  await page.fill('#kubectl-input', line);
  await page.press('#kubectl-input', 'Enter');
  await page.waitForFunction(
    (len) => (document.querySelector('#kubectl-output')?.textContent?.length ?? 0) > len,
    before.length,
    { timeout },
  );
  const after = await page.locator('#kubectl-output').textContent();
  return after.slice(before.length);
}

/** The tab still works: the clock reads and kubectl answers. */
async function alive(page, problems, what) {
  assert.deepEqual(problems, [], `after ${what}`);
  const t = await page.evaluate(() => window.__warehouse.timeMs());
  assert.ok(Number.isFinite(t), `after ${what}: the clock reads ${t}`);
  const out = await terminal(page, 'get nodes');
  assert.match(out, /zone-a\s+Ready/, `after ${what}: kubectl get nodes answers`);
}

test('the Content-Security-Policy is in force and the app keeps to it', async () => {
  const { page, problems } = app;
  const policy = await page.evaluate(
    () => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? '',
  );
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/=]+'/);
  assert.doesNotMatch(policy, /unsafe-inline|'unsafe-eval'|inline-script-hashes/);
  assert.match(policy, /style-src 'self';/);

  // An inline script injected into the page does not run, and says why.
  const injected = await page.evaluate(async () => {
    const seen = [];
    document.addEventListener('securitypolicyviolation', (e) => seen.push(e.violatedDirective));
    const s = document.createElement('script');
    s.textContent = 'window.__injected = true;';
    document.head.appendChild(s);
    await new Promise((r) => setTimeout(r, 100));
    return { ran: window.__injected === true, seen };
  });
  assert.equal(injected.ran, false, 'an inline script ran despite the policy');
  assert.ok(injected.seen.some((d) => d.startsWith('script-src')), JSON.stringify(injected.seen));
  // The refusal is logged as a console error: it is this test's, not the app's.
  const refusals = problems.filter((p) => p.includes('Content Security Policy'));
  assert.ok(refusals.length >= 1);
  problems.length = 0;

  // The app's own views (floor with its legend, a lesson, the inspector) need nothing
  // the policy refuses: any refusal would be a console error in `problems`.
  await page.click('#lessons-btn');
  await page.waitForSelector('.legend .swatch-svg');
  await applyYaml(page, 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: nginx}]}\n');
  await waitForText(page, '#apply-result', 'pod/p created');
  await alive(page, problems, 'the first views');
});

test('oversized or impossible saved progress is reset with a notice', async () => {
  const { page, problems } = app;
  // A reload while the catalogue is still loading aborts its requests: wait for it.
  const catalogueLoaded = () =>
    page.waitForFunction(() => JSON.parse(window.__warehouse?.lesson() ?? '{}').catalogueLoaded === true);
  await catalogueLoaded();
  for (const saved of [
    'x'.repeat(200_000),
    '{"version":1,"lessons":{"desired-state":{"step":18446744073709551615,"done":[]}}}',
    '{"version":1,"lessons":{"../../etc":{"step":0,"done":[]}}}', // not-a-repository-path
  ]) {
    await page.evaluate((v) => localStorage.setItem('kube-warehouse.progress.v1', v), saved);
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await page.waitForSelector('#progress-notice');
    await catalogueLoaded();
    assert.deepEqual(problems, [], `saved progress ${saved.slice(0, 60)}`);
  }
  await page.evaluate(() => localStorage.removeItem('kube-warehouse.progress.v1'));
});

const lessonWith = (prose) => `---
id: hostile
title: "Hostile"
summary: "Raw HTML and script links."
level: beginner
minutes: 1
---

Intro.

## Look

${prose}

\`\`\`kubectl
kubectl get nodes
\`\`\`
`;

test("a lesson's raw HTML is refused and its links are only http(s) or anchors", async () => {
  const { page, problems } = app;
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'hostile-lesson-'));
  const en = path.join(tmp, 'en.md');
  const state = async () => JSON.parse(await page.evaluate(() => window.__warehouse.lesson()));

  // Raw HTML is an author's error, with its line; none of it reaches the page.
  await writeFile(en, lessonWith('Text <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script>.'));
  await page.setInputFiles('#lesson-files', [en]);
  await waitForText(page, '#lesson-errors', 'raw HTML');
  assert.match((await state()).errors.join(' '), /en\.md:13: raw HTML/);
  assert.equal(await page.evaluate(() => window.__pwned ?? null), null, 'lesson HTML ran');
  assert.equal(await page.locator('#lesson-errors img, #lesson-errors script').count(), 0);

  // Links: only http(s) and in-app anchors become links; the rest is text.
  await writeFile(
    en,
    lessonWith(
      'See [a script link](javascript:window.__pwned=3), [a data link](data:text/html,hi), ' +
        '[a real one](https://kubernetes.io/docs/) and [an anchor](#top).',
    ),
  );
  await page.setInputFiles('#lesson-files', [en]);
  await waitForText(page, '.step-body', 'a script link');
  const seen = await page.evaluate(() => {
    const body = document.querySelector('.step-body');
    return {
      hrefs: [...body.querySelectorAll('a')].map((a) => a.getAttribute('href')),
      text: body.textContent,
    };
  });
  assert.deepEqual(seen.hrefs, ['https://kubernetes.io/docs/', '#top']);
  assert.match(seen.text, /a data link/);
  await page.locator('.step-body').getByText('a script link').click();
  assert.equal(await page.evaluate(() => window.__pwned ?? null), null, 'a javascript: link ran');
  assert.deepEqual(problems, []);
  await page.click('#back-to-catalogue');
});

// Each of these once looped, panicked, overflowed the stack or grew without bound.
const HOSTILE_LINES = [
  // Characters pasted from web pages into a container script.
  "run cr --image=busybox --restart=Never -- sh -c 'echo a\rb\u000bc\u000cd\u00a0e\u2028f'",
  "run bs --image=busybox --restart=Never -- sh -c 'echo trailing\\'",
  "run dbl --image=busybox --restart=Never -- sh -c 'x=a; while true; do x=$x$x; done'",
  `run deep --image=busybox --restart=Never -- sh -c '${Array(5000).fill('true').join(' && ')}'`,
  `run arith --image=busybox --restart=Never -- sh -c 'echo $((${'('.repeat(5000)}1${')'.repeat(5000)}))'`,
  "run seq --image=busybox --restart=Never -- sh -c 'seq 9223372036854775806 9223372036854775807'",
  // The terminal's own shell.
  'x=a; while true; do x=$x$x; done',
  Array(5000).fill('true').join(' && '),
  `echo $((${'('.repeat(5000)}1${')'.repeat(5000)}))`,
  'seq 9223372036854775806 9223372036854775807',
  'echo \u00a0get\u2028pods\r',
  // Numbers the clock cannot hold.
  'delete pod p --grace-period=1000000000000',
  'sim advance 100000000000d',
  'scale deployment nothing --replicas=99999999999999999999',
];

const HOSTILE_YAML = [
  'apiVersion: v1\nkind: Pod\nmetadata: {name: port}\nspec: {containers: [{name: c, image: nginx, ports: [{containerPort: 70000}]}]}\n',
  'apiVersion: v1\nkind: Pod\nmetadata:\n  name: "unclosed\nspec: {}\n',
  'apiVersion: v1\nkind: Pod\nmetadata:\n  name: ctl\u0007\n',
  `apiVersion: batch/v1\nkind: Job\nmetadata: {name: deadline}\nspec:\n  activeDeadlineSeconds: 9223372036854775807\n  template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}\n`,
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: huge}\nspec:\n  replicas: 2147483647\n  selector: {matchLabels: {a: b}}\n  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: nginx}]}}\n`,
];

test('the worst inputs get an answer and the tab survives each one', { timeout: 600_000 }, async () => {
  const { page, problems } = app;
  try {
    for (const line of HOSTILE_LINES) {
      const out = await terminal(page, line);
      assert.ok(out.length < 2_000_000, `${line.slice(0, 60)}: ${out.length} characters of output`);
      await alive(page, problems, JSON.stringify(line.slice(0, 80)));
    }
    // Let the containers started above run their scripts for a simulated while.
    await terminal(page, 'sim advance 10m', { timeout: 120_000 });
    await alive(page, problems, 'ten simulated minutes of hostile containers');
    for (const yaml of HOSTILE_YAML) {
      await applyYaml(page, yaml);
      await page.waitForFunction(() => (document.querySelector('#apply-result')?.textContent ?? '') !== '');
      await alive(page, problems, JSON.stringify(yaml.slice(0, 80)));
    }
    await terminal(page, 'sim advance 1m', { timeout: 120_000 });
    await alive(page, problems, 'a simulated minute after the hostile manifests');
  } catch (err) {
    await screenshot(page, 'safety-failure');
    throw err;
  }
});

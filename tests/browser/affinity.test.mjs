// Affinity and spreading in the browser: a gated robot shows STATUS SchedulingGated
// in the terminal and gets a zone once its gate is removed; the lesson "Keeping
// robots apart, and together" opens from the catalogue and each of its steps is
// completed (its solution run, its check green), in English and in Russian.
//
// App contract: `window.__warehouse.lesson()` (web/src/test_hook.rs); the editor is
// `#yaml-editor` / `#apply-btn`; the terminal `#kubectl-input` / `#kubectl-output`;
// a catalogue card is `.lesson-card[data-folder]`; `#lang-toggle` switches the
// language.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { applyYaml, kubectl, lesson, openApp, screenshot, waitForText, waitLesson, WAIT_MS } from './harness.mjs';

let app;
before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});
after(async () => {
  await app?.close();
});

async function guard(page, problems, name, body) {
  try {
    await body();
    assert.deepEqual(problems, [], 'the page logged no errors');
  } catch (err) {
    await screenshot(page, `${name}-failure`).catch(() => {});
    throw err;
  }
}

const GATED = `apiVersion: v1
kind: Pod
metadata:
  name: gated
spec:
  schedulingGates:
  - name: example.com/quota
  containers:
  - name: app
    image: nginx:1.27
`;

test('a gated robot waits as SchedulingGated until its gate is removed', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  await guard(page, problems, 'gates', async () => {
    await applyYaml(page, GATED);
    let out = '';
    for (let i = 0; i < 50 && !out.includes('SchedulingGated'); i++) out = await kubectl(page, 'kubectl get pod gated');
    assert.match(out, /gated\s+0\/1\s+SchedulingGated/);
    out = await kubectl(page, `kubectl patch pod gated --type=json -p '[{"op":"add","path":"/spec/schedulingGates/-","value":{"name":"x"}}]'`);
    out = await page.locator('#kubectl-output').textContent();
    assert.ok(out.includes("only deletion is allowed, but found new scheduling gate 'x'"), 'adding a gate is refused');
    await kubectl(page, `kubectl patch pod gated --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]'`);
    let node = '';
    for (let i = 0; i < 50 && !node.startsWith('zone-'); i++) {
      await kubectl(page, 'sim advance 1s');
      node = await kubectl(page, "kubectl get pod gated -o jsonpath='{.spec.nodeName}'");
    }
    assert.match(node, /^zone-/);
  });
});

test('lesson "affinity and spreading": every step completes, in English and Russian', { timeout: 300_000 }, async () => {
  const { page, problems } = app;
  await guard(page, problems, 'affinity-lesson', async () => {
    if ((await lesson(page)).panel !== 'catalogue') await page.click('#lessons-btn');
    await waitLesson(page, (s) => s.panel === 'catalogue' && s.catalogueLoaded, 'the catalogue');
    const card = page.locator('.lesson-card[data-folder="31-affinity-and-spreading"]');
    await waitForText(page, '.lesson-card[data-folder="31-affinity-and-spreading"]', 'Keeping robots apart, and together');
    await card.locator('button.open-lesson').click();
    let s = await waitLesson(page, (s) => s.panel === 'lesson' && s.lessonId === 'affinity-and-spreading', 'the lesson');
    assert.equal(s.steps, 3);
    for (let step = 0; step < s.steps; step++) {
      await waitLesson(page, (x) => x.step === step, `step ${step + 1}`);
      await page.click('#run-solution');
      let now = await lesson(page);
      for (let i = 0; i < 10 && now.checkPassed !== true; i++) {
        await page.click('.advance[data-ms="30000"]');
        now = await lesson(page);
      }
      now = await waitLesson(page, (x) => x.checkPassed === true, `step ${step + 1}'s check`);
      assert.ok(now.done.includes(step), `step ${step + 1} is done`);
      if (step === 1) await screenshot(page, 'affinity-lesson-anti-affinity');
      if (step + 1 < s.steps) await page.click('#next-step');
    }
    const reporter = await kubectl(page, "kubectl get pod reporter -o jsonpath='{.spec.nodeName}'");
    assert.equal(reporter.trim(), 'zone-b');
    await page.click('#lang-toggle');
    await waitForText(page, '#lesson-title', 'Роботы врозь и вместе');
  });
});

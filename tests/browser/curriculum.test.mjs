// The whole curriculum in the browser: every lesson and walkthrough of
// lessons/index.yaml opens from the catalogue and its first step is completed
// (its solution run and its check green, or, for a step without a check, moving
// on marks it done); the catalogue shows each path's time; and the walkthrough
// "kubectl apply" is stepped forward to its end and back, each moment's card
// showing who acted while the office lights that component.
//
// App contract: `window.__warehouse.lesson()` (web/src/test_hook.rs); a
// walkthrough step's card is `#step-frame` with `data-focus`, the office's
// stations `.office-station[data-station]` and gates `.office-gate`, lit with
// the class `focus`.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { lesson, openApp, REPO_ROOT, screenshot, waitForText, waitLesson, WAIT_MS } from './harness.mjs';

/** The folders of lessons/index.yaml, in path order. */
async function catalogueFolders() {
  const text = await readFile(path.join(REPO_ROOT, 'lessons', 'index.yaml'), 'utf8');
  return [...text.matchAll(/^\s+- (\d\d-[a-z0-9-]+)\s*$/gm)].map((m) => m[1]);
}

let app;
before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});
after(async () => {
  await app?.close();
});

async function guard(page, problems, body) {
  try {
    await body();
    assert.deepEqual(problems, [], 'the page logged no errors');
  } catch (err) {
    await screenshot(page, 'curriculum-failure').catch(() => {});
    throw err;
  }
}

async function openFromCatalogue(page, folder) {
  if ((await lesson(page)).panel !== 'catalogue') await page.click('#back-to-catalogue');
  await waitLesson(page, (s) => s.panel === 'catalogue' && s.catalogueLoaded, 'the catalogue');
  await page.locator(`.lesson-card[data-folder="${folder}"] button.open-lesson`).click();
  return waitLesson(page, (s) => s.panel === 'lesson' && s.step === 0, `lesson ${folder}`);
}

test('every lesson and walkthrough opens and its first step can be completed', { timeout: 600_000 }, async () => {
  const { page, problems } = app;
  await guard(page, problems, async () => {
    const folders = await catalogueFolders();
    assert.ok(folders.length >= 19, `the catalogue lists the curriculum (${folders.length} folders)`);
    const first = await waitLesson(page, (s) => s.catalogueLoaded, 'the catalogue');
    assert.deepEqual(first.lessons, folders, 'the catalogue shows index.yaml in order');
    // Each path says how long it takes.
    const times = await page.locator('.path .path-time').allTextContents();
    assert.equal(times.length, await page.locator('.path').count());
    for (const t of times) assert.match(t, /^≈ \d+ min$/);
    await screenshot(page, 'curriculum-catalogue');
    // The clock stays paused: time moves only when the test advances it.
    await page.click('#play-pause');
    for (const folder of folders) {
      const opened = await openFromCatalogue(page, folder);
      const hasSolution = (await page.locator('#run-solution').count()) > 0;
      if (hasSolution) {
        await page.click('#run-solution');
        // A check may wait (its `within`): let simulated time run until it passes.
        let s = await lesson(page);
        for (let i = 0; i < 20 && s.checkPassed !== true; i++) {
          await page.click('.advance[data-ms="30000"]');
          s = await lesson(page);
        }
        s = await waitLesson(page, (s) => s.checkPassed === true, `${folder}: step 1's check`);
        assert.ok(s.done.includes(0), `${folder}: step 1 is done`);
      } else {
        // A step that only explains is done when the learner moves on.
        await page.click('#next-step');
        const s = await waitLesson(page, (s) => s.step === 1, `${folder}: step 2`);
        assert.ok(s.done.includes(0), `${folder}: step 1 is done`);
      }
      assert.ok(opened.steps >= 3, `${folder} has steps`);
    }
  });
});

test('walkthrough: kubectl apply, stepped forward to the end and back', { timeout: 180_000 }, async () => {
  const { page, problems } = app;
  await guard(page, problems, async () => {
    let s = await openFromCatalogue(page, '21-interview-apply');
    if (s.done.includes(0)) {
      // The first test completed step 1 already: run it again on a fresh warehouse.
      await page.click('#reset-step');
    }
    await page.click('#run-solution');
    for (let i = 0; i < 4 && !(await lesson(page)).checkPassed; i++) await page.click('.advance[data-ms="10000"]');
    await waitLesson(page, (s) => s.checkPassed === true, 'the apply step');
    const steps = s.steps;
    const seen = [];
    const visit = async (i) => {
      await waitLesson(page, (s) => s.step === i, `step ${i + 1}`);
      const card = page.locator('#step-frame');
      await card.waitFor({ timeout: WAIT_MS });
      assert.equal(await page.locator('#step-frame.missing').count(), 0, `step ${i + 1} found its moment`);
      const focus = await card.getAttribute('data-focus');
      const who = await card.locator('.frame-who').textContent();
      if (focus === 'desk') {
        assert.ok((await page.locator('.office-gate.focus').count()) >= 3, 'the desk\'s gates are lit');
      } else {
        await page.locator(`.office-station.focus[data-station="${focus}"]`).waitFor({ timeout: WAIT_MS });
      }
      return { focus, who };
    };
    // Forward to the end.
    for (let i = 1; i < steps; i++) {
      await page.click('#next-step');
      seen[i] = await visit(i);
      if (i === 5) await screenshot(page, 'walkthrough-scheduler');
    }
    assert.equal(seen[1].focus, 'desk', 'the first moment is the reception desk admitting the request');
    assert.equal(seen[3].focus, 'deployment-controller');
    assert.equal(seen[4].focus, 'replicaset-controller');
    assert.equal(seen[5].focus, 'kube-scheduler');
    assert.match(seen[6].focus, /^kubelet:zone-/);
    assert.equal(seen[steps - 1].focus, 'endpointslice-controller');
    await waitForText(page, '#step-frame', 'kube-proxy');
    await screenshot(page, 'walkthrough-last');
    // And back: each moment is the same one as on the way forward.
    for (let i = steps - 2; i >= 1; i--) {
      await page.click('#prev-step');
      const again = await visit(i);
      assert.deepEqual(again, seen[i], `step ${i + 1} shows the same moment going back`);
    }
    // The scheduler's moment shows the bind as a focused diff line.
    await page.click('#next-step');
    await page.click('#next-step');
    await page.click('#next-step');
    await page.click('#next-step');
    await waitLesson(page, (s) => s.step === 5, 'the scheduler step');
    await waitForText(page, '#step-frame .diff-line.focus', 'spec.nodeName');
    // In Russian the card speaks Russian.
    await page.click('#lang-toggle');
    await waitForText(page, '#step-frame', 'Почему');
    await screenshot(page, 'walkthrough-scheduler-ru');
    await page.click('#lang-toggle');
  });
});

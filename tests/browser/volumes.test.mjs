// Volumes and claims in the browser: the lesson "Lockers: files that outlive a robot"
// opens from the catalogue and each step's solution turns its check green. A note
// written into a robot's scratch drawer (emptyDir) is gone with the robot; a claim of
// the default type waits for its first robot; a note written into the locker
// (PersistentVolume) is found by the robot that replaces the writer, on the same
// zone; the locker, clicked on the floor, says in the inspector how many files it
// holds; deleting the claim deletes the locker.
//
// App contract: `window.__warehouse.lesson()` and `floor()` (web/src/test_hook.rs); a
// lesson card `.lesson-card[data-folder]` with `button.open-lesson`; `#run-solution`,
// `#next-step`; the terminal is `#kubectl-input` / `#kubectl-output`; a locker
// clicked on `#warehouse-canvas` opens `#inspector-locker`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { floor, kubectl, lesson, openApp, screenshot, waitForText, waitLesson, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await app?.close();
});

/** Runs the open step's solution and lets time run until its check is green. */
async function solve(page, step) {
  await waitLesson(page, (x) => x.step === step, `step ${step + 1}`);
  await page.click('#run-solution');
  let now = await lesson(page);
  for (let i = 0; i < 10 && now.checkPassed !== true; i++) {
    await page.click('.advance[data-ms="10000"]');
    now = await lesson(page);
  }
  now = await waitLesson(page, (x) => x.checkPassed === true, `step ${step + 1}'s check`);
  assert.ok(now.done.includes(step), `step ${step + 1} is done`);
}

test('the lockers lesson: a scratch drawer goes with its robot, a locker keeps its files', { timeout: 180_000 }, async () => {
  const { page, problems } = app;
  try {
    await waitLesson(page, (s) => s.panel === 'catalogue' && s.catalogueLoaded, 'the catalogue');
    await page.click('#play-pause');
    await page.locator('.lesson-card[data-folder="35-lockers"] button.open-lesson').click();
    const opened = await waitLesson(page, (s) => s.panel === 'lesson' && s.step === 0, 'the lockers lesson');
    assert.equal(opened.lessonId, 'lockers');
    assert.equal(opened.steps, 5);
    await waitForText(page, '#step-title', 'A scratch drawer goes with its robot');

    // 1. The scratch drawer: the new robot finds it empty.
    await solve(page, 0);
    assert.equal((await kubectl(page, 'kubectl logs scratch')).trim(), 'the drawer is empty');
    assert.match(await kubectl(page, 'kubectl exec scratch -- ls /'), /\bdata\b/);

    // 2. The claim waits for its first robot.
    await page.click('#next-step');
    await solve(page, 1);
    assert.match(await kubectl(page, 'kubectl get pvc diary --no-headers'), /^diary\s+Pending\s+standard\s+<unset>\s+/);

    // 3. A robot uses it: Bound, a locker made on the robot's zone.
    await page.click('#next-step');
    await solve(page, 2);
    const zone = (await kubectl(page, "kubectl get pod diary -o jsonpath='{.spec.nodeName}'")).trim();
    const pv = await kubectl(page, 'kubectl get pv --no-headers');
    assert.match(pv, /^pvc-[0-9a-f-]+\s+1Gi\s+RWO\s+Delete\s+Bound\s+default\/diary\s+standard\s+<unset>\s+/, pv);

    // 4. The replacement finds the note, on the same zone.
    await page.click('#next-step');
    await solve(page, 3);
    assert.equal((await kubectl(page, 'kubectl logs diary')).trim(), 'found: milk, eggs');
    assert.equal((await kubectl(page, "kubectl get pod diary -o jsonpath='{.spec.nodeName}'")).trim(), zone);
    assert.equal((await kubectl(page, 'kubectl exec diary -- cat /data/note')).trim(), 'milk, eggs');

    // The locker on the floor tells how many files it holds.
    const f = await floor(page);
    const locker = f.lockers.find((l) => l.claim === 'default/diary');
    assert.ok(locker, JSON.stringify(f.lockers));
    assert.equal(locker.zone, zone);
    await page.locator('#warehouse-canvas').click({
      position: { x: (locker.x + locker.w / 2) * f.zoom, y: (locker.y + locker.h / 2) * f.zoom },
    });
    await page.locator(`#inspector[data-target="locker:${locker.name}"]`).waitFor({ timeout: WAIT_MS });
    await waitForText(page, '#inspector-locker', 'Files inside1');
    await screenshot(page, 'volumes-locker');

    // 5. The claim deleted: the locker goes.
    await page.click('#next-step');
    await solve(page, 4);
    assert.equal((await kubectl(page, 'kubectl get pv --no-headers | wc -l')).trim(), '0');
    assert.deepEqual(problems, []);
  } catch (err) {
    await screenshot(page, 'volumes-failure').catch(() => {});
    throw err;
  }
});

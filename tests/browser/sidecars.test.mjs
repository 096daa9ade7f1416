// Robots with several modules in the browser: the lesson "Robots with several
// modules" opens from the catalogue, its first step's solution fits a native sidecar
// (an init container with restartPolicy: Always) and the check turns green; the
// terminal shows the robot READY 2/2 and the sidecar's own log, and the inspector's
// describe lists it among the init containers. On the floor the robot carries its
// attachment as a module on its side, filled once the sidecar is ready.
//
// App contract: `window.__warehouse.lesson()` (web/src/test_hook.rs); a lesson card
// `.lesson-card[data-folder]` with `button.open-lesson`; `#run-solution`; the
// terminal is `#kubectl-input` / `#kubectl-output`.

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

test('the sidecars lesson: an attachment starts first and READY counts it', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await waitLesson(page, (s) => s.panel === 'catalogue' && s.catalogueLoaded, 'the catalogue');
    await page.click('#play-pause');
    await page.locator('.lesson-card[data-folder="32-attachments"] button.open-lesson').click();
    const opened = await waitLesson(page, (s) => s.panel === 'lesson' && s.step === 0, 'lesson 29');
    assert.equal(opened.lessonId, 'attachments');
    await waitForText(page, '#step-title', 'Fit an attachment');
    await page.click('#run-solution');
    let s = await lesson(page);
    for (let i = 0; i < 10 && s.checkPassed !== true; i++) {
      await page.click('.advance[data-ms="10000"]');
      s = await lesson(page);
    }
    await waitLesson(page, (s) => s.checkPassed === true, "step 1's check");
    const row = await kubectl(page, 'kubectl get pod shop --no-headers');
    assert.match(row, /^shop\s+2\/2\s+Running\s+0\s+/, row);
    const log = await kubectl(page, 'kubectl logs shop -c log-shipper');
    assert.equal(log.trim(), 'shipping logs');
    const describe = await kubectl(page, 'kubectl describe pod shop');
    assert.match(describe, /Init Containers:\n\s+log-shipper:/, describe);
    await page.waitForFunction(
      () => JSON.parse(window.__warehouse.floor()).attached.some((r) => r.name === 'shop'),
      null,
      { timeout: WAIT_MS },
    );
    const attached = (await floor(page)).attached.filter((r) => r.name === 'shop');
    assert.equal(attached.length, 1, JSON.stringify(attached));
    assert.deepEqual(attached[0].attachments, [true], JSON.stringify(attached));
    // Robots without sidecars carry none.
    assert.ok((await floor(page)).attached.every((r) => r.name === 'shop'));
    const legend = await page.locator('.legend-item[data-state="attachment"]').innerText();
    assert.match(legend, /Attachment/, legend);
    await screenshot(page, 'sidecars');
    assert.deepEqual(problems, []);
  } catch (err) {
    await screenshot(page, 'sidecars-failure').catch(() => {});
    throw err;
  }
});

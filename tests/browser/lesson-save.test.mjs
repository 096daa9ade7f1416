// A lesson survives a reload and travels as a link: the lesson, its step and its
// own cluster (the lesson's history replayed on its fresh cluster, steps opened
// where they opened), so `kubectl get pods -o wide` and the clock are the same. A
// damaged saved lesson or link gives a message and a working app.
//
// App contract: the open lesson is kept in localStorage under
// `kube-warehouse.lesson.v1` (its `timeline.now_ms` is the clock kept); the note
// at the top of the lesson is `.lesson-note`; `#share-btn` makes a link shown in
// `#share-link`, whose fragment is `#lesson=…`; messages appear in `#zone-notice`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WAIT_MS, advance, kubectl, launchBrowser, lesson, openApp, screenshot, waitForText, waitLesson } from './harness.mjs';

const LESSON_KEY = 'kube-warehouse.lesson.v1';

let app;
let other;

before(async () => {
  app = await openApp();
  other = await launchBrowser();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await other?.close();
  await app?.close();
});

/** A page in a browser context of its own (nothing saved). */
async function freshPage(url) {
  const context = await other.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console.error: ${msg.text()}`);
  });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
  return { page, problems, context };
}

const timeMs = (page) => page.evaluate(() => window.__warehouse.timeMs());

/** Waits until the kept lesson is the one on screen now (it is kept every few seconds). */
async function waitKept(page) {
  const now = await timeMs(page);
  await page.waitForFunction(
    ([key, now]) => {
      const text = localStorage.getItem(key);
      return text !== null && JSON.parse(text).timeline.now_ms === now;
    },
    [LESSON_KEY, now],
    { timeout: WAIT_MS },
  );
  // One more look, so what changed just before (the terminal) is kept too.
  await page.waitForTimeout(3_500);
}

async function reload(page) {
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
}

/** Sets the History slider to `ms` as a learner's drag ends. */
const slideTo = (page, ms) =>
  page.evaluate((value) => {
    const slider = document.querySelector('#history');
    slider.value = String(value);
    slider.dispatchEvent(new Event('input', { bubbles: true }));
    slider.dispatchEvent(new Event('change', { bubbles: true }));
  }, ms);

async function runBlock(page, needle) {
  await page.locator('.run-block', { hasText: needle }).first().locator('button.run').click();
}

test('lesson: a reload reopens the lesson at its step with the same cluster; a link does so elsewhere', { timeout: 240_000 }, async () => {
  const { page, problems, url } = app;
  await waitLesson(page, (s) => s.catalogueLoaded, 'the catalogue');
  await page.click('#play-pause');
  await page.locator('.lesson-card.start button.open-lesson').click();
  await waitLesson(page, (s) => s.panel === 'lesson' && s.lessonId === 'desired-state', 'the lesson');
  // Step 1's action, its check green, then step 2's action half way through.
  await runBlock(page, 'kubectl apply -f packer.yaml');
  await waitForText(page, '#kubectl-output', 'deployment.apps/packer created');
  await advance(page, 30_000);
  await waitLesson(page, (s) => s.checkPassed === true, 'step 1 passing');
  await page.click('#next-step');
  await waitLesson(page, (s) => s.step === 1, 'step 2');
  await runBlock(page, 'kubectl delete $(');
  await waitForText(page, '#kubectl-output', 'deleted');
  await advance(page, 10_000);
  const wide = await kubectl(page, 'kubectl get pods -o wide');
  assert.match(wide, /packer-\S+\s+1\/1\s+Running/, wide);
  const clock = await timeMs(page);
  const before = await lesson(page);

  await waitKept(page);
  await reload(page);
  let s = await waitLesson(page, (s) => s.panel === 'lesson' && s.lessonId === 'desired-state' && s.step === 1, 'the lesson after a reload');
  await waitForText(page, '.lesson-note', 'Welcome back: the lesson is as you left it, at step 2');
  assert.equal(await page.locator('#play-pause').getAttribute('aria-pressed'), 'true', 'paused after a reload');
  assert.equal(await timeMs(page), clock, 'the same clock');
  s = await waitLesson(page, (s) => s.checkPassed === before.checkPassed, 'the same check');
  assert.deepEqual(s.done, before.done);
  await waitForText(page, '#kubectl-output', 'kubectl get pods -o wide');
  assert.equal(await kubectl(page, 'kubectl get pods -o wide'), wide);
  await screenshot(page, 'lesson-restored-en');

  // In Russian, and a second reload keeps it as well.
  await page.click('#lang-toggle');
  await waitKept(page);
  await reload(page);
  await waitLesson(page, (s) => s.panel === 'lesson' && s.step === 1, 'the lesson after a second reload');
  await waitForText(page, '.lesson-note', 'С возвращением: урок такой, каким вы его оставили, — шаг 2');
  assert.equal(await timeMs(page), clock);
  assert.equal(await kubectl(page, 'kubectl get pods -o wide'), wide);
  await screenshot(page, 'lesson-restored-ru');
  await page.click('#lang-toggle');

  // Share: the link names the lesson and carries its history.
  await page.click('#share-btn');
  const link = await page.locator('#share-link').inputValue({ timeout: WAIT_MS });
  assert.ok(link.startsWith(`${url}#lesson=`), link);
  const shared = await freshPage(link);
  await waitLesson(shared.page, (s) => s.panel === 'lesson' && s.lessonId === 'desired-state' && s.step === 1, 'the shared lesson');
  await waitForText(shared.page, '.lesson-note', 'Opened the shared lesson at step 2');
  assert.ok(!shared.page.url().includes('#lesson='), 'the fragment is read, then dropped');
  assert.equal(await timeMs(shared.page), clock);
  assert.equal(await kubectl(shared.page, 'kubectl get pods -o wide'), wide);
  await screenshot(shared.page, 'lesson-shared');
  assert.deepEqual(shared.problems, []);
  await shared.context.close();

  // The History slider shows in a lesson too, from when the step opened: back
  // 5 s and forward again gives the same cluster.
  assert.equal(await page.locator('#history').count(), 1, 'the slider shows in a lesson');
  const min = Number(await page.locator('#history').getAttribute('min'));
  assert.ok(min > 0 && min <= clock - 10_000 + 1, `the slider starts when step 2 opened (${min})`);
  await slideTo(page, clock - 5_000);
  await page.waitForFunction((t) => window.__warehouse.timeMs() === t, clock - 5_000, { timeout: WAIT_MS });
  assert.equal((await lesson(page)).step, 1, 'the step stays open');
  await slideTo(page, clock);
  await page.waitForFunction((t) => window.__warehouse.timeMs() === t, clock, { timeout: WAIT_MS });
  assert.equal(await kubectl(page, 'kubectl get pods -o wide'), wide);

  // Leaving the lesson forgets it: a reload shows the list.
  await page.click('#lessons-btn');
  await page.waitForFunction((key) => localStorage.getItem(key) === null, LESSON_KEY, { timeout: WAIT_MS });
  await reload(page);
  await waitLesson(page, (s) => s.catalogueLoaded && s.panel === 'catalogue', 'the list after leaving');
  assert.deepEqual(problems, []);
});

test('lesson: a damaged saved lesson and a damaged lesson link each give a message and a working app', { timeout: 120_000 }, async () => {
  const { url } = app;
  const broken = await freshPage(url);
  await broken.page.evaluate((key) => localStorage.setItem(key, '{"timeline": [1, 2'), LESSON_KEY);
  await broken.page.goto(url, { waitUntil: 'load' });
  await waitForText(broken.page, '#zone-notice', 'The lesson saved in this browser could not be restored');
  assert.equal(await broken.page.evaluate((key) => localStorage.getItem(key), LESSON_KEY), null, 'the damaged state is dropped');
  await waitLesson(broken.page, (s) => s.catalogueLoaded && s.panel === 'catalogue', 'the list');
  assert.match(await kubectl(broken.page, 'kubectl get nodes'), /zone-a\s+Ready/);
  await screenshot(broken.page, 'lesson-restore-refused');

  assert.deepEqual(broken.problems, []);
  await broken.context.close();

  // Valid base64url of bytes that are no compressed lesson, in a fresh browser.
  const link = await freshPage(`${url}#lesson=AAECAwQFBgc`);
  await waitForText(link.page, '#zone-notice', 'This lesson link could not be opened');
  await waitLesson(link.page, (s) => s.catalogueLoaded && s.panel === 'catalogue', 'the list');
  assert.match(await kubectl(link.page, 'kubectl get nodes'), /zone-a\s+Ready/);
  assert.deepEqual(link.problems, []);
  await link.context.close();
});

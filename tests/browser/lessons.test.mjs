// Lessons in the browser: the catalogue opens first, lesson 1 is completed by
// clicking its blocks with each check turning green, a failing check shows
// expected vs actual, "reset this step" restores the warehouse, a reload brings the
// lesson back and the list keeps the progress, a lesson opened from local files
// shows its steps (a broken one its error with the line), and the Russian version
// renders.
//
// App contract: `window.__warehouse.lesson()` returns a JSON string with
// `panel`, `catalogueLoaded`, `lessonId`, `step`, `steps`, `checkPassed`,
// `conditions`, `done` and `errors` (see web/src/test_hook.rs).

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { SCREENSHOT_DIR, WAIT_MS, advance, lesson, openApp, robots, runningIn, screenshot, waitForText, waitLesson } from './harness.mjs';

/** Clicks the "run" button of the run block whose text contains `needle`. */
async function runBlock(page, needle) {
  await page.locator('.run-block', { hasText: needle }).first().locator('button.run').click();
}

let app;
let tmp;

before(async () => {
  await rm(path.join(SCREENSHOT_DIR, 'lessons-failure.png'), { force: true });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'warehouse-lessons-'));
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await app?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function guard(page, problems, body) {
  try {
    await body();
    assert.deepEqual(problems, [], 'the page logged no errors');
  } catch (err) {
    await screenshot(page, 'lessons-failure').catch(() => {});
    throw err;
  }
}

test('lesson 1: catalogue first, checks turn green, reset, reload keeps progress, Russian', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  await guard(page, problems, async () => {
    // A fresh profile opens the catalogue, with one "Start here".
    const first = await waitLesson(page, (s) => s.catalogueLoaded, 'the catalogue');
    assert.equal(first.panel, 'catalogue');
    // Every lesson of lessons/index.yaml, in path order.
    assert.deepEqual(first.lessons.slice(0, 1), ['01-desired-state']);
    assert.equal(await page.locator('.lesson-card').count(), first.lessons.length);
    assert.equal(await page.locator('.lesson-card.start').count(), 1);
    const start = page.locator('.lesson-card.start');
    await waitForText(page, '.lesson-card.start', 'Desired state: five robots');
    await waitForText(page, '.lesson-card.start', 'beginner');
    await waitForText(page, '.lesson-card.start', '10 min');
    assert.equal(await page.locator('button.open-lesson.primary').count(), 1, 'one obvious start');
    await screenshot(page, 'lessons-catalogue');

    // Pause the clock so the test decides when time moves.
    await page.click('#play-pause');
    await start.locator('button.open-lesson').click();
    let s = await waitLesson(page, (s) => s.panel === 'lesson' && s.lessonId === 'desired-state', 'the lesson');
    assert.equal(s.step, 0);
    assert.equal(s.steps, 3);
    await waitForText(page, '#step-title', 'Ask for five robots');

    // Step 1: the YAML opens in the editor; the run block applies the lesson's file.
    await page.locator('.yaml-block button.open-editor').click();
    assert.match(await page.inputValue('#yaml-editor'), /name: packer/);
    await runBlock(page, 'kubectl apply -f packer.yaml');
    await waitForText(page, '#kubectl-output', 'deployment.apps/packer created');
    // Before time runs, the check fails and says what it expected and what it saw.
    s = await waitLesson(page, (s) => s.checkPassed === false, 'a failing check');
    await waitForText(page, '#step-check .condition.fail', 'expected');
    await waitForText(page, '#step-check .condition.fail .expected', 'exactly "5"');
    await waitForText(page, '#step-check .condition.fail .actual', 'the warehouse shows');
    await screenshot(page, 'lessons-step1-failing');
    await advance(page, 30_000);
    s = await waitLesson(page, (s) => s.checkPassed === true, 'step 1 passing');
    assert.deepEqual(s.conditions, [true, true]);
    assert.deepEqual(s.done, [0]);
    assert.equal(await page.locator('#step-check .condition.pass').count(), 2);
    assert.ok(await page.locator('#next-step.primary').isVisible(), '"next" is highlighted');
    // The quiz: choose, check, see the explanation.
    await page.locator('.quiz .option', { hasText: 'how to get there is its job' }).click();
    await page.click('.quiz .quiz-check');
    await waitForText(page, '.quiz .verdict', 'Right.');
    await screenshot(page, 'lessons-step1-passed');

    // Step 2: delete the Deployment, reset the step, and it is back.
    await page.click('#next-step');
    s = await waitLesson(page, (s) => s.step === 1, 'step 2');
    await page.fill('#kubectl-input', 'kubectl delete deployment packer');
    await page.press('#kubectl-input', 'Enter');
    await waitForText(page, '#kubectl-output', 'deployment.apps "packer" deleted');
    await advance(page, 30_000);
    assert.equal(runningIn(await robots(page)), 0, 'the robots are gone');
    await page.click('#reset-step');
    assert.equal(runningIn(await robots(page)), 5, 'reset brings back the five robots');
    await waitForText(page, '#kubectl-output', 'step reset');

    // Break a robot, predict, commit: time moves and the answer is shown.
    await runBlock(page, 'kubectl delete $(');
    await waitForText(page, '#kubectl-output', 'deleted');
    await page.locator('.predict .option', { hasText: '5/5' }).click();
    await page.click('.predict .predict-commit');
    await waitForText(page, '.predict-outcome pre', '5/5');
    await waitForText(page, '.predict-outcome .verdict', 'Your prediction was right.');
    s = await waitLesson(page, (s) => s.checkPassed === true, 'step 2 passing');
    assert.deepEqual(s.done, [0, 1]);
    await screenshot(page, 'lessons-step2-predict');

    // Step 3: scale down, let time run, green.
    await page.click('#next-step');
    await waitLesson(page, (s) => s.step === 2, 'step 3');
    await runBlock(page, 'kubectl scale deployment packer --replicas=3');
    await waitForText(page, '#kubectl-output', 'deployment.apps/packer scaled');
    await advance(page, 60_000);
    s = await waitLesson(page, (s) => s.checkPassed === true, 'step 3 passing');
    assert.deepEqual(s.done, [0, 1, 2]);
    // Hints come one at a time, the solution on request.
    await page.click('#show-hint');
    assert.equal(await page.locator('.hint-box').count(), 1);
    await page.click('#show-solution');
    await waitForText(page, '.solution-text', 'kubectl scale deployment packer --replicas=3');
    await screenshot(page, 'lessons-step3-done');

    // Reload: the lesson comes back as it was left, at step 3 with three robots
    // (lesson-save.test.mjs looks closer).
    await page.waitForTimeout(3_500);
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    s = await waitLesson(page, (s) => s.panel === 'lesson' && s.step === 2 && s.checkPassed === true, 'the lesson after reload');
    await waitForText(page, '.lesson-note', 'as you left it');
    assert.equal(runningIn(await robots(page)), 3);
    // The list shows the lesson done; opening it from there replays to the saved step.
    await page.click('#back-to-catalogue');
    await waitLesson(page, (s) => s.catalogueLoaded && s.panel === 'catalogue', 'the catalogue');
    await waitForText(page, '.lesson-card.start', '✓');
    await page.locator('.lesson-card.start button.open-lesson').click();
    s = await waitLesson(page, (s) => s.panel === 'lesson' && s.step === 2, 'the saved step');
    assert.deepEqual(s.done, [0, 1, 2]);
    await waitForText(page, '.lesson-note', 'replayed');
    // The replayed warehouse is where step 3 starts: five packer robots.
    assert.equal(runningIn(await robots(page)), 5);

    // Russian: same lesson, same step.
    await page.click('#lang-toggle');
    await waitForText(page, '#step-title', 'Передумайте');
    await waitForText(page, '#lesson-title', 'Желаемое состояние');
    s = await lesson(page);
    assert.equal(s.step, 2);
    await screenshot(page, 'lessons-russian');
    await page.click('#lang-toggle');
  });
});

const TINY = `---
id: tiny
title: "Tiny: two steps"
summary: "A lesson written by the browser test."
level: beginner
minutes: 2
files: [web.yaml]
---

A two-step lesson.

## Apply the web file

\`\`\`kubectl
kubectl apply -f web.yaml
\`\`\`

\`\`\`check
within: 1m
conditions:
  - run: kubectl get deployment web -o jsonpath='{.spec.replicas}'
    equals: 2
\`\`\`

\`\`\`solution
kubectl apply -f web.yaml
sim advance 20s
\`\`\`

## Look around

Every robot has a zone.

\`\`\`kubectl
kubectl get pods -o wide
\`\`\`
`;

const WEB = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
`;

// Line 13 is the check's `conditions:` holding a number instead of a list.
const BROKEN = `---
id: broken
title: "Broken"
summary: "Does not parse."
level: beginner
minutes: 1
---

## A step

\`\`\`check
within: 1m
conditions: 5
\`\`\`
`;

test('author mode: a lesson from local files opens; a broken one shows its error with the line', { timeout: 60_000 }, async () => {
  const { page, problems } = app;
  await guard(page, problems, async () => {
    await page.click('#lessons-btn');
    await waitLesson(page, (s) => s.panel === 'catalogue', 'the catalogue');
    const en = path.join(tmp, 'en.md');
    const web = path.join(tmp, 'web.yaml');
    await writeFile(en, TINY);
    await writeFile(web, WEB);
    await page.setInputFiles('#lesson-files', [en, web]);
    let s = await waitLesson(page, (s) => s.lessonId === 'tiny', 'the local lesson');
    assert.equal(s.steps, 2);
    await waitForText(page, '#step-title', 'Apply the web file');
    await runBlock(page, 'kubectl apply -f web.yaml');
    await waitForText(page, '#kubectl-output', 'deployment.apps/web created');
    s = await waitLesson(page, (s) => s.checkPassed === true, 'the local check');
    await page.click('#next-step');
    await waitForText(page, '#step-title', 'Look around');
    await screenshot(page, 'lessons-local');

    await page.click('#back-to-catalogue');
    const broken = path.join(tmp, 'broken.md');
    await writeFile(broken, BROKEN);
    await page.setInputFiles('#lesson-files', [broken]);
    s = await waitLesson(page, (s) => s.panel === 'errors', 'the parse error');
    assert.match(s.errors.join('\n'), /broken\.md:1[23]/);
    await waitForText(page, '#lesson-errors', 'broken.md:1');
    await screenshot(page, 'lessons-broken');
  });
});

test('author mode: a hostile lesson is refused with its line and the tab stays usable', { timeout: 90_000 }, async () => {
  const { page, problems } = app;
  await guard(page, problems, async () => {
    await page.click('#lessons-btn');
    await waitLesson(page, (s) => s.panel === 'catalogue', 'the catalogue');
    const front = (setup) => `---\nid: hostile\ntitle: "Hostile"\nsummary: "x"\nlevel: beginner\nminutes: 5\n${setup}---\n\nIntro.\n\n## Step one\n\n`;
    // Prose nested 131,000 levels deep (a 1 MiB stack overflowed at 16,500).
    const deep = path.join(tmp, 'deep.md');
    await writeFile(deep, `${front('')}${'>'.repeat(131000)} deep\n`);
    await page.setInputFiles('#lesson-files', [deep]);
    let s = await waitLesson(page, (s) => s.panel === 'errors', 'the nesting error');
    assert.match(s.errors.join('\n'), /deep\.md:13: the text here nests more than 32 levels/);
    // A setup that asks for 100,000 robots stops at the lesson's 2,000.
    const big = path.join(tmp, 'big.md');
    let setup = 'setup: |\n';
    for (let i = 0; i < 5; i++) setup += `  kubectl create deployment big${i} --image=nginx --replicas=20000\n`;
    setup += '  sim advance 2m\n';
    await writeFile(big, `${front(setup)}\`\`\`kubectl\nkubectl get pods\n\`\`\`\n`);
    await page.setInputFiles('#lesson-files', [big]);
    s = await waitLesson(page, (s) => s.panel === 'errors' && /big\.md/.test(s.errors.join('\n')), 'the setup error');
    assert.match(s.errors.join('\n'), /big\.md:13: setup: after `sim advance 2m`, the cluster holds 2000 pods/);
    await waitForText(page, '#lesson-errors', 'the most a lesson');
    // The tab still answers: the catalogue opens again.
    await page.click('#lesson-errors button.link');
    await waitLesson(page, (s) => s.panel === 'catalogue', 'the catalogue again');
  });
});

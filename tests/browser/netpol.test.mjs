// Fences (NetworkPolicies) in the browser: the lesson "Fences between robots" opens
// from the catalogue and its first step's solution (a default deny) turns its check
// green. The notice board then lists the fence; orders of a traffic source that the
// fence drops are counted by the office and told by the narration; the fence's line
// opens the policy in the inspector with kubectl's describe; the board reads in
// Russian after the language toggle.
//
// App contract: `window.__warehouse.lesson()` (panel, catalogueLoaded, step,
// checkPassed); catalogue cards `.lesson-card[data-folder]` with
// `button.open-lesson`; `#run-solution`; `#lesson-title`; the terminal is
// `#kubectl-input` / `#kubectl-output`; `window.__warehouse.floor()` has `board`
// (the notice board's lines), `fences` (each fence line's namespace, name and x, y,
// w, h before zoom) and `zoom`; `window.__warehouse.office()` has `ordersFenced`
// and `narration`; the inspector is `#inspector[data-target]` with
// `.inspector-kind` and `#inspector-describe`; `#lang-toggle` switches the
// language.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { kubectl, lesson, openApp, screenshot, waitBoardLine, waitForText, waitLesson, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

const office = async (page) => JSON.parse(await page.evaluate(() => window.__warehouse.office()));

test('a default deny fences the robots, drops orders and shows the fence', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await waitLesson(page, (s) => s.catalogueLoaded, 'the catalogue');
    await page.click('#play-pause');
    await page.locator('.lesson-card[data-folder="29-fences"] button.open-lesson').click();
    await waitLesson(page, (s) => s.panel === 'lesson' && s.step === 0, 'the fences lesson');
    await waitForText(page, '#lesson-title', 'Fences between robots');

    // Before the fence the visitor reaches web; the check is red.
    assert.notEqual((await lesson(page)).checkPassed, true);
    await page.click('#run-solution');
    await waitLesson(page, (s) => s.checkPassed === true, "step 1's check");

    const line = 'Fence default-deny (every robot): nothing gets in';
    const board = await waitBoardLine(page, line, 'the fence on the notice board');
    const fence = board.fences.find((f) => f.name === 'default-deny');
    assert.ok(fence, JSON.stringify(board.fences));

    // Orders from the visitor are dropped at the fence: the office counts them and
    // the narration says why.
    await kubectl(page, 'sim traffic start shop --to svc/web --from visitor --rps 5');
    await kubectl(page, 'sim advance 2s');
    const stats = await kubectl(page, 'sim traffic stats');
    assert.match(stats, /network-policy=10/);
    await page.waitForFunction(() => JSON.parse(window.__warehouse.office()).ordersFenced >= 10, null, {
      timeout: WAIT_MS,
    });
    await waitForText(page, '#narration', 'A fence (NetworkPolicy) stops the orders of shop');
    const info = await office(page);
    assert.ok(info.ordersFailed >= info.ordersFenced, JSON.stringify(info));
    await screenshot(page, 'netpol-fenced');

    // The fence's line opens the policy in the inspector, described as kubectl does.
    await page.locator('#warehouse-canvas').click({
      position: { x: (fence.x + 40) * board.zoom, y: (fence.y + fence.h / 2) * board.zoom },
    });
    await page.locator('#inspector[data-target="fence:default/default-deny"]').waitFor({ timeout: WAIT_MS });
    await waitForText(page, '#inspector .inspector-kind', 'Fence');
    await waitForText(page, '#inspector-describe', 'Selected pods are isolated for ingress connectivity');
    await screenshot(page, 'netpol-inspector');

    // The same board in Russian.
    await page.click('#lang-toggle');
    await waitBoardLine(page, 'Ограждение default-deny (все роботы): внутрь никого', 'the Russian line');
    await waitForText(page, '#inspector .inspector-kind', 'Ограждение');
    await page.click('#lang-toggle');
    await kubectl(page, 'sim traffic stop shop');
    assert.deepEqual(problems, []);
  } catch (e) {
    await screenshot(page, 'netpol-failure').catch(() => {});
    throw e;
  }
});

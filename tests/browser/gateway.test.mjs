// The Gateway API in the browser: the lesson "The sorting gate: Gateway API" opens
// from the catalogue; its first two steps' solutions (the add-on, then the Gateway)
// turn their checks green; the notice board then lists the sorting gate with its
// address, the narration tells that its controller wrote it, and the gate's line
// opens the Gateway in the inspector with kubectl's describe; after the route card
// the line counts it; the board reads in Russian after the language toggle.
//
// App contract: `window.__warehouse.lesson()` (panel, catalogueLoaded, step,
// checkPassed); catalogue cards `.lesson-card[data-folder]` with
// `button.open-lesson`; `#run-solution`; `#next-step`; `#lesson-title`; the
// terminal is `#kubectl-input` / `#kubectl-output`; `window.__warehouse.floor()`
// has `board` (the notice board's lines), `gates` (each gate line's namespace,
// name and x, y, w, h before zoom) and `zoom`; `#narration`; the inspector is
// `#inspector[data-target]` with `.inspector-kind` and `#inspector-describe`;
// `#lang-toggle` switches the language.

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

test('the lesson builds a sorting gate that the floor shows and the inspector describes', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await waitLesson(page, (s) => s.catalogueLoaded, 'the catalogue');
    await page.click('#play-pause');
    await page.locator('.lesson-card[data-folder="33-gateway"] button.open-lesson').click();
    await waitLesson(page, (s) => s.panel === 'lesson' && s.step === 0, 'the gateway lesson');
    await waitForText(page, '#lesson-title', 'The sorting gate: Gateway API');

    // Step 1: the add-on installs the definitions and the gate model.
    assert.notEqual((await lesson(page)).checkPassed, true);
    await page.click('#run-solution');
    await waitLesson(page, (s) => s.checkPassed === true, "step 1's check");
    assert.match(await kubectl(page, 'kubectl get gatewayclass'), /cloud-provider-kind\s+kind\.sigs\.k8s\.io\/gateway-controller\s+True/);

    // Step 2: the Gateway gets its address; the board shows it.
    await page.click('#next-step');
    await waitLesson(page, (s) => s.step === 1 && s.checkPassed !== true, 'step 2');
    await page.click('#run-solution');
    await waitLesson(page, (s) => s.checkPassed === true, "step 2's check");
    const board = await waitBoardLine(page, 'Sorting gate shop 203.0.113.1: 0 route card(s)', 'the gate on the notice board');
    const gate = board.gates.find((g) => g.name === 'shop');
    assert.ok(gate, JSON.stringify(board.gates));
    await waitForText(page, '#narration', 'The gate builder (cloud-provider-kind) wrote the state of the sorting gate shop');
    assert.match(await kubectl(page, 'sim request http://203.0.113.1/ --host shop.example.com'), /404 Not Found/);
    await screenshot(page, 'gateway-gate');

    // The gate's line opens the Gateway in the inspector, described as kubectl does.
    await page.locator('#warehouse-canvas').click({
      position: { x: (gate.x + 40) * board.zoom, y: (gate.y + gate.h / 2) * board.zoom },
    });
    await page.locator('#inspector[data-target="gate:default/shop"]').waitFor({ timeout: WAIT_MS });
    await waitForText(page, '#inspector .inspector-kind', 'Sorting gate');
    await waitForText(page, '#inspector-describe', 'Envoy configuration updated successfully');

    // Step 3: the route card attaches and routes by path.
    await page.click('#next-step');
    await waitLesson(page, (s) => s.step === 2 && s.checkPassed !== true, 'step 3');
    await page.click('#run-solution');
    await waitLesson(page, (s) => s.checkPassed === true, "step 3's check");
    await waitBoardLine(page, 'Sorting gate shop 203.0.113.1: 1 route card(s)', 'the route card on the board');
    assert.match(await kubectl(page, 'sim request http://203.0.113.1/cart --host shop.example.com'), /pod\/cart-/);
    await screenshot(page, 'gateway-route');

    // The same board in Russian.
    await page.click('#lang-toggle');
    await waitBoardLine(page, 'Сортировочные ворота shop 203.0.113.1: маршрутных карт: 1', 'the Russian line');
    await waitForText(page, '#inspector .inspector-kind', 'Сортировочные ворота');
    await page.click('#lang-toggle');
    assert.deepEqual(problems, []);
  } catch (e) {
    await screenshot(page, 'gateway-failure').catch(() => {});
    throw e;
  }
});

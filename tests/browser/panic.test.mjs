// An internal error (a panic in the wasm app) shows a banner over the page, in the
// interface's language: the simulator stopped, a Reload link, and the panic message
// in a collapsible details element; Reload brings back a working app.
//
// App contract: `window.__warehouse.panic(message)` panics inside the app
// (web/src/test_hook.rs); the banner is `#panic-banner` with `.panic-title`,
// `.panic-reload`, `details.panic-details` and `.panic-message`
// (web/src/panic_banner.rs); `#lang-toggle`; `#kubectl-input`, `#kubectl-output`.
// With a sandbox saved for a reload, the banner also has `a.panic-link` and the same
// address in `input.panic-link-text`: a share link of that state.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import path from 'node:path';
import { SCREENSHOT_DIR, WAIT_MS, kubectl, launchBrowser, openApp, screenshot, waitLesson } from './harness.mjs';

const MESSAGE = 'the panic banner test stops the simulator on purpose';

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

async function ready(page) {
  await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
  // Every lesson file fetched, so a reload aborts none.
  await waitLesson(page, (s) => s.catalogueLoaded, 'the catalogue');
  // On a phone the terminal is on its own tab.
  if (await page.$('#tab-terminal')) await page.click('#tab-terminal');
  const nodes = await kubectl(page, 'kubectl get nodes');
  assert.match(nodes, /zone-a\s+Ready/, nodes);
}

/** Makes the app panic; resolves to what the call threw. */
async function panic(page, message) {
  return page.evaluate((m) => {
    try {
      window.__warehouse.panic(m);
      return 'returned';
    } catch (err) {
      return String(err);
    }
  }, message);
}

/** Checks the banner and its texts; resolves to the panic message it shows. */
async function checkBanner(page, { title, body, reload, details }) {
  const banner = page.locator('#panic-banner');
  await banner.waitFor({ state: 'visible', timeout: WAIT_MS });
  assert.equal(await page.locator('#panic-banner').count(), 1, 'one banner');
  assert.equal(await banner.getAttribute('role'), 'alertdialog');
  assert.equal(await banner.locator('.panic-title').textContent(), title);
  assert.match(await banner.locator('.panic-text').textContent(), body);
  const link = banner.locator('a.panic-reload');
  assert.equal(await link.textContent(), reload);
  assert.equal(await page.evaluate(() => document.activeElement?.className), 'panic-reload', 'Reload has the focus');
  // The message is folded away until asked for, and then selectable text.
  const text = banner.locator('.panic-message');
  assert.equal(await text.isVisible(), false, 'the details start folded');
  assert.equal(await banner.locator('details.panic-details summary').textContent(), details);
  await banner.locator('details.panic-details summary').click();
  await text.waitFor({ state: 'visible', timeout: WAIT_MS });
  const shown = await text.textContent();
  assert.match(shown, /panicked at web\/src\/test_hook\.rs:\d+:\d+/);
  assert.ok(shown.includes(MESSAGE), shown);
  // The banner covers the page: a click on the app reaches the banner, not the app.
  const hit = await page.evaluate(() => {
    const input = document.querySelector('#kubectl-input').getBoundingClientRect();
    return document.elementFromPoint(input.x + 5, input.y + 5)?.closest('#panic-banner') !== null;
  });
  assert.ok(hit, 'the banner lies over the app');
  return shown;
}

/** The console errors the panic writes (console_error_panic_hook); removed from `problems`. */
function takePanicErrors(problems) {
  const ours = problems.filter((p) => p.startsWith('console.error: panicked at web/src/test_hook.rs') && p.includes(MESSAGE));
  for (const p of ours) problems.splice(problems.indexOf(p), 1);
  return ours.length;
}

/** Saves what the screen shows (the banner is fixed to it) as `target/screenshots/<name>.png`. */
async function screen(page, name) {
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), timeout: WAIT_MS });
}

async function reload(page) {
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.locator('#panic-banner a.panic-reload').click()]);
  await ready(page);
  assert.equal(await page.locator('#panic-banner').count(), 0, 'the reloaded app has no banner');
}

test('panic: a banner in English and Russian, details to copy, and Reload brings the app back', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await ready(page);

    // English.
    const thrown = await panic(page, MESSAGE);
    assert.match(thrown, /RuntimeError: unreachable/);
    await checkBanner(page, {
      title: 'The simulator stopped because of an internal error',
      body: /not in anything you did\. Reload the page to start again: your lesson progress is kept/,
      reload: 'Reload',
      details: 'Error details (copy them into a bug report)',
    });
    assert.equal(takePanicErrors(problems), 1, 'the panic is written to the console once');
    await screen(page, 'panic-en');
    await page.setViewportSize({ width: 390, height: 844 });
    await screen(page, 'panic-en-390');
    await page.setViewportSize({ width: 1280, height: 900 });

    await reload(page);

    // Russian, at a phone's width.
    await page.click('#lang-toggle');
    await page.waitForFunction(() => document.documentElement.lang === 'ru', null, { timeout: WAIT_MS });
    await page.setViewportSize({ width: 390, height: 844 });
    await panic(page, MESSAGE);
    await checkBanner(page, {
      title: 'Симулятор остановился из-за внутренней ошибки',
      body: /а не в ваших действиях\. Перезагрузите страницу, чтобы начать заново: прогресс уроков сохранён/,
      reload: 'Перезагрузить',
      details: 'Подробности ошибки (скопируйте их в сообщение об ошибке)',
    });
    assert.equal(takePanicErrors(problems), 1, 'the panic is written to the console once');
    const card = await page.locator('.panic-card').boundingBox();
    assert.ok(card.x >= 0 && card.x + card.width <= 390, `the banner fits 390 px: ${JSON.stringify(card)}`);
    await screen(page, 'panic-ru-390');

    await reload(page);
    await page.setViewportSize({ width: 1280, height: 900 });

    assert.deepEqual(problems, [], 'the page logged no other errors');
  } catch (err) {
    await screenshot(page, 'panic-failure').catch(() => {});
    throw err;
  }
});

test('panic: the banner offers a link to the warehouse as last saved, and it opens elsewhere', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  let other;
  try {
    await ready(page);
    await kubectl(page, 'kubectl create deployment crash-web --image=nginx:1.27 --replicas=2');
    // Kept for a reload within a few seconds.
    await page.waitForFunction(
      () => (localStorage.getItem('kube-warehouse.sandbox.v1') ?? '').includes('crash-web'),
      null,
      { timeout: WAIT_MS },
    );
    await panic(page, MESSAGE);
    const banner = page.locator('#panic-banner');
    await banner.waitFor({ state: 'visible', timeout: WAIT_MS });
    assert.equal(takePanicErrors(problems), 1);
    assert.match(await banner.locator('.panic-share').textContent(), /a few seconds before the error/);
    const href = await banner.locator('a.panic-link').getAttribute('href');
    assert.match(href, /#history=~[A-Za-z0-9_-]+$/, href);
    assert.equal(await banner.locator('input.panic-link-text').inputValue(), href);
    await screen(page, 'panic-link-en');

    // The link in a browser of its own rebuilds that warehouse.
    other = await launchBrowser();
    const fresh = await (await other.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const errors = [];
    fresh.on('pageerror', (err) => errors.push(err.message));
    await fresh.goto(href, { waitUntil: 'load' });
    await fresh.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await fresh.waitForFunction(() => !location.hash, null, { timeout: WAIT_MS });
    const deployments = await kubectl(fresh, 'kubectl get deployments');
    assert.match(deployments, /crash-web/, deployments);
    assert.deepEqual(errors, []);

    // Reload forgot the saved sandbox: the warehouse starts anew.
    await reload(page);
    const after = await kubectl(page, 'kubectl get deployments');
    assert.doesNotMatch(after, /crash-web/, after);
    assert.deepEqual(problems, [], 'the page logged no other errors');
  } catch (err) {
    await screenshot(page, 'panic-link-failure').catch(() => {});
    throw err;
  } finally {
    await other?.close();
  }
});

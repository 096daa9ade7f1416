// The screen tells the truth: what the office narrates, what the copying machines'
// chart counts, when a walkthrough's moments happened, and what a newly opened
// lesson shows are all read from the current warehouse's own record, and the
// Russian screen reads as Russian.
//
// App contract: `window.__warehouse.office()` (narration lines),
// `window.__warehouse.floor()` (`chart`: the copying machines' figures as drawn),
// `window.__warehouse.lesson()` (web/src/test_hook.rs); `#narration`, `#step-frame`
// (`.frame-at` with `data-at-ms`, the moment's simulated time since the
// walkthrough's start), `#kubectl-output`, `#yaml-editor`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { lesson, openApp, screenshot, waitForText, waitLesson, WAIT_MS, webDeployment, applyYaml } from './harness.mjs';

let app;
before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});
after(async () => {
  await app?.close();
});

const office = async (page) => JSON.parse(await page.evaluate(() => window.__warehouse.office()));
const floor = async (page) => JSON.parse(await page.evaluate(() => window.__warehouse.floor()));

async function run(page, line) {
  const before = await page.locator('#kubectl-output .prompt').count();
  await page.fill('#kubectl-input', line);
  await page.press('#kubectl-input', 'Enter');
  await page.waitForFunction((n) => document.querySelectorAll('#kubectl-output .prompt').length > n, before);
}

async function advance(page, ms, times = 1) {
  for (let i = 0; i < times; i++) await page.click(`button.advance[data-ms="${ms}"]`);
}

/** Waits until the office has narrated again (it rebuilds its lines every 500 ms of real time). */
async function narration(page) {
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  return (await office(page)).narration;
}

async function toCatalogue(page) {
  const s = await lesson(page);
  if (s.panel === 'lesson') await page.click('#back-to-catalogue');
  await waitLesson(page, (s) => s.panel === 'catalogue' && s.catalogueLoaded, 'the catalogue');
}

async function openLesson(page, folder) {
  await toCatalogue(page);
  await page.locator(`.lesson-card[data-folder="${folder}"] button.open-lesson`).click();
  return waitLesson(page, (s) => s.panel === 'lesson' && s.lessonId !== null, `lesson ${folder}`);
}

async function guard(name, body) {
  const { page, problems } = app;
  try {
    await body(page);
    assert.deepEqual(problems, [], 'the page logged no errors');
  } catch (err) {
    await screenshot(page, `truth-${name}-failure`).catch(() => {});
    throw err;
  }
}

test('1. narration comes from the open warehouse only, and replacements only follow evictions', { timeout: 180_000 }, async () => {
  await guard('narration', async (page) => {
    await waitLesson(page, (s) => s.catalogueLoaded, 'the catalogue');
    await page.click('#play-pause');
    await page.click('#use-sandbox');
    // A sandbox zone dies and its robots are evicted and replaced.
    await applyYaml(page, webDeployment(6));
    await advance(page, 30_000);
    await run(page, 'sim node kill zone-b');
    await advance(page, 60_000);
    await advance(page, 300_000);
    await advance(page, 30_000);
    let lines = await narration(page);
    assert.ok(lines.some((l) => /evicted from zone zone-b/.test(l)), `the sandbox narrates its eviction: ${JSON.stringify(lines)}`);
    await screenshot(page, 'truth-narration-sandbox');
    // A lesson opens on a new warehouse: nothing of the sandbox is told.
    await openLesson(page, '01-desired-state');
    lines = await narration(page);
    assert.ok(!lines.some((l) => /evicted|replace|zone-b/.test(l)), `a fresh warehouse has no old news: ${JSON.stringify(lines)}`);
    // A brand-new Deployment's robots replace nothing.
    await page.locator('.run-block', { hasText: 'kubectl apply -f packer.yaml' }).first().locator('button.run').click();
    await waitForText(page, '#kubectl-output', 'deployment.apps/packer created');
    await advance(page, 30_000);
    lines = await narration(page);
    assert.ok(!lines.some((l) => /replace|evicted/.test(l)), `new robots are not replacements: ${JSON.stringify(lines)}`);
    await screenshot(page, 'truth-narration-fresh-lesson');
  });
});


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

/** The kube-proxy row of the last `sim stats` in the terminal: [objects, bytes]. */
async function statsRow(page) {
  const out = await page.locator('#kubectl-output .stdout').last().textContent();
  const row = out.split('\n').find((l) => /^kube-proxy\s+\d+\s+\d+\s+\d+/.test(l));
  assert.ok(row, `sim stats printed a kube-proxy row: ${out}`);
  const [, , objects, bytes] = row.trim().split(/\s+/);
  return [Number(objects), Number(bytes)];
}

/** The chart's lines once it has drawn `needle` (the canvas redraws on the next frame). */
async function chartShows(page, needle) {
  const deadline = Date.now() + WAIT_MS;
  let chart;
  for (;;) {
    chart = (await floor(page)).chart;
    if (chart.some((l) => l.includes(needle))) return chart;
    if (Date.now() > deadline) throw new Error(`the chart never showed ${JSON.stringify(needle)}: ${JSON.stringify(chart)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const grouped = (n) => n.toLocaleString('en-US');

test('2. the copying machines count what sim stats counts, also after sim stats reset', { timeout: 120_000 }, async () => {
  await guard('chart', async (page) => {
    await openLesson(page, '01-desired-state');
    await page.locator('.run-block', { hasText: 'kubectl apply -f packer.yaml' }).first().locator('button.run').click();
    await run(page, 'kubectl expose deployment packer --port 80');
    await advance(page, 30_000);
    await run(page, 'sim stats');
    let [objects, bytes] = await statsRow(page);
    assert.ok(bytes > 0, 'the routers received something');
    let chart = await chartShows(page, `${grouped(bytes)}\u00a0B · ${objects} objects`);
    // Reset the counters: the chart starts at zero with them, never below.
    await run(page, 'sim stats reset');
    await advance(page, 10_000);
    chart = await chartShows(page, '0\u00a0B · 0 objects');
    assert.ok(!chart.join(' ').includes('18446744073709'), JSON.stringify(chart));
    await run(page, 'kubectl scale deployment packer --replicas=7');
    await advance(page, 30_000);
    await run(page, 'sim stats');
    [objects, bytes] = await statsRow(page);
    assert.ok(bytes > 0);
    chart = await chartShows(page, `${grouped(bytes)}\u00a0B · ${objects} objects`);
    await screenshot(page, 'truth-chart-en');
    // The same figures in Russian: a decimal comma, КБ, no-break spaces.
    await page.click('#lang-toggle');
    chart = await chartShows(page, '\u00a0Б · ');
    assert.ok(chart.every((l) => !/\d\.\d/.test(l) && !/KB|MB/.test(l)), JSON.stringify(chart));
    await screenshot(page, 'truth-chart-ru');
    await page.click('#lang-toggle');
  });
});


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
  else if (s.panel !== 'catalogue') await page.click('#lessons-btn');
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

/** The card's time since the walkthrough began, in simulated ms. */
async function frameAt(page) {
  await page.waitForSelector('#step-frame .frame-at');
  return Number(await page.locator('#step-frame .frame-at').getAttribute('data-at-ms'));
}

async function next(page, step) {
  await page.click('#next-step');
  return waitLesson(page, (s) => s.step === step, `step ${step + 1}`);
}

/** Moves on until the open step's title starts with `title`. */
async function nextUntil(page, title) {
  for (let i = 0; i < 30; i++) {
    const s = await lesson(page);
    if ((await page.locator('#step-title').textContent()).startsWith(title)) return s;
    await next(page, s.step + 1);
  }
  throw new Error(`no step "${title}"`);
}

/** Runs the open step's solution and lets time run until its check passes. */
async function solve(page) {
  await page.click('#run-solution');
  for (let i = 0; i < 20 && (await lesson(page)).checkPassed !== true; i++) await advance(page, 30_000);
  return waitLesson(page, (s) => s.checkPassed === true, 'the step passing');
}

test('3. walkthrough moments share one origin, read as sentences, and are no ✓ before they happen', { timeout: 240_000 }, async () => {
  await guard('frames', async (page) => {
    let s = await openLesson(page, '22-interview-node-dies');
    if (s.step !== 0) {
      await page.locator('.step-dots button.dot').first().click();
      s = await waitLesson(page, (s) => s.step === 0, 'step 1');
    }
    // Paused: the heartbeat of step 2 has not happened since step 1 opened.
    s = await next(page, 1);
    await page.waitForSelector('#step-frame.missing');
    s = await next(page, 2);
    assert.ok(!s.done.includes(1), `a moment that has not happened is not done: ${JSON.stringify(s.done)}`);
    await page.locator('.step-dots button.dot').nth(1).click();
    await waitLesson(page, (s) => s.step === 1, 'back to step 2');
    await advance(page, 10_000);
    const heartbeat = await frameAt(page);
    assert.ok(heartbeat > 0 && heartbeat <= 10_000, `the heartbeat came within 10 s: ${heartbeat}`);
    s = await next(page, 2);
    assert.ok(s.done.includes(1), 'a moment that happened is done when moving on');
    // Pull the plug, then step through the record.
    await nextUntil(page, 'Pull the plug');
    await solve(page);
    await nextUntil(page, 'The verdict');
    const verdict = await frameAt(page);
    assert.ok(verdict > heartbeat, `one origin: the verdict (${verdict}) comes after the heartbeat (${heartbeat})`);
    await screenshot(page, 'truth-frame-verdict-en');
    await nextUntil(page, 'The robot is marked not ready');
    const notReady = await frameAt(page);
    await nextUntil(page, 'Five minutes later');
    await solve(page);
    await nextUntil(page, 'The eviction');
    const eviction = await frameAt(page);
    const gap = eviction - notReady;
    assert.ok(gap >= 295_000 && gap <= 310_000, `the eviction comes about 300 s after the robot was marked not ready: ${gap} ms (${notReady} → ${eviction})`);
    await nextUntil(page, 'The replacement');
    const text = await page.locator('#step-frame').textContent();
    assert.ok(!/set after saw/.test(text), text);
    assert.ok((await frameAt(page)) >= eviction, 'the replacement comes after the eviction');
    await screenshot(page, 'truth-frame-replacement-en');
    await page.click('#lang-toggle');
    await waitForText(page, '#step-frame .frame-at', 'от начала разбора');
    const ru = await page.locator('#step-frame').textContent();
    assert.ok(!/\(а\)/.test(ru), ru);
    await screenshot(page, 'truth-frame-replacement-ru');
    await page.click('#lang-toggle');
  });
});

test('4. a new lesson starts clean, Next scrolls to the step, inline code renders', { timeout: 120_000 }, async () => {
  await guard('lesson-open', async (page) => {
    // Leave something behind in lesson 22's warehouse and editor.
    await openLesson(page, '22-interview-node-dies');
    await run(page, 'kubectl create deployment leftover --image=nginx:1.27');
    await page.fill('#yaml-editor', 'kind: Leftover\n');
    let s = await openLesson(page, '01-desired-state');
    assert.match(await page.inputValue('#yaml-editor'), /name: packer/, "the editor holds the lesson's file");
    const terminal = await page.locator('#kubectl-output').textContent();
    assert.ok(!/leftover|zone-b/.test(terminal), `the terminal starts empty: ${terminal}`);
    await run(page, 'kubectl get deployments');
    await waitForText(page, '#kubectl-output', 'No resources found');
    if (s.step !== 0) {
      await page.locator('.step-dots button.dot').first().click();
      s = await waitLesson(page, (s) => s.step === 0, 'step 1');
    }
    // "Next →" at the bottom brings the new step's title into view.
    await page.locator('#next-step').scrollIntoViewIfNeeded();
    await page.click('#next-step');
    await waitLesson(page, (s) => s.step === 1, 'step 2');
    await page.waitForFunction(() => {
      const r = document.getElementById('step-title')?.getBoundingClientRect();
      return r && r.top >= 0 && r.bottom <= window.innerHeight;
    });
    // Backticks in a prediction's question are code, as in the prose.
    const legend = page.locator('.predict legend').first();
    assert.equal(await legend.locator('code').first().textContent(), 'kubectl get deployment packer');
    assert.ok(!(await legend.textContent()).includes('`'), await legend.textContent());
    await screenshot(page, 'truth-inline-code');
    // The sandbox after a lesson is a warehouse of its own.
    await toCatalogue(page);
    await page.click('#use-sandbox');
    await run(page, 'kubectl get deployments');
    await waitForText(page, '#kubectl-output', 'No resources found');
  });
});

// Template fragments and off-glossary words a Russian screen must not show
// (lessons/glossary.yaml's `avoid` patterns are checked natively by web/src/glossary_tests.rs).
const RUSSIAN_TEMPLATE = /\(а\)|клерк|смотрител|менеджер\S* зала|журнал\S* стойки приёма|строк: \d|\d\.\d\s?(KB|MB|КБ|МБ)|\bKB\b|учётчик (node|job|endpointslice)\b/i;

test('5. the Russian screen reads as Russian: plurals, glossary names, decimal commas', { timeout: 120_000 }, async () => {
  await guard('russian', async (page) => {
    await toCatalogue(page);
    await page.click('#use-sandbox');
    await page.click('#lang-toggle');
    await waitForText(page, '#lang-toggle', 'English');
    await applyYaml(page, webDeployment(4));
    await run(page, 'kubectl expose deployment web --port 80');
    await advance(page, 30_000);
    await run(page, 'sim node kill zone-b');
    await advance(page, 10_000, 3);
    const lines = await narration(page);
    assert.ok(lines.some((l) => /Учётчик зон (ждёт|пометил)/.test(l)), JSON.stringify(lines));
    const text = await page.evaluate(() => document.body.innerText);
    const bad = text.split('\n').filter((l) => RUSSIAN_TEMPLATE.test(l));
    assert.deepEqual(bad, [], 'no template fragments on the Russian screen');
    assert.ok(text.includes('Журнал стойки регистрации'), 'the desk log has its glossary name');
    const chart = (await floor(page)).chart;
    assert.ok(chart.some((l) => /объект/.test(l)), JSON.stringify(chart));
    assert.ok(chart.every((l) => !RUSSIAN_TEMPLATE.test(l)), JSON.stringify(chart));
    await screenshot(page, 'truth-russian-sandbox');
    await page.click('#lang-toggle');
  });
});

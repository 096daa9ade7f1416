// A phone, 390×844: nothing scrolls sideways (the catalogue, the sandbox, an open
// lesson and the inspector, in English and in Russian); the floor, the lesson and the
// terminal are ARIA tabs, one shown at a time (arrow keys move between them); the
// toolbar stays at the top while the page scrolls; a lesson's Run shows what it
// printed on screen, under the button; the reception log is one line a request; main
// buttons are at least 40 px high; axe finds nothing serious. At 1440 px there are no
// tabs and the floor, the lesson and the terminal show at once.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { mkdir } from 'node:fs/promises';
import { kubectl, openApp, SCREENSHOT_DIR, waitForText, WAIT_MS } from './harness.mjs';

/** Saves what the phone's screen shows now (not the whole page) as
 * `target/screenshots/<name>.png`. */
async function screenshot(page, name) {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}.png`, timeout: WAIT_MS });
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');

const PHONE = { width: 390, height: 844 };

let app;

before(async () => {
  app = await openApp();
  const { page } = app;
  await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
  // Opened wide, then turned into a phone: the tabs follow the window's width.
  await page.setViewportSize(PHONE);
  await page.waitForSelector('[role="tablist"]');
  // Stop the clock, so nothing moves under the checks and screenshots.
  if ((await page.getAttribute('#play-pause', 'aria-pressed')) === 'false') await page.click('#play-pause');
});

after(async () => {
  await app?.close();
});

/** Opens "More" in the toolbar (if closed), clicks `selector` there, closes it again. */
async function viaMore(page, selector) {
  if ((await page.getAttribute('#more-toggle', 'aria-expanded')) !== 'true') await page.click('#more-toggle');
  await page.click(selector);
  if ((await page.getAttribute('#more-toggle', 'aria-expanded')) === 'true') await page.click('#more-toggle');
}

async function setLang(page, lang) {
  if ((await page.getAttribute('html', 'lang')) !== lang) await viaMore(page, '#lang-toggle');
  await page.waitForFunction((l) => document.documentElement.lang === l, lang);
}

/** Fails if the page is wider than the window, naming what sticks out. */
async function noSideScroll(page, where) {
  const found = await page.evaluate(() => {
    const width = window.innerWidth;
    const over = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > width + 0.5) {
        // Only the outermost: inside a scrolling box an overflow is the box's.
        let p = el.parentElement;
        let inside = false;
        while (p && p !== document.body) {
          const s = getComputedStyle(p);
          if (/(auto|scroll|hidden)/.test(s.overflowX)) {
            inside = true;
            break;
          }
          p = p.parentElement;
        }
        if (!inside) over.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${[...el.classList].join('.')} right=${Math.round(r.right)}`);
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, width, over: over.slice(0, 8) };
  });
  assert.ok(found.scrollWidth <= found.width, `${where}: the page is ${found.scrollWidth} px wide in a ${found.width} px window; sticking out: ${found.over.join(', ')}`);
}

/** The tab bar's state: each tab's id, name and whether it is selected. */
function tabs(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('[role="tablist"] [role="tab"]')].map((t) => ({
      id: t.id,
      name: t.textContent.trim(),
      selected: t.getAttribute('aria-selected') === 'true',
      controls: t.getAttribute('aria-controls'),
    })),
  );
}

async function showTab(page, name) {
  await page.click(`#tab-${name}`);
  await page.waitForFunction((id) => document.getElementById(id)?.getAttribute('aria-selected') === 'true', `tab-${name}`);
}

/** Whether the element `selector` takes room on the page (is shown). */
function shown(page, selector) {
  return page.evaluate((s) => {
    const el = document.querySelector(s);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }, selector);
}

/** The rectangle of `selector` in the window. */
function rect(page, selector) {
  return page.evaluate((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
  }, selector);
}

async function scan(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

for (const lang of ['en', 'ru']) {
  test(`phone (${lang}): tabs, no sideways scrolling, the toolbar in reach, Run's output on screen`, { timeout: 180_000 }, async () => {
    const { page, problems } = app;
    await page.setViewportSize(PHONE);
    await setLang(page, lang);
    const names = lang === 'en' ? ['Floor', 'Lessons', 'Terminal'] : ['Склад', 'Уроки', 'Терминал'];

    // The catalogue: the lesson tab.
    await viaMore(page, '#lessons-btn');
    await page.waitForSelector('.lesson-card.start .open-lesson');
    let bar = await tabs(page);
    assert.deepEqual(bar.map((t) => t.name), names);
    assert.deepEqual(bar.map((t) => t.selected), [false, true, false], 'the catalogue is on the lesson tab');
    assert.ok(await shown(page, '#lessons-side'));
    assert.ok(!(await shown(page, '#warehouse-canvas')), 'the floor is on another tab');
    assert.ok(!(await shown(page, '#kubectl-input')), 'the terminal is on another tab');
    await noSideScroll(page, `catalogue (${lang})`);
    let found = await scan(page);
    assert.deepEqual(found, [], `catalogue (${lang}): ${JSON.stringify(found, null, 1)}`);
    await screenshot(page, `phone-${lang}-catalogue`);

    // The sandbox: the floor's tab comes forward, its canvas drawn at the window's width.
    await page.click('#use-sandbox');
    await page.waitForFunction(() => !document.querySelector('#lessons-side'));
    bar = await tabs(page);
    assert.deepEqual(bar.map((t) => t.selected), [true, false, false], 'the sandbox shows the floor');
    const canvas = await rect(page, '#warehouse-canvas');
    assert.ok(canvas.width > 300 && canvas.height > 100, `the floor is drawn: ${JSON.stringify(canvas)}`);
    assert.ok(canvas.right <= PHONE.width, 'the floor fits the window');
    await noSideScroll(page, `sandbox floor (${lang})`);
    await screenshot(page, `phone-${lang}-sandbox-floor`);

    // The skip link to the terminal brings the terminal's tab forward and focuses it.
    await page.evaluate(() => {
      document.body.setAttribute('tabindex', '-1');
      document.body.focus();
      document.body.removeAttribute('tabindex');
    });
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.tagName), 'A', 'the first Tab reaches the skip link');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.id === 'kubectl-input');
    assert.equal(await page.getAttribute('#tab-terminal', 'aria-selected'), 'true');

    // The terminal's tab: the input is there and runs a command.
    await showTab(page, 'terminal');
    assert.ok(!(await shown(page, '#warehouse-canvas')));
    const input = await rect(page, '#kubectl-input');
    assert.ok(input.top >= 0 && input.bottom <= PHONE.height, `the terminal's input is on screen: ${JSON.stringify(input)}`);
    const out = await kubectl(page, `create deployment web-${lang} --image=nginx:1.27 --replicas=3`);
    assert.match(out, new RegExp(`deployment.apps/web-${lang} created`));
    await noSideScroll(page, `sandbox terminal (${lang})`);
    await screenshot(page, `phone-${lang}-sandbox-terminal`);
    found = await scan(page);
    assert.deepEqual(found, [], `sandbox terminal (${lang}): ${JSON.stringify(found, null, 1)}`);

    // Back to the floor with the arrow keys: → from the terminal wraps round to it.
    await page.focus('#tab-terminal');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-floor');
    bar = await tabs(page);
    assert.deepEqual(bar.map((t) => t.selected), [true, false, false], '→ shows the floor');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-terminal');
    await page.keyboard.press('Home');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-floor');
    assert.ok(await shown(page, '#warehouse-canvas'));
    // Shown again after being hidden, the floor is drawn at its width.
    assert.ok((await rect(page, '#warehouse-canvas')).width > 300);
    // Only the selected tab is in the Tab order; each names the panel it shows.
    assert.deepEqual(
      await page.evaluate(() => [...document.querySelectorAll('[role="tab"]')].map((t) => t.tabIndex)),
      [0, -1, -1],
    );
    assert.equal(await page.getAttribute('#floor-panel', 'role'), 'tabpanel');
    assert.equal(await page.getAttribute('#floor-panel', 'aria-labelledby'), 'tab-floor');

    // "More" shows the rest of the toolbar, every control still in reach.
    const moreClosed = await rect(page, '#more-toggle');
    await page.click('#more-toggle');
    const moreOpen = await rect(page, '#more-toggle');
    assert.deepEqual([moreOpen.top, moreOpen.left], [moreClosed.top, moreClosed.left], '"More" stays where it was tapped');
    for (const s of ['#speed', '#lang-toggle', '#names-toggle', '#lessons-btn', '.timing-note']) {
      assert.ok(await shown(page, s), `${s} under "More"`);
    }
    await noSideScroll(page, `"More" (${lang})`);
    await screenshot(page, `phone-${lang}-more`);
    await page.click('#more-toggle');
    assert.ok(!(await shown(page, '#speed')), '"More" closes again');

    // The toolbar stays at the top while the page scrolls, one row high.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    assert.ok(await page.evaluate(() => window.scrollY > 500), 'the floor tab is long enough to scroll');
    const top = await rect(page, '.top');
    assert.ok(top.top === 0 && top.height <= 130, `the toolbar and tabs stay at the top, compact: ${JSON.stringify(top)}`);
    const play = await rect(page, '#play-pause');
    assert.ok(play.top >= 0 && play.bottom <= top.bottom, 'Play/Pause is in reach');
    const tabBar = await rect(page, '[role="tablist"]');
    assert.ok(tabBar.top >= 0 && tabBar.bottom <= top.bottom, 'the tabs are in reach');

    // The reception log: one line a request; a tap shows it whole.
    await page.waitForSelector('.request-log .request');
    const row = await page.evaluate(() => {
      const li = document.querySelector('.request-log .request');
      const what = li.querySelector('.request-what');
      return {
        height: li.getBoundingClientRect().height,
        latency: li.querySelector('.request-latency').getBoundingClientRect().width,
        nowrap: getComputedStyle(what).whiteSpace,
        title: li.title,
        text: what.textContent,
      };
    });
    assert.ok(row.height < 40, `a request is one line: ${JSON.stringify(row)}`);
    assert.ok(row.latency <= 1, 'the latency column is left out on a phone');
    assert.equal(row.nowrap, 'nowrap');
    assert.ok(row.title.includes(row.text), `the row's title has it whole: ${JSON.stringify(row)}`);
    await page.click('.request-log .request >> nth=0');
    await page.waitForSelector('.request-log .request.open');
    assert.ok((await page.evaluate(() => document.querySelector('.request.open .request-latency').getBoundingClientRect().width)) > 1, 'a tap shows the row whole');

    // The inspector: a zone opened from the zone list, on the floor's tab.
    await page.click('.zone-row button.zone-name.link >> nth=0');
    await page.waitForSelector('.inspector');
    assert.ok(await shown(page, '.inspector'));
    await noSideScroll(page, `inspector (${lang})`);
    await screenshot(page, `phone-${lang}-inspector`);
    await page.click('#inspector-close');

    // A lesson: on the lesson tab; its Run prints right under the button, on screen.
    await showTab(page, 'lesson');
    await page.click('.lesson-card.start .open-lesson');
    await page.waitForSelector('#lesson .run-block button.run');
    bar = await tabs(page);
    assert.equal(bar[1].name, lang === 'en' ? 'Lesson' : 'Урок');
    assert.deepEqual(bar.map((t) => t.selected), [false, true, false], 'an open lesson is on the lesson tab');
    await noSideScroll(page, `lesson (${lang})`);
    await screenshot(page, `phone-${lang}-lesson`);
    found = await scan(page);
    assert.deepEqual(found, [], `lesson (${lang}): ${JSON.stringify(found, null, 1)}`);

    // The button at the very bottom of the screen: the output must still be in sight.
    const button = page.locator('#lesson .run-block button.run').first();
    await page.evaluate(() => {
      const b = document.querySelector('#lesson .run-block button.run');
      window.scrollBy(0, b.getBoundingClientRect().bottom - window.innerHeight + 2);
    });
    const tapped = await button.boundingBox();
    assert.ok(tapped.y + tapped.height <= PHONE.height && tapped.y + tapped.height > PHONE.height - 60, `the Run button is at the bottom: ${JSON.stringify(tapped)}`);
    const ran = await page.evaluate(() => document.querySelector('#lesson .run-block pre').textContent.trim());
    await button.click();
    await page.waitForSelector('#run-output');
    await waitForText(page, '#run-output', `$ ${ran.split('\n')[0]}`);
    await waitForText(page, '#run-output', 'deployment.apps/packer created');
    // Scrolling settles (smooth or not), then the output is on screen below the toolbar.
    await page.waitForTimeout(400);
    const output = await rect(page, '#run-output');
    const header = await rect(page, '.top');
    assert.ok(output.top >= header.bottom - 1 && output.top + 40 <= PHONE.height, `the output is on screen: ${JSON.stringify({ output, header })}`);
    const runBlock = await rect(page, '#lesson .run-block');
    assert.ok(output.top - runBlock.bottom < 20, 'the output is right under its button');
    await screenshot(page, `phone-${lang}-lesson-run`);
    // The terminal has it too.
    await showTab(page, 'terminal');
    await waitForText(page, '#kubectl-output', 'deployment.apps/packer created');

    // "Open in editor" brings the editor's tab forward, with the YAML in it.
    await showTab(page, 'lesson');
    await page.click('#lesson .yaml-block button.open-editor');
    await page.waitForFunction(() => document.getElementById('tab-terminal').getAttribute('aria-selected') === 'true');
    assert.match(await page.inputValue('#yaml-editor'), /name: packer/);
    await page.waitForFunction(() => {
      const r = document.getElementById('yaml-editor').getBoundingClientRect();
      return r.top > 0 && r.top < window.innerHeight - 100;
    });
    await screenshot(page, `phone-${lang}-lesson-editor`);

    // Main buttons are big enough for a finger.
    await showTab(page, 'lesson');
    const small = await page.evaluate(() =>
      [...document.querySelectorAll('#play-pause, button.advance, #more-toggle, [role="tab"], #lesson button.run, #lesson button.copy, #next-step, #prev-step, #reset-step, #lesson .dot, #back-to-catalogue')]
        .filter((b) => b.getBoundingClientRect().width > 0)
        .filter((b) => b.getBoundingClientRect().height < 40)
        .map((b) => `${b.id || b.className}: ${b.getBoundingClientRect().height}`),
    );
    assert.deepEqual(small, [], 'buttons under 40 px high');

    // Each tab of the lesson, as a learner sees it.
    await showTab(page, 'floor');
    await screenshot(page, `phone-${lang}-lesson-floor`);
    await showTab(page, 'terminal');
    await noSideScroll(page, `lesson terminal (${lang})`);
    await screenshot(page, `phone-${lang}-lesson-terminal`);
    await showTab(page, 'lesson');

    assert.deepEqual(problems, []);
  });
}

test('from 360 to 860 px, in Russian: nothing scrolls sideways; tabs up to 700 px', { timeout: 60_000 }, async () => {
  const { page, problems } = app;
  await page.setViewportSize(PHONE);
  await setLang(page, 'ru');
  if (!(await page.$('#lesson'))) {
    await showTab(page, 'lesson');
    await page.click('.lesson-card.start .open-lesson');
  }
  await page.waitForSelector('#lesson');
  for (const width of [360, 520, 700, 701, 860]) {
    await page.setViewportSize({ width, height: 844 });
    const tabbed = width <= 700;
    await page.waitForFunction((t) => !!document.querySelector('[role="tablist"]') === t, tabbed);
    if (tabbed) {
      for (const t of ['floor', 'lesson', 'terminal']) {
        await showTab(page, t);
        await noSideScroll(page, `${width} px, ${t}`);
      }
      await showTab(page, 'lesson');
    } else {
      await noSideScroll(page, `${width} px`);
    }
  }
  assert.deepEqual(problems, []);
});

test('wide (1440 px): no tabs; the floor, the lesson and the terminal at once', { timeout: 60_000 }, async () => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.waitForFunction(() => !document.querySelector('[role="tablist"]'));
  if (!(await page.$('#lesson'))) {
    await page.click('#lessons-btn');
    await page.click('.lesson-card.start .open-lesson');
  }
  await page.waitForSelector('#lesson');
  assert.equal(await page.locator('.off-tab').count(), 0, 'nothing is left out');
  assert.equal(await page.locator('[role="tabpanel"]').count(), 0);
  assert.ok(!(await shown(page, '#more-toggle')), 'no "More" in the toolbar');
  for (const s of ['#warehouse-canvas', '#lesson', '#kubectl-input', '#lessons-btn', '#speed', '#lang-toggle', '.timing-note']) {
    assert.ok(await shown(page, s), `${s} shows`);
  }
  // The lessons on the left, the floor beside them.
  const lesson = await rect(page, '#lessons-side');
  const floor = await rect(page, '#warehouse-canvas');
  assert.ok(lesson.right <= floor.left, `the lesson beside the floor: ${JSON.stringify({ lesson, floor })}`);
  assert.ok(floor.width > 700, 'the floor is wide');
  assert.equal(await page.getAttribute('#lessons-side', 'aria-label') !== null, true, 'the lessons are a labelled region');
  await noSideScroll(page, 'wide lesson');
  // Back on a phone, the tabs return where they were.
  await page.setViewportSize(PHONE);
  await page.waitForSelector('[role="tablist"]');
  assert.ok(await shown(page, '#lesson'));
  assert.deepEqual(problems, []);
});

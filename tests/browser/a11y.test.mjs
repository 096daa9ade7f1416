// Accessibility scan: axe-core runs in the page and the test fails on any serious
// or critical violation, on the catalogue, in the sandbox and with a lesson open,
// in English and in Russian.
//
// axe is evaluated in the page through the DevTools protocol (page.evaluate with
// its source): that is not an inline <script>, so the page keeps its own strict
// Content-Security-Policy for the scan.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { advance, applyYaml, kubectl, openApp, screenshot, SCREENSHOT_DIR, waitForText, WAIT_MS, webDeployment } from './harness.mjs';

const SERVICE = `---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
    - port: 80
`;

const require = createRequire(import.meta.url);
const AXE_SOURCE = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');

let app;

before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
  // Stop the clock, so nothing moves under the scan.
  await app.page.waitForSelector('#play-pause');
  const playing = await app.page.getAttribute('#play-pause', 'aria-pressed');
  if (playing === 'false') await app.page.click('#play-pause');
  // Something on the floor to read: robots in the zones and an order desk.
  await applyYaml(app.page, webDeployment(3) + SERVICE);
  await waitForText(app.page, '#apply-result', 'service/web created');
  await advance(app.page, 60_000);
});

after(async () => {
  await app?.close();
});

/** Runs axe on the whole page; resolves to its serious and critical violations. */
async function scan(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.evaluate(AXE_SOURCE);
  }
  const violations = await page.evaluate(async () => {
    // Closed <details> hide their content from axe as from readers: open them.
    for (const d of document.querySelectorAll('details')) d.open = true;
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

function report(where, violations) {
  return `${where}: ${violations.length} serious or critical violations\n${violations
    .map((v) => `- ${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.join('\n    ')}`)
    .join('\n')}`;
}

async function setLang(page, lang) {
  if ((await page.getAttribute('html', 'lang')) !== lang) await page.click('#lang-toggle');
  await page.waitForFunction((l) => document.documentElement.lang === l, lang);
}

for (const lang of ['en', 'ru']) {
  test(`a11y (${lang}): the catalogue, the sandbox and an open lesson pass axe`, { timeout: 120_000 }, async () => {
    const { page, problems } = app;
    await setLang(page, lang);

    await page.click('#lessons-btn');
    await page.waitForSelector('.lesson-card .open-lesson');
    let found = await scan(page);
    assert.deepEqual(found, [], report(`catalogue (${lang})`, found));

    await page.click('#use-sandbox');
    await page.waitForFunction(() => !document.querySelector('.lessons-side'));
    found = await scan(page);
    assert.deepEqual(found, [], report(`sandbox (${lang})`, found));

    await page.click('#lessons-btn');
    await page.click('.lesson-card.start .open-lesson');
    await page.waitForSelector('#lesson');
    found = await scan(page);
    await screenshot(page, `a11y-lesson-${lang}`);
    assert.deepEqual(found, [], report(`lesson (${lang})`, found));

    assert.deepEqual(problems, []);
  });
}

// The first screen at 1440×900 shows where to start, and the terminal is wide enough
// for `kubectl get pods -o wide` to show every column without scrolling sideways.
for (const width of [1440, 1280]) {
  test(`first screen at ${width}×900: the lessons and "Start here" in sight, a wide terminal`, { timeout: 60_000 }, async () => {
    const { page } = app;
    await setLang(page, 'en');
    await page.setViewportSize({ width, height: 900 });
    await page.click('#lessons-btn');
    await page.waitForSelector('.lesson-card.start .open-lesson');
    await page.evaluate(() => window.scrollTo(0, 0));
    const inView = (sel) =>
      page.evaluate((s) => {
        const r = document.querySelector(s).getBoundingClientRect();
        return r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;
      }, sel);
    assert.ok(await inView('#lessons-btn'), 'the Lessons button is on the first screen');
    assert.ok(await inView('.lesson-card.start .open-lesson'), '"Start here" is on the first screen');
    await page.screenshot({ path: `${SCREENSHOT_DIR}/a11y-first-screen-${width}.png` });

    await kubectl(page, `create deployment wide-${width} --image=nginx:1.27 --replicas=2`);
    await advance(page, 30_000);
    const wide = await kubectl(page, 'get pods -o wide');
    const header = wide.split('\n')[0];
    assert.match(header, /NODE\s+NOMINATED NODE/);
    const longest = Math.max(...wide.split('\n').map((l) => l.length));
    // How many characters of the terminal's font fit across its output.
    const fits = await page.evaluate(() => {
      const out = document.querySelector('#kubectl-output');
      const probe = document.createElement('span');
      probe.textContent = 'x'.repeat(100);
      out.append(probe);
      const ch = probe.getBoundingClientRect().width / 100;
      probe.remove();
      const style = getComputedStyle(out);
      const inner = out.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return Math.floor(inner / ch);
    });
    const nodeEnd = header.indexOf('NOMINATED');
    assert.ok(fits >= nodeEnd, `the NODE column (up to character ${nodeEnd}) is in sight: ${fits} fit`);
    if (width >= 1440) assert.ok(fits >= longest, `at ${width} px the whole ${longest}-character line fits: ${fits} do`);
  });
}

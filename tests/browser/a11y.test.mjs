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
import { advance, applyYaml, openApp, screenshot, waitForText, WAIT_MS, webDeployment } from './harness.mjs';

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

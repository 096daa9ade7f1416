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
import { advance, applyYaml, kubectl, openApp, robots, screenshot, SCREENSHOT_DIR, waitForText, WAIT_MS, webDeployment } from './harness.mjs';

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

// Buttons that act on different things say which, in both languages, and "The floor
// as text" follows the floor: each zone's robots as the test hook counts them, the
// waiting bay, the order desk and its sheet.
test('a11y: named buttons, and the floor as text in step with the floor', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  await setLang(page, 'en');
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.click('#lessons-btn');
  await page.click('#use-sandbox');
  await page.waitForFunction(() => !document.querySelector('.lessons-side'));
  await applyYaml(page, webDeployment(4) + SERVICE);
  await waitForText(page, '#apply-result', 'deployment.apps/web');
  await advance(page, 60_000);

  const names = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('.kill-zone, .restart-zone, .stop-component, .start-component')].map(
        (b) => b.getAttribute('aria-label'),
      ),
    );
  let labels = await names();
  assert.ok(labels.includes('Kill zone zone-a'), JSON.stringify(labels));
  assert.ok(labels.includes('Stop Reception desk'), JSON.stringify(labels));
  assert.equal(new Set(labels).size, labels.length, `every name differs: ${JSON.stringify(labels)}`);

  // The text says what the hook counts, zone by zone.
  const zoneText = (zone) => page.textContent(`#floor-text .floor-text-zone[data-zone="${zone}"]`);
  const counts = await robots(page);
  assert.equal(['zone-a', 'zone-b', 'zone-c'].reduce((s, z) => s + (counts[z]?.Running ?? 0), 0), 4);
  for (const zone of ['zone-a', 'zone-b', 'zone-c']) {
    const running = counts[zone]?.Running ?? 0;
    const text = await zoneText(zone);
    if (running > 0) assert.match(text, new RegExp(`${running} working`), `${zone}: ${text}`);
  }
  assert.match(await page.textContent('#floor-text-bay'), /Waiting bay: 0 robots/);
  const desk = await page.textContent('#floor-text .floor-text-desk[data-desk="web"]');
  assert.match(desk, /Order desk web: .*app=web.*1 sheets · 4 lines/, desk);

  // A zone killed from the keyboard's named button: the text says so.
  await page.click('.kill-zone[data-zone="zone-a"]');
  await page.waitForFunction(() =>
    document.querySelector('#floor-text .floor-text-zone[data-zone="zone-a"]')?.textContent.includes('powered off'),
  );
  labels = await names();
  assert.ok(labels.includes('Restart zone zone-a'), JSON.stringify(labels));

  // The inspector, open on the zone, passes axe too.
  await page.click('.inspect-zone[data-zone="zone-a"]');
  await page.waitForSelector('#inspector');
  const found = await scan(page);
  assert.deepEqual(found, [], report('inspector', found));

  // More robots than zones can take wait in the bay, and the text counts them.
  await kubectl(page, 'scale deployment web --replicas=400');
  await advance(page, 10_000);
  await page.waitForFunction(() => /Waiting bay: [1-9]\d* robots/.test(document.querySelector('#floor-text-bay').textContent));
  const bayHook = (await robots(page)).unscheduled ?? {};
  const bayCount = Object.values(bayHook).reduce((s, n) => s + n, 0);
  assert.match(await page.textContent('#floor-text-bay'), new RegExp(`Waiting bay: ${bayCount} robots`));

  // In Russian, with the zone's own word.
  await setLang(page, 'ru');
  labels = await names();
  assert.ok(labels.includes('Включить зону zone-a'), JSON.stringify(labels));
  assert.ok(labels.includes('Остановить: Стойка регистрации'), JSON.stringify(labels));
  assert.match(await page.textContent('#floor-text summary'), /Склад в виде текста/);
  assert.deepEqual(problems, []);
});

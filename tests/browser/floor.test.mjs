// The warehouse floor: order desks with their sheets, a sheet that flashes when a
// robot goes, and a view that is not rebuilt while nothing changes.
//
// App contract: `window.__warehouse.floor()` returns a JSON string: `rebuilds`
// (views built since load), `draws`, `desks` (each drawn desk: namespace, name,
// clusterIp, selector, scrollLines, sheets: name, resourceVersion, expanded, lines
// as "IP namespace/pod state"), `flashing` (sheets highlighted now).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WAIT_MS, advance, applyYaml, floor, kubectl, openApp, screenshot, waitForText, webDeployment } from './harness.mjs';

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

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

test('floor: desks and sheets, a flashing sheet, no rebuild while idle', { timeout: 90_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse?.floor !== undefined, null, { timeout: WAIT_MS });
    // Pause first: the clock moves only with the advance buttons.
    await page.click('#play-pause');

    await applyYaml(page, webDeployment(3) + SERVICE);
    await waitForText(page, '#apply-result', 'service/web created');
    await advance(page, 30_000);
    await advance(page, 30_000);

    // A desk with its sheets whose lines are the endpoints kubectl lists.
    await page.waitForFunction(
      () => JSON.parse(window.__warehouse.floor()).desks.some((d) => d.name === 'web' && d.sheets.length > 0),
      null,
      { timeout: 5_000 },
    );
    const out = await kubectl(
      page,
      `get endpointslices -l kubernetes.io/service-name=web -o jsonpath='{range .items[*]}{.metadata.name}{":"}{range .endpoints[*]}{.addresses[0]}{","}{end}{"\\n"}{end}'`,
    );
    const fromKubectl = Object.fromEntries(
      out
        .trim()
        .split('\n')
        .map((l) => l.split(':'))
        .map(([name, ips]) => [name, ips.split(',').filter(Boolean).sort()]),
    );
    const f = await floor(page);
    const desk = f.desks.find((d) => d.name === 'web');
    assert.ok(desk.clusterIp, 'the desk shows its fixed address');
    assert.deepEqual(desk.selector, ['app=web']);
    const drawn = Object.fromEntries(desk.sheets.map((s) => [s.name, s.lines.map((l) => l.split(' ')[0]).sort()]));
    assert.deepEqual(drawn, fromKubectl);
    assert.equal(Object.values(drawn).flat().length, 3);
    assert.ok(desk.sheets.every((s) => s.lines.every((l) => l.endsWith(' ready'))), JSON.stringify(desk));
    assert.ok(!f.desks.some((d) => d.name === 'kubernetes' || d.name === 'kube-dns'), 'system desks left out');
    await screenshot(page, 'floor-desk');

    // Paused and idle: redraws may happen, rebuilds do not.
    await page.waitForFunction(() => JSON.parse(window.__warehouse.floor()).flashing.length === 0, null, {
      timeout: 5_000,
    });
    const r0 = (await floor(page)).rebuilds;
    const t0 = await page.evaluate(() => window.__warehouse.timeMs());
    await page.mouse.move(300, 400);
    await page.waitForTimeout(1_200);
    assert.equal((await floor(page)).rebuilds, r0, 'no rebuild while nothing changed');
    assert.equal(await page.evaluate(() => window.__warehouse.timeMs()), t0);

    // A robot deleted: exactly one sheet flashes, its changed line with it.
    const victim = desk.sheets[0].lines[0].split(' ')[1].split('/')[1];
    await kubectl(page, `delete pod ${victim}`);
    await advance(page, 10_000);
    await page.waitForFunction(() => JSON.parse(window.__warehouse.floor()).flashing.length > 0, null, {
      timeout: 3_000,
    });
    const flashing = (await floor(page)).flashing;
    assert.equal(flashing.length, 1, JSON.stringify(flashing));
    await screenshot(page, 'floor-flash');
    // It stops after about 1.5 s of real time.
    await page.waitForFunction(() => JSON.parse(window.__warehouse.floor()).flashing.length === 0, null, {
      timeout: 4_000,
    });

    // Hover a desk: a tooltip with its name; click: nothing breaks.
    const box = await page.locator('#warehouse-canvas').boundingBox();
    await page.mouse.move(box.x + 60, box.y + 195);
    await page.waitForFunction(() => !document.querySelector('#floor-tooltip').hidden, null, { timeout: 3_000 });
    const tip = await page.locator('#floor-tooltip').textContent();
    assert.match(tip, /web/);
    await page.mouse.click(box.x + 60, box.y + 195);
    await page.click('#scroll-toggle');
    await page.click('#lang-toggle');
    await page.waitForTimeout(300);
    await screenshot(page, 'floor-ru');
    await page.click('#lang-toggle');
    assert.deepEqual(problems, []);
  } catch (err) {
    await screenshot(page, 'floor-failure').catch(() => {});
    throw err;
  }
});

// `kubectl set selector` in the browser: the order desk (Service) takes the new
// badge rule, and its sheet (EndpointSlice) empties when no robot wears the badge.
//
// App contract: the terminal is `#kubectl-input` / `#kubectl-output`; the floor's
// test hook lists the desks with their selector and sheets.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { floor, kubectl, openApp, screenshot, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

test('set selector changes a desk’s badge rule and its sheet follows', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await page.click('#play-pause');
    await kubectl(page, 'kubectl create deployment web --image=nginx:1.27 --replicas=2');
    await kubectl(page, 'kubectl expose deployment web --port=80');
    await kubectl(page, 'sim advance 20s');
    const lines = async () =>
      (await floor(page)).desks
        .filter((d) => d.name === 'web')
        .flatMap((d) => d.sheets.flatMap((s) => s.lines));
    await page.waitForFunction(
      () => JSON.parse(window.__warehouse.floor()).desks.some((d) => d.name === 'web' && d.sheets.some((s) => s.lines.length === 2)),
      null,
      { timeout: WAIT_MS },
    );
    const said = await kubectl(page, "kubectl set selector svc/web 'app=nothing'");
    assert.equal(said.trim(), 'service/web selector updated');
    await kubectl(page, 'sim advance 2s');
    await page.waitForFunction(
      () => JSON.parse(window.__warehouse.floor()).desks.some((d) => d.name === 'web' && d.selector.join(',') === 'app=nothing'),
      null,
      { timeout: WAIT_MS },
    );
    assert.deepEqual(await lines(), []);
    const refused = await kubectl(page, 'kubectl set selector deployment web app=web');
    const printed = await page.evaluate(() => document.querySelector('#kubectl-output').textContent);
    assert.ok(printed.includes('setting a selector is only supported for Services'), refused + printed.slice(-500));
    assert.deepEqual(problems, []);
  } catch (e) {
    await screenshot(page, 'set-selector-failure');
    throw e;
  }
});

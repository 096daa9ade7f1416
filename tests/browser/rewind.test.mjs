// Time goes back: the toolbar's history slider and `sim rewind` show the warehouse
// as it was, the floor and `kubectl get` alike; Play replays what came next, and a
// new command forks the history.
//
// App contract: `#history` is an `<input type=range>` over the session's history
// (simulated milliseconds), shown once something happened in the sandbox; changing
// it goes to that moment, paused; `#clock` shows minutes:seconds.
// `#share-btn` makes a link to this moment, shown in `#share-link`; opened in a
// fresh browser context it rebuilds the same warehouse.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  advance,
  applyYaml,
  kubectl,
  openApp,
  pollRobots,
  robots,
  runningIn,
  screenshot,
  waitForText,
  WAIT_MS,
  webDeployment,
} from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

const clockMs = async (page) => {
  const text = await page.locator('#clock').textContent();
  const [m, s] = text.split(':').map(Number);
  return (m * 60 + s) * 1000;
};

/** Sets the slider to `ms` as a learner's drag ends (an input, then a change). */
const slideTo = (page, ms) =>
  page.evaluate((value) => {
    const slider = document.querySelector('#history');
    slider.value = String(value);
    slider.dispatchEvent(new Event('input', { bubbles: true }));
    slider.dispatchEvent(new Event('change', { bubbles: true }));
  }, ms);

test('rewind: the slider and sim rewind show the earlier warehouse, Play replays it', { timeout: 180_000 }, async () => {
  const { page, problems } = app;
  await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
  await page.click('#play-pause');

  await applyYaml(page, webDeployment(2));
  await waitForText(page, '#apply-result', 'deployment.apps/web created');
  await advance(page, 60000);
  const two = await pollRobots(page, (r) => runningIn(r) === 2, WAIT_MS);
  assert.ok(two, JSON.stringify(await robots(page)));
  const beforeScale = await clockMs(page);

  await kubectl(page, 'kubectl scale deployment web --replicas=5');
  await advance(page, 60000);
  await advance(page, 30000);
  const five = await pollRobots(page, (r) => runningIn(r) === 5, WAIT_MS);
  assert.ok(five, JSON.stringify(await robots(page)));
  const end = await clockMs(page);

  // The slider spans the history; going 90 s back lands before the scale.
  const slider = page.locator('#history');
  await slider.waitFor();
  const max = Number(await slider.getAttribute('max'));
  assert.ok(max >= end && max < end + 1000, `the slider ends at ${max}, the clock at ${end}`);
  await slideTo(page, end - 90000);
  await page.waitForFunction((t) => {
    const [m, s] = document.querySelector('#clock').textContent.split(':').map(Number);
    return (m * 60 + s) * 1000 === t;
  }, beforeScale, { timeout: WAIT_MS });
  const back = await pollRobots(page, (r) => runningIn(r) === 2, WAIT_MS);
  assert.ok(back, `the floor after the rewind: ${JSON.stringify(await robots(page))}`);
  const pods = await kubectl(page, 'kubectl get deployment web');
  assert.match(pods, /web\s+2\/2\s+2\s+2/, pods);
  assert.equal(await page.locator('#play-pause').getAttribute('aria-pressed'), 'true', 'paused after a rewind');
  await screenshot(page, 'rewind-slider');

  // Play replays what happened next: the scale comes back by itself.
  await advance(page, 60000);
  await advance(page, 30000);
  const again = await pollRobots(page, (r) => runningIn(r) === 5, WAIT_MS);
  assert.ok(again, JSON.stringify(await robots(page)));

  // The terminal goes back too, and a new command forks the history.
  const out = await kubectl(page, 'sim rewind 90s');
  assert.match(out, /^rewound 90s to /, out);
  await kubectl(page, 'kubectl scale deployment web --replicas=1');
  await advance(page, 60000);
  await advance(page, 30000);
  const one = await pollRobots(page, (r) => runningIn(r) === 1, WAIT_MS);
  assert.ok(one, `after the fork: ${JSON.stringify(await robots(page))}`);
  const forked = Number(await slider.getAttribute('max')) - (await clockMs(page));
  assert.ok(forked >= 0 && forked < 1000, `the old future is gone (the slider ends ${forked} ms after the clock)`);
  assert.deepEqual(problems, []);
});

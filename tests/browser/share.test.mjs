// The sandbox survives a reload and travels as a link: both carry its history,
// replayed on the same starting warehouse, so `kubectl get pods -o wide` is the
// same line for line. A damaged link or saved state gives a message and a working
// app.
//
// App contract: `#share-btn` makes a link to this moment and shows it in
// `#share-link`; a link's fragment is `#history=…`; the saved sandbox is the
// localStorage key `kube-warehouse.sandbox.v1`; messages appear in `#zone-notice`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  advance,
  applyYaml,
  kubectl,
  launchBrowser,
  openApp,
  pollRobots,
  robots,
  runningIn,
  screenshot,
  waitForText,
  WAIT_MS,
  webDeployment,
} from './harness.mjs';

const SAVED_KEY = 'kube-warehouse.sandbox.v1';

let app;
let other;

before(async () => {
  app = await openApp();
  other = await launchBrowser();
});

after(async () => {
  await other?.close();
  await app?.close();
});

/** A page in a browser context of its own (nothing saved, nothing shared). */
async function freshPage(url) {
  const context = await other.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console.error: ${msg.text()}`);
  });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
  return { page, problems, context };
}

test('share: a link opened in a fresh browser shows the same pods; a reload keeps the sandbox', { timeout: 180_000 }, async () => {
  const { page, problems, url } = app;
  await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
  await page.click('#play-pause');
  await applyYaml(page, webDeployment(2));
  await waitForText(page, '#apply-result', 'deployment.apps/web created');
  await advance(page, 60000);
  await kubectl(page, 'kubectl scale deployment web --replicas=4');
  await advance(page, 30000);
  assert.ok(await pollRobots(page, (r) => runningIn(r) === 4, WAIT_MS), JSON.stringify(await robots(page)));
  const wide = await kubectl(page, 'kubectl get pods -o wide');
  assert.match(wide, /web-\S+\s+1\/1\s+Running/, wide);

  await page.click('#share-btn');
  const link = await page.locator('#share-link').inputValue({ timeout: WAIT_MS });
  assert.ok(link.startsWith(`${url}#history=`) || link.includes('#history='), link);
  assert.ok(link.length < 20_000, `a short history makes a short link (${link.length})`);

  const shared = await freshPage(link);
  await waitForText(shared.page, '#zone-notice', 'Opened the shared warehouse');
  assert.ok(!(await shared.page.url()).includes('#history='), 'the fragment is read, then dropped');
  assert.equal(await kubectl(shared.page, 'kubectl get pods -o wide'), wide);
  await screenshot(shared.page, 'share-opened');
  assert.deepEqual(shared.problems, []);
  await shared.context.close();

  // The sandbox is kept every few seconds; a reload brings it back with its terminal.
  await page.waitForFunction((key) => localStorage.getItem(key) !== null, SAVED_KEY, { timeout: WAIT_MS });
  await page.waitForTimeout(3_500);
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
  await waitForText(page, '#kubectl-output', 'kubectl scale deployment web --replicas=4');
  await waitForText(page, '#zone-notice', 'Your sandbox is back');
  assert.equal(await page.locator('#play-pause').getAttribute('aria-pressed'), 'true', 'paused after a reload');
  assert.equal(await kubectl(page, 'kubectl get pods -o wide'), wide);
  assert.deepEqual(problems, []);
});

test('share: a damaged link and a damaged saved sandbox each give a message and a working app', { timeout: 120_000 }, async () => {
  const { url } = app;
  const broken = await freshPage(`${url}#history=not*base64`);
  await waitForText(broken.page, '#zone-notice', 'This link could not be opened');
  assert.match(await kubectl(broken.page, 'kubectl get nodes'), /zone-a\s+Ready/);
  assert.deepEqual(broken.problems, []);

  // Valid base64url of bytes that are no compressed history.
  await broken.page.goto(`${url}#history=AAECAwQFBgc`, { waitUntil: 'load' });
  await waitForText(broken.page, '#zone-notice', 'This link could not be opened');

  await broken.page.evaluate((key) => localStorage.setItem(key, '{"history": [1, 2'), SAVED_KEY);
  await broken.page.goto(url, { waitUntil: 'load' });
  await waitForText(broken.page, '#zone-notice', 'could not be restored');
  assert.equal(await broken.page.evaluate((key) => localStorage.getItem(key), SAVED_KEY), null, 'the damaged state is dropped');
  assert.match(await kubectl(broken.page, 'kubectl get nodes'), /zone-a\s+Ready/);
  await broken.context.close();
});

// The timeline: requests at the reception desk, writes in the ledger and Events along
// simulated time, newest at the right; filters by who, kind and name; a picked entry
// says what it touched (an EndpointSlice write lists the endpoints it added, removed
// or made ready) and opens the inspector on its object; a rewind drops what came
// after the moment shown.
//
// App contract: `section.timeline` holds `#timeline-sort`, `#timeline-actor`,
// `#timeline-kind` (values: a kind, `EndpointSlice`) and `#timeline-name` (labelled
// form controls), `#timeline-count`, and `ol#timeline-strip` of `li.timeline-entry`
// each with one `button` carrying `data-sort` (request|write|event), `data-kind`,
// `data-name`, `data-namespace`, `data-verb` (a request's verb or ADDED|MODIFIED|
// DELETED), `data-actor`, `data-at` (simulated ms), `data-code` and a write's
// `data-revision`, and
// `aria-pressed` when picked. The picked entry's `#timeline-details` shows
// `#timeline-what`, `#timeline-object`, `#timeline-who`, `#timeline-result`, for an
// EndpointSlice write `#timeline-endpoints` (`li.added` `+ ADDRESS (state)`,
// `li.removed`, `li.changed`), and `#timeline-inspect`, which opens
// `section#inspector[data-target]` (or, for a kind the inspector does not open,
// `#timeline-describe`, which runs `kubectl describe` in the terminal).

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  advance,
  applyYaml,
  kubectl,
  openApp,
  pollRobots,
  runningIn,
  screenshot,
  SCREENSHOT_DIR,
  waitForText,
  WAIT_MS,
  webDeployment,
} from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await app?.close();
});

/** The entries the strip shows, as their data attributes. */
const entries = (page) =>
  page.$$eval('#timeline-strip li.timeline-entry button', (buttons) => buttons.map((b) => ({ ...b.dataset })));

const clockMs = async (page) => {
  const [m, s] = (await page.locator('#clock').textContent()).split(':').map(Number);
  return (m * 60 + s) * 1000;
};

async function shots(page, name) {
  await screenshot(page, name);
  await page.locator('section.timeline').screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-timeline.png`), timeout: WAIT_MS });
}

test('the timeline lists requests, writes and Events, filters them, explains one and follows a rewind', { timeout: 240_000 }, async () => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.click('#play-pause');

  await applyYaml(page, webDeployment(2));
  await waitForText(page, '#apply-result', 'deployment.apps/web created');
  await kubectl(page, 'kubectl expose deployment web --port=80');
  await advance(page, 60000);
  assert.ok(await pollRobots(page, (r) => runningIn(r) === 2, WAIT_MS), 'two robots run');

  // What the desk received, what the ledger wrote, and the Events.
  await page.waitForFunction(
    () => document.querySelector('#timeline-strip button[data-sort="request"][data-kind="Deployment"][data-verb="create"][data-name="web"]'),
    null,
    { timeout: WAIT_MS },
  );
  let all = await entries(page);
  const create = all.find((e) => e.sort === 'request' && e.kind === 'Deployment' && e.name === 'web');
  assert.equal(create.code, '201');
  assert.equal(create.actor, 'kubernetes-admin');
  assert.ok(all.some((e) => e.sort === 'write' && e.kind === 'Pod' && e.verb === 'ADDED' && e.name.startsWith('web-')), 'a robot written');
  assert.ok(all.some((e) => e.sort === 'write' && e.kind === 'Pod' && e.actor === 'system:kube-scheduler'), 'the scheduler binds');
  assert.ok(all.some((e) => e.sort === 'event' && e.kind === 'Pod' && e.name.startsWith('web-')), 'Events about the robots');
  // Oldest at the left: times never go down along the strip.
  const times = all.map((e) => Number(e.at));
  assert.deepEqual(times, [...times].sort((a, b) => a - b));
  // The newest is scrolled into view at the right.
  const scrolled = await page.$eval('#timeline-strip', (s) => s.scrollLeft + s.clientWidth >= s.scrollWidth - 10);
  assert.ok(scrolled, 'the strip shows its newest end');
  await shots(page, 'timeline-en-1440');
  const wide = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(wide[0] <= wide[1], `the page is ${wide[0]} px wide in a ${wide[1]} px window`);

  // A request's details.
  await page.click(`#timeline-strip button[data-sort="request"][data-kind="Deployment"][data-name="web"][data-verb="create"]`);
  await waitForText(page, '#timeline-what', 'create');
  await waitForText(page, '#timeline-object', 'deployment/web -n default');
  await waitForText(page, '#timeline-result', '201');
  await waitForText(page, '#timeline-who', 'kubernetes-admin');
  // The inspector does not open on a Deployment: kubectl describes it in the terminal.
  const prompts = await page.locator('#kubectl-output .prompt').count();
  await page.click('#timeline-describe');
  await page.waitForFunction((n) => document.querySelectorAll('#kubectl-output .prompt').length > n, prompts);
  await waitForText(page, '#kubectl-output', 'kubectl describe deployment/web -n default');
  await waitForText(page, '#kubectl-output', 'Replicas:');

  // Only the sheets (EndpointSlices).
  await page.selectOption('#timeline-kind', 'EndpointSlice');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('#timeline-strip button')].every((b) => b.dataset.kind === 'EndpointSlice'),
  );
  all = await entries(page);
  assert.ok(all.length > 0, 'EndpointSlice entries');
  assert.ok(all.every((e) => e.kind === 'EndpointSlice'), JSON.stringify(all.map((e) => e.kind)));
  const slices = all.filter((e) => e.sort === 'write' && e.name.startsWith('web-'));
  assert.ok(slices.length > 0, 'writes of the web sheet');

  // Each write of the web sheet: what it added, removed or made ready.
  const present = new Map();
  for (const s of slices) {
    await page.click(`#timeline-strip button[data-sort="write"][data-name="${s.name}"][data-at="${s.at}"][data-verb="${s.verb}"]`);
    await page.waitForSelector('#timeline-details');
    const lines = await page.$$eval('#timeline-endpoints li', (ls) => ls.map((l) => l.textContent));
    for (const line of lines) {
      const m = line.match(/^([+−~]) (\d+\.\d+\.\d+\.\d+)(?: \((.+?)\)|: .+ → (.+?))?(?: — |$)/);
      assert.ok(m, `an endpoint line: ${line}`);
      const [, sign, address, added, now] = m;
      if (sign === '−') present.delete(address);
      else present.set(address, added ?? now);
    }
  }
  // Play the diffs forward: they end where the stored sheet is.
  const yaml = await kubectl(page, 'kubectl get endpointslices -l kubernetes.io/service-name=web -o yaml');
  const stored = [...yaml.matchAll(/addresses:\n\s*- "?(\d+\.\d+\.\d+\.\d+)"?/g)].map((m) => m[1]).sort();
  assert.equal(stored.length, 2, yaml);
  assert.deepEqual([...present.keys()].sort(), stored);
  assert.ok([...present.values()].every((state) => state === 'ready'), JSON.stringify([...present]));

  // The first write that added an endpoint: its lines and the inspector on that sheet.
  let picked = null;
  for (const s of slices) {
    await page.click(`#timeline-strip button[data-sort="write"][data-name="${s.name}"][data-at="${s.at}"][data-verb="${s.verb}"]`);
    if ((await page.locator('#timeline-endpoints li.added').count()) > 0) {
      picked = s;
      break;
    }
  }
  assert.ok(picked, 'a write that added an endpoint');
  const added = await page.locator('#timeline-endpoints li.added').first().textContent();
  assert.ok(stored.some((a) => added.startsWith(`+ ${a} (`)), `${added} is one of ${stored}`);
  assert.equal(
    await page.getAttribute(`#timeline-strip button[data-at="${picked.at}"][data-verb="${picked.verb}"][data-name="${picked.name}"]`, 'aria-pressed'),
    'true',
  );
  await shots(page, 'timeline-en-1440-sheet');
  await page.click('#timeline-inspect');
  await page.waitForSelector(`section#inspector[data-target="sheet:default/${picked.name}"]`, { timeout: WAIT_MS });
  await page.click('#inspector-close');

  // By name: only entries about web objects.
  await page.selectOption('#timeline-kind', '');
  await page.fill('#timeline-name', 'WEB-');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('#timeline-strip button')].every((b) => b.dataset.name.toLowerCase().includes('web-')),
  );
  all = await entries(page);
  assert.ok(all.length > 0 && all.every((e) => e.name.includes('web-')));
  // Only Events: one about a robot says its reason and opens that robot.
  await page.selectOption('#timeline-sort', 'event');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('#timeline-strip button')].every((b) => b.dataset.sort === 'event'),
  );
  const event = (await entries(page)).find((e) => e.kind === 'Pod' && e.name.startsWith('web-'));
  assert.ok(event, 'an Event about a web robot');
  await page.click(`#timeline-strip button[data-sort="event"][data-name="${event.name}"][data-at="${event.at}"]`);
  await page.waitForFunction(() =>
    /Scheduled|Pulling|Pulled|Created|Started/.test(document.querySelector('#timeline-details')?.textContent ?? ''),
  );
  await waitForText(page, '#timeline-object', `pod/${event.name} -n default`);
  await page.click('#timeline-inspect');
  await page.waitForSelector(`section#inspector[data-target="robot:default/${event.name}"]`);
  await page.click('#inspector-close');
  await page.selectOption('#timeline-sort', '');

  // By who: only the dispatcher.
  await page.fill('#timeline-name', '');
  await page.selectOption('#timeline-actor', 'system:kube-scheduler');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('#timeline-strip button')].every((b) => b.dataset.actor === 'system:kube-scheduler'),
  );
  all = await entries(page);
  assert.ok(all.length >= 2, 'the dispatcher bound both robots');
  await page.selectOption('#timeline-actor', '');

  // Going back 60 s: nothing later than the moment shown stays.
  const end = await clockMs(page);
  const beforeRewind = await entries(page);
  assert.ok(beforeRewind.some((e) => Number(e.at) > end - 60000), 'entries in the last minute');
  await kubectl(page, 'sim rewind 60s');
  await page.waitForFunction((t) => {
    const [m, s] = document.querySelector('#clock').textContent.split(':').map(Number);
    return (m * 60 + s) * 1000 <= t;
  }, end - 60000, { timeout: WAIT_MS });
  const now = await clockMs(page);
  await page.waitForFunction(
    (t) => [...document.querySelectorAll('#timeline-strip button')].every((b) => Number(b.dataset.at) <= t + 999),
    now,
    { timeout: WAIT_MS },
  );
  const afterRewind = await entries(page);
  assert.ok(afterRewind.length > 0 && afterRewind.length < beforeRewind.length);
  // The timeline tells the history the cluster now has: the Deployment's create
  // is listed exactly when the ledger holds the Deployment.
  const listed = afterRewind.some((e) => e.sort === 'request' && e.kind === 'Deployment' && e.name === 'web' && e.verb === 'create');
  const inLedger = (await kubectl(page, 'kubectl get deployments -o name')).includes('deployment.apps/web');
  assert.equal(listed, inLedger, `create listed: ${listed}, Deployment stored: ${inLedger}`);
  // The replayed writes are listed once each.
  const revisions = afterRewind.filter((e) => e.revision).map((e) => e.revision);
  assert.equal(new Set(revisions).size, revisions.length);
  // Time going on lists what happens next, once.
  await advance(page, 60000);
  await page.waitForFunction((t) => {
    const [m, s] = document.querySelector('#clock').textContent.split(':').map(Number);
    return (m * 60 + s) * 1000 >= t;
  }, now + 60000, { timeout: WAIT_MS });
  const replayed = (await entries(page)).filter((e) => e.revision).map((e) => e.revision);
  assert.equal(new Set(replayed).size, replayed.length, 'no write listed twice');

  // Russian, and a phone's width: the strip scrolls inside itself.
  await page.click('#lang-toggle');
  await waitForText(page, '#timeline-heading', 'Хронология');
  assert.ok((await page.textContent('label[for="timeline-kind"]')).includes('Тип объекта'));
  await shots(page, 'timeline-ru-1440');
  await page.selectOption('#timeline-kind', 'Pod');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  // A phone shows the floor, the office and the timeline on one tab; the timeline
  // keeps what was picked when the window narrows.
  await page.click('#tab-floor');
  assert.equal(await page.inputValue('#timeline-kind'), 'Pod', 'the filter survives the resize');
  await page.selectOption('#timeline-kind', '');
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(widths[0] <= widths[1], `the page is ${widths[0]} px wide in a ${widths[1]} px window`);
  await shots(page, 'timeline-ru-390');
  await page.click('#more-toggle');
  await page.click('#lang-toggle');
  await waitForText(page, '#timeline-heading', 'Timeline');
  await shots(page, 'timeline-en-390');

  // Keyboard: an entry is a button that takes focus and Enter picks it.
  await page.focus('#timeline-strip li.timeline-entry:last-child button');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#timeline-strip button[aria-pressed="true"]');

  assert.deepEqual(problems, []);
});

// The floor as one more consumer of the change feed: its model is kept zone by
// zone, so time alone recomputes nothing, a scale by one recomputes at most one
// zone, and what the floor paints is what the cluster holds.
//
// App contract: `window.__warehouse.floor()` returns a JSON string with
// `projection` ({ zonesRecomputed, zoneHeaders, fullRebuilds, views, unchanged }:
// what the floor's model computed since load), `robots` (zone -> state -> count of
// the robots as last painted, the shape of `__warehouse.robots()`), `generation`
// (the painted view's), `fullPaints`, `partialPaints` and `zonesPainted`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WAIT_MS, advance, floor, kubectl, openApp, robots, screenshot } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

/** Waits until the floor has painted what the cluster holds, and says what differs
 * if it never does. */
async function floorShowsTheCluster(page, what) {
  let last = {};
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const [painted, truth] = [(await floor(page)).robots, await robots(page)];
    last = { painted, truth };
    if (JSON.stringify(painted) === JSON.stringify(truth)) return;
    await page.waitForTimeout(100);
  }
  assert.deepEqual(last.painted, last.truth, `the floor paints the cluster's robots ${what}`);
}

const running = (counts) => Object.values(counts).reduce((n, z) => n + (z.Running ?? 0), 0);

test('floor projection: idle ticks recompute nothing, a scale by one one zone', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse?.floor !== undefined, null, { timeout: WAIT_MS });
    // Paused: time moves only with the buttons below.
    await page.click('#play-pause');
    await page.click('#use-sandbox').catch(() => {});
    await kubectl(page, 'kubectl create deployment web --image=nginx:1.27 --replicas=6');
    await advance(page, 30_000);
    await advance(page, 30_000);
    assert.equal(running(await robots(page)), 6, JSON.stringify(await robots(page)));
    await floorShowsTheCluster(page, 'after the create');

    // Idle: time moves (leases renewed, nothing the floor shows is written).
    const idle = (await floor(page)).projection;
    await advance(page, 10_000);
    await advance(page, 10_000);
    await page.click('#play-pause');
    await page.waitForTimeout(1_500);
    await page.click('#play-pause');
    const afterIdle = (await floor(page)).projection;
    const looks = (c) => c.views + c.unchanged;
    assert.ok(looks(afterIdle) > looks(idle) + 10, `the idle ticks were looked at: ${JSON.stringify(afterIdle)}`);
    assert.equal(afterIdle.zonesRecomputed, idle.zonesRecomputed, 'an idle tick recomputes no zone');
    assert.equal(afterIdle.zoneHeaders, idle.zoneHeaders, 'nor any zone header');
    assert.equal(afterIdle.fullRebuilds, idle.fullRebuilds, 'nor the whole floor');

    // A scale by one, and the time for the new robot to start: one zone.
    await kubectl(page, 'kubectl scale deployment web --replicas=7');
    await advance(page, 30_000);
    const scaled = (await floor(page)).projection;
    assert.equal(running(await robots(page)), 7);
    assert.ok(
      scaled.zonesRecomputed - afterIdle.zonesRecomputed <= 1,
      `a scale by one recomputed ${scaled.zonesRecomputed - afterIdle.zonesRecomputed} zones`,
    );
    assert.equal(scaled.fullRebuilds, afterIdle.fullRebuilds, 'and no whole rebuild');
    await floorShowsTheCluster(page, 'after a scale');

    // A robot deleted, and a zone killed: the floor follows.
    const counts = await robots(page);
    const zone = Object.keys(counts).find((z) => z !== 'unscheduled' && (counts[z].Running ?? 0) > 0);
    const victim = (await kubectl(page, "kubectl get pods -l app=web -o jsonpath='{.items[0].metadata.name}'")).trim();
    assert.match(victim, /^web-/);
    await kubectl(page, `kubectl delete pod ${victim} --wait=false`);
    await floorShowsTheCluster(page, 'after a delete');
    await advance(page, 30_000);
    await floorShowsTheCluster(page, 'after the replacements');
    await page.click(`button.kill-zone[data-zone="${zone}"]`);
    await floorShowsTheCluster(page, 'after a zone was killed');
    await advance(page, 60_000);
    await floorShowsTheCluster(page, 'a minute after the kill');
    await screenshot(page, 'floor-projection');
    assert.deepEqual(problems, []);
  } catch (err) {
    await screenshot(page, 'floor-projection-failure').catch(() => {});
    throw err;
  }
});

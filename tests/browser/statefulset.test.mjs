// A numbered crew (StatefulSet) with lockers (PersistentVolumes) in the browser: a
// headless Service and a StatefulSet `web` with a volumeClaimTemplate, applied from
// the editor, make robots web-0, web-1 and web-2 that wear their numbers on the
// floor, each with a claim `data-web-N` and a locker in its zone. Scaled down to one,
// the crew keeps its three lockers. A locker clicked on the floor opens in the
// inspector, told in plain words in English and Russian.
//
// App contract: the editor is `#yaml-editor` / `#apply-btn` / `#apply-result`; the
// terminal is `#kubectl-input` / `#kubectl-output`; `window.__warehouse.floor()`
// has `crew` (numbered robots as painted: zone, name, ordinal, claims) and `lockers`
// (zone, name, claim, phase, number, and x, y, w, h on the canvas before zoom and
// pan); a locker clicked on `#warehouse-canvas` opens
// `section#inspector[data-target="locker:NAME"]` with `#inspector-locker`;
// `#lang-toggle` switches the language.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { applyYaml, floor, kubectl, openApp, screenshot, waitForText, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
});

after(async () => {
  await app?.close();
});

const CREW = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  clusterIP: None
  selector:
    app: web
  ports:
  - port: 80
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        volumeMounts:
        - name: data
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
`;

/** Polls the floor hook until `done(floor)` holds; fails with the last floor seen. */
async function waitFloor(page, done, what) {
  const deadline = Date.now() + WAIT_MS;
  let last;
  for (;;) {
    last = await floor(page);
    if (done(last)) return last;
    if (Date.now() >= deadline) {
      throw new Error(`timed out waiting for ${what}: crew ${JSON.stringify(last.crew)}, lockers ${JSON.stringify(last.lockers)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const claims = (f) => f.lockers.map((l) => l.claim).sort();
const ALL = ['default/data-web-0', 'default/data-web-1', 'default/data-web-2'];

test('a numbered crew wears its numbers and keeps its lockers when scaled down', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await page.click('#play-pause');
    await applyYaml(page, CREW);
    await waitForText(page, '#apply-result', 'statefulset.apps/web created');
    await kubectl(page, 'sim advance 60s');

    // Three numbered robots, each with its claim, and three lockers, each in the
    // zone of the robot that uses it, its number on the door.
    const f = await waitFloor(page, (f) => f.crew.length === 3 && f.lockers.length === 3, 'three robots and lockers');
    const crew = [...f.crew].sort((a, b) => a.ordinal - b.ordinal);
    assert.deepEqual(
      crew.map((r) => [r.name, r.ordinal, r.claims]),
      [0, 1, 2].map((n) => [`web-${n}`, n, [`data-web-${n}`]]),
    );
    assert.deepEqual(claims(f), ALL);
    for (const r of crew) {
      const locker = f.lockers.find((l) => l.claim === `default/data-web-${r.ordinal}`);
      assert.equal(locker.zone, r.zone, `${r.name}'s locker stands in its zone`);
      assert.equal(locker.number, String(r.ordinal));
      assert.equal(locker.phase, 'Bound');
    }
    const pvcs = await kubectl(page, 'kubectl get pvc --no-headers');
    assert.equal(pvcs.trim().split('\n').length, 3, pvcs);
    assert.ok(pvcs.trim().split('\n').every((l) => /\sBound\s/.test(l)), pvcs);

    // Scaled down to one: web-1 and web-2 go, their lockers stay.
    const scaled = await kubectl(page, 'kubectl scale statefulset web --replicas=1');
    assert.equal(scaled.trim(), 'statefulset.apps/web scaled');
    await kubectl(page, 'sim advance 60s');
    const down = await waitFloor(page, (f) => f.crew.length === 1, 'the crew scaled down to one');
    assert.equal(down.crew[0].name, 'web-0');
    assert.deepEqual(claims(down), ALL);
    assert.ok(down.lockers.every((l) => l.phase === 'Bound'), JSON.stringify(down.lockers));

    // The locker of web-2, whose robot is gone, clicked on the floor.
    const locker = down.lockers.find((l) => l.claim === 'default/data-web-2');
    await page.locator('#warehouse-canvas').click({
      position: { x: (locker.x + locker.w / 2) * down.zoom, y: (locker.y + locker.h / 2) * down.zoom },
    });
    await page.locator(`#inspector[data-target="locker:${locker.name}"]`).waitFor({ timeout: WAIT_MS });
    await waitForText(page, '#inspector-locker', 'default/data-web-2');
    const card = await page.textContent('#inspector-locker');
    for (const words of [
      'A locker keeps a robot\'s things after the robot is gone',
      'Claimdefault/data-web-2 — the locker claim it was set aside for',
      'Size1Gi',
      'ReadWriteOnce — robots of one zone at a time, to read and write',
      'Kind of lockerstandard',
      'Delete — the locker is taken apart, with everything in it',
      'Bound — in use by its claim',
      `Stands in zone${locker.zone} — a locker does not move`,
    ]) {
      assert.ok(card.includes(words), `${words} in ${card}`);
    }
    await waitForText(page, '#inspector .inspector-related', 'no robots');
    // kubectl describe pv, then the live YAML.
    await waitForText(page, '#inspector-describe', 'Claim:             default/data-web-2');
    await waitForText(page, '#inspector-describe', 'Reclaim Policy:    Delete');
    await page.click('#inspector .inspector-tab[data-tab="yaml"]');
    await waitForText(page, '#inspector-yaml', 'kind: PersistentVolume');
    await waitForText(page, '#inspector-yaml', 'name: data-web-2');
    await screenshot(page, 'statefulset');

    // The same card in Russian.
    await page.click('#lang-toggle');
    await waitForText(page, '#inspector-locker', 'занят своей заявкой');
    const ru = await page.textContent('#inspector-locker');
    for (const words of [
      'Шкафчик хранит вещи робота',
      'Заявкаdefault/data-web-2 — заявка на шкафчик, за которой он закреплён',
      'Объём1Gi',
      'роботы одной зоны за раз, чтение и запись',
      'Тип шкафчикаstandard',
      'шкафчик разберут вместе со всем, что в нём лежит',
      'Стоит в зоне',
    ]) {
      assert.ok(ru.includes(words), `${words} in ${ru}`);
    }
    await screenshot(page, 'statefulset-ru');
    await page.click('#lang-toggle');
    assert.deepEqual(problems, []);
  } catch (e) {
    await screenshot(page, 'statefulset-failure').catch(() => {});
    throw e;
  }
});

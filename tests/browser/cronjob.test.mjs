// A CronJob in the browser: applied from the editor, it makes a Job at each
// scheduled minute, named after the scheduled time, and `kubectl get cronjobs`
// shows its last schedule; a schedule the apiserver cannot read is refused with
// robfig/cron's message. The floor's notice board lists the schedule, and shows it
// paused after `kubectl patch` sets `suspend`. A `timeZone` puts the schedule on
// that zone's wall clock: six in the morning in India is half past midnight UTC.
//
// App contract: the editor is `#yaml-editor` / `#apply-btn` / `#apply-result`; the
// terminal is `#kubectl-input` / `#kubectl-output`.

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

const cronJob = (schedule, zone = null, name = 'hello') => `apiVersion: batch/v1
kind: CronJob
metadata:
  name: ${name}
spec:
  schedule: "${schedule}"
${zone === null ? '' : `  timeZone: ${zone}\n`}  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: hello
            image: busybox:1.36
            command: [sh, -c, "echo Hello from the Kubernetes cluster"]
`;

test('a CronJob makes a Job at each scheduled minute', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  try {
    await page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
    await page.click('#play-pause');
    await applyYaml(page, cronJob('0 25 * * *'));
    await waitForText(page, '#apply-result', 'end of range (25) above maximum (23): 25');

    await applyYaml(page, cronJob('*/2 * * * *'));
    await waitForText(page, '#apply-result', 'cronjob.batch/hello created');
    await kubectl(page, 'sim advance 5m');
    const jobs = await kubectl(page, 'kubectl get jobs --no-headers');
    const names = jobs.trim().split('\n').map((l) => l.split(/\s+/)[0]);
    // Runs at the even minutes: two or three in five minutes, whatever second it began.
    assert.ok(names.length === 2 || names.length === 3, jobs);
    for (const n of names) assert.match(n, /^hello-\d{8}$/, jobs);
    const cron = await kubectl(page, 'kubectl get cronjob hello');
    assert.match(cron, /hello\s+\*\/2 \* \* \* \*\s+<none>\s+False\s+[01]\s+\S+\s+5m/, cron);
    // The floor's notice board shows the schedule with its last and next run.
    await page.waitForFunction(
      () => JSON.parse(window.__warehouse.floor()).board.some((l) => l.startsWith('Schedule hello')),
      null,
      { timeout: WAIT_MS },
    );
    const board = (await floor(page)).board;
    const m = board[0].match(/^Schedule hello \(\*\/2 \* \* \* \*\): last task 00:(\d\d), next 00:(\d\d) UTC, [01] running$/);
    assert.ok(m, board[0]);
    assert.equal(Number(m[2]) - Number(m[1]), 2, board[0]);
    const logs = await kubectl(page, `kubectl logs job/${names[1]}`);
    assert.equal(logs.trim(), 'Hello from the Kubernetes cluster');
    // kubectl patch pauses it; the board says so.
    const patched = await kubectl(page, `kubectl patch cronjob hello -p '{"spec":{"suspend":true}}'`);
    assert.equal(patched.trim(), 'cronjob.batch/hello patched');
    await page.waitForFunction(
      () => JSON.parse(window.__warehouse.floor()).board.includes('Schedule hello (*/2 * * * *): paused'),
      null,
      { timeout: WAIT_MS },
    );
    await screenshot(page, 'cronjob');

    // Time zones: an unknown one is refused with Go's message; a known one moves
    // the run to that zone's wall clock.
    await applyYaml(page, cronJob('0 6 * * *', 'Mars/Olympus', 'india'));
    await waitForText(page, '#apply-result', 'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus');
    await applyYaml(page, cronJob('0 6 * * *', 'Asia/Kolkata', 'india'));
    await waitForText(page, '#apply-result', 'cronjob.batch/india created');
    const zoned = await kubectl(page, 'kubectl get cronjob india');
    assert.match(zoned, /india\s+0 6 \* \* \*\s+Asia\/Kolkata\s+False/, zoned);
    await page.waitForFunction(
      () => JSON.parse(window.__warehouse.floor()).board.some((l) => l.startsWith('Schedule india')),
      null,
      { timeout: WAIT_MS },
    );
    const line = (await floor(page)).board.find((l) => l.startsWith('Schedule india'));
    assert.equal(line, 'Schedule india (0 6 * * *, Asia/Kolkata): last task —, next 00:30 UTC, 0 running');
    await kubectl(page, 'sim advance 30m');
    const ran = await kubectl(page, 'kubectl get jobs --no-headers');
    // Unix minute 29453790 is 2026-01-01 00:30 UTC, 06:00 in Kolkata.
    assert.match(ran, /^india-29453790\s/m, ran);
    assert.deepEqual(problems, []);
  } catch (e) {
    await screenshot(page, 'cronjob-failure');
    throw e;
  }
});

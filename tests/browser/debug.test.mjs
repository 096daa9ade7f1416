// `kubectl debug` in the browser: an ephemeral container joins a running pod and
// the terminal's prompt becomes its shell's, where `ps` shows the target
// container's processes; `exit` ends it (it is never restarted), and the pod's
// READY stays its app's.
//
// App contract: the terminal is `#kubectl-input` / `#kubectl-output`; the input's
// prompt is `.terminal-input .prompt`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { kubectl, openApp, screenshot, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await app?.close();
});

const inputPrompt = (page) => page.locator('.terminal-input .prompt').textContent();

test('debug -it adds a shell beside the app and sees its processes', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  await kubectl(page, 'kubectl create deployment web --image=nginx');
  await kubectl(page, 'sim advance 30s');
  const pod = (await kubectl(page, 'kubectl get pods -o name')).trim().replace('pod/', '');
  const out = await kubectl(page, `kubectl debug ${pod} -it --image=busybox --target=nginx`);
  assert.match(
    out,
    /^Targeting container "nginx"\. If you don't see processes from this container it may be because the container runtime doesn't support this feature\.\nDefaulting debug container name to debugger-[a-z0-9]{5}\.\n/,
  );
  const name = out.match(/debugger-[a-z0-9]{5}/)[0];
  assert.equal((await inputPrompt(page)).trim(), '/ #');
  const ps = await kubectl(page, 'ps');
  assert.match(ps, /^PID {3}USER {5}TIME {2}COMMAND\n {4}1 root {6}0:00 \/docker-entrypoint\.sh nginx/);
  assert.match(ps, / sh\n.* ps\n$/s);
  await screenshot(page, 'debug-inside');
  const bye = await kubectl(page, 'exit');
  assert.equal(bye, `Session ended, resume using 'kubectl attach ${pod} -c ${name} -n default -i -t' command\n`);
  assert.equal((await inputPrompt(page)).trim(), '$ kubectl');
  await kubectl(page, 'sim advance 10s');
  const state = await kubectl(
    page,
    `kubectl get pod ${pod} -o jsonpath='{.status.ephemeralContainerStatuses[0].state.terminated.reason} {.status.ephemeralContainerStatuses[0].restartCount}'`,
  );
  assert.equal(state, 'Completed 0');
  const pods = await kubectl(page, 'kubectl get pods --no-headers');
  assert.match(pods, / 1\/1 +Running /);
  assert.deepEqual(problems, []);
});

// Commands that hold the terminal, in the browser: `kubectl port-forward` listens
// on the laptop (curl localhost reaches the pod), `kubectl run -it --rm` opens a
// shell in a new pod — the terminal's prompt becomes the container's until `exit`,
// and the pod is deleted after — and `kubectl logs -f` follows a log while
// simulated time passes.
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

/** The last entry's prompt line, stdout and stderr. */
async function last(page) {
  return page.evaluate(() => {
    const text = (sel) => {
      const all = document.querySelectorAll(`#kubectl-output ${sel}`);
      return all[all.length - 1]?.textContent ?? '';
    };
    return { prompt: text('.prompt'), stdout: text('.stdout') };
  });
}

const inputPrompt = (page) => page.locator('.terminal-input .prompt').textContent();

test('a forwarded port reaches the pod from the laptop', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  await kubectl(page, 'kubectl create deployment web --image=nginx --port=80');
  await kubectl(page, 'kubectl expose deployment web --port=8080 --target-port=80');
  await kubectl(page, 'sim advance 30s');
  const fwd = await kubectl(page, 'kubectl port-forward svc/web 8080:8080');
  assert.equal(fwd, 'Forwarding from 127.0.0.1:8080 -> 80\nForwarding from [::1]:8080 -> 80\n');
  const page1 = await kubectl(page, 'curl -s localhost:8080');
  assert.match(page1, /<title>Welcome to nginx!<\/title>/);
  const req = await kubectl(page, 'sim request http://localhost:8080/');
  assert.match(req, /^HTTP\/1\.1 200 OK .*kubectl port-forward/, req);
  assert.deepEqual(problems, []);
});

test('run -it --rm gives a shell in a new pod until exit', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  assert.equal((await inputPrompt(page)).trim(), '$ kubectl');
  await kubectl(page, 'kubectl run -it --rm tmp --image=busybox --restart=Never -- sh');
  assert.equal((await inputPrompt(page)).trim(), '/ #');
  // The line goes to the container's shell as typed.
  const host = await kubectl(page, 'hostname');
  assert.equal(host, 'tmp\n');
  assert.equal((await last(page)).prompt.trim(), '/ # hostname');
  const dns = await kubectl(page, 'cat /etc/resolv.conf');
  assert.match(dns, /^search default\.svc\.cluster\.local/);
  await screenshot(page, 'sessions-inside');
  const bye = await kubectl(page, 'exit');
  assert.equal(
    bye,
    "Session ended, resume using 'kubectl attach tmp -c tmp -n default -i -t' command\npod \"tmp\" deleted from default namespace\n",
  );
  assert.equal((await inputPrompt(page)).trim(), '$ kubectl');
  assert.deepEqual(problems, []);
});

test('logs -f follows until the container ends', { timeout: 120_000 }, async () => {
  const { page, problems } = app;
  await kubectl(
    page,
    "kubectl run ticker --image=busybox --restart=Never -- sh -c 'for i in 1 2 3; do echo tick $i; sleep 10; done'",
  );
  await kubectl(page, 'sim advance 12s');
  const log = await kubectl(page, 'kubectl logs -f ticker');
  assert.equal(log, 'tick 1\ntick 2\ntick 3\n');
  const phase = await kubectl(page, "kubectl get pod ticker -o jsonpath='{.status.phase}'");
  assert.equal(phase, 'Succeeded');
  assert.deepEqual(problems, []);
});

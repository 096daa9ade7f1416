// The terminal reads a pasted multi-line command as bash does:
// - kubernetes.io's continuation style (`kubectl delete deployment web \` and
//   `  -n shop` below it) is one command: the Deployment in `shop` goes, the one in
//   `default` stays, and no line runs on its own;
// - Enter on a line that ends in a backslash starts a new line (bash's `>` prompt)
//   instead of running it;
// - a pasted heredoc with a plain `<<EOF` has `$NAME` expanded, as bash expands it.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openApp, pasteRun, screenshot, WAIT_MS } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await app?.close();
});

const output = (page) => page.locator('#kubectl-output').textContent();

/** Waits until the terminal has printed more than `before`; returns what is new. */
async function newOutput(page, before) {
  await page.waitForFunction(
    (len) => (document.querySelector('#kubectl-output')?.textContent?.length ?? 0) > len,
    before.length,
    { timeout: 60_000 },
  );
  return (await output(page)).slice(before.length);
}

async function terminal(page, line) {
  const before = await output(page);
  await page.fill('#kubectl-input', line);
  await page.press('#kubectl-input', 'Enter');
  return newOutput(page, before);
}

/** Pastes `text` into the terminal box (as the clipboard would insert it) and runs it. */
const paste = pasteRun;

test('a pasted command continued with a backslash runs as one command', async () => {
  const { page, problems } = app;
  try {
    await terminal(page, 'create namespace shop');
    await terminal(page, 'create deployment web --image=nginx');
    await terminal(page, 'create deployment web --image=nginx -n shop');
    await page.fill('#kubectl-input', '');
    await page.focus('#kubectl-input');
    await page.keyboard.insertText('kubectl delete deployment web \\\n  -n shop');
    // The box holds both lines, and grew to show them.
    assert.equal(await page.inputValue('#kubectl-input'), 'kubectl delete deployment web \\\n  -n shop');
    assert.equal(await page.getAttribute('#kubectl-input', 'rows'), '2');
    await screenshot(page, 'paste-continued-command');
    const before = await output(page);
    await page.press('#kubectl-input', 'Enter');
    const out = await newOutput(page, before);
    assert.match(out, /deployment\.apps "web" deleted from shop namespace/);
    assert.doesNotMatch(out, /command not found|from default namespace/);
    const left = await terminal(page, 'get deployments -A --no-headers');
    assert.match(left, /^default\s+web\s/m, 'the Deployment in default is still there');
    assert.doesNotMatch(left, /^shop\s+web\s/m, 'the Deployment in shop is gone');
    assert.deepEqual(problems, []);
  } catch (err) {
    await screenshot(page, 'paste-failure');
    throw err;
  }
});

test('Enter after a trailing backslash waits for the next line', async () => {
  const { page, problems } = app;
  const before = await output(page);
  await page.fill('#kubectl-input', 'get deployments \\');
  await page.press('#kubectl-input', 'Enter');
  // Nothing ran: the box took a new line.
  assert.equal(await page.inputValue('#kubectl-input'), 'get deployments \\\n');
  assert.equal(await output(page), before);
  await page.keyboard.type('-n default');
  await page.press('#kubectl-input', 'Enter');
  const out = await newOutput(page, before);
  assert.match(out, /\$ kubectl get deployments -n default\n/);
  assert.match(out, /^web\s/m);
  assert.equal(await page.inputValue('#kubectl-input'), '');
  assert.equal(await page.getAttribute('#kubectl-input', 'rows'), '1');
  assert.deepEqual(problems, []);
});

test('a pasted heredoc is expanded unless its delimiter is quoted', async () => {
  const { page, problems } = app;
  const out = await paste(
    page,
    [
      'export NAME=cart',
      'kubectl apply -f - <<EOF',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: $NAME',
      'data:',
      "  literal: '\\$NAME'",
      'EOF',
      "kubectl apply -f - <<'EOF'",
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: kept',
      'data:',
      '  script: echo $HOME',
      'EOF',
    ].join('\n'),
  );
  assert.match(out, /configmap\/cart created/);
  assert.match(out, /configmap\/kept created/);
  const data = await terminal(page, "get configmap cart kept -o jsonpath='{.items[*].data}'");
  assert.match(data, /"literal":"\$NAME"/);
  assert.match(data, /"script":"echo \$HOME"/);
  await screenshot(page, 'paste-heredoc');
  assert.deepEqual(problems, []);
});

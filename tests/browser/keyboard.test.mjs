// The main flow with the keyboard alone (page.keyboard, no clicks): a skip link to
// the terminal, kubectl with Tab completion, Tab and Escape leaving the terminal,
// a manifest applied from the editor, a zone killed from the zone list, a lesson
// opened and its next step reached. Every element focus lands on shows a focus
// outline.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openApp, pollRobots, robots, screenshot, waitForText, WAIT_MS, webDeployment } from './harness.mjs';

let app;

before(async () => {
  app = await openApp();
  await app.page.waitForFunction(() => window.__warehouse !== undefined, null, { timeout: WAIT_MS });
});

after(async () => {
  await app?.close();
});

/** What has focus: its id, classes, tag, accessible label, and whether it shows an outline. */
function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    const style = el ? getComputedStyle(el) : null;
    return {
      id: el?.id ?? '',
      tag: el?.tagName.toLowerCase() ?? '',
      cls: el?.className ?? '',
      text: (el?.getAttribute('aria-label') ?? el?.textContent ?? '').trim(),
      zone: el?.dataset?.zone ?? '',
      outlined: !!style && style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 1,
    };
  });
}

/** Puts focus back at the top of the page, as a fresh load leaves it: the next Tab
 * goes to the first thing that takes focus. */
async function toTop(page) {
  await page.evaluate(() => {
    document.body.setAttribute('tabindex', '-1');
    document.body.focus();
    document.body.removeAttribute('tabindex');
  });
}

/** Presses `key` until `want(focus)` holds (at most `max` times); fails with where focus went. */
async function pressUntil(page, key, want, what, max = 250) {
  const seen = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    const f = await focused(page);
    seen.push(f.id || `${f.tag}.${f.cls}`);
    if (want(f)) {
      assert.ok(f.outlined, `${what}: focus on ${JSON.stringify(f)} shows no outline`);
      return f;
    }
  }
  throw new Error(`${what}: never reached by ${key}; focus went through ${seen.join(', ')}`);
}

test('keyboard: the main flow without a mouse, and no trap in the terminal', { timeout: 180_000 }, async () => {
  const { page, problems } = app;
  try {
    // The first Tab lands on the skip link to the terminal; Enter follows it.
    await toTop(page);
    const skip = await pressUntil(page, 'Tab', (f) => f.tag === 'a', 'skip link', 1);
    assert.equal(skip.text, 'Skip to the terminal');
    // Out of sight until focused, then on screen.
    const shown = await page.evaluate(() => {
      const r = document.activeElement.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight && r.width > 1 && r.height > 1;
    });
    assert.ok(shown, 'the focused skip link is visible');
    await page.keyboard.press('Enter');
    assert.equal((await focused(page)).id, 'kubectl-input', 'the skip link focuses the terminal');

    // Tab after a word completes it, and focus stays in the box.
    await page.keyboard.type('api-r');
    await page.keyboard.press('Tab');
    assert.equal(await page.inputValue('#kubectl-input'), 'api-resources ');
    assert.equal((await focused(page)).id, 'kubectl-input');
    // After a space there is no word to complete: Tab moves focus on.
    await page.keyboard.press('Tab');
    assert.notEqual((await focused(page)).id, 'kubectl-input', 'Tab after a space leaves the terminal');
    await page.keyboard.press('Shift+Tab');
    assert.equal((await focused(page)).id, 'kubectl-input', 'Shift+Tab comes back');
    await page.keyboard.press('Enter');
    await waitForText(page, '#kubectl-output', 'SHORTNAMES');

    // On an empty line Tab moves focus too.
    assert.equal(await page.inputValue('#kubectl-input'), '');
    await page.keyboard.press('Tab');
    assert.notEqual((await focused(page)).id, 'kubectl-input', 'Tab on an empty line leaves the terminal');
    await page.keyboard.press('Shift+Tab');

    // Escape leaves the terminal even mid-command, for something that shows focus.
    await page.keyboard.type('get nodes');
    await page.keyboard.press('Escape');
    const out = await focused(page);
    assert.notEqual(out.id, 'kubectl-input', 'Escape leaves the terminal');
    assert.notEqual(out.tag, 'body', 'Escape moves focus somewhere, not nowhere');
    assert.ok(out.outlined, `after Escape, focus on ${JSON.stringify(out)} shows no outline`);
    await page.keyboard.press('Shift+Tab');
    assert.equal((await focused(page)).id, 'kubectl-input');
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Delete');

    // The editor: back from the terminal to the YAML box, type a Deployment,
    // Ctrl+Enter applies it.
    await pressUntil(page, 'Shift+Tab', (f) => f.id === 'yaml-editor', 'the YAML editor');
    await page.keyboard.press('Control+a');
    await page.keyboard.insertText(webDeployment(3));
    await page.keyboard.press('Control+Enter');
    await waitForText(page, '#apply-result', 'deployment.apps/web created');
    // And with the Apply button: Tab to it, Enter.
    await pressUntil(page, 'Tab', (f) => f.id === 'apply-btn', 'Apply');
    await page.keyboard.press('Enter');
    await waitForText(page, '#apply-result', 'deployment.apps/web unchanged');

    // Time forward with the keyboard: the +5m button from the skip link on.
    await toTop(page);
    await pressUntil(page, 'Tab', (f) => f.cls.includes('advance') && f.text === '+5m', '+5m');
    await page.keyboard.press('Enter');
    const up = await pollRobots(page, (c) => Object.values(c).reduce((s, z) => s + (z.Running ?? 0), 0) === 3, 10_000);
    assert.ok(up, `3 robots should run; ${JSON.stringify(await robots(page))}`);

    // Kill zone-a from the zone list.
    const kill = await pressUntil(page, 'Tab', (f) => f.cls.includes('kill-zone') && f.zone === 'zone-a', 'Kill zone zone-a');
    assert.equal(kill.text, 'Kill zone zone-a');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.restart-zone[data-zone="zone-a"]');

    // The History slider takes focus and shows it.
    await toTop(page);
    await pressUntil(page, 'Tab', (f) => f.id === 'history', 'the History slider');

    // A lesson: the skip link to the lessons, the start lesson, then its next step.
    await toTop(page);
    await pressUntil(page, 'Tab', (f) => f.id === 'lessons-btn', 'Lessons');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.lesson-card.start .open-lesson');
    await pressUntil(page, 'Tab', (f) => f.cls.includes('open-lesson') && f.cls.includes('primary'), 'Start here');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#lesson');
    const step = await page.getAttribute('#lesson', 'data-step');
    await pressUntil(page, 'Tab', (f) => f.id === 'next-step', 'Next step');
    await page.keyboard.press('Enter');
    await page.waitForFunction((s) => document.querySelector('#lesson')?.dataset.step !== s, step);

    // With a lesson open the second skip link reaches it.
    await toTop(page);
    await pressUntil(page, 'Tab', (f) => f.tag === 'a' && f.text === 'Skip to the lesson', 'skip to the lesson', 2);
    await page.keyboard.press('Enter');
    assert.equal((await focused(page)).id, 'lessons-side');

    assert.deepEqual(problems, []);
  } catch (err) {
    await screenshot(page, 'keyboard-failure').catch(() => {});
    throw err;
  }
});

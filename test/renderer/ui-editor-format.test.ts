// The Config editor's Format lays the text out as workspace files are written (the layout of `sesam format`), not one
// DTL token per line; and the editor stays readable after the preview pane is toggled and a long line is pasted and
// formatted (issue 17.10: the text layer once sat hundreds of pixels to the left, the editor looked blank).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, waitForScript } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

const PIPE = {
  _id: 'shout',
  type: 'pipe',
  source: { type: 'embedded', entities: [{ _id: 'a', name: 'Ada' }] },
  transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'loud', ['upper', '_S.name']]] } },
};

before(async () => {
  hub = await startHub();
  await hub.json('/pipes', { method: 'POST', json: [PIPE] });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Token length/.test(m.text())) pageErrors.push(m.text());
  });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

/** The editor's lines as shown (Monaco renders spaces as no-break spaces). */
async function shownText(): Promise<string> {
  return page.evaluate<string>(`[...document.querySelectorAll('[data-testid="config-editor"] .view-lines .view-line')]
    .map((e) => ({ top: parseFloat(e.style.top), text: (e.textContent ?? '').replace(/\\u00a0/g, ' ') }))
    .sort((a, b) => a.top - b.top).map((l) => l.text).join('\\n')`);
}

async function openConfig(): Promise<Locator> {
  await page.goto(`${hub.url}/#/pipes/shout/config`);
  const editor = page.getByTestId('config-editor');
  await editor.locator('.monaco-editor .view-lines').first().waitFor();
  await editor.getByText('"upper"').first().waitFor();
  return editor;
}

async function paste(editor: Locator, text: string): Promise<void> {
  await editor.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.evaluate(`navigator.clipboard.writeText(${JSON.stringify(text)})`);
  await page.keyboard.press('ControlOrMeta+V');
}

test('Format lays the config out as sesam format does: DTL rules one to a line', async () => {
  const editor = await openConfig();
  // One line, keys out of the conventional order.
  await paste(editor, JSON.stringify({ transform: PIPE.transform, source: PIPE.source, type: 'pipe', _id: 'shout' }));
  await editor.locator('.view-line').filter({ hasText: '"transform"' }).first().waitFor();
  assert.equal(await editor.locator('.view-line').count(), 1, 'pasting keeps the pasted layout (no format on paste)');
  await page.getByTestId('config-format').click();
  await editor.locator('.view-line').nth(10).waitFor();
  const expected = `{
  "_id": "shout",
  "type": "pipe",
  "source": {
    "type": "embedded",
    "entities": [{
      "_id": "a",
      "name": "Ada"
    }]
  },
  "transform": {
    "type": "dtl",
    "rules": {
      "default": [
        ["copy", "_id"],
        ["add", "loud",
          ["upper", "_S.name"]
        ]
      ]
    }
  }
}`;
  // The pasted text had no final newline: the formatted one has none either.
  await waitForScript(page, `document.querySelectorAll('[data-testid="config-editor"] .view-line').length === 22`);
  assert.equal(await shownText(), expected);
  // Shift+Alt+F formats the same way: a formatted text does not change.
  await page.keyboard.press('Shift+Alt+F');
  await page.waitForTimeout(300);
  assert.equal(await shownText(), expected);
  assert.equal(await page.getByTestId('config-dirty').textContent(), 'no changes', 'only the layout changed');
});

test('toggle the preview, paste a long line, format: the text layer stays in view and holds the text', async () => {
  const editor = await openConfig();
  for (let round = 0; round < 3; round++) {
    await page.getByTestId('config-preview-toggle').click();
    await paste(editor, JSON.stringify({ ...PIPE, comment: `round ${round} ${'x'.repeat(400)}` }));
    await editor.locator('.view-line').filter({ hasText: `round ${round}` }).first().waitFor();
    await page.getByTestId('config-format').click();
    await editor.locator('.view-line').nth(10).waitFor();
    await page.waitForTimeout(300);
    const state = await page.evaluate<{ surfaceLeft: number; surfaceRight: number; lineLeft: number; text: string; scrolled: string[] }>(`(() => {
      const root = document.querySelector('[data-testid="config-editor"]');
      const surface = root.querySelector('.monaco-editor').getBoundingClientRect();
      const first = [...root.querySelectorAll('.view-line')].sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))[0];
      const box = first.getBoundingClientRect();
      const scrolled = [...root.querySelectorAll('.monaco-editor *')].filter((e) => e.scrollLeft !== 0).map((e) => e.className + ': ' + e.scrollLeft);
      return { surfaceLeft: surface.left, surfaceRight: surface.right, lineLeft: box.left, text: (first.textContent ?? '').replace(/\\u00a0/g, ' '), scrolled };
    })()`);
    assert.deepEqual(state.scrolled, [], `round ${round}: no inner node of the editor is scrolled natively`);
    assert.equal(state.text, '{', `round ${round}: the first line holds the text`);
    assert.ok(state.lineLeft >= state.surfaceLeft && state.lineLeft < state.surfaceRight, `round ${round}: the text layer is inside the editor (line at ${state.lineLeft}, editor ${state.surfaceLeft}–${state.surfaceRight})`);
    await editor.locator('.view-line').filter({ hasText: '"_id": "shout",' }).first().waitFor();
  }
  assert.deepEqual(pageErrors, [], 'no page errors, no tokenization errors');
});

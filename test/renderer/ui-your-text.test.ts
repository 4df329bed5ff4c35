// Your text is yours (issue 33.5), in Chromium at 1440×900 on the generated 300-pipe project: the Preview tab shows the
// transform in the file's own layout (a compact five-rule transform stays a few lines, not one DTL token per line),
// an edit there keeps the rest of the file's text, and a new pipe's file reads source, transform, sink.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startHub, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { signedInPage, closeAll, waitForScript } from '../helpers/browser.js';
import { writeBigProject } from '../helpers/big-project.js';

const SHOTS = '/tmp/ui-shots';
let hub: HubProcess;
let browser: Browser;
let page: Page;
const dir = tempDir('datahub-text-');
const PIPE = 'hr-employee-contract-summary-compact';
// A file written by hand: the rules one per line, short lists kept on one line, a key order of its own.
const FILE = `{
  "_id": "${PIPE}",
  "type": "pipe",
  "source": { "type": "embedded", "entities": [{ "_id": "1", "name": "ada", "hours": 37.5 }] },
  "transform": {
    "type": "dtl",
    "rules": {
      "default": [
        ["copy", "*"],
        ["add", "name_upper", ["upper", "_S.name"]],
        ["add", "full_time", ["gte", "_S.hours", 37.5]],
        ["add", "kind", "employee"],
        ["remove", "hours"]
      ]
    }
  },
  "pump": { "mode": "manual" }
}
`;
const TRANSFORM_LINES = 12;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  writeBigProject(dir);
  writeFileSync(join(dir, 'node', 'pipes', `${PIPE}.conf.json`), FILE);
  hub = await startHub({ args: ['--workspace', dir] });
  ({ browser, page } = await signedInPage(hub));
});

after(async () => {
  await closeAll(browser, hub, dir);
});

/** The lines an editor shows, top to bottom, without Monaco's non-breaking spaces. */
async function editorLines(editor: Locator): Promise<string[]> {
  return editor.locator('.view-line').evaluateAll((lines) =>
    lines
      .map((l) => ({ top: parseFloat(l.getAttribute('style')?.match(/top:\s*([\d.]+)px/)?.[1] ?? '0'), text: (l.textContent ?? '').replace(/\u00a0/g, ' ') }))
      .sort((a, b) => a.top - b.top)
      .map((l) => l.text),
  );
}

test('the Preview tab shows the transform as the file lays it out', async () => {
  await page.goto(`${hub.url}/#/pipes/${PIPE}/preview`);
  const editor = page.getByTestId('preview-transform-editor');
  await editor.locator('.monaco-editor .view-lines').first().waitFor();
  await page.waitForTimeout(500);
  const lines = await editorLines(editor);
  assert.equal(lines.length, TRANSFORM_LINES, lines.join('\n'));
  assert.equal(lines[0], '{');
  assert.equal(lines[5], '      ["add", "name_upper", ["upper", "_S.name"]],', 'a rule on one line, as in the file');
  await page.screenshot({ path: `${SHOTS}/preview-file-layout.png` });
});

test('an edit in the Preview tab keeps the rest of the file as it was', async () => {
  const editor = page.getByTestId('preview-transform-editor');
  // Change one word of the text ("employee" → "staff") where it is.
  await editor.locator('.view-line').filter({ hasText: '"kind"' }).click();
  await page.keyboard.press('End');
  for (let i = 0; i < 'employee"],'.length; i++) await page.keyboard.press('ArrowLeft');
  for (let i = 0; i < 'employee'.length; i++) await page.keyboard.press('Delete');
  await page.keyboard.type('staff');
  await page.keyboard.press('ControlOrMeta+S');
  const file = join(dir, 'node', 'pipes', `${PIPE}.conf.json`);
  const expected = FILE.replace('["add", "kind", "employee"]', '["add", "kind", "staff"]');
  for (let i = 0; i < 100 && readFileSync(file, 'utf8') !== expected; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(readFileSync(file, 'utf8'), expected, 'byte for byte the same but the word');
  await waitForScript(page, `document.querySelector('[data-testid="preview-save"]')?.disabled === true`);
});

test('a new pipe\'s file reads source, transform, sink', async () => {
  await page.screenshot({ path: `${SHOTS}/preview-after-save.png` });
  await page.getByRole('button', { name: '← Pipes' }).click();
  await page.getByTestId('new-pipe').click();
  await page.getByTestId('new-pipe-id').fill('hr-employee-contract-summary-copy');
  await page.getByTestId('new-pipe-source').fill(PIPE);
  await page.getByTestId('new-pipe-create').click();
  const file = join(dir, 'node', 'pipes', 'hr-employee-contract-summary-copy.conf.json');
  for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
  const text = readFileSync(file, 'utf8');
  const at = (key: string): number => text.indexOf(`"${key}"`);
  assert.ok(at('source') > 0 && at('source') < at('transform') && at('transform') < at('sink'), text);
});

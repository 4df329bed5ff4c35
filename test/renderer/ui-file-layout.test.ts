// The Config editor shows what the pipe's workspace file holds, and saving an edit changes only that line of the file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const project = tempDir('datahub-ui-layout-');
const file = join(project, 'node', 'pipes', 'layout.conf.json');
// A layout of the user's own: four spaces, the sink on one line, a key order of its own.
const TEXT = [
  '{',
  '    "_id": "layout",',
  '    "type": "pipe",',
  '    "sink": { "type": "dataset", "dataset": "layout" },',
  '    "source": {',
  '        "type": "embedded",',
  '        "entities": [{"_id": "1", "name": "Åse"}]',
  '    },',
  '    "transform": { "type": "dtl", "rules": { "default": [',
  '        ["copy", "*"],',
  '        ["add", "loud", ["upper", "_S.name"]]',
  '    ] } }',
  '}',
  '',
].join('\n');

before(async () => {
  mkdirSync(join(project, 'node', 'pipes'), { recursive: true });
  writeFileSync(file, TEXT);
  hub = await startHub({ args: ['--workspace', project] });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 1400 } });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
  removeDir(project);
});

/** The editor's lines, top to bottom (Monaco renders each line in a positioned div, spaces as no-break spaces). */
async function editorLines(): Promise<string[]> {
  return page.getByTestId('config-editor').locator('.view-lines').first().evaluate((el) =>
    [...el.querySelectorAll('.view-line')]
      .sort((a, b) => parseFloat(a.getAttribute('style')?.match(/top:\s*([\d.]+)/)?.[1] ?? '0') - parseFloat(b.getAttribute('style')?.match(/top:\s*([\d.]+)/)?.[1] ?? '0'))
      .map((l) => (l.textContent ?? '').replace(/\u00a0/g, ' ')),
  );
}

test('the Config editor holds the file as it is, and Save changes only the edited line', async () => {
  await page.goto(`${hub.url}/#/pipes/layout/config`);
  const editor = page.getByTestId('config-editor');
  await editor.locator('.view-lines').filter({ hasText: '"upper"' }).waitFor();
  assert.deepEqual(await editorLines(), TEXT.split('\n'), 'the file text, not a re-layout of it');

  // One edit, then Ctrl+S: the file differs in that line only, and the editor shows what the file now holds.
  await editor.getByText('"upper"').first().dblclick();
  await page.keyboard.insertText('lower');
  await page.keyboard.press('ControlOrMeta+S');
  await page.getByTestId('config-status').filter({ hasText: /Saved at/ }).waitFor();
  const expected = TEXT.replace('["upper", "_S.name"]', '["lower", "_S.name"]');
  assert.equal(readFileSync(file, 'utf8'), expected);
  assert.deepEqual(await editorLines(), expected.split('\n'));
});

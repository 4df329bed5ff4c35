// Run where you edit (issue 33.6), in Chromium at 1440×900 on the generated 300-pipe project (schedules paused): Run
// and Save & run beside Save on the Config and Preview tabs; the run's result and links to its output show in place.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { signedInPage, closeAll } from '../helpers/browser.js';
import { writeBigProject } from '../helpers/big-project.js';

const SHOTS = '/tmp/ui-shots';
let hub: HubProcess;
let browser: Browser;
let page: Page;
const dir = tempDir('datahub-run-');
const PIPE = 'hr-employee-contract-summary-compact';

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  writeBigProject(dir);
  writeFileSync(
    join(dir, 'node', 'pipes', `${PIPE}.conf.json`),
    JSON.stringify({
      _id: PIPE,
      type: 'pipe',
      source: { type: 'embedded', entities: [{ _id: '1', name: 'ada' }, { _id: '2', name: 'alan' }] },
      transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'kind', 'employee']] } },
      pump: { mode: 'manual' },
    }, null, 2),
  );
  hub = await startHub({ args: ['--workspace', dir] });
  ({ browser, page } = await signedInPage(hub));
});

after(async () => {
  await closeAll(browser, hub, dir);
});

test('Run on the Config tab runs the pipe and says what it did, with links to its output', async () => {
  await page.goto(`${hub.url}/#/pipes/${PIPE}/config`);
  await page.getByTestId('config-run').click();
  const result = page.getByTestId('config-run-result');
  await result.filter({ hasText: /completed: 2 processed, 2 changed, 0 errors/ }).waitFor({ timeout: 15_000 });
  assert.equal(await page.getByTestId('config-save-run').isDisabled(), true, 'nothing to save');
  await page.screenshot({ path: `${SHOTS}/config-run.png` });
  await page.getByTestId('config-run-dataset').click();
  await page.waitForURL(new RegExp(`#/datasets/${PIPE}$`));
  await page.getByTestId('entity-row').nth(1).waitFor();
});

test('Save & run on the Preview tab saves the edit, then runs it', async () => {
  await page.goto(`${hub.url}/#/pipes/${PIPE}/preview`);
  const editor = page.getByTestId('preview-transform-editor');
  await editor.locator('.view-line').filter({ hasText: '"employee"' }).first().click();
  // The line is `"employee"` (the file's own layout, one token a line): type before its closing quote.
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.type('-2');
  await page.getByTestId('preview-save-run').click();
  const result = page.getByTestId('preview-run-result');
  await result.filter({ hasText: /completed: 2 processed, 2 changed, 0 errors/ }).waitFor({ timeout: 15_000 });
  const stored = await hub.json<{ transform: { rules: { default: unknown[] } } }>(`/pipes/${PIPE}/config`);
  assert.deepEqual(stored.transform.rules.default[1], ['add', 'kind', 'employee-2']);
  await page.screenshot({ path: `${SHOTS}/preview-save-run.png` });
  await page.getByTestId('preview-run-output').click();
  await page.waitForURL(new RegExp(`#/pipes/${PIPE}/output$`));
});

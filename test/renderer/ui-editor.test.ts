// The config editor (Monaco) in Chromium against the real hub: a pipe's Config tab and the Systems view — schema
// and live DTL markers, DTL completion, Ctrl+S saving (checked through the API), the diff view, the hub's
// config-errors after a forced save, and the guard against leaving unsaved edits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const shots = join(REPO, 'test-results', 'screenshots');

const PIPE = {
  _id: 'shout',
  type: 'pipe',
  source: { type: 'dataset', dataset: 'crew-members' },
  transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'loud', ['upper', '_S.name']]] } },
  pump: { mode: 'manual' },
};

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  browser = await launchChromium();
  await hub.json('/pipes', { method: 'POST', json: [PIPE] });
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'crm', type: 'system:url', base_url: 'http://crm.invalid/api/' }] });
  context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  page = await context.newPage();
  await signIn(page, hub);
  await page.getByTestId('pipes').getByText('shout').first().waitFor();
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

/** Wait until the editor shows the configuration (Monaco is loaded lazily). */
async function editorReady(): Promise<Locator> {
  const editor = page.getByTestId('config-editor');
  await editor.locator('.monaco-editor .view-lines').first().waitFor();
  await page.getByTestId('config-problem-count').filter({ hasText: /\d+ errors?/ }).waitFor();
  return editor;
}

/** Insert text at the cursor as one input; drop what auto-closing added after the cursor. */
async function insertText(text: string): Promise<void> {
  await page.keyboard.insertText(text);
  await page.keyboard.press('Shift+ControlOrMeta+End');
  await page.keyboard.press('Delete');
}

/** Replace the whole document with the JSON text on one line (typing newlines would add auto-indentation). */
async function replaceText(editor: Locator, text: string): Promise<void> {
  await editor.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await insertText(JSON.stringify(JSON.parse(text)));
}

const problems = (): Locator => page.getByTestId('config-problems');

test('a pipe config: schema and live DTL markers, completion, Ctrl+S, diff, hub errors, leave guard', async () => {
  await page.goto(`${hub.url}/#/pipes/shout/config`);
  const editor = await editorReady();
  await editor.getByText('"upper"').first().waitFor();
  await page.screenshot({ path: join(shots, 'editor-pipe-config.png'), fullPage: true });
  const saved = JSON.stringify(PIPE, null, 2);

  // A misspelled top-level key: a schema finding in the problems list.
  await replaceText(editor, saved.replace('"source"', '"sourse"'));
  await page.keyboard.press('Shift+Alt+F');
  await editor.locator('.view-line').nth(3).waitFor();
  await problems().filter({ hasText: /sourse/ }).waitFor();
  await textMatches(problems(), /Property sourse is not allowed/);
  assert.equal(await page.getByTestId('config-dirty').textContent(), '● unsaved changes');

  // An unknown DTL function: the hub's compiler marks it while typing, as an error at its JSON path.
  await replaceText(editor, saved.replace('"upper"', '"shoutify"'));
  const dtlProblem = problems().locator('button.error').filter({ hasText: /shoutify/ });
  await dtlProblem.waitFor({ timeout: 5000 });
  await textMatches(dtlProblem, /\$\.transform\.rules\.default\[1\]\[2\]\[0\]/);
  await editor.locator('.squiggly-error').first().waitFor(); // a red squiggle in the text
  await page.screenshot({ path: join(shots, 'editor-pipe-dtl-error.png'), fullPage: true });

  // Completion of DTL function names where a call starts: typing `["` as a new rule step offers transform functions.
  const compact = JSON.stringify(PIPE);
  const stepAt = compact.indexOf('["copy"');
  await editor.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await insertText(compact.slice(0, stepAt));
  await insertText(compact.slice(stepAt));
  for (let i = 0; i < compact.length - stepAt; i++) await page.keyboard.press('ArrowLeft');
  await page.keyboard.type('["');
  const suggest = editor.locator('.suggest-widget');
  await suggest.waitFor();
  await page.screenshot({ path: join(shots, 'editor-completion-step.png'), fullPage: true });
  await suggest.filter({ hasText: 'create-child' }).waitFor();
  await page.keyboard.press('Escape');

  const head = compact.slice(0, compact.indexOf('"upper"') + 1);
  const tail = compact.slice(compact.indexOf('"upper"') + 1);
  await editor.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await insertText(head);
  await insertText(tail);
  // Back to just after the opening quote of "upper"; select the name and type a new prefix.
  for (let i = 0; i < tail.length; i++) await page.keyboard.press('ArrowLeft');
  for (let i = 0; i < 5; i++) await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.type('conc');
  await page.keyboard.press('ControlOrMeta+Space');
  await suggest.filter({ hasText: 'concat' }).waitFor();
  await page.screenshot({ path: join(shots, 'editor-completion.png'), fullPage: true });
  await page.keyboard.press('Enter');
  await editor.getByText('"concat"').first().waitFor();
  // Hovering a function name shows its documentation.
  await editor.getByText('"concat"').first().hover();
  await page.locator('.monaco-hover').filter({ hasText: /One string made of/ }).waitFor();

  // Ctrl+S saves; the hub has the new configuration.
  await page.keyboard.press('ControlOrMeta+S');
  await page.getByTestId('config-status').filter({ hasText: /Saved at/ }).waitFor();
  const stored = await hub.json<typeof PIPE>('/pipes/shout/config');
  assert.deepEqual(stored.transform.rules.default[1], ['add', 'loud', ['concat', '_S.name']]);
  assert.equal(await page.getByTestId('config-dirty').textContent(), 'no changes');

  // The diff view shows an unsaved change against the saved version.
  const now = JSON.stringify(stored, null, 2);
  await editor.getByText('"concat"').first().waitFor();
  assert.ok((await editor.locator('.view-line').count()) > 10, 'saving lays the text out as two-space JSON');
  await replaceText(editor, now.replace('"loud"', '"quiet"'));
  await page.keyboard.press('Shift+Alt+F');
  await editor.locator('.view-line').nth(10).waitFor();
  await page.getByTestId('config-diff-toggle').check();
  const diff = page.getByTestId('config-diff');
  await diff.locator('.monaco-diff-editor').waitFor();
  await diff.locator('.char-insert, .line-insert').first().waitFor();
  const modified = (await diff.locator('.editor.modified .view-lines').textContent()) ?? '';
  const original = (await diff.locator('.editor.original .view-lines').textContent()) ?? '';
  assert.match(modified.replace(/\s+/g, ' '), /"quiet"/);
  assert.match(original.replace(/\s+/g, ' '), /"loud"/);
  await page.screenshot({ path: join(shots, 'editor-diff.png'), fullPage: true });
  await page.getByTestId('config-diff-toggle').uncheck();

  // Leaving with unsaved edits asks first; staying keeps the edits.
  let asked = '';
  page.once('dialog', (d) => {
    asked = d.message();
    void d.dismiss();
  });
  await page.getByRole('button', { name: /^Datasets/ }).click();
  assert.match(asked, /unsaved changes/);
  assert.match(page.url(), /#\/pipes\/shout\/config$/);
  assert.equal(await page.getByTestId('config-dirty').textContent(), '● unsaved changes');

  // Revert drops the edit.
  await page.getByTestId('config-revert').click();
  assert.equal(await page.getByTestId('config-dirty').textContent(), 'no changes');

  // The hub refuses an unknown function; "Save anyway" stores it and its config-errors stay as markers.
  await replaceText(editor, now.replace('"concat"', '"shoutify"'));
  await page.keyboard.press('ControlOrMeta+S');
  await page.getByTestId('config-status').filter({ hasText: /Not saved/ }).waitFor();
  await textMatches(page.getByTestId('config-status'), /invalid pipe configuration/);
  await page.getByTestId('config-save-force').click();
  await page.getByTestId('config-status').filter({ hasText: /the hub reports 1 problem/ }).waitFor();
  const info = await hub.json<{ runtime: { 'config-errors': { elements: string }[] } }>('/pipes/shout');
  assert.equal(info.runtime['config-errors'][0]?.elements, '$.transform.rules.default[1][2][0]');
  await problems().locator('button.error').filter({ hasText: /shoutify/ }).waitFor();
  // Formatting changes the layout, not the content: nothing to save.
  await page.getByTestId('config-format').click();
  await editor.locator('.view-line').nth(10).waitFor();
  assert.equal(await page.getByTestId('config-dirty').textContent(), 'no changes');
  await page.screenshot({ path: join(shots, 'editor-pipe-forced.png'), fullPage: true });
});

test('the Systems view: edit, schema error, save through Ctrl+S, create a system', async () => {
  // A fresh tab of the same session, whatever the first test left behind.
  const previous = page;
  page = await context.newPage();
  await previous.close();
  await page.goto(`${hub.url}/#/systems/crm`);
  const editor = await editorReady();
  await editor.getByText('"http://crm.invalid/api/"').first().waitFor();

  const config = { _id: 'crm', type: 'system:url', base_url: 'http://crm.invalid/api/' };
  await replaceText(editor, JSON.stringify({ ...config, type: 'url' }, null, 2));
  await problems().filter({ hasText: /does not match the pattern/ }).waitFor();

  await replaceText(editor, JSON.stringify({ ...config, base_url: 'http://crm.invalid/v2/' }, null, 2));
  await page.getByTestId('config-problems').waitFor({ state: 'detached' });
  await page.keyboard.press('ControlOrMeta+S');
  await page.getByTestId('config-status').filter({ hasText: /Saved at/ }).waitFor();
  const stored = await hub.json<Record<string, unknown>>('/systems/crm/config');
  assert.equal(stored['base_url'], 'http://crm.invalid/v2/');
  await page.screenshot({ path: join(shots, 'editor-systems.png'), fullPage: true });

  // The editor's theme follows the OS colour scheme, live.
  await page.emulateMedia({ colorScheme: 'dark' });
  await editor.locator('.monaco-editor.vs-dark').first().waitFor();
  await page.screenshot({ path: join(shots, 'editor-systems-dark.png'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  await editor.locator('.monaco-editor.vs').first().waitFor();

  await page.getByTestId('system-new').click();
  const draft = await editorReady();
  await replaceText(draft, JSON.stringify({ _id: 'erp', type: 'system:url', base_url: 'https://erp.invalid/' }, null, 2));
  await page.keyboard.press('ControlOrMeta+S');
  await page.waitForURL(/#\/systems\/erp$/);
  await page.getByTestId('system-erp').waitFor();
  const created = await hub.json<Record<string, unknown>>('/systems/erp/config');
  assert.equal(created['base_url'], 'https://erp.invalid/');
});

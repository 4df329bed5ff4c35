// The live transform preview in Chromium against the real hub: the Preview tab's Monaco editors (transform and
// sample), output that follows typing with a visible "computing…" state, error markers, the four stages computed by
// the hub for the unsaved draft, the Config tab's preview pane, one draft shared by both tabs, saving with Ctrl+S and
// "Save anyway", and the prompt before unsaved edits are left behind. Nothing a preview does is written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { CREW } from '../helpers/crew.js';

let hub: HubProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const shots = join(REPO, 'test-results', 'screenshots');
const pageErrors: string[] = [];

const TRANSFORM = { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'loud', ['upper', '_S.name']]] } };
const PIPE = { _id: 'shout', type: 'pipe', source: { type: 'dataset', dataset: 'crew-members' }, transform: TRANSFORM, pump: { mode: 'manual' } };

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  browser = await launchChromium();
  await hub.json('/datasets/crew-members/entities', { method: 'POST', json: CREW });
  await hub.json('/pipes', { method: 'POST', json: [PIPE] });
  context = await browser.newContext({ viewport: { width: 1500, height: 950 } });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await signIn(page, hub);
  await page.getByTestId('pipes').getByText('shout').first().waitFor();
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

const output = (): Locator => page.getByTestId('preview-output');
const outputText = async (): Promise<string> => (await output().textContent()) ?? '';

/** The Monaco editor with these test ids, once it shows its text. */
async function monaco(ids: string): Promise<Locator> {
  const editor = page.getByTestId(`${ids}-editor`);
  await editor.locator('.monaco-editor .view-lines').first().waitFor();
  await page.getByTestId(`${ids}-problem-count`).filter({ hasText: /\d+ errors?/ }).waitFor();
  return editor;
}

/** Replace the editor's whole text as one input (typing newlines would add auto-indentation). */
async function replaceText(editor: Locator, value: unknown): Promise<void> {
  await editor.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(JSON.stringify(value));
  // Drop what auto-closing may have added after the cursor.
  await page.keyboard.press('Shift+ControlOrMeta+End');
  await page.keyboard.press('Delete');
}

/** The text an editor shows, without Monaco's non-breaking spaces. */
async function editorText(editor: Locator): Promise<string> {
  return ((await editor.locator('.view-lines').first().textContent()) ?? '').replace(/\u00a0/g, ' ');
}

async function stage(name: string): Promise<void> {
  await page.getByTestId('preview-stage').getByRole('radio', { name, exact: true }).click();
}

async function userDatasets(): Promise<unknown[]> {
  const all = await hub.json<{ _id: string; count: number; 'max-updated': number | null }[]>('/datasets');
  return all.filter((d) => !d._id.startsWith('system:')).map((d) => [d._id, d.count, d['max-updated']]);
}

test('the Preview tab: Monaco editors, output that follows typing, error markers, own sample, every stage', async () => {
  const datasets = await userDatasets();
  await page.goto(`${hub.url}/#/pipes/shout/preview`);
  const transform = await monaco('preview-transform');
  await output().filter({ hasText: 'ADA LOVELACE' }).waitFor();
  assert.match(await outputText(), /GRACE HOPPER/);
  assert.match(await editorText(transform), /"upper"/, 'the editor holds the pipe transform');
  await page.screenshot({ path: join(shots, 'preview-tab.png'), fullPage: true });

  // The same DTL help as the Config tab: hover documentation, completion of function names, the transform schema.
  await transform.getByText('"upper"').first().hover();
  await page.locator('.monaco-hover').filter({ hasText: /upper.*expression function/ }).waitFor();
  await transform.getByText('"upper"').first().dblclick();
  await page.keyboard.type('conc');
  await page.keyboard.press('ControlOrMeta+Space');
  await transform.locator('.suggest-widget').filter({ hasText: 'concat' }).waitFor();
  await page.keyboard.press('Escape');
  await replaceText(transform, { type: 'dtl', rulez: { default: [] } });
  await page.getByTestId('preview-transform-problems').locator('button.warning').filter({ hasText: /rules/ }).waitFor();
  assert.doesNotMatch((await page.getByTestId('preview-transform-problems').textContent()) ?? '', /_id/, 'a transform is not checked as a whole pipe');

  // Typing changes the output: "computing…" shows while the hub is asked, then the new output.
  await replaceText(transform, { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'loud', ['lower', '_S.name']]] } });
  await page.getByTestId('preview-computing').waitFor();
  await output().filter({ hasText: /ada lovelace/ }).waitFor();
  assert.doesNotMatch(await outputText(), /ADA LOVELACE/);
  assert.equal(await page.getByTestId('preview-dirty').textContent(), '● unsaved changes');

  // An unknown function: an error marker in the transform editor at its JSON path, and the hub's list.
  await replaceText(transform, { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'loud', ['shoutify', '_S.name']]] } });
  const marker = page.getByTestId('preview-transform-problems').locator('button.error').filter({ hasText: 'shoutify' });
  await marker.waitFor();
  await textMatches(marker, /\$\.transform\.rules\.default\[1\]\[2\]\[0\]/);
  await transform.locator('.squiggly-error').first().waitFor(); // a red squiggle under the name
  await textMatches(page.getByTestId('preview-errors'), /unknown function/);
  await page.keyboard.press('Shift+Alt+F');
  await transform.locator('.view-line').nth(10).waitFor();
  await page.screenshot({ path: join(shots, 'preview-tab-error.png'), fullPage: true });

  // A runtime error shows next to the entity that raised it; the others still transform.
  await replaceText(transform, {
    type: 'dtl',
    rules: { default: [['copy', '_id'], ['add', 'loud', ['upper', '_S.name']], ['if', ['eq', '_S._id', 'alan'], ['fail!', 'no alans here']]] },
  });
  await page.getByTestId('preview-runtime-error').filter({ hasText: 'no alans here' }).waitFor();
  assert.equal(await page.getByTestId('preview-runtime-error').count(), 1, 'only one entity failed');
  assert.match(await outputText(), /GRACE HOPPER/);

  // Your own sample in the sample editor; then a chosen number read from the source again.
  const sample = await monaco('preview-sample');
  assert.match(await editorText(sample), /Ada Lovelace/, 'the sample editor shows what the source gave');
  await replaceText(sample, [{ _id: 'linus', name: 'Linus Torvalds' }]);
  await output().filter({ hasText: 'LINUS TORVALDS' }).waitFor();
  assert.doesNotMatch(await outputText(), /GRACE HOPPER/);
  await textMatches(page.getByTestId('preview-sample-mode'), /your own/);
  await page.getByTestId('preview-sample-size').fill('2');
  await page.getByTestId('preview-load-sample').click();
  await output().filter({ hasText: 'ALAN' }).waitFor();
  assert.doesNotMatch(await outputText(), /LINUS|GRACE/);
  await textMatches(page.getByTestId('preview-sample-mode'), /2 from the source/);
  assert.equal(await page.getByTestId('preview-result').count(), 2);
  await sample.filter({ hasText: 'Ada Lovelace' }).waitFor();
  assert.doesNotMatch(await editorText(sample), /Linus/, 'the sample editor shows the entities read');

  // The four stages, as the hub computes them for the draft: copying everything copies the source's bookkeeping,
  // which the sink step drops.
  await page.getByTestId('preview-sample-size').fill('10');
  await page.getByTestId('preview-load-sample').click();
  await replaceText(transform, { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'loud', ['upper', '_S.name']]] } });
  await output().filter({ hasText: '_updated' }).filter({ hasText: 'GRACE HOPPER' }).waitFor();
  await stage('Source');
  await output().filter({ hasText: 'Grace Hopper' }).waitFor();
  assert.doesNotMatch(await outputText(), /GRACE HOPPER/);
  assert.match(await outputText(), /_updated/);
  await stage('Before transforms');
  await page.locator('[data-testid="preview-output"][data-stage="before-transforms"]').filter({ hasText: 'Grace Hopper' }).waitFor();
  await stage('Sink');
  await page.locator('[data-testid="preview-output"][data-stage="sink"]').filter({ hasText: 'GRACE HOPPER' }).waitFor();
  assert.doesNotMatch(await outputText(), /_updated|_hash/, 'the sink is given the entities without the source bookkeeping');
  await page.screenshot({ path: join(shots, 'preview-tab-sink.png'), fullPage: true });
  await page.getByTestId('preview-stage').getByRole('radio', { name: 'Sink' }).press('ArrowLeft');
  assert.equal(await page.getByTestId('preview-stage').getByRole('radio', { name: 'After transforms' }).getAttribute('aria-checked'), 'true', 'arrow keys move between stages');

  // Revert drops the draft; nothing was written by any of it.
  await page.getByTestId('preview-revert').click();
  await transform.filter({ hasText: '"upper"' }).waitFor();
  assert.equal(await page.getByTestId('preview-dirty').textContent(), 'no changes');
  assert.deepEqual(await userDatasets(), datasets);
  assert.deepEqual((await hub.json<{ transform: unknown }>('/pipes/shout/config')).transform, TRANSFORM);
});

test('one draft in both tabs: the Config tab preview pane follows unsaved edits, Ctrl+S saves, leaving asks', async () => {
  await page.goto(`${hub.url}/#/pipes/shout/config`);
  const config = await monaco('config');
  await page.getByTestId('config-preview-toggle').click();
  const pane = page.getByTestId('config-preview-pane');
  await pane.getByTestId('preview-output').filter({ hasText: 'ADA LOVELACE' }).waitFor();

  // An edit of the whole configuration, not saved: the pane follows it (a transform edit and a source edit).
  const edited = { ...PIPE, transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'loud', ['concat', '_S.name', '!']]] } } };
  await replaceText(config, edited);
  await pane.getByTestId('preview-output').filter({ hasText: 'Ada Lovelace!' }).waitFor();
  await replaceText(config, { ...edited, source: { type: 'embedded', entities: [{ _id: 'x', name: 'Xena' }] } });
  await pane.getByTestId('preview-output').filter({ hasText: 'Xena!' }).waitFor();
  assert.doesNotMatch((await pane.getByTestId('preview-output').textContent()) ?? '', /Ada/);
  await page.keyboard.press('Shift+Alt+F');
  await config.locator('.view-line').nth(10).waitFor();
  await page.screenshot({ path: join(shots, 'config-tab-preview-pane.png'), fullPage: true });
  // Text that is not JSON (half typed): the pane says so and keeps the last output, dimmed.
  await config.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText('{"_id": "shout", ');
  await pane.getByTestId('preview-problem').filter({ hasText: 'The configuration is not valid JSON' }).waitFor();
  assert.match((await pane.getByTestId('preview-output').getAttribute('class')) ?? '', /stale/);
  await textMatches(pane.getByTestId('preview-output'), /Xena!/);
  await replaceText(config, edited);
  await pane.getByTestId('preview-output').filter({ hasText: 'Ada Lovelace!' }).waitFor();
  assert.deepEqual((await hub.json<{ transform: unknown }>('/pipes/shout/config')).transform, TRANSFORM, 'nothing saved yet');

  // The Preview tab shows the same unsaved edit; an edit there is in the Config tab on the way back.
  await page.getByRole('tab', { name: 'Preview' }).click();
  const transform = await monaco('preview-transform');
  await transform.filter({ hasText: '"concat"' }).waitFor();
  await output().filter({ hasText: 'Ada Lovelace!' }).waitFor();
  assert.equal(await page.getByTestId('preview-dirty').textContent(), '● unsaved changes');
  const twice = { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'loud', ['concat', '_S.name', '!!']]] } };
  await replaceText(transform, twice);
  await output().filter({ hasText: 'Ada Lovelace!!' }).waitFor();
  await page.getByRole('tab', { name: 'Config' }).click();
  await (await monaco('config')).filter({ hasText: '"!!"' }).waitFor();
  await pane.getByTestId('preview-output').filter({ hasText: 'Ada Lovelace!!' }).waitFor();

  // Leaving the pipe asks first (a click elsewhere, and the browser's back button); staying keeps the draft.
  const asked: string[] = [];
  const dismiss = (d: { message(): string; dismiss(): Promise<void> }): void => {
    asked.push(d.message());
    void d.dismiss();
  };
  page.on('dialog', dismiss);
  await page.getByRole('button', { name: /^Datasets/ }).click();
  await page.goBack();
  await page.waitForURL(/#\/pipes\/shout\/config$/);
  page.off('dialog', dismiss);
  assert.equal(asked.length, 2, `asked twice: ${JSON.stringify(asked)}`);
  for (const m of asked) assert.match(m, /pipe "shout" has unsaved changes/);
  assert.equal(await page.getByTestId('config-dirty').textContent(), '● unsaved changes');

  // Ctrl+S in the Preview tab's editor saves the whole draft.
  await page.getByRole('tab', { name: 'Preview' }).click();
  await (await monaco('preview-transform')).locator('.view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+S');
  await page.getByTestId('preview-status').filter({ hasText: /Saved at/ }).waitFor();
  assert.deepEqual((await hub.json<{ transform: unknown }>('/pipes/shout/config')).transform, twice);
  assert.equal(await page.getByTestId('preview-dirty').textContent(), 'no changes');

  // A draft the hub refuses: its problems are shown, and "Save anyway" stores it.
  await replaceText(await monaco('preview-transform'), { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'loud', ['shoutify', '_S.name']]] } });
  await page.getByTestId('preview-save').click();
  await page.getByTestId('preview-status').filter({ hasText: /Not saved/ }).waitFor();
  await textMatches(page.getByTestId('preview-status'), /invalid pipe configuration/);
  await page.getByTestId('preview-save-force').click();
  await page.getByTestId('preview-status').filter({ hasText: /the hub reports 1 problem/ }).waitFor();
  const info = await hub.json<{ runtime: { 'config-errors': { elements: string }[] } }>('/pipes/shout');
  assert.equal(info.runtime['config-errors'][0]?.elements, '$.transform.rules.default[1][2][0]');

  // Saved drafts leave nothing to lose: a reload asks nothing and keeps the pane open.
  await replaceText(await monaco('preview-transform'), TRANSFORM);
  await page.keyboard.press('ControlOrMeta+S');
  await page.getByTestId('preview-status').filter({ hasText: /Saved at/ }).waitFor();
  await page.getByRole('tab', { name: 'Config' }).click();
  await page.reload();
  await page.getByTestId('config-preview-pane').getByTestId('preview-output').filter({ hasText: 'ADA LOVELACE' }).waitFor();
});

test('Revert in the Preview tab drops a transform edit that is not valid JSON: editor, preview and the Config pane agree', async () => {
  await page.goto(`${hub.url}/#/pipes/shout/preview`);
  const transform = await monaco('preview-transform');
  await output().filter({ hasText: 'ADA LOVELACE' }).waitFor();
  // Half-typed text: it cannot join the configuration, so the preview says why and saving is blocked.
  await transform.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText('{"type": "dtl", "rules": {"default": [["copy", "_id"], ["add", "loud", ["lower"');
  await page.getByTestId('preview-parse-error').waitFor();
  await page.getByTestId('preview-problem').filter({ hasText: 'The transform is not valid JSON' }).waitFor();
  assert.equal(await page.getByTestId('preview-dirty').textContent(), '● unsaved changes');

  await page.getByTestId('preview-revert').click();
  await page.getByTestId('preview-status').filter({ hasText: 'Reverted' }).waitFor();
  // One truth: the editor holds the saved transform again and the preview computes it, with no error left over.
  await transform.filter({ hasText: '"upper"' }).waitFor();
  assert.doesNotMatch(await editorText(transform), /"lower"/, 'the edit is gone from the editor');
  assert.equal(await page.getByTestId('preview-parse-error').count(), 0, 'no parse error of the dropped text');
  await page.getByTestId('preview-problem').waitFor({ state: 'detached' });
  await output().filter({ hasText: 'ADA LOVELACE' }).waitFor();
  assert.equal(await page.getByTestId('preview-dirty').textContent(), 'no changes');
  assert.equal(await page.getByTestId('preview-save').isDisabled(), true);

  // The Config tab's preview pane shows the saved pipe, and the next edit in the Preview tab starts from it.
  await page.getByRole('tab', { name: 'Config' }).click();
  const toggle = page.getByTestId('config-preview-toggle');
  await toggle.waitFor();
  if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
  const pane = page.getByTestId('config-preview-pane');
  await pane.getByTestId('preview-output').filter({ hasText: 'ADA LOVELACE' }).waitFor();
  assert.equal(await pane.getByTestId('preview-problem').count(), 0, 'the Config pane shows no error of the dropped text');
  await page.getByRole('tab', { name: 'Preview' }).click();
  const again = await monaco('preview-transform');
  await again.filter({ hasText: '"upper"' }).waitFor();
  assert.equal(await page.getByTestId('preview-parse-error').count(), 0);

  // The same from the Config tab: a half-typed transform left in the Preview tab, reverted there, is gone on return.
  await again.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText('{"type": "dtl", "rules": {"default": [["copy", "_id"], ["add", "loud", ["lower"');
  await page.getByTestId('preview-parse-error').waitFor();
  await page.getByRole('tab', { name: 'Config' }).click();
  await pane.getByTestId('preview-problem').filter({ hasText: 'The transform is not valid JSON' }).waitFor();
  await page.getByTestId('config-revert').click();
  await pane.getByTestId('preview-problem').waitFor({ state: 'detached' });
  await pane.getByTestId('preview-output').filter({ hasText: 'ADA LOVELACE' }).waitFor();
  assert.equal(await page.getByTestId('config-dirty').textContent(), 'no changes');
  await page.getByRole('tab', { name: 'Preview' }).click();
  const back = await monaco('preview-transform');
  await back.filter({ hasText: '"upper"' }).waitFor();
  assert.doesNotMatch(await editorText(back), /"lower"/, 'the Preview tab holds the saved transform');
  assert.equal(await page.getByTestId('preview-parse-error').count(), 0);
  assert.deepEqual((await hub.json<{ transform: unknown }>('/pipes/shout/config')).transform, TRANSFORM, 'nothing was saved');
});

test('the sink stage differs from after transforms where the sink step does: namespaced identifiers, filters', async () => {
  await hub.json('/metadata', { method: 'PUT', json: { namespaced_identifiers: true } });
  try {
    await page.goto(`${hub.url}/#/pipes/shout/preview`);
    const transform = await monaco('preview-transform');
    await page.getByTestId('preview-sample-size').fill('3');
    await page.getByTestId('preview-load-sample').click();
    await replaceText(transform, {
      type: 'dtl',
      rules: { default: [['copy', '_id'], ['filter', ['neq', '_S._id', 'alan']], ['add', 'loud', ['upper', '_S.name']]] },
    });
    await stage('After transforms');
    await output().filter({ hasText: '_filtered' }).waitFor();
    const after = await outputText();
    assert.doesNotMatch(after, /\$ids/);
    assert.match(after, /GRACE HOPPER/);
    await stage('Sink');
    const sink = page.locator('[data-testid="preview-output"][data-stage="sink"]');
    await sink.filter({ hasText: 'shout:loud' }).waitFor();
    const text = (await sink.textContent()) ?? '';
    assert.doesNotMatch(text, /"\$ids"/, 'no $ids are added: the merge source maintains them');
    assert.match(text, /"_id": "alan",\s*"_deleted": true,\s*"_filtered": true/, 'the filtered entity enters the sink as a deletion');
    await textMatches(sink.getByTestId('preview-deletion'), /as a deletion \(filtered out/);
    await transform.locator('.view-lines').first().click();
    await page.keyboard.press('Shift+Alt+F');
    await transform.locator('.view-line').nth(5).waitFor();
    await page.screenshot({ path: join(shots, 'preview-tab-sink-namespaces.png'), fullPage: true });
    await page.getByTestId('preview-revert').click();
    await page.getByTestId('preview-dirty').filter({ hasText: 'no changes' }).waitFor();
  } finally {
    await hub.json('/metadata', { method: 'DELETE' });
  }
  assert.deepEqual(pageErrors, [], 'the page raised no errors');
});

// The Node config view in Chromium against the real hub: JSON and zip exports hold the configuration, an import
// (file picker or drag and drop) first shows what it adds, changes and removes, and the history compares an earlier
// version of a pipe with the current one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
let files: string;
const shots = join(REPO, 'test-results', 'screenshots');

type Entity = { _id: string; type: string; [key: string]: unknown };

const alpha = (greeting: string): Entity => ({
  _id: 'alpha',
  type: 'pipe',
  source: { type: 'embedded', entities: [{ _id: 'a1' }] },
  transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'greeting', greeting]] } },
  pump: { mode: 'manual' },
});
const beta: Entity = { _id: 'beta', type: 'pipe', source: { type: 'dataset', dataset: 'alpha' }, pump: { mode: 'manual' } };
const gamma: Entity = { _id: 'gamma', type: 'pipe', source: { type: 'embedded', entities: [] }, pump: { mode: 'manual' }, metadata: { '$config-group': 'sales' } };
const delta: Entity = { _id: 'delta', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'd1' }] }, pump: { mode: 'manual' } };
const crm: Entity = { _id: 'crm', type: 'system:url', base_url: 'http://crm.invalid/api' };

before(async () => {
  mkdirSync(shots, { recursive: true });
  files = tempDir('node-config-files-');
  hub = await startHub();
  await hub.json('/pipes', { method: 'POST', json: [alpha('hello'), beta, gamma] });
  await hub.json('/systems', { method: 'POST', json: [crm] });
  await hub.json('/pipes/alpha/config', { method: 'PUT', json: alpha('hi there') });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await signIn(page, hub);
  await page.goto(`${hub.url}/#/config`);
  await page.getByTestId('config-summary').filter({ hasText: /2 pipes/ }).waitFor();
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
  if (files) removeDir(files);
});

async function downloaded(testId: string): Promise<Buffer> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  const path = await download.path();
  return readFileSync(path);
}

const pipeIds = async (): Promise<string[]> => (await hub.json<{ _id: string }[]>('/pipes')).map((p) => p._id).sort();

test('the default group holds the pipes and systems; the sales group is listed apart', async () => {
  const options = await page.getByTestId('config-group').locator('option').allTextContents();
  assert.deepEqual(options, ['default (3)', 'sales (1)']);
  await page.getByTestId('config-group').selectOption('sales');
  await page.getByTestId('config-summary').filter({ hasText: /group “sales” holds 1 entity: 1 pipe$/ }).waitFor();
  await page.getByTestId('config-group').selectOption('');
  await page.getByTestId('config-summary').filter({ hasText: /default group holds 3 entities/ }).waitFor();
});

test('Download JSON and Download zip hold the pipes and systems of the group', async () => {
  const exported = JSON.parse((await downloaded('export-json')).toString('utf8')) as Entity[];
  assert.deepEqual(exported.map((e) => e._id).sort(), ['alpha', 'beta', 'crm']);
  assert.deepEqual(exported.find((e) => e._id === 'alpha'), alpha('hi there'));

  const zip = unzipSync(new Uint8Array(await downloaded('export-zip')));
  assert.deepEqual(Object.keys(zip).sort(), ['pipes/alpha.conf.json', 'pipes/beta.conf.json', 'systems/crm.conf.json']);
  assert.deepEqual(JSON.parse(strFromU8(zip['pipes/beta.conf.json']!)), beta);
});

test('importing a JSON file shows what changes, then applies it', async () => {
  const file = join(files, 'next.json');
  writeFileSync(file, JSON.stringify([crm, alpha('good morning'), delta]));
  await page.getByTestId('config-file').setInputFiles(file);
  const confirm = page.getByTestId('import-confirm');
  await confirm.waitFor();
  await textMatches(confirm.getByTestId('import-added'), /pipe delta/);
  await textMatches(confirm.getByTestId('import-changed'), /pipe alpha/);
  const removed = (await confirm.getByTestId('import-removed').textContent()) ?? '';
  assert.match(removed, /pipe beta/);
  assert.doesNotMatch(removed, /crm/, 'an unchanged system is not listed');
  await textMatches(confirm, /1 unchanged/);
  await confirm.getByTestId('import-changed').getByRole('button', { name: 'pipe alpha' }).click();
  const change = confirm.getByTestId('import-diff');
  assert.ok((await change.locator('[data-op="-"]').allTextContents()).some((l) => l.includes('hi there')));
  assert.ok((await change.locator('[data-op="+"]').allTextContents()).some((l) => l.includes('good morning')));
  await page.screenshot({ path: join(shots, 'node-config-import.png'), fullPage: true });
  assert.deepEqual(await pipeIds(), ['alpha', 'beta', 'gamma'], 'nothing changes before the user applies');

  await page.getByTestId('import-apply').click();
  await page.getByTestId('config-notice').filter({ hasText: '1 added, 1 changed, 1 removed' }).waitFor();
  assert.deepEqual(await pipeIds(), ['alpha', 'delta', 'gamma'], 'gamma lives in another config group and stays');
});

test('a zip dropped on the import area is read the same way; a file that is not a configuration is refused in words', async () => {
  const zip = zipSync({ 'pipes/alpha.conf.json': strToU8(JSON.stringify(alpha('good morning'))), 'pipes/delta.conf.json': strToU8(JSON.stringify(delta)) });
  const b64 = Buffer.from(zip).toString('base64');
  const transfer = await page.evaluateHandle(
    `(() => { const bytes = Uint8Array.from(atob(${JSON.stringify(b64)}), (c) => c.charCodeAt(0)); const dt = new DataTransfer(); dt.items.add(new File([bytes], 'config.zip', { type: 'application/zip' })); return dt; })()`,
  );
  await page.getByTestId('config-drop').dispatchEvent('drop', { dataTransfer: transfer });
  const confirm = page.getByTestId('import-confirm');
  await confirm.filter({ hasText: 'config.zip' }).waitFor();
  await textMatches(confirm.getByTestId('import-removed'), /system crm/);
  assert.equal(await confirm.getByTestId('import-added').count(), 0, (await confirm.textContent()) ?? '');
  await page.getByTestId('import-apply').click();
  await page.getByTestId('config-notice').filter({ hasText: 'config.zip' }).waitFor();
  assert.deepEqual((await hub.json<{ _id: string }[]>('/systems')).map((s) => s._id), []);

  const bad = join(files, 'not-config.json');
  writeFileSync(bad, JSON.stringify({ hello: 'world' }));
  await page.getByTestId('config-file').setInputFiles(bad);
  await page.getByTestId('import-error').filter({ hasText: /not a configuration entity/ }).waitFor();
  assert.equal(await page.getByTestId('import-confirm').count(), 0);
});

test('the history compares a version with the one before it, with the current one, and any two', async () => {
  await page.getByTestId('history-id').fill('alpha');
  await page.getByTestId('history-load').click();
  await page.waitForURL(/#\/config\/alpha$/);
  await page.getByTestId('history-versions').waitFor();
  const versions = page.getByTestId('history-version');
  assert.equal(await versions.count(), 3, 'created, edited, imported');
  await textMatches(versions.first(), /current/);
  // The newest version is compared with the one before it: what the last change (the import) did.
  const diff = page.getByTestId('text-diff');
  await diff.waitFor();
  const lines = async (op: '-' | '+'): Promise<string> => (await diff.locator(`[data-op="${op}"]`).allTextContents()).join('\n');
  assert.match(await lines('-'), /hi there/);
  assert.match(await lines('+'), /good morning/);
  assert.doesNotMatch(await lines('-'), /hello/);
  await page.screenshot({ path: join(shots, 'node-config-history.png'), fullPage: true });

  // The oldest version against the one before it: nothing came before, so everything is added.
  await versions.last().click();
  await diff.filter({ hasText: 'nothing (before the first version)' }).waitFor();
  assert.match(await lines('+'), /hello/);
  assert.equal(await lines('-'), '');

  // ... against the current version, in the unified layout.
  await page.getByTestId('history-against').selectOption('current');
  await diff.getByRole('button', { name: 'Unified' }).click();
  const unified = (await diff.locator('pre > div').allTextContents()).join('\n');
  assert.match(unified, /^- .*"hello"/m);
  assert.match(unified, /^\+ .*"good morning"/m);

  // ... and against any other version: the middle one (the edit), older on the left whichever was picked first.
  const history = await hub.json<{ _updated: number }[]>('/config-history/entity?entity_id=alpha&reverse=true');
  await page.getByTestId('history-against').selectOption(String(history[1]!._updated));
  await diff.getByRole('button', { name: 'Side by side' }).click();
  assert.match(await lines('-'), /hello/);
  assert.match(await lines('+'), /hi there/);
});

test('Restore this version stores the old configuration again, after a confirmation, as a new version', async () => {
  const versions = page.getByTestId('history-version');
  await versions.last().click();
  await page.getByTestId('history-restore').click();
  const dialog = page.getByTestId('confirm-dialog');
  await dialog.filter({ hasText: /Restore the version of/ }).waitFor();
  await page.screenshot({ path: join(shots, 'node-config-restore.png') });
  await page.getByTestId('confirm-cancel').click();
  assert.equal(((await hub.json<Entity>('/pipes/alpha/config'))['transform'] as { rules: { default: unknown[][] } }).rules.default[1]![2], 'good morning', 'Cancel changes nothing');

  await page.getByTestId('history-restore').click();
  await page.getByTestId('confirm-ok').click();
  await page.getByTestId('history-notice').filter({ hasText: /it is now the current version/ }).waitFor();
  assert.deepEqual(await hub.json<Entity>('/pipes/alpha/config'), alpha('hello'), 'the current configuration is the restored one');
  assert.equal(await versions.count(), 4, 'the restore is a new version');
  await textMatches(versions.first(), /current/);
  // The new current version undoes the import: compared with the one before it, "good morning" goes, "hello" is back.
  await versions.first().click();
  const diff = page.getByTestId('text-diff');
  await diff.filter({ hasText: 'good morning' }).waitFor();
  assert.match((await diff.locator('[data-op="+"]').allTextContents()).join('\n'), /hello/);
  // The oldest version is now the same as the current one: nothing left to restore.
  await versions.last().click();
  await page.getByTestId('history-against').selectOption('current');
  await page.getByTestId('history-same').waitFor();
  assert.equal(await page.getByTestId('history-restore').count(), 0);
  await page.screenshot({ path: join(shots, 'node-config-restored.png'), fullPage: true });
});

test('a long history pages past the first 100 versions', async () => {
  const many = (n: number): Entity => ({ _id: 'many', type: 'pipe', source: { type: 'embedded', entities: [{ _id: `m${n}` }] }, pump: { mode: 'manual' } });
  await hub.json('/pipes', { method: 'POST', json: [many(0)] });
  for (let n = 1; n <= 104; n++) await hub.json('/pipes/many/config', { method: 'PUT', json: many(n) });
  await page.goto(`${hub.url}/#/config/many`);
  const versions = page.getByTestId('history-version');
  await page.getByTestId('history-older').waitFor();
  assert.equal(await versions.count(), 100);
  await page.getByTestId('history-older').click();
  await page.getByTestId('history-count').filter({ hasText: '105 versions in all' }).waitFor();
  assert.equal(await versions.count(), 105);
  // The oldest compared with the one before it shows the very first configuration.
  await versions.last().click();
  await page.getByTestId('text-diff').filter({ hasText: '"m0"' }).waitFor();
});

test('a system page links to its history; the palette opens a pipe\'s history', async () => {
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'erp', type: 'system:url', base_url: 'http://erp.invalid/' }] });
  await hub.json('/systems/erp/config', { method: 'PUT', json: { _id: 'erp', type: 'system:url', base_url: 'http://erp2.invalid/' } });
  await page.goto(`${hub.url}/#/systems/erp`);
  await page.getByTestId('system-history').click();
  await page.waitForURL(/#\/config\/erp$/);
  await page.getByTestId('history-version').nth(1).waitFor();
  assert.equal(await page.getByTestId('history-version').count(), 2);
  await page.getByTestId('text-diff').filter({ hasText: 'erp2.invalid' }).waitFor();

  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('history alpha');
  assert.equal(await page.getByTestId('palette-items').locator('li[data-key]').first().getAttribute('data-key'), 'history:alpha');
  await page.getByTestId('palette-input').press('Enter');
  await page.waitForURL(/#\/config\/alpha$/);
  await page.getByTestId('history-version').nth(3).waitFor();
  assert.equal(await page.getByTestId('history-version').count(), 4);
});

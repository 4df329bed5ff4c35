// The dataset explorer and the pipe page, driven in Chromium against the real hub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from './helpers/hub-process.js';
import { launchChromium } from './helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const shots = join(REPO, 'test-results', 'screenshots');
const id = (i: number): string => `e${String(i).padStart(3, '0')}`;

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  browser = await launchChromium();
  const entities = Array.from({ length: 250 }, (_, i) => ({ _id: id(i), n: i, name: `entity ${i}`, nested: { even: i % 2 === 0, tags: ['a', i] } }));
  await hub.json('/datasets/x/entities', { method: 'POST', json: entities });
  // A second version of the last entity: the first 249 keep their offsets, so page 2 starts at e100.
  await hub.json('/datasets/x/entities', { method: 'POST', json: [{ _id: id(249), n: 249, name: 'renamed', nested: { even: false, tags: ['a', 249] } }] });
  await hub.json('/datasets/y/entities', { method: 'POST', json: [{ _id: 'kept' }, { _id: 'gone', _deleted: true }] });
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'copy', type: 'pipe', source: { type: 'dataset', dataset: 'x' }, sink: { type: 'dataset', dataset: 'x-copy' }, pump: { mode: 'manual' } }],
  });
  page = await browser.newPage();
  const m = /one-time link: (\S+)/.exec(hub.output());
  assert.ok(m, `serve printed a login link:\n${hub.output()}`);
  await page.goto(m[1]!);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

async function firstId(): Promise<string> {
  return (await page.getByTestId('entities').locator('tbody tr').first().locator('td').first().textContent())?.trim() ?? '';
}

async function waitFirstId(expected: string): Promise<void> {
  const until = Date.now() + 5000;
  let seen = '';
  while (Date.now() < until) {
    await page.getByTestId('entities').locator('tbody tr').first().waitFor();
    seen = await firstId();
    if (seen === expected) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`the first row is ${seen}, expected ${expected}`);
}

test('the datasets list shows entity counts and a dataset pages forward and back by since', async () => {
  await page.getByRole('button', { name: /^Datasets/ }).click();
  const row = page.getByTestId('datasets').locator('tr', { has: page.getByRole('button', { name: 'x', exact: true }) });
  assert.match((await row.textContent()) ?? '', /250/, 'entity count of x');
  await page.getByRole('button', { name: 'x', exact: true }).click();
  await waitFirstId('e000');
  assert.equal(await page.getByTestId('entities').locator('tbody tr').count(), 100, 'one page of 100 rows');
  const headers = await page.getByTestId('entities').locator('thead th').allTextContents();
  assert.equal(headers[0], '_id', '_id is the first column');
  assert.ok(headers.includes('nested') && headers.includes('name'), `columns from the page: ${headers.join(',')}`);
  assert.match((await page.getByTestId('entities').locator('tbody tr').first().textContent()) ?? '', /\{"even":true,"tags":\["a",0\]\}/, 'nested values as compact JSON');
  await page.screenshot({ path: join(shots, 'explorer-page1.png') });

  await page.getByRole('button', { name: 'Next' }).click();
  await waitFirstId('e100');
  assert.equal(await firstId(), 'e100');
  await page.getByRole('button', { name: 'Next' }).click();
  await waitFirstId('e200');
  assert.equal(await page.getByTestId('entities').locator('tbody tr').count(), 50, 'the last page holds the rest');
  assert.ok(await page.getByRole('button', { name: 'Next' }).isDisabled(), 'no page after the last');
  await page.getByRole('button', { name: 'Previous' }).click();
  await waitFirstId('e100');
  await page.getByRole('button', { name: 'Previous' }).click();
  await waitFirstId('e000');
  assert.ok(await page.getByRole('button', { name: 'Previous' }).isDisabled(), 'no page before the first');

  await page.getByLabel('JSON').check();
  await page.getByTestId('entities').filter({ hasText: '"_id": "e000"' }).waitFor();
  await page.getByLabel('JSON').uncheck();
  await waitFirstId('e000');
});

test('search by _id finds an entity and says so when there is none', async () => {
  await page.getByTestId('search-id').fill('e042');
  await page.getByRole('button', { name: 'Find' }).click();
  await page.getByTestId('search-result').filter({ hasText: 'entity 42' }).waitFor();
  await page.getByTestId('search-id').fill('nope');
  await page.getByRole('button', { name: 'Find' }).click();
  const err = await page.getByTestId('search-error').textContent();
  assert.match(err ?? '', /No entity with _id "nope"/);
});

test("an entity's history follows _previous and diffs two versions", async () => {
  await page.getByTestId('search-id').fill('e249');
  await page.getByRole('button', { name: 'Find' }).click();
  await page.getByTestId('search-result').filter({ hasText: 'renamed' }).waitFor();
  await page.getByTestId('search-result').getByRole('button', { name: 'History' }).click();
  await page.getByTestId('versions').locator('tbody tr').nth(1).waitFor();
  assert.equal(await page.getByTestId('versions').locator('tbody tr').count(), 2, 'two versions');
  const diff = (await page.getByTestId('diff').textContent()) ?? '';
  assert.match(diff, /^- {3}"name": "entity 249",$/m, `old line removed:\n${diff}`);
  assert.match(diff, /^\+ {3}"name": "renamed",$/m, 'new line added');
  assert.match(diff, /^ {4}"n": 249,$/m, 'unchanged line kept');
  await page.screenshot({ path: join(shots, 'explorer-history.png'), fullPage: true });
});

test('deleted entities can be hidden', async () => {
  await page.getByRole('button', { name: '← Datasets' }).click();
  await page.getByRole('button', { name: 'y', exact: true }).click();
  await waitFirstId('kept');
  assert.equal(await page.getByTestId('entities').locator('tbody tr').count(), 2);
  await page.getByLabel('Show deleted').uncheck();
  await page.getByTestId('entities').locator('tbody tr').nth(1).waitFor({ state: 'detached' });
  assert.deepEqual(await page.getByTestId('entities').locator('tbody tr td:first-child').allTextContents(), ['kept']);
  await page.getByLabel('Show deleted').check();
  await page.getByTestId('entities').locator('tbody tr').nth(1).waitFor();
  // A dataset deleted while it is open: the next read says why it failed.
  await hub.fetch('/datasets/y', { method: 'DELETE' });
  await page.getByLabel('Show deleted').uncheck();
  assert.match((await page.getByTestId('dataset-error').textContent()) ?? '', /Reading dataset "y" failed \(404\)/);
});

test('the pipe page starts a run, shows it in the log, and the sink dataset appears', async () => {
  await page.getByRole('button', { name: /^Pipes/ }).click();
  await page.getByTestId('pipes').getByRole('button', { name: 'copy', exact: true }).click();
  await page.getByTestId('runtime').waitFor();
  const controls = page.getByTestId('pump-controls');
  await controls.locator('button[data-op="start"]:not([disabled])').waitFor();
  assert.deepEqual(
    await controls.locator('button').allTextContents(),
    ['start', 'stop', 'enable', 'disable', 'start-rescan', 'reset-rescan', 'set-last-seen-to-end', 'discard-retries'],
  );
  assert.ok(await controls.locator('button[data-op="enable"]').isDisabled(), 'a manual pump does not support enable');
  assert.ok(await controls.locator('button[data-op="disable"]').isDisabled(), 'nor disable');
  assert.match((await page.getByTestId('pipe-config').textContent()) ?? '', /"dataset": "x-copy"/);

  await controls.locator('button[data-op="start"]').click();
  await page.getByTestId('pump-log').filter({ hasText: 'pump-completed' }).waitFor({ timeout: 10_000 });
  const log = (await page.getByTestId('pump-log').textContent()) ?? '';
  assert.match(log, /pump-started/);
  await page.getByTestId('pump-progress').filter({ hasText: /completed: 250 processed/ }).waitFor({ timeout: 5000 });
  await page.screenshot({ path: join(shots, 'pipe-page.png'), fullPage: true });

  await page.getByRole('button', { name: /^Datasets/ }).click();
  const copy = page.getByTestId('datasets').locator('tr', { has: page.getByRole('button', { name: 'x-copy', exact: true }) });
  await copy.waitFor();
  assert.match((await copy.textContent()) ?? '', /250/);
});

test('an operation the hub refuses is shown in words', async () => {
  await page.getByRole('button', { name: /^Pipes/ }).click();
  await page.getByTestId('pipes').getByRole('button', { name: 'copy', exact: true }).click();
  await page.getByTestId('pump-controls').locator('button[data-op="discard-retries"]:not([disabled])').click();
  await page.getByTestId('pump-log').filter({ hasText: 'pump-discard-retries' }).waitFor();
  // Deleting the pipe behind the page's back: the next operation fails with the hub's reason.
  await hub.fetch('/pipes/copy', { method: 'DELETE' });
  await page.getByTestId('pump-controls').locator('button[data-op="stop"]').click();
  assert.match((await page.getByTestId('op-error').textContent()) ?? '', /failed \(404\)/);
});

test('the UI follows the light or dark theme of the OS', async () => {
  const bg = async (): Promise<string> => String(await page.evaluate('getComputedStyle(document.documentElement).backgroundColor'));
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await bg();
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await bg();
  assert.notEqual(light, dark);
  assert.equal(dark, 'rgb(21, 24, 28)');
  await page.getByRole('button', { name: /^Datasets/ }).click();
  await page.screenshot({ path: join(shots, 'datasets-dark.png') });
});

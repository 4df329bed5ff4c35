// Renaming and duplicating a pipe from its page and from the palette, with its dataset and the pipes that use it
// listed before anything changes; a receiver's manual pump reads "manual", not "disabled".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

before(async () => {
  hub = await startHub();
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      { _id: 'people', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'p1', name: 'Ada' }] }, pump: { mode: 'manual' } },
      { _id: 'people-report', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, pump: { mode: 'manual' } },
      {
        _id: 'orders',
        type: 'pipe',
        source: { type: 'embedded', entities: [{ _id: 'o1', who: 'p1' }] },
        transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'name', ['hops', { datasets: ['people p'], where: ['eq', '_S.who', 'p._id'], return: 'p.name' }]]] } },
        pump: { mode: 'manual' },
      },
      { _id: 'inbox', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'inbox' } },
    ],
  });
  browser = await launchChromium();
  page = await browser.newPage();
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

test('a receiver made from the template reads "manual" in the list and on its page, not "disabled"', async () => {
  await page.goto(`${hub.url}/#/pipes`);
  const row = page.locator('tr[data-pipe="inbox"]');
  await row.getByTestId('pipe-schedule').filter({ hasText: /^\s*manual\s*$/ }).waitFor();
  await page.goto(`${hub.url}/#/pipes/inbox`);
  await page.getByTestId('schedule-state').filter({ hasText: 'manual pump' }).waitFor();
});

test('Rename lists the dataset and its readers, refuses a taken id, and keeps the dataset for them', async () => {
  await page.goto(`${hub.url}/#/pipes/people`);
  await page.getByTestId('pipe-rename').click();
  const dialog = page.getByTestId('pipe-copy-dialog');
  const effects = dialog.getByTestId('pipe-copy-effects');
  await effects.filter({ hasText: 'Its dataset people keeps its name' }).waitFor();
  const dependants = await dialog.getByTestId('pipe-copy-dependants').locator('li').allTextContents();
  assert.deepEqual(dependants.map((t) => t.replace(/\s+/g, ' ').trim()), ['people-report reads it', 'orders joins it (hops)']);

  await dialog.getByTestId('pipe-copy-id').fill('orders');
  await dialog.getByTestId('pipe-copy-problem').filter({ hasText: 'A pipe “orders” already exists' }).waitFor();
  assert.ok(await dialog.getByTestId('pipe-copy-confirm').isDisabled(), 'a taken id cannot be confirmed');

  await dialog.getByTestId('pipe-copy-id').fill('persons');
  await dialog.getByTestId('pipe-copy-confirm').click();
  await page.getByTestId('pipe-title').filter({ hasText: 'persons' }).waitFor();
  assert.equal((await hub.fetch('/pipes/people')).status, 404, 'the old id is gone');
  const config = await hub.json<{ sink: { dataset: string } }>('/pipes/persons/config');
  assert.equal(config.sink.dataset, 'people', 'the renamed pipe still writes the dataset its readers read');
});

test('the palette duplicates a pipe; the copy writes a dataset of its own', async () => {
  await page.keyboard.press('Control+k');
  const input = page.getByTestId('palette-input');
  await input.fill('Duplicate pipe persons');
  await input.press('Enter');
  const dialog = page.getByTestId('pipe-copy-dialog');
  await dialog.getByTestId('pipe-copy-effects').filter({ hasText: 'The copy writes a dataset of its own, persons-copy' }).waitFor();
  assert.equal(await dialog.getByTestId('pipe-copy-id').inputValue(), 'persons-copy');
  await dialog.getByTestId('pipe-copy-confirm').click();
  await page.getByTestId('pipe-title').filter({ hasText: 'persons-copy' }).waitFor();
  const copy = await hub.json<{ sink: { dataset: string }; source: { entities: unknown[] } }>('/pipes/persons-copy/config');
  assert.equal(copy.sink.dataset, 'persons-copy');
  assert.deepEqual(copy.source.entities, [{ _id: 'p1', name: 'Ada' }]);
  assert.equal((await hub.fetch('/pipes/persons')).status, 200, 'the original stays');
});

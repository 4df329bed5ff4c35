// Search across configs in the workbench (issue 17.8), in Chromium against the real hub: the dialog from the palette
// and from Ctrl+Shift+F, results by kind, and a result opening the pipe's config with the referring element shown.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

const CONFIG = [
  { _id: 'crm', type: 'system:url', base_url: '$ENV(crm-url)', password: '$SECRET(crm-password)' },
  { _id: 'person-crm', type: 'pipe', source: { type: 'json', system: 'crm', url: '/persons' }, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'full', ['concat', '_S.a', '_S.b']]] } } },
  {
    _id: 'person-merged', type: 'pipe',
    source: { type: 'merge', datasets: ['erp-person ep', 'person-crm pc'], equality: [] },
    sink: { type: 'dataset', dataset: 'person' },
  },
  { _id: 'unrelated', type: 'pipe', source: { type: 'embedded', entities: [] } },
];

before(async () => {
  hub = await startHub();
  const res = await hub.fetch('/config', { method: 'PUT', json: CONFIG });
  assert.equal(res.status, 200, await res.text());
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

test('which pipes read a dataset: the result opens the pipe config at the reference', async () => {
  await page.goto(`${hub.url}/#/pipes`);
  await page.getByTestId('content').waitFor();
  await page.keyboard.press('Control+K');
  await page.getByTestId('palette-input').fill('search configs');
  await page.keyboard.press('Enter');
  const dialog = page.getByTestId('config-search');
  await dialog.waitFor();
  await dialog.getByTestId('config-search-input').fill('person-crm');
  await dialog.getByTestId('config-search-kind').selectOption('dataset');
  await dialog.getByTestId('config-search-hit-pipe-person-merged').waitFor();
  // person-crm writes it (its id, no sink: the default), person-merged reads it; the other pipe does not show.
  const hits = await dialog.locator('[data-testid^="config-search-hit-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
  assert.deepEqual(hits, ['config-search-hit-pipe-person-crm', 'config-search-hit-pipe-person-merged']);
  const read = dialog.getByTestId('config-search-hit-pipe-person-merged').getByTestId('config-search-match');
  assert.match((await read.innerText()).replace(/\s+/g, ' '), /reads dataset person-crm source\.datasets\[1\]/);
  await read.click();
  await dialog.waitFor({ state: 'detached' });
  assert.match(page.url(), /#\/pipes\/person-merged\/config$/);
  const editor = page.getByTestId('config-editor');
  await page.locator('[data-testid="config-editor"][data-highlight-text="\\"person-crm pc\\""]').waitFor();
  assert.equal(await editor.getAttribute('data-highlight-path'), '$.source.datasets[1]');
});

test('Ctrl+Shift+F: a DTL function, a secret; nothing found says so', async () => {
  await page.keyboard.press('Control+Shift+F');
  const dialog = page.getByTestId('config-search');
  await dialog.waitFor();
  await dialog.getByTestId('config-search-kind').selectOption('function');
  await dialog.getByTestId('config-search-exact').check();
  await dialog.getByTestId('config-search-input').fill('concat');
  await dialog.getByTestId('config-search-hit-pipe-person-crm').filter({ hasText: 'transform.rules.default[1][2]' }).waitFor();
  await dialog.getByTestId('config-search-kind').selectOption('secret');
  await dialog.getByTestId('config-search-input').fill('crm-password');
  await dialog.getByTestId('config-search-hit-system-crm').waitFor();
  await dialog.getByTestId('config-search-input').fill('nothing-uses-this');
  await dialog.getByTestId('config-search-none').waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
});

// The dataset explorer and the pipe page, driven in Chromium against the real hub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from './helpers/hub-process.js';
import { launchChromium } from './helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const shots = join(REPO, 'test-results', 'screenshots');
/** More rows than the explorer keeps in memory (30 pages of 200), so scrolling drops and re-reads pages. */
const N = 8000;
const KINDS = ['a', 'b', 'c'];
const id = (i: number): string => `e${String(i).padStart(4, '0')}`;

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  browser = await launchChromium();
  for (let start = 0; start < N; start += 4000) {
    const entities = Array.from({ length: 4000 }, (_, k) => {
      const i = start + k;
      return { _id: id(i), n: i, name: `entity ${i}`, kind: KINDS[i % 3], nested: { even: i % 2 === 0, tags: ['a', i] } };
    });
    await hub.json('/datasets/x/entities', { method: 'POST', json: entities });
  }
  // A second version of the last entity, for the history.
  await hub.json('/datasets/x/entities', {
    method: 'POST',
    json: [{ _id: id(N - 1), n: N - 1, name: 'renamed', kind: KINDS[(N - 1) % 3], nested: { even: false, tags: ['a', N - 1] } }],
  });
  // A pipe writing to x that declares an index on x: the explorer offers it as a subset.
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'x-feed', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'x', indexes: ['_S.kind'] } }],
  });
  await hub.json('/datasets/y/entities', { method: 'POST', json: [{ _id: 'kept' }, { _id: 'gone', _deleted: true }] });
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'copy', type: 'pipe', source: { type: 'dataset', dataset: 'x' }, sink: { type: 'dataset', dataset: 'x-copy' }, pump: { mode: 'manual' } }],
  });
  page = await browser.newPage({ acceptDownloads: true, viewport: { width: 1400, height: 900 } });
  const m = /one-time link: (\S+)/.exec(hub.output());
  assert.ok(m, `serve printed a login link:\n${hub.output()}`);
  await page.goto(m[1]!);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

const rows = (): Locator => page.getByTestId('entity-row');

/** The _id and row number of the first row in the DOM, and of the selected one. */
async function rowText(row: Locator): Promise<{ num: number; id: string }> {
  const num = Number((await row.locator('.num').textContent())?.trim());
  const first = (await row.getByRole('gridcell').first().textContent())?.trim() ?? '';
  return { num, id: first };
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function waitFirstId(expected: string): Promise<void> {
  await waitFor(`the first row to be ${expected}`, async () => (await rows().count()) > 0 && (await rowText(rows().first())).id === expected);
}

async function selectedRow(): Promise<{ num: number; id: string }> {
  return rowText(page.locator('[data-testid="entity-row"][aria-selected="true"]'));
}

test('the datasets list shows entity counts and filters by name', async () => {
  await page.getByRole('button', { name: /^Datasets/ }).click();
  const row = page.getByTestId('datasets').locator('tr', { has: page.getByRole('button', { name: 'x', exact: true }) });
  assert.match((await row.textContent()) ?? '', /8,000/, 'entity count of x');
  await page.getByTestId('dataset-filter').fill('y');
  await page.getByTestId('datasets').getByRole('button', { name: 'x', exact: true }).waitFor({ state: 'detached' });
  assert.deepEqual(await page.getByTestId('datasets').locator('tbody tr td:first-child').allTextContents(), ['y']);
  assert.match((await page.getByTestId('datasets-summary').textContent()) ?? '', /1 of 2 datasets · 1 entity$/);
  await page.screenshot({ path: join(shots, 'datasets-list.png') });
  await page.getByTestId('dataset-filter').fill('');
  await page.getByTestId('datasets').getByRole('button', { name: 'x', exact: true }).waitFor();
});

test('a large dataset scrolls virtualised, reading pages by since and dropping those far behind', async () => {
  await page.getByTestId('datasets').getByRole('button', { name: 'x', exact: true }).click();
  await waitFirstId('e0000');
  assert.match((await page.getByTestId('row-count').textContent()) ?? '', /8,000 entities/);
  const headers = await page.getByRole('columnheader').allTextContents();
  assert.deepEqual(headers.slice(0, 2), ['#', '_id'], '_id is the first column');
  assert.ok(headers.includes('nested') && headers.includes('kind'), `columns inferred from the first pages: ${headers.join(',')}`);
  assert.match((await rows().first().textContent()) ?? '', /\{"even":true,"tags":\["a",0\]\}/, 'nested values as compact JSON');
  await page.screenshot({ path: join(shots, 'explorer-table.png') });

  // Keyboard: the arrows and PageDown move the selection, and the view follows it.
  await page.getByTestId('entities').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.deepEqual(await selectedRow(), { num: 3, id: 'e0002' });
  await page.keyboard.press('PageDown');
  const afterPage = await selectedRow();
  assert.ok(afterPage.num > 10, `PageDown moved past the rows in view (row ${afterPage.num})`);
  assert.equal(afterPage.id, id(afterPage.num - 1));

  // Scroll to the end by jumping the scroll position; pages load as the view nears the end.
  await waitFor('the last entity to be rendered', async () => {
    await page.getByTestId('entities').evaluate((el) => (el.scrollTop = el.scrollHeight));
    return (await rows().last().textContent())?.includes(id(N - 1)) ?? false;
  }, 30_000);
  const inDom = await rows().count();
  assert.ok(inDom < 120, `only the rows in view are in the DOM (${inDom} of ${N})`);
  assert.equal((await rowText(rows().last())).num, N, 'rows are numbered through the whole dataset');
  await page.screenshot({ path: join(shots, 'explorer-scrolled.png') });

  // Home goes to the first row kept in memory: the first pages were dropped.
  await page.keyboard.press('Home');
  const top = await selectedRow();
  assert.ok(top.num > 1, `the window starts after the dropped pages (row ${top.num})`);
  assert.equal(top.id, id(top.num - 1));
  // Scrolling back up reads the dropped pages again by their since.
  await waitFor('the first entity to come back', async () => {
    await page.getByTestId('entities').evaluate((el) => (el.scrollTop = 0));
    return (await rowText(rows().first())).id === 'e0000';
  }, 30_000);
  assert.equal((await rowText(rows().first())).num, 1);

  // Enter shows the selected entity as JSON, with its history.
  await page.getByTestId('entities').focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.getByTestId('entity-json').filter({ hasText: '"_id": "e0001"' }).waitFor();
  await page.getByTestId('versions').locator('tbody tr').first().waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('entity-detail').waitFor({ state: 'detached' });

  await page.getByLabel('JSON', { exact: true }).check();
  await rows().first().filter({ hasText: '"_id":"e0000"' }).waitFor();
  await page.getByLabel('JSON', { exact: true }).uncheck();
});

test('search by _id shows an entity and says so when there is none', async () => {
  await page.getByTestId('search-id').fill('e0042');
  await page.getByRole('button', { name: 'Find' }).click();
  await page.getByTestId('entity-json').filter({ hasText: 'entity 42' }).waitFor();
  await page.getByTestId('search-id').fill('nope');
  await page.getByRole('button', { name: 'Find' }).click();
  const err = await page.getByTestId('search-error').textContent();
  assert.match(err ?? '', /No entity with _id "nope"/);
});

test("an entity's history follows _previous and diffs two versions", async () => {
  await page.getByTestId('search-id').fill(id(N - 1));
  await page.getByRole('button', { name: 'Find' }).click();
  await page.getByTestId('entity-json').filter({ hasText: 'renamed' }).waitFor();
  await page.getByTestId('versions').locator('tbody tr').nth(1).waitFor();
  assert.equal(await page.getByTestId('versions').locator('tbody tr').count(), 2, 'two versions');
  const diff = (await page.getByTestId('diff').textContent()) ?? '';
  assert.match(diff, new RegExp(`^- {3}"name": "entity ${N - 1}",$`, 'm'), `old line removed:\n${diff}`);
  assert.match(diff, /^\+ {3}"name": "renamed",$/m, 'new line added');
  assert.match(diff, new RegExp(`^ {4}"n": ${N - 1},$`, 'm'), 'unchanged line kept');
  await page.screenshot({ path: join(shots, 'explorer-history.png'), fullPage: true });
  await page.getByTestId('detail-close').click();
  await page.getByTestId('entity-detail').waitFor({ state: 'detached' });
});

test('a subset by index, downloaded as CSV through the link', async () => {
  await page.getByTestId('subset-index').locator('option').first().waitFor({ state: 'attached' });
  assert.deepEqual(await page.getByTestId('subset-index').locator('option').allTextContents(), ['_S.kind']);
  await page.getByTestId('subset-value').fill('b');
  await page.getByTestId('subset-apply').click();
  await waitFirstId('e0001');
  const shown = await rows().evaluateAll((els) => els.slice(0, 5).map((e) => e.querySelector('[role=gridcell]')?.textContent));
  assert.deepEqual(shown, ['e0001', 'e0004', 'e0007', 'e0010', 'e0013'], 'every third entity has kind b');
  await page.screenshot({ path: join(shots, 'explorer-subset.png') });

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-csv').click()]);
  assert.equal(download.suggestedFilename(), 'x.csv');
  const csv = readFileSync((await download.path())!, 'utf8');
  const lines = csv.split('\r\n').filter((l) => l !== '');
  assert.equal(lines[0], '_id,kind,n,name,nested');
  assert.equal(lines.length, 1 + Math.ceil((N - 1) / 3), 'the header and the subset only');
  assert.equal(lines[1], 'e0001,b,1,entity 1,"{""even"":false,""tags"":[""a"",1]}"');

  await page.getByTestId('subset-clear').click();
  await waitFirstId('e0000');
  const [whole] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
  const all = JSON.parse(readFileSync((await whole.path())!, 'utf8')) as { _id: string }[];
  assert.equal(all.length, N);
});

test('deleted entities can be hidden', async () => {
  await page.getByRole('button', { name: '← Datasets' }).click();
  await page.getByRole('button', { name: 'y', exact: true }).click();
  await waitFirstId('kept');
  assert.equal(await rows().count(), 2);
  await page.getByLabel('Show deleted').uncheck();
  const ids = (): Promise<(string | null | undefined)[]> => rows().evaluateAll((els) => els.map((e) => e.querySelector('[role=gridcell]')?.textContent));
  await waitFor('only the live entity', async () => JSON.stringify(await ids()) === '["kept"]');
  await page.getByLabel('Show deleted').check();
  await rows().nth(1).waitFor();
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
  const ops = await controls.locator('button').allTextContents();
  for (const op of ['start', 'stop', 'enable', 'disable', 'start-rescan', 'reset-rescan', 'discard-retries']) assert.ok(ops.includes(op), `${op} in ${ops.join(',')}`);
  assert.ok(await controls.locator('button[data-op="enable"]').isDisabled(), 'a manual pump does not support enable');
  assert.ok(await controls.locator('button[data-op="disable"]').isDisabled(), 'nor disable');
  assert.match((await page.getByTestId('pipe-config').textContent()) ?? '', /"dataset": "x-copy"/);

  await controls.locator('button[data-op="start"]').click();
  await page.getByTestId('pump-log').filter({ hasText: 'pump-completed' }).waitFor({ timeout: 10_000 });
  const log = (await page.getByTestId('pump-log').textContent()) ?? '';
  assert.match(log, /pump-started/);
  await page.getByTestId('pump-progress').filter({ hasText: /completed: 8,?000 processed/ }).waitFor({ timeout: 5000 });
  await page.screenshot({ path: join(shots, 'pipe-page.png'), fullPage: true });

  await page.getByRole('button', { name: /^Datasets/ }).click();
  const copy = page.getByTestId('datasets').locator('tr', { has: page.getByRole('button', { name: 'x-copy', exact: true }) });
  await copy.waitFor();
  assert.match((await copy.textContent()) ?? '', /8,000/);
});

test('an operation the hub refuses is shown in words', async () => {
  await page.getByRole('button', { name: /^Pipes/ }).click();
  await page.getByTestId('pipes').getByRole('button', { name: 'copy', exact: true }).click();
  await page.getByTestId('pump-controls').locator('button[data-op="discard-retries"]:not([disabled])').click();
  await page.getByTestId('pump-log').filter({ hasText: 'pump-discard-retries' }).waitFor();
  // Deleting the pipe behind the page's back: the next operation fails with the hub's reason.
  await hub.fetch('/pipes/copy', { method: 'DELETE' });
  await page.getByTestId('pump-controls').locator('button[data-op="start"]').click();
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

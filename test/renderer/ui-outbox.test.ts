// The pipe page's Outbox tab, in Chromium against the real hub: an outbound sql pipe runs offline (the Overview says
// so), its runs, a run's batches and a batch's entities are listed as the sql sink would have sent them (rows by
// primary key, batches of the sink's batch_size; a dataset stores properties in name order), two runs compare by key,
// and emptying asks first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';
import { pushEntities, runPump } from '../helpers/api.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

before(async () => {
  hub = await startHub();
  browser = await launchChromium();
  await pushEntities(hub, 'people', [
    { _id: 'p1', pid: 1, name: 'Ann' },
    { _id: 'p2', pid: 2, name: 'Bo' },
    { _id: 'p3', pid: 3, name: 'Cy', _deleted: true },
  ]);
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'people-to-db',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'people' },
        sink: { type: 'sql', system: 'hr-db', table: 'person', primary_key: 'pid', batch_size: 2 },
        pump: { mode: 'manual' },
      },
    ],
  });
  await runPump(hub, 'people-to-db');
  await pushEntities(hub, 'people', [
    { _id: 'p2', pid: 2, name: 'Bob' },
    { _id: 'p4', pid: 4, name: 'Di' },
  ]);
  await runPump(hub, 'people-to-db');
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await signIn(page, hub);
});

after(async () => {
  assert.deepEqual(pageErrors, [], 'the page raised no errors');
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

const cells = async (selector: string): Promise<string[][]> =>
  page.locator(`${selector} tbody tr`).evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));

/** The rows once `ready` says they are what is awaited (or after 10 s, whatever they are). */
async function cellsWhen(selector: string, ready: (rows: string[][]) => boolean): Promise<string[][]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const rows = await cells(selector);
    if (ready(rows) || Date.now() > until) return rows;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('the Overview says the run was offline and leads to the Outbox tab', async () => {
  await page.goto(`${hub.url}/#/pipes/people-to-db/overview`);
  const offline = page.getByTestId('ran-offline');
  await offline.waitFor();
  await offline.getByRole('button', { name: 'see the outbox' }).click();
  assert.equal(await page.getByRole('tab', { name: 'Outbox' }).getAttribute('aria-selected'), 'true');
  await page.getByTestId('outbox-runs').waitFor();
});

test('runs, a run\'s batches and a batch\'s entities show what the sql sink would have sent', async () => {
  await page.goto(`${hub.url}/#/pipes/people-to-db/outbox`);
  await page.getByTestId('outbox-runs').waitFor();
  const runs = await cellsWhen('[data-testid="outbox-runs"]', (rows) => rows.length === 2);
  // Newest first: the second run sent p2 and p4; the first sent all three (two upserts, one delete).
  assert.deepEqual(
    runs.map((r) => r.slice(1, 4)),
    [
      ['1', '2', '2 upsert'],
      ['2', '3', '2 upsert, 1 delete'],
    ],
  );
  await page.getByTestId('outbox-runs').getByRole('button', { name: /Show run/ }).nth(1).click();
  await page.getByTestId('outbox-batches').waitFor();
  const batches = await cellsWhen('[data-testid="outbox-batches"]', (rows) => rows.length === 2);
  assert.deepEqual(
    batches.map((b) => [b[0], b[3]]),
    [
      ['1', '2'],
      ['2', '1'],
    ],
    'batch_size 2 makes batches of 2 and 1',
  );
  assert.match(batches[0]![2]!, /"table":"person"/);
  await page.getByRole('button', { name: 'Show batch 2' }).click();
  await page.getByTestId('outbox-entities').waitFor();
  assert.deepEqual(await cellsWhen('[data-testid="outbox-entities"]', (rows) => rows[0]?.[0] === '3'), [['3', 'delete', 'null']]);
  await page.getByRole('button', { name: 'Show batch 1' }).click();
  assert.deepEqual(await cellsWhen('[data-testid="outbox-entities"]', (rows) => rows[0]?.[0] === '1' && rows.length === 2), [
    ['1', 'upsert', '{"name":"Ann","pid":1}'],
    ['2', 'upsert', '{"name":"Bo","pid":2}'],
  ]);
});

test('two runs compare by key: added, changed and not sent again', async () => {
  await page.getByTestId('outbox-compare').getByRole('button', { name: 'Compare' }).click();
  const diff = page.getByTestId('outbox-diff');
  await diff.waitFor();
  assert.equal(((await diff.locator('h3').textContent()) ?? '').trim(), '1 added, 1 changed, 2 not sent again, 0 unchanged');
  const rows = await cells('[data-testid="outbox-diff"]');
  assert.deepEqual(
    rows.map((r) => [r[0], r[1]]),
    [
      ['4', 'added'],
      ['2', 'changed'],
      ['1', 'not sent again'],
      ['3', 'not sent again'],
    ],
  );
  assert.deepEqual(rows[1]!.slice(2), ['upsert {"name":"Bo","pid":2}', 'upsert {"name":"Bob","pid":2}']);
});

test('emptying the outbox asks first, then the tab says nothing is recorded', async () => {
  await page.getByRole('button', { name: 'Empty…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Empty' }).click();
  await page.getByTestId('outbox-empty').waitFor();
  assert.equal((await hub.json<{ total: number }>('/pipes/people-to-db/outbox')).total, 0);
});

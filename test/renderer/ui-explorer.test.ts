// The dataset explorer and the pipe page, driven in Chromium against the real hub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { runPump } from '../helpers/api.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const shots = join(REPO, 'test-results', 'screenshots');
/** More rows than the explorer keeps in memory (30 pages of 200), so scrolling drops and re-reads pages. */
const N = 8000;
/** Entities from here on have a key the first pages lack: it must still become a column. */
const LATE = 6000;
const KINDS = ['a', 'b', 'c'];
const id = (i: number): string => `e${String(i).padStart(4, '0')}`;

interface Stored {
  _id: string;
  _updated: number;
  _previous?: number | null;
  _deleted?: boolean;
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  browser = await launchChromium();
  for (let start = 0; start < N; start += 4000) {
    const entities = Array.from({ length: 4000 }, (_, k) => {
      const i = start + k;
      return { _id: id(i), n: i, name: `entity ${i}`, kind: KINDS[i % 3], nested: { even: i % 2 === 0, tags: ['a', i] }, ...(i >= LATE ? { late: `late ${i}` } : {}) };
    });
    await hub.json('/datasets/x/entities', { method: 'POST', json: entities });
  }
  // A second version of the last entity, for the history.
  await hub.json('/datasets/x/entities', {
    method: 'POST',
    json: [{ _id: id(N - 1), n: N - 1, name: 'renamed', kind: KINDS[(N - 1) % 3], nested: { even: false, tags: ['a', N - 1] }, late: 'late renamed' }],
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
  // A run of a pipe writes the hub's own execution log (a system: dataset, read-only through the API): hidden from
  // the list until asked for.
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'demo-log', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'run-1' }] }, sink: { type: 'null' }, pump: { mode: 'manual' } }] });
  await runPump(hub, 'demo-log', 'start', 30_000);
  // Dataset h: an entity with three versions (the second a deletion), one with many (for the quick-switch race).
  await hub.json('/datasets/h/entities', { method: 'POST', json: [{ _id: 'multi', name: 'one', n: 1 }, { _id: 'quick', step: 1 }] });
  await hub.json('/datasets/h/entities', { method: 'POST', json: [{ _id: 'multi', _deleted: true }, { _id: 'quick', step: 2 }] });
  await hub.json('/datasets/h/entities', { method: 'POST', json: [{ _id: 'multi', name: 'three', n: 3, extra: true }] });
  for (let k = 1; k <= 30; k++) await hub.json('/datasets/h/entities', { method: 'POST', json: [{ _id: 'slow', k }] });
  page = await browser.newPage({ acceptDownloads: true, viewport: { width: 1400, height: 900 } });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

const rows = (): Locator => page.getByTestId('entity-row');

/** The _id and row number (or offset) of a row. */
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

/** The _ids of the rows in the DOM, in order. */
function shownIds(): Promise<string[]> {
  return rows().evaluateAll((els) => els.map((e) => e.querySelector('[role=gridcell]')?.textContent ?? ''));
}

/** The _id of the row at the top edge of the table's viewport (waits for rows to be rendered there). */
async function topVisibleId(): Promise<string> {
  let found = '';
  await waitFor('a row at the top of the view', async () => (found = await rowAtTop()) !== '');
  return found;
}

function rowAtTop(): Promise<string> {
  return page.getByTestId('entities').evaluate((grid) => {
    // The first row below the header row, which stays at the top of the grid.
    const top = (grid.querySelector('[role=row]:not([data-testid])') ?? grid).getBoundingClientRect().bottom + 1;
    for (const row of grid.querySelectorAll('[data-testid="entity-row"]')) {
      const r = row.getBoundingClientRect();
      if (r.top <= top && r.bottom > top) return row.querySelector('[role=gridcell]')?.textContent ?? '';
    }
    return '';
  });
}

async function openDataset(name: string): Promise<void> {
  await page.getByRole('button', { name: /^Datasets/ }).click();
  if (await page.getByRole('button', { name: '← Datasets' }).isVisible()) await page.getByRole('button', { name: '← Datasets' }).click();
  await page.getByTestId('datasets').getByRole('button', { name, exact: true }).click();
}

async function find(entityId: string): Promise<void> {
  await page.getByTestId('search-id').fill(entityId);
  await page.getByRole('button', { name: 'Find' }).click();
}

const headers = (): Promise<string[]> => page.getByRole('columnheader').allTextContents();

test('the datasets list says Loading before its first answer, shows counts, filters and sorts', async () => {
  // Hold the list's request until "Loading…" has been seen (the real answer follows).
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  await page.route(/\/api\/datasets$/, async (route) => {
    await gate;
    await route.continue();
  });
  await page.getByRole('button', { name: /^Datasets/ }).click();
  await page.getByTestId('datasets-loading').waitFor();
  assert.equal(await page.getByTestId('datasets-empty').count(), 0, 'not "No datasets yet." before the answer');
  release();
  const row = page.getByTestId('datasets').locator('tr[data-dataset="x"]');
  await row.waitFor();
  await page.unroute(/\/api\/datasets$/);
  await textMatches(row, /8,000/, 'entity count of x');
  await textMatches(row, /s ago|min ago/, 'the time of the last change');
  // Versions stored and the space they take: x has 8,000 entities and one second version; h 3 + 2 + 30 versions.
  assert.equal(await row.getByTestId('stored-versions').textContent(), '8,001');
  await textMatches(row.getByTestId('bytes-on-disk'), /^\d+\.\d (kB|MB)$/);
  assert.equal(await page.getByTestId('datasets').locator('tr[data-dataset="h"]').getByTestId('stored-versions').textContent(), '35');

  const names = (): Promise<string[]> => page.getByTestId('datasets').locator('tbody tr td:first-child').allTextContents();
  await page.getByTestId('sort-count').click();
  assert.equal((await names())[0], 'x', 'the largest dataset first');
  const byCount = await names();
  await page.getByTestId('sort-count').click();
  assert.deepEqual(await names(), [...byCount].reverse(), 'a second click reverses the order');
  await page.getByTestId('sort-change').click();
  assert.equal((await names())[0], 'h', 'the dataset changed last comes first');

  assert.ok(!(await names()).some((n) => n.startsWith('system:')), 'system datasets hidden by default');
  await page.getByTestId('show-system').check();
  await waitFor('system datasets', async () => (await names()).includes('system:pump_execution:demo-log'));
  await page.getByTestId('show-system').uncheck();

  await page.getByTestId('dataset-filter').fill('y');
  await row.waitFor({ state: 'detached' });
  assert.deepEqual(await names(), ['y']);
  await textMatches(page.getByTestId('datasets-summary'), /^1 of \d+ datasets · 1 entity$/);
  await page.getByTestId('dataset-filter').fill('');
  await page.getByTestId('sort-change').click();
  await row.waitFor();
  await page.screenshot({ path: join(shots, 'datasets-list.png') });
});

test('the list refreshes its counts, and deletes a dataset after a confirmation', async () => {
  await hub.json('/datasets/doomed/entities', { method: 'POST', json: [{ _id: 'a' }, { _id: 'b' }] });
  const row = page.getByTestId('datasets').locator('tr[data-dataset="doomed"]');
  await row.waitFor({ timeout: 10_000 });
  await hub.json('/datasets/doomed/entities', { method: 'POST', json: [{ _id: 'c' }] });
  await waitFor('the count to refresh', async () => (await row.locator('td').nth(1).textContent()) === '3', 10_000);

  await row.getByTestId('delete-dataset').click();
  const dialog = page.getByTestId('delete-confirm');
  await textMatches(dialog, /Delete dataset "doomed" and its 3 entities/);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  assert.equal((await hub.fetch('/datasets/doomed')).status, 200, 'Escape deletes nothing');

  await row.getByTestId('delete-dataset').click();
  await dialog.getByTestId('delete-yes').click();
  await page.getByTestId('datasets-message').filter({ hasText: 'Deleted dataset "doomed"' }).waitFor();
  await row.waitFor({ state: 'detached' });
  assert.equal((await hub.fetch('/datasets/doomed')).status, 404, 'the dataset is gone from the hub');
});

test('a large dataset scrolls virtualised, reading pages by since and dropping those far behind', async () => {
  await page.getByTestId('datasets').getByRole('button', { name: 'x', exact: true }).click();
  await waitFirstId('e0000');
  await page.getByTestId('row-count').filter({ hasText: /8,000 entities/ }).waitFor();
  const first = await headers();
  assert.deepEqual(first.slice(0, 2), ['#', '_id'], '_id is the first column');
  assert.ok(first.includes('nested') && first.includes('kind'), `columns inferred from the first pages: ${first.join(',')}`);
  assert.ok(!first.includes('late'), 'a key of later pages is not known yet');
  assert.ok(!first.includes('_hash') && first.includes('_updated'), 'bookkeeping keys hidden by default, the offset shown');
  const firstRowText = (await rows().first().textContent()) ?? '';
  assert.match(firstRowText, /\{"even":true,"tags":\["a",0\]\}/, 'nested values as compact JSON');
  const nested = rows().first().locator('[role=gridcell]', { hasText: '"even"' });
  assert.equal(await nested.getAttribute('title'), '{"even":true,"tags":["a",0]}', 'the full value as a tooltip');
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
  assert.ok((await headers()).includes('late'), 'a key that first appears in a later page became a column');
  await textMatches(rows().last(), /late renamed/);
  await page.screenshot({ path: join(shots, 'explorer-scrolled.png') });

  // Home goes to the first row kept in memory: the first pages were dropped.
  await page.keyboard.press('Home');
  const top = await selectedRow();
  assert.ok(top.num > 1, `the window starts after the dropped pages (row ${top.num})`);
  assert.equal(top.id, id(top.num - 1));
  // Scrolling up a little reads the page dropped last again, and the rows in view stay where they are.
  const grid = page.getByTestId('entities');
  const firstLoaded = (await rowText(rows().first())).num;
  await grid.evaluate((el) => (el.scrollTop = 20 * 28));
  const before = await topVisibleId();
  await waitFor('the page above to be read again', async () => (await rowText(rows().first())).num < firstLoaded && (await page.getByTestId('loading').count()) === 0);
  assert.equal(await topVisibleId(), before, 'the row at the top of the view did not move when rows were added above it');
  // Scrolling back to the top reads every dropped page again by its since.
  await waitFor('the first entity to come back', async () => {
    await grid.evaluate((el) => (el.scrollTop = 0));
    return (await rowText(rows().first())).id === 'e0000';
  }, 30_000);
  assert.equal((await rowText(rows().first())).num, 1);

  // Enter shows the selected entity as JSON, with its history.
  await grid.focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.getByTestId('entity-json').filter({ hasText: '"_id": "e0001"' }).waitFor();
  await page.getByTestId('versions').locator('tbody tr').first().waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('entity-detail').waitFor({ state: 'detached' });

  // The JSON view: one compact line per row; → expands the selected row to pretty-printed JSON.
  await page.getByLabel('JSON', { exact: true }).check();
  await rows().first().filter({ hasText: '"_id":"e0000"' }).waitFor();
  await grid.focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  const pretty = page.getByTestId('row-json').first();
  await pretty.waitFor();
  await textMatches(pretty, /^\{\n {2}"_id": "e0000",\n/, 'pretty-printed, two-space indent');
  await page.screenshot({ path: join(shots, 'explorer-json.png') });
  await page.keyboard.press('ArrowLeft');
  await pretty.waitFor({ state: 'detached' });
  await page.getByLabel('JSON', { exact: true }).uncheck();
});

test('columns can be hidden and resized, and the choice is remembered for the dataset', async () => {
  await page.getByTestId('columns-button').click();
  const menu = page.getByTestId('columns-menu');
  await menu.getByLabel('name', { exact: true }).uncheck();
  await menu.getByLabel('_ts', { exact: true }).check();
  await page.keyboard.press('Escape');
  await waitFor('name hidden', async () => !(await headers()).includes('name'));
  assert.ok((await headers()).includes('_ts'));
  assert.match(await page.getByTestId('columns-button').textContent() ?? '', /\(\d+ hidden\)/);

  const kind = page.locator('[role=columnheader][data-column="kind"]');
  const widthBefore = (await kind.boundingBox())!.width;
  const grip = kind.getByTestId('column-grip');
  const box = (await grip.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 120, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  const widthAfter = (await kind.boundingBox())!.width;
  assert.ok(Math.abs(widthAfter - widthBefore - 117) < 6, `dragged ${widthBefore} → ${widthAfter}`);
  const cell = rows().first().getByRole('gridcell').nth((await headers()).indexOf('kind') - 1);
  assert.ok(Math.abs((await cell.boundingBox())!.width - widthAfter) < 2, 'the cells follow their header');

  await page.reload();
  await waitFirstId('e0000');
  assert.ok(!(await headers()).includes('name') && (await headers()).includes('_ts'), 'hidden and shown columns remembered');
  assert.ok(Math.abs((await kind.boundingBox())!.width - widthAfter) < 2, 'the width remembered');

  await page.getByTestId('columns-button').click();
  await menu.getByRole('button', { name: 'Default widths' }).click();
  await menu.getByLabel('name', { exact: true }).check();
  await menu.getByLabel('_ts', { exact: true }).uncheck();
  await page.keyboard.press('Escape');
  await waitFor('name shown again', async () => (await headers()).includes('name'));
  assert.ok(Math.abs((await kind.boundingBox())!.width - widthBefore) < 2);
});

test('newest first shows the highest offsets first; Go to offset starts there and reads back when scrolling up', async () => {
  const info = await hub.json<{ 'max-updated': number }>('/datasets/x');
  await page.getByTestId('newest-first').check();
  await waitFirstId(id(N - 1));
  const offsets = await rows().evaluateAll((els) => els.slice(0, 20).map((e) => Number(e.getAttribute('data-offset'))));
  assert.equal(offsets[0], info['max-updated'], 'the newest entity first');
  assert.ok(offsets.every((o, i) => i === 0 || o < offsets[i - 1]!), `offsets go down: ${offsets.join(',')}`);
  assert.equal((await rowText(rows().first())).num, 1);
  await page.getByTestId('newest-first').uncheck();
  await waitFirstId('e0000');

  const target = (await hub.json<Stored>(`/datasets/x/entity?entity_id=${id(5000)}`))._updated;
  await page.getByTestId('offset-input').fill(String(target));
  await page.getByTestId('offset-input').press('Enter');
  await waitFor('the view to start at the offset', async () => (await topVisibleId()) === id(5000));
  assert.equal((await selectedRow()).id, id(5000), 'the row at the offset is selected');
  assert.equal(Number(await page.locator('[data-testid="entity-row"][aria-selected="true"]').getAttribute('data-offset')), target);
  assert.equal((await headers())[0], 'offset', 'row numbers are unknown: the offsets are shown');
  await textMatches(page.getByTestId('offset-note'), new RegExp(`Starting at offset ${target}`));
  await waitFor('the rows before the offset', async () => {
    await page.getByTestId('entities').evaluate((el) => (el.scrollTop = 0));
    const firstId = (await rowText(rows().first())).id;
    return firstId < id(4800);
  });
  const ids = await shownIds();
  assert.ok(ids.every((v, i) => i === 0 || v > ids[i - 1]!), 'rows read backwards come in order, without gaps or repeats');

  await page.getByTestId('offset-input').fill('twelve');
  await page.getByTestId('offset-input').press('Enter');
  await textMatches(page.getByTestId('offset-error'), /"twelve" is not an offset/);
  await page.getByTestId('offset-note').getByRole('button', { name: 'Back to the start' }).click();
  await waitFirstId('e0000');
  assert.equal((await headers())[0], '#');
});

test('search by _id opens the entity, marks its row and brings the detail into view; a miss says so', async () => {
  await find('e0042');
  await page.getByTestId('entity-json').filter({ hasText: 'entity 42' }).waitFor();
  const marked = page.locator('[data-testid="entity-row"].found');
  await marked.waitFor();
  assert.equal((await rowText(marked)).id, 'e0042', 'the found row is marked in the table');
  assert.equal((await selectedRow()).id, 'e0042', 'and selected');
  const box = await page.getByTestId('entity-detail').evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom };
  });
  const inView = box.top < page.viewportSize()!.height && box.bottom > 0;
  assert.ok(inView, 'the detail panel was scrolled into view');

  // An entity outside the loaded rows: "Show in table" starts the table at its offset.
  await find(id(7000));
  await page.getByTestId('entity-json').filter({ hasText: 'entity 7000' }).waitFor();
  // Scrolled down the current rows first: the new start must not keep that position.
  await page.getByTestId('entities').evaluate((el) => (el.scrollTop = 900));
  await page.getByTestId('show-in-table').click();
  await waitFor('the table to start at the entity', async () => (await topVisibleId()) === id(7000));
  assert.equal((await rowText(marked)).id, id(7000), 'and it is marked');
  await page.getByTestId('offset-note').getByRole('button', { name: 'Back to the start' }).click();
  await waitFirstId('e0000');

  await find('nope');
  const err = await page.getByTestId('search-error').textContent();
  assert.match(err ?? '', /No entity has the _id "nope" in this dataset/);
  await page.getByTestId('detail-close').click();
});

test('history: any two versions compared, deleted versions marked', async () => {
  await openDataset('h');
  await waitFirstId('quick');
  await textMatches(page.getByTestId('storage'), /^\s*35 versions · \d+\.\d kB on disk\s*$/);
  await find('multi');
  const versions = page.getByTestId('versions').locator('tbody tr');
  await versions.nth(2).waitFor();
  assert.equal(await versions.count(), 3, 'three versions');
  assert.deepEqual(
    await versions.locator('td:nth-child(3)').allTextContents(),
    ['v3 (latest)', 'v2', 'v1'],
  );
  assert.equal(await versions.nth(1).getByTestId('deleted-version').count(), 1, 'the deletion is marked');
  await textMatches(page.getByTestId('compare-caption'), /from v2 · offset \d+ · deleted to v3 \(latest\)/);

  await versions.nth(2).getByTestId('pick-from').check();
  await page.getByTestId('compare-caption').filter({ hasText: /from v1 · offset \d+ to v3/ }).waitFor();
  const diff = page.getByTestId('text-diff');
  const removed = await diff.locator('td[data-op="-"]').allTextContents();
  const added = await diff.locator('td[data-op="+"]').allTextContents();
  assert.ok(removed.some((l) => l.includes('"name": "one"')), `v1's name removed: ${removed.join(' | ')}`);
  assert.ok(added.some((l) => l.includes('"name": "three"')), `v3's name added: ${added.join(' | ')}`);
  assert.ok(added.some((l) => l.includes('"extra": true')), 'a key only v3 has');
  assert.ok(!removed.concat(added).some((l) => l.includes('_deleted')), 'v1 to v3 skips the deletion between them');
  await page.getByTestId('entity-detail').screenshot({ path: join(shots, 'explorer-history-compare.png') });
});

test('opening another entity while a history is still loading shows only its own versions', async () => {
  // Hold the older versions of "slow" until "quick" is open: the answers for slow arrive after the switch.
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started = 0;
  let finished = 0;
  const isSlow = (url: string): boolean => url.includes('entity_id=slow&offset=');
  page.on('request', (r) => void (isSlow(r.url()) && started++));
  page.on('requestfinished', (r) => void (isSlow(r.url()) && finished++));
  page.on('requestfailed', (r) => void (isSlow(r.url()) && finished++));
  await page.route((url) => isSlow(url.toString()), async (route) => {
    await gate;
    await route.continue();
  });
  await find('slow');
  await page.getByTestId('entity-json').filter({ hasText: '"_id": "slow"' }).waitFor();
  await waitFor('an older version of slow to be asked for', async () => started > 0);
  await find('quick');
  await page.getByTestId('entity-json').filter({ hasText: '"_id": "quick"' }).waitFor();
  release();
  await waitFor('every request for slow to finish', async () => started === finished && (await page.getByTestId('history-loading').count()) === 0);
  await page.unroute((url) => isSlow(url.toString()));

  const quick = await hub.json<Stored>('/datasets/h/entity?entity_id=quick');
  const older = await hub.json<Stored>(`/datasets/h/entity?entity_id=quick&offset=${quick._previous}`);
  const shown = await page.getByTestId('versions').locator('tbody tr').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-offset'))));
  assert.deepEqual(shown, [quick._updated, older._updated], 'quick\'s two versions, none of slow\'s');
  await page.getByTestId('detail-close').click();
});

test('Follow shows entities written after the dataset was opened, at the end or on top when newest first', async () => {
  await hub.json('/datasets/live/entities', { method: 'POST', json: [{ _id: 'l1' }, { _id: 'l2' }] });
  await openDataset('live');
  await waitFirstId('l1');
  await page.getByTestId('following').waitFor();
  await hub.json('/datasets/live/entities', { method: 'POST', json: [{ _id: 'l3', late: 'column' }, { _id: 'l4' }] });
  await waitFor('the new entities at the end', async () => JSON.stringify(await shownIds()) === '["l1","l2","l3","l4"]');
  assert.ok((await headers()).includes('late'), 'their new key became a column');
  await page.getByTestId('row-count').filter({ hasText: /\b4 entities/ }).waitFor(); // the count followed

  await page.getByTestId('newest-first').check();
  await waitFirstId('l4');
  await hub.json('/datasets/live/entities', { method: 'POST', json: [{ _id: 'l5' }] });
  await waitFor('the new entity on top', async () => JSON.stringify(await shownIds()) === '["l5","l4","l3","l2","l1"]');
  await page.getByTestId('newest-first').uncheck();
  await waitFirstId('l1');

  // Without Follow, Refresh reads the rows again: a changed entity moves to the end (its old row is superseded).
  await page.getByTestId('follow').uncheck();
  await hub.json('/datasets/live/entities', { method: 'POST', json: [{ _id: 'l2', changed: true }] });
  await page.getByTestId('refresh').click();
  await waitFor('the refreshed rows', async () => JSON.stringify(await shownIds()) === '["l1","l3","l4","l5","l2"]');
  await page.getByTestId('follow').check();
});

test('a subset by index, downloaded as CSV with progress and the columns explained', async () => {
  await openDataset('x');
  await waitFirstId('e0000');
  await page.getByTestId('subset-index').locator('option').first().waitFor({ state: 'attached' });
  assert.deepEqual(await page.getByTestId('subset-index').locator('option').allTextContents(), ['_S.kind']);
  await page.getByTestId('subset-value').fill('b');
  await page.getByTestId('subset-apply').click();
  await waitFirstId('e0001');
  const shown = (await shownIds()).slice(0, 5);
  assert.deepEqual(shown, ['e0001', 'e0004', 'e0007', 'e0010', 'e0013'], 'every third entity has kind b');
  assert.ok(await page.getByTestId('newest-first').isDisabled(), 'a subset is read oldest first');
  await page.screenshot({ path: join(shots, 'explorer-subset.png') });

  const note = (await page.getByTestId('download-note').textContent()) ?? '';
  assert.match(note, /CSV: deleted entities are\s+always left out/);
  assert.match(note, /the columns are _id and the properties of the first 1,000 entities/);

  // Hold the check of the download for a moment: the page says it is preparing the file.
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  await page.route(/\/desktop\/downloads$/, async (route) => {
    await gate;
    await route.continue();
  });
  const downloading = page.waitForEvent('download');
  await page.getByTestId('download-csv').click();
  await page.getByTestId('download-status').filter({ hasText: 'Preparing the CSV file…' }).waitFor();
  release();
  const download = await downloading;
  await page.unroute(/\/desktop\/downloads$/);
  assert.equal(download.suggestedFilename(), 'x.csv');
  const csv = readFileSync((await download.path())!, 'utf8');
  const lines = csv.split('\r\n').filter((l) => l !== '');
  assert.equal(lines[0], '_id,kind,n,name,nested', 'columns from the first 1000 entities (no "late")');
  assert.equal(lines.length, 1 + Math.ceil((N - 1) / 3), 'the header and the subset only');
  assert.equal(lines[1], 'e0001,b,1,entity 1,"{""even"":false,""tags"":[""a"",1]}"');
  await page.getByTestId('download-status').filter({ hasText: /^Downloaded x\.csv \(\d+\.\d kB, [\d,]+ bytes\)\.$/ }).waitFor();
  const bytes = Number(/([\d,]+) bytes/.exec((await page.getByTestId('download-status').textContent())!)![1]!.replace(/,/g, ''));
  assert.equal(bytes, Buffer.byteLength(csv), 'the bytes reported are the bytes of the file');

  await page.getByTestId('subset-clear').click();
  await waitFirstId('e0000');
  const [whole] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
  const all = JSON.parse(readFileSync((await whole.path())!, 'utf8')) as { _id: string }[];
  assert.equal(all.length, N);
});

test('deleted entities can be hidden; a failing read or download says why in words', async () => {
  await openDataset('y');
  await waitFirstId('kept');
  assert.equal(await rows().count(), 2);
  // The count says how many of them are deletions, in words with their spaces.
  await page.getByTestId('row-count').filter({ hasText: /\b2\s+entities\s+\(1\s+deleted\)/ }).waitFor();
  await page.getByLabel('Show deleted').uncheck();
  await waitFor('only the live entity', async () => JSON.stringify(await shownIds()) === '["kept"]');
  await page.getByLabel('Show deleted').check();
  await rows().nth(1).waitFor();
  // A dataset deleted while it is open: the next read and the next download say why they failed.
  await hub.fetch('/datasets/y', { method: 'DELETE' });
  await page.getByTestId('download-json').click();
  await page.getByTestId('download-status').filter({ hasText: /The JSON download failed \(404\): dataset "y" not found/ }).waitFor();
  await page.getByLabel('Show deleted').uncheck();
  await textMatches(page.getByTestId('dataset-error'), /Reading dataset "y" failed \(404\)/);
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
  await textMatches(page.getByTestId('pipe-config'), /"dataset": "x-copy"/);

  await controls.locator('button[data-op="start"]').click();
  await page.getByTestId('pump-log').filter({ hasText: 'pump-completed' }).waitFor({ timeout: 10_000 });
  const log = (await page.getByTestId('pump-log').textContent()) ?? '';
  assert.match(log, /pump-started/);
  await page.getByTestId('pump-progress').filter({ hasText: /completed: 8,?000 processed/ }).waitFor({ timeout: 5000 });
  await page.screenshot({ path: join(shots, 'pipe-page.png'), fullPage: true });

  await page.getByRole('button', { name: /^Datasets/ }).click();
  const copy = page.getByTestId('datasets').locator('tr', { has: page.getByRole('button', { name: 'x-copy', exact: true }) });
  await copy.waitFor();
  await textMatches(copy, /8,000/);
});

test('an operation the hub refuses is shown in words', async () => {
  await page.getByRole('button', { name: /^Pipes/ }).click();
  await page.getByTestId('pipes').getByRole('button', { name: 'copy', exact: true }).click();
  await page.getByTestId('pump-controls').locator('button[data-op="discard-retries"]:not([disabled])').click();
  await page.getByTestId('pump-log').filter({ hasText: 'pump-discard-retries' }).waitFor();
  // Deleting the pipe behind the page's back: the next operation fails with the hub's reason.
  await hub.fetch('/pipes/copy', { method: 'DELETE' });
  await page.getByTestId('pump-controls').locator('button[data-op="start"]').click();
  await textMatches(page.getByTestId('op-error'), /failed \(404\)/);
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

test('an integer beyond 2^53 (a hash128 value) shows its exact digits in the grid, the JSON view and the entity', async () => {
  // hub/documentation/data-management/entity-data-model.rst: integers are unlimited; a float would show ...008 as
  // 79267961763742110000000000000000000000.
  const big = '79267961763742113019008347020647561319';
  const res = await hub.fetch('/datasets/hashes/entities', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `[{"_id": "h1", "hash": ${big}, "small": 12}]` });
  assert.equal(res.status, 200, await res.text());
  await openDataset('hashes');
  await waitFirstId('h1');
  await textMatches(rows().first(), new RegExp(`${big}`), 'the grid cell');
  await page.getByLabel('JSON', { exact: true }).check();
  await textMatches(rows().first(), new RegExp(`"hash":${big},"small":12`), 'the JSON line');
  await page.getByLabel('JSON', { exact: true }).uncheck();
  await page.getByTestId('entities').focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  await textMatches(page.getByTestId('entity-json'), new RegExp(`"hash": ${big}`), 'the entity');
  await page.keyboard.press('Escape');
  await page.getByTestId('entity-detail').waitFor({ state: 'detached' });
});

// The workbench at real scale (issue 33.1): a generated project of 300 pipes with long namespaced-style ids, 36
// systems and 150 datasets, opened with `serve --workspace` in Chromium at 1440×900. The pipe, dataset and system
// lists show whole ids (cells not cut, the full text on hover), sort, filter by group / system / source type / sink
// type / state with a count per choice, and a column's edge drags to resize it. No pump starts on open.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startHub, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { signedInPage, closeAll, waitForScript } from '../helpers/browser.js';
import { writeBigProject, type BigProject } from '../helpers/big-project.js';

const SHOTS = '/tmp/ui-shots';
let hub: HubProcess;
let browser: Browser;
let page: Page;
let project: BigProject;
const dir = tempDir('datahub-big-');

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  project = writeBigProject(dir);
  hub = await startHub({ args: ['--workspace', dir] });
  // Datasets named like the pipes' (the lists of a project that has run), without running 300 pipes.
  for (const id of project.pipes.filter((p) => !p.endsWith('-to-') && !/-to-/.test(p)).slice(0, 150)) {
    await hub.json(`/datasets/${encodeURIComponent(id)}/entities`, { method: 'POST', json: [{ _id: 'a', [`${id}:name`]: 'x' }] });
  }
  ({ browser, page } = await signedInPage(hub));
});

after(async () => {
  await closeAll(browser, hub, dir);
});

/** Texts of the pipe list that are cut (wider than their box): the id line and the source → sink line of each row. */
const cutIds = (): Promise<string[]> =>
  page.getByTestId('pipes').evaluate((table) => {
    const cut: string[] = [];
    for (const line of table.querySelectorAll('tbody tr[data-testid="pipe-row"] td:first-child .line')) {
      if (line.scrollWidth > line.clientWidth + 1) cut.push((line.textContent ?? '').trim());
    }
    // Nor hidden beyond the list's right edge.
    const view = table.parentElement!.getBoundingClientRect();
    for (const cell of table.querySelectorAll('tbody tr[data-testid="pipe-row"] td:first-child')) {
      if (cell.getBoundingClientRect().right > view.right + 1) cut.push(`beyond the view: ${(cell.textContent ?? '').trim()}`);
    }
    return cut;
  });

const count = async (): Promise<string> => ((await page.getByTestId('pipe-count').textContent()) ?? '').trim();

test('opened calm: 300 pipes listed, none started', async () => {
  assert.equal(project.pipes.length, 300);
  await page.goto(`${hub.url}/#/pipes`);
  await page.getByTestId('pipe-count').filter({ hasText: '300 of 300' }).waitFor({ timeout: 20_000 });
  await page.getByTestId('scheduler-toggle').filter({ hasText: 'Schedules paused' }).waitFor();
  const pipes = await hub.json<{ runtime: { 'is-running': boolean; 'last-run'?: unknown } }[]>('/pipes');
  assert.equal(pipes.filter((p) => p.runtime['is-running'] || p.runtime['last-run']).length, 0, 'no pump ran on open');
});

test('the pipe list at 1440×900: whole ids in the pipe, source and sink columns, the full text on hover', async () => {
  await page.getByTestId('pipe-row').nth(20).waitFor();
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${SHOTS}/pipes-300.png` });
  assert.deepEqual(await cutIds(), [], 'no pipe, source or sink id is cut');
  // Every column fits the window: no sideways scrolling needed at 1440 px.
  const fit = await page.getByTestId('pipes').evaluate((t) => ({ table: t.getBoundingClientRect().width, view: t.parentElement!.clientWidth, cols: [...t.querySelectorAll('col')].map((c) => Math.round(c.getBoundingClientRect().width)) }));
  assert.ok(fit.table <= fit.view + 1, `the whole table fits the view: ${JSON.stringify(fit)}`);
  const longest = project.pipes.reduce((a, b) => (b.length > a.length ? b : a));
  await page.getByTestId('pipe-search').fill(longest);
  const row = page.locator(`tr[data-pipe="${longest}"]`);
  await row.waitFor();
  assert.equal(await row.locator('td').first().getAttribute('title'), longest);
  assert.deepEqual(await cutIds(), []);
  assert.match((await row.getByTestId('pipe-source').getAttribute('title')) ?? '', /^Source: type (sql|json|dataset|merge)/);
  await page.getByTestId('pipe-search').fill('');
  await page.getByTestId('pipe-count').filter({ hasText: '300 of 300' }).waitFor();
});

test('filters by group, system, source type, sink type and state, each choice with its count', async () => {
  const options = async (testId: string): Promise<string[]> => page.getByTestId(testId).locator('option').allTextContents();
  assert.ok((await options('pipe-group')).includes('hr (25)'), (await options('pipe-group')).join());
  const systems = await options('pipe-filter-system');
  assert.equal(systems.length, 1 + 36 + 1, 'all, each system, no system');
  const sources = await options('pipe-filter-source');
  // 59 inbound pipes read SQL tables or a REST gateway's JSON, one has its data embedded.
  assert.deepEqual(sources, ['all sources', 'dataset (180)', 'embedded (1)', 'json (19)', 'merge (60)', 'sql (40)']);
  assert.deepEqual(await options('pipe-filter-sink'), ['all sinks', 'dataset (240)', 'sql (60)']);
  assert.deepEqual(await options('pipe-filter-state'), ['all states', 'never run (300)']);

  await page.getByTestId('pipe-group').selectOption('hr');
  await page.getByTestId('pipe-count').filter({ hasText: '25 of 300' }).waitFor();
  // The other filters count within the group now.
  assert.deepEqual(await options('pipe-filter-sink'), ['all sinks', 'dataset (20)', 'sql (5)']);
  await page.getByTestId('pipe-filter-sink').selectOption('sql');
  await page.getByTestId('pipe-count').filter({ hasText: '5 of 300' }).waitFor();
  const ids = await page.getByTestId('pipe-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pipe') ?? ''));
  assert.ok(ids.length === 5 && ids.every((id) => id.startsWith('hr-') && /-to-/.test(id)), ids.join());
  await page.screenshot({ path: `${SHOTS}/pipes-300-filtered.png` });
  await page.getByTestId('pipe-filters-clear').click();
  await page.getByTestId('pipe-count').filter({ hasText: '300 of 300' }).waitFor();

  await page.getByTestId('pipe-filter-system').selectOption('payroll-rest-gateway');
  const n = Number(/\((\d+)\)/.exec((await page.getByTestId('pipe-filter-system').locator('option:checked').textContent()) ?? '')?.[1]);
  assert.ok(n > 0);
  assert.equal(await count(), `${n} of 300`, 'the count beside the choice is what the list shows');
  await page.getByTestId('pipe-filters-clear').click();
});

test('sorting by sink, and dragging a column edge resizes it', async () => {
  await page.getByTestId('sort-sink').click();
  // Sinks named after their pipe read "dataset"; the others by name, sorted.
  const sinks = async (): Promise<string[]> => (await page.getByTestId('pipe-sink').allTextContents()).map((t) => t.trim());
  const first = await sinks();
  assert.deepEqual(first, [...first].sort((a, b) => a.localeCompare(b)), first.join());
  await page.getByTestId('sort-sink').click();
  const last = await sinks();
  assert.ok(last[0]!.startsWith('sql · '), last.join());
  await page.getByTestId('sort-id').click();

  const col = (): Promise<number> => page.getByTestId('pipes').locator('col').nth(3).evaluate((c) => c.getBoundingClientRect().width);
  const before = await col();
  const grip = page.getByTestId('resize-last-run');
  const box = (await grip.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 90, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  const after = await col();
  assert.ok(Math.abs(after - before - 90) < 4, `the column grew by the drag: ${before} → ${after}`);
  await grip.dblclick();
  await waitForScript(page, `(() => {
    const c = document.querySelectorAll('[data-testid="pipes"] col')[3];
    return c !== undefined && Math.abs(c.getBoundingClientRect().width - ${before}) < 4;
  })()`);
});

test('the dataset list shows whole names at 1440×900', async () => {
  await page.goto(`${hub.url}/#/datasets`);
  await page.getByTestId('datasets-summary').filter({ hasText: /^150 of/ }).waitFor();
  const cut = await page.getByTestId('datasets').evaluate((table) =>
    [...table.querySelectorAll('tbody tr')].map((r) => r.querySelector('td')!).filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent),
  );
  assert.deepEqual(cut, []);
  // Every column in the window, the delete buttons too.
  const box = await page.getByTestId('delete-dataset').first().boundingBox();
  assert.ok(box && box.x + box.width <= 1440, `the delete button is in view: ${JSON.stringify(box)}`);
  await page.screenshot({ path: `${SHOTS}/datasets-150.png` });
  // Scrolled down, the column headings (and their sort buttons) stay in view above the rows.
  const top0 = (await page.getByTestId('sort-count').boundingBox())!.y;
  await page.getByTestId('datasets').evaluate((table) => (table.parentElement!.scrollTop = 2000));
  await page.locator('tr[data-dataset]').nth(60).waitFor();
  const scrolledBy = await page.getByTestId('datasets').evaluate((table) => table.parentElement!.scrollTop);
  assert.ok(scrolledBy > 1000, `the list scrolls in its own box: ${scrolledBy}`);
  assert.ok(Math.abs((await page.getByTestId('sort-count').boundingBox())!.y - top0) < 2, 'the header stays in view');
  await page.getByTestId('sort-count').click();
  await page.getByRole('columnheader', { name: /Entities/ }).and(page.locator('[aria-sort="descending"]')).waitFor();
});

test('the system list shows whole ids, filters by type with counts', async () => {
  await page.goto(`${hub.url}/#/systems`);
  const list = page.getByTestId('systems');
  await list.locator('li').nth(35).waitFor();
  const cut = await list.evaluate((ul) => [...ul.querySelectorAll('.id')].filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent));
  assert.deepEqual(cut, []);
  assert.deepEqual(await page.getByTestId('system-type-filter').locator('option').allTextContents(), ['all types (36)', 'system:mssql (12)', 'system:postgresql (12)', 'system:url (12)']);
  await page.getByTestId('system-type-filter').selectOption('system:url');
  assert.equal(await list.locator('li').count(), 12);
  await page.screenshot({ path: `${SHOTS}/systems-36.png` });
});

test('in a narrow window the pipe and dataset lists scroll sideways with the id column kept in place', async () => {
  await page.setViewportSize({ width: 900, height: 900 });
  try {
    /** Scroll the list holding `table` sideways; the left edge of its first row's id cell, and of the list. */
    const sideways = (table: string): Promise<{ scrolled: number; cell: number; view: number }> =>
      page.locator(table).evaluate((t) => {
        let box = t.parentElement!;
        while (box.scrollWidth <= box.clientWidth + 1 && box.parentElement) box = box.parentElement;
        box.scrollLeft = 400;
        return { scrolled: box.scrollLeft, cell: t.querySelector('tbody td')!.getBoundingClientRect().left, view: box.getBoundingClientRect().left };
      });
    await page.goto(`${hub.url}/#/pipes`);
    await page.getByTestId('pipe-row').nth(5).waitFor();
    await page.waitForTimeout(300);
    const pipes = await sideways('[data-testid="pipes"]');
    assert.ok(pipes.scrolled > 100, `the pipe list scrolls sideways: ${JSON.stringify(pipes)}`);
    assert.ok(Math.abs(pipes.cell - pipes.view) < 2, `the pipe column stays in place: ${JSON.stringify(pipes)}`);
    await page.goto(`${hub.url}/#/datasets`);
    await page.getByTestId('datasets-summary').filter({ hasText: /^150 of/ }).waitFor();
    await page.waitForTimeout(300);
    const datasets = await sideways('[data-testid="datasets"]');
    assert.ok(datasets.scrolled > 100, `the dataset list scrolls sideways: ${JSON.stringify(datasets)}`);
    assert.ok(Math.abs(datasets.cell - datasets.view) < 2, `the name column stays in place: ${JSON.stringify(datasets)}`);
  } finally {
    await page.setViewportSize({ width: 1440, height: 900 });
  }
});

// The pipe list's columns fit their text (issue 17.10): with room to spare no cell is cut off, and when the text is
// wider than the view the narrow columns keep their whole text while the wide ones share the rest — never a cut-off
// column beside free width. In Chromium against the real hub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

const PIPES = [
  // Published: the widest id carries the "published" marker too, which must fit beside it.
  {
    _id: 'customer-person-merged-with-crm-and-erp',
    type: 'pipe',
    source: { type: 'merge', datasets: ['crm-person c', 'erp-person e'], equality: [] },
    pump: { mode: 'manual' },
    metadata: { registry: { name: 'People', description: 'Merged people' } },
  },
  { _id: 'orders', type: 'pipe', source: { type: 'dataset', dataset: 'erp-orders-with-a-long-dataset-name' }, sink: { type: 'dataset', dataset: 'orders-enriched-for-the-warehouse' }, pump: { mode: 'manual' } },
  { _id: 'a', type: 'pipe', source: { type: 'embedded', entities: [] }, pump: { mode: 'manual' } },
];

interface Layout { view: number; table: number; cut: string[] }

/** Which header and body cells are cut off (their text wider than the cell), by column number. */
const layout = (): Promise<Layout> =>
  page.evaluate<Layout>(`(() => {
    const table = document.querySelector('[data-testid="pipes"]');
    const cut = [];
    for (const row of table.querySelectorAll('tr')) {
      [...row.children].forEach((cell, i) => {
        const inner = cell.querySelectorAll('.line').length > 0 ? [...cell.querySelectorAll('.line')] : [cell.querySelector('button.sort') ?? cell];
        for (const x of inner) if (x.scrollWidth > x.clientWidth + 1) cut.push(i + ':' + (x.textContent ?? '').trim());
      });
    }
    return { view: table.parentElement.clientWidth, table: Math.round(table.getBoundingClientRect().width), cut };
  })()`);

before(async () => {
  hub = await startHub();
  await hub.json('/pipes', { method: 'POST', json: PIPES });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 2560, height: 700 } });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

test('with room to spare, every column shows its whole text and the table spans the view', async () => {
  await page.goto(`${hub.url}/#/pipes`);
  await page.getByTestId('pipe-row').nth(2).waitFor();
  await page.waitForTimeout(300);
  const l = await layout();
  assert.deepEqual(l.cut, []);
  assert.ok(Math.abs(l.table - l.view) <= 2, `the table (${l.table}px) spans the view (${l.view}px)`);
});

test('narrower than the text: ids stay whole (issue 33.1); only the last-run text may give, no free width', async () => {
  await page.setViewportSize({ width: 1000, height: 700 });
  await page.waitForTimeout(400);
  const l = await layout();
  const cutColumns = new Set(l.cut.map((c) => Number(c.split(':')[0])));
  // 0 the pipe (id, source, sink) and 1 its group are never cut; nor the headings, state and schedule, config.
  for (const c of cutColumns) assert.ok([3].includes(c), `column ${c} is cut: ${l.cut.join(' | ')}`);
  assert.ok(l.table >= l.view - 2, `no free width beside cut columns: table ${l.table}px, view ${l.view}px`);
});

test('a short id keeps its "published" marker whole beside it', async () => {
  for (const p of PIPES) await hub.fetch(`/pipes/${p._id}`, { method: 'DELETE' });
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'c', type: 'pipe', source: { type: 'embedded', entities: [] }, pump: { mode: 'manual' }, metadata: { registry: { name: 'C' } } }] });
  await page.setViewportSize({ width: 1400, height: 700 });
  await page.goto(`${hub.url}/#/pipes`);
  await page.reload();
  await page.getByTestId('published-marker').waitFor();
  await page.waitForTimeout(300);
  assert.deepEqual((await layout()).cut, []);
});

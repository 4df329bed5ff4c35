// The Datasets list refreshes every 5 s without a reload (issue 33: scrolling while polls arrive). A poll that finds
// the list unchanged is answered 304 (GET /datasets' ETag) and touches no row; a dataset added, or written to, shows
// at the next poll, the other rows staying the very same elements with nothing in them written again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, type HubProcess } from '../helpers/hub-process.js';
import { signedInPage, closeAll } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

before(async () => {
  hub = await startHub();
  for (const id of ['poll-people', 'poll-places', 'poll-things']) {
    await hub.json(`/datasets/${id}/entities`, { method: 'POST', json: [{ _id: 'a' }, { _id: 'b' }] });
  }
  ({ browser, page } = await signedInPage(hub));
});

after(async () => {
  await closeAll(browser, hub);
});

// (Scripts as text: the tests are compiled without the DOM's types.)
/** Each row's element marked, and every change to a row's content outside its "N s ago" time recorded. */
const WATCH_ROWS = `(() => {
  const table = document.querySelector('[data-testid="datasets"]');
  for (const tr of table.querySelectorAll('tbody tr')) tr.kept = true;
  window.rowWrites = [];
  new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target instanceof Element ? r.target : r.target.parentElement;
      if (el?.closest('.ago')) continue;
      window.rowWrites.push(r.type + ' ' + (r.attributeName ?? '') + ' in ' + (el?.closest('tr')?.getAttribute('data-dataset') ?? el?.tagName));
    }
  }).observe(table.querySelector('tbody'), { subtree: true, childList: true, characterData: true, attributes: true });
})()`;
const ROW_WRITES = 'window.rowWrites';
/** Each row's dataset, and whether it is still the element marked by WATCH_ROWS. */
const ROWS_KEPT = `[...document.querySelectorAll('[data-testid="datasets"] tbody tr')].map((tr) => tr.getAttribute('data-dataset') + ':' + (tr.kept === true))`;

test('unchanged polls are answered 304 and write nothing; a new dataset shows at the next poll, the other rows kept', async () => {
  const statuses: number[] = [];
  page.on('response', (r) => {
    if (new URL(r.url()).pathname === '/api/datasets' && r.request().method() === 'GET') statuses.push(r.status());
  });
  // The page's clock is Playwright's: it runs as time does, and the test moves it on by a poll's 5 s rather than
  // waiting them out. Installed before the app loads, so the app's interval is on it.
  await page.clock.install();
  await page.goto(`${hub.url}/#/datasets`);
  await page.reload();
  await page.locator('tr[data-dataset="poll-things"]').waitFor();
  await page.evaluate(WATCH_ROWS);
  const seen = statuses.length;
  /** Moves the page's clock on by 5 s (one refresh interval) and waits for the poll that then falls due. */
  const nextPoll = async (): Promise<void> => {
    const polled = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/datasets' && r.request().method() === 'GET', { timeout: 10_000 });
    await page.clock.fastForward(5000);
    await polled;
  };
  await nextPoll();
  await nextPoll();
  const polls = statuses.slice(seen);
  assert.ok(polls.length >= 2, `polled twice in 10 s: ${JSON.stringify(statuses)}`);
  assert.deepEqual(polls, polls.map(() => 304), 'nothing changed: 304, no list read again');
  assert.deepEqual((await page.evaluate(ROW_WRITES)) as string[], [], 'no row written');

  await hub.json('/datasets/poll-added/entities', { method: 'POST', json: [{ _id: 'x' }] });
  await hub.json('/datasets/poll-places/entities', { method: 'POST', json: [{ _id: 'c' }] });
  await nextPoll();
  await page.locator('tr[data-dataset="poll-added"] td').nth(1).filter({ hasText: /^1$/ }).waitFor({ timeout: 2_000 });
  await page.locator('tr[data-dataset="poll-places"] td').nth(1).filter({ hasText: /^3$/ }).waitFor({ timeout: 2_000 });
  assert.equal(statuses.at(-1), 200);
  const kept = (await page.evaluate(ROWS_KEPT)) as string[];
  assert.deepEqual(kept, ['poll-added:false', 'poll-people:true', 'poll-places:true', 'poll-things:true']);
  const writes = (await page.evaluate(ROW_WRITES)) as string[];
  assert.ok(!writes.some((w) => w.endsWith('poll-people') || w.endsWith('poll-things')), `rows not changed are not written: ${JSON.stringify(writes)}`);
});

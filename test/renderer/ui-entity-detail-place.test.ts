// An entity opened beside a short or empty table is in view (issue 17.10): the table is as tall as its rows (up to a
// limit), so the entity's detail does not open below a screen of blank table. In Chromium against the real hub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';
import { pushEntities } from '../helpers/api.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

before(async () => {
  hub = await startHub();
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'gone', type: 'pipe', source: { type: 'http_endpoint' } }] });
  // Every entity deleted: with "Show deleted" off the table has no rows.
  await pushEntities(hub, 'gone', [{ _id: 'x', name: 'Xena' }]);
  await pushEntities(hub, 'gone', [{ _id: 'x', _deleted: true }]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

test('an entity found by _id beside an empty table opens in view', async () => {
  await page.goto(`${hub.url}/#/datasets/gone`);
  await page.getByTestId('entity-row').first().waitFor();
  await page.getByLabel('Show deleted').uncheck();
  await page.getByTestId('empty').waitFor();
  await page.getByTestId('search-id').fill('x');
  await page.keyboard.press('Enter');
  const detail = page.getByTestId('entity-detail');
  await detail.waitFor();
  await page.getByTestId('detail-place').filter({ hasText: 'Deleted' }).waitFor();
  const box = await page.evaluate<{ grid: number; detailTop: number; view: number }>(`(() => ({
    grid: document.querySelector('[data-testid="entities"]').getBoundingClientRect().height,
    detailTop: document.querySelector('[data-testid="entity-detail"]').getBoundingClientRect().top,
    view: window.innerHeight,
  }))()`);
  assert.ok(box.grid < 80, `the empty table is one heading row tall, not a fixed block (${box.grid}px)`);
  assert.ok(box.detailTop < box.view / 2, `the entity opens in the upper half of the window (top at ${box.detailTop}px of ${box.view}px)`);
});

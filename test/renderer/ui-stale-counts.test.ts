// Counts and state that follow the hub without a reload: the sidebar's pipe count, the Datasets view's "Populated",
// and a run that changed nothing (not written to the execution log by default) still shown on the log tab.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches, textEquals } from '../helpers/browser.js';
import { runPump, waitFor } from '../helpers/api.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

before(async () => {
  hub = await startHub();
  browser = await launchChromium();
  page = await browser.newPage();
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

test('a pipe added through the API shows in the sidebar count without a reload', async () => {
  // A page in the same session on Playwright's clock, which runs as time does: the test moves it on by the 10 s
  // status poll instead of waiting for it.
  const context = await browser.newContext({ storageState: await page.context().storageState() });
  const polled = await context.newPage();
  try {
    await polled.clock.install();
    await polled.goto(`${hub.url}/#/datasets`);
    await polled.getByTestId('count-pipes').filter({ hasText: /^0$/ }).waitFor();
    await hub.json('/pipes', { method: 'POST', json: [{ _id: 'filled', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] }, pump: { mode: 'manual' } }] });
    await polled.clock.fastForward(10_000);
    await polled.getByTestId('count-pipes').filter({ hasText: /^1$/ }).waitFor({ timeout: 5_000 });
  } finally {
    await context.close();
  }
});

test('a dataset a pump wrote reads "Populated: yes"', async () => {
  await runPump(hub, 'filled');
  await page.goto(`${hub.url}/#/pipes`);
  await page.goto(`${hub.url}/#/datasets`);
  const cells = page.locator('tr[data-dataset="filled"] td');
  await cells.nth(1).filter({ hasText: '1' }).waitFor();
  // The column is found by its header: the table's columns change (versions and size on disk were added).
  const headers = (await page.locator('table:has(tr[data-dataset="filled"]) thead th').allTextContents()).map((t) => t.trim());
  const populated = headers.indexOf('Populated');
  assert.ok(populated > 0, `a Populated column among ${JSON.stringify(headers)}`);
  await textEquals(cells.nth(populated), 'yes');
});

test('a scheduled run that changed nothing is shown on the log tab, marked as not logged', async () => {
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'ticker', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 't' }] }, pump: { schedule_interval: 1 } }] });
  await waitFor('two scheduled runs', async () => ((await hub.json<{ runs: number; 'is-running': boolean }>('/pipes/ticker/pump')).runs >= 2 ? true : undefined), 15_000);
  await page.goto(`${hub.url}/#/pipes/ticker/log`);
  await page.getByTestId('log-unlogged').waitFor();
  const first = page.getByTestId('pump-log').getByTestId('log-row').first();
  await first.filter({ hasText: 'pump-completed (not logged)' }).waitFor();
  await textMatches(first, /schedule/);
});

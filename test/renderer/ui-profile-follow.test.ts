// The explorer's profile panel while Follow is on, in Chromium against the real hub: new writes reach the panel
// (counts, a new property, deletions) without a click on Refresh; a steady stream of writes asks for the profile at
// most once per throttle interval; with Follow off the panel stays where it was.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches, waitForScript } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
/** GET /profile requests the page made. */
let profileRequests = 0;

const write = (json: object[]): Promise<unknown> => hub.json('/datasets/birds/entities', { method: 'POST', json });

before(async () => {
  hub = await startHub();
  await write(Array.from({ length: 20 }, (_, i) => ({ _id: `b${i}`, wings: 2, n: i })));
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('request', (r) => {
    if (r.method() === 'GET' && /\/datasets\/birds\/profile(\?|$)/.test(r.url())) profileRequests++;
  });
  // The page's clock is Playwright's (it runs as time does until a test pauses it), installed before the app loads.
  await page.clock.install();
  await signIn(page, hub);
  await page.goto(`${hub.url}/#/datasets/birds`);
  await page.getByTestId('entity-row').first().waitFor();
  assert.ok(await page.getByTestId('follow').isChecked(), 'Follow is on by default');
  await page.getByTestId('profile-toggle').click();
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

const summary = () => page.getByTestId('profile-summary');
const property = (path: string) => page.getByTestId('profile-panel').getByText(path, { exact: true });

test('with Follow on, new entities, a new property and a deletion reach the open profile without Refresh', async () => {
  await summary().filter({ hasText: /^\s*20 entities/ }).waitFor();
  assert.equal(await property('colour').count(), 0);

  await write(Array.from({ length: 5 }, (_, i) => ({ _id: `c${i}`, wings: 2, colour: 'red' })));
  await summary().filter({ hasText: /^\s*25 entities/ }).waitFor({ timeout: 15_000 });
  await property('colour').first().waitFor();

  await write([{ _id: 'b0', _deleted: true }]);
  await summary().filter({ hasText: /^\s*24 entities \(\+ 1 deleted\)/ }).waitFor({ timeout: 15_000 });
});

test('a steady stream of writes is profiled at most once per few seconds, and the panel keeps its content meanwhile', async () => {
  await summary().filter({ hasText: /^\s*24 entities/ }).waitFor();
  const start = profileRequests;
  const began = Date.now();
  let blank = 0;
  for (let i = 0; i < 24; i++) {
    await write([{ _id: `s${i}`, wings: 2 }]);
    await new Promise((r) => setTimeout(r, 250));
    if ((await summary().count()) === 0) blank++;
  }
  const seconds = (Date.now() - began) / 1000;
  const asked = profileRequests - start;
  await summary().filter({ hasText: /^\s*48 entities/ }).waitFor({ timeout: 15_000 });
  assert.equal(blank, 0, 'the profile never disappears while it is brought up to date');
  assert.ok(asked >= 1, 'the profile was brought up to date during the stream');
  assert.ok(asked <= Math.ceil(seconds / 3) + 1, `${asked} profile requests in ${seconds.toFixed(1)} s of writes: throttled to one per 3 s`);
});

test('with Follow off the panel stays as it was until Follow is on again, even when a refresh was due', async () => {
  await summary().filter({ hasText: /^\s*48 entities/ }).waitFor();
  // The page's timers move only when the test moves them: a refresh now, then a write that Follow sees 2 s later,
  // while the panel's next refresh is held back until 3 s after the last (it is due, not yet run).
  await page.clock.pauseAt(Date.now() + 1000);
  await page.getByTestId('profile-refresh').click();
  await summary().filter({ hasText: /^\s*48 entities/ }).waitFor();
  await waitForScript(page, '!document.querySelector(\'[data-testid="profile-refresh"]\').disabled');
  await write([{ _id: 'due', wings: 2 }]);
  const followed = page.waitForResponse((r) => /\/api\/datasets\/birds(\?|$)/.test(r.url()) && r.request().method() === 'GET');
  await page.clock.fastForward(2000);
  await followed;
  await page.getByTestId('follow').uncheck();
  await write([{ _id: 'late', wings: 2 }]);
  const asked = profileRequests;
  await page.clock.fastForward(6000);
  await new Promise((r) => setTimeout(r, 1500));
  await textMatches(summary(), /^\s*48 entities/, 'no refresh once Follow is off, not even the one that was due');
  assert.equal(profileRequests, asked, 'the profile was not asked for');
  await page.clock.resume();
  await page.getByTestId('follow').check();
  await summary().filter({ hasText: /^\s*50 entities/ }).waitFor({ timeout: 15_000 });
});

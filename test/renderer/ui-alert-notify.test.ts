// A new alert of this hub's notification rules shows a desktop notification (issue 23.4): the pipe's Alerts section
// asks for permission with a button, and once it is granted a rule raising a new alert is notified once, with the
// pipe and the rule in words; an alert already there when the app first started is not news. Chromium's own
// Notification API is observed (its constructor recorded by an init script), not replaced.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';
import { runPump } from '../helpers/api.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

const rules = [{ name: 'failed', type: 'pump_failed' }];
const pipe = (id: string, fails: boolean): Record<string, unknown> => ({
  _id: id,
  type: 'pipe',
  source: { type: 'embedded', entities: [{ _id: 'o1' }] },
  ...(fails ? { transform: { type: 'dtl', rules: { default: [['fail!', `${id} is broken`]] } } } : {}),
  metadata: { notification_rules: rules },
  pump: { mode: 'manual' },
});

const RECORD = `(() => {
  const Real = window.Notification;
  window.__shown = [];
  class Recorded extends Real {
    constructor(title, options) {
      super(title, options);
      window.__shown.push({ title, body: (options && options.body) || '' });
    }
  }
  Object.defineProperty(window, 'Notification', { value: Recorded, configurable: true, writable: true });
})();`;

type Shown = { title: string; body: string }[];

/** Moves the page's clock on by the notifier's 5 s interval and waits for the GET /api/alerts that then falls due. */
async function nextPoll(): Promise<void> {
  const polled = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/alerts' && r.request().method() === 'GET', { timeout: 10_000 });
  await page.clock.fastForward(5000);
  await polled;
}
const shown = (): Promise<Shown> => page.evaluate(() => (globalThis as unknown as { __shown: Shown }).__shown);

before(async () => {
  hub = await startHub();
  // An alert that is already there when the app first starts: not notified.
  await hub.json('/pipes', { method: 'POST', json: [pipe('old', true), pipe('orders', false)] });
  await runPump(hub, 'old');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Playwright's clock, which runs as time does: the tests move it on by the notifier's 5 s poll instead of waiting.
  await page.clock.install();
  await page.addInitScript(RECORD);
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

test('the Alerts section asks for desktop notifications with a button; once allowed it says so', async () => {
  await page.context().grantPermissions(['notifications'], { origin: hub.url });
  await page.goto(`${hub.url}/#/pipes/orders`);
  await page.reload();
  const section = page.getByTestId('pipe-alerts');
  await section.waitFor();
  await section.getByTestId('alerts-notify-on').waitFor();
});

test('a new alert shows one desktop notification naming the pipe and the rule; an old one does not', async () => {
  // Let a poll see what is there already.
  await nextPoll();
  await hub.json('/pipes/orders/config', { method: 'PUT', json: pipe('orders', true) });
  await runPump(hub, 'orders');
  await nextPoll();
  await page.waitForFunction(() => (globalThis as unknown as { __shown: Shown }).__shown.length > 0, undefined, { timeout: 20_000 });
  // Two more polls see the same alert: not news again.
  await nextPoll();
  await nextPoll();
  const list = await shown();
  assert.equal(list.length, 1, JSON.stringify(list));
  assert.equal(list[0]!.title, 'Alert on pipe orders');
  assert.match(list[0]!.body, /^failed: .*orders is broken/);
});

// A pipe's notification rules and the alerts they raise, on its Overview in Chromium: a failing run shows an ongoing
// alert naming its rule; a run that succeeds ends it; a rule that cannot be used is shown with where it is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { runPump } from '../helpers/api.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

const rules = [{ name: 'failed', type: 'pump_failed' }, { name: 'broken', type: 'pump_completed_value_too_high', extra_rule_info: { metric: 'Bananas', limit: 1 } }];
const ok = { _id: 'orders', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'o1' }] }, metadata: { notification_rules: rules }, pump: { mode: 'manual' } };
const failing = { ...ok, transform: { type: 'dtl', rules: { default: [['fail!', 'no good']] } } };

before(async () => {
  hub = await startHub();
  await hub.json('/pipes', { method: 'POST', json: [failing] });
  await runPump(hub, 'orders');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

test('the Overview lists the rules\' alerts with their state, and an unusable rule with where it is', async () => {
  await page.goto(`${hub.url}/#/pipes/orders`);
  const section = page.getByTestId('pipe-alerts');
  await section.waitFor();
  assert.equal(await section.getByTestId('alerts-status').textContent(), 'alerting');
  const row = section.locator('[data-testid="alert"][data-rule="failed"]');
  assert.equal(await row.getAttribute('data-ongoing'), 'true');
  await textMatches(row, /the run failed: .*no good/);
  await textMatches(section.getByTestId('rule-problem'), /notification_rules\[1\]\.extra_rule_info.*metric/);

  await hub.json('/pipes/orders/config', { method: 'PUT', json: ok });
  await runPump(hub, 'orders');
  await section.locator('[data-testid="alert"][data-rule="failed"][data-ongoing="false"]').waitFor({ timeout: 10_000 });
  assert.equal(await section.getByTestId('alerts-status').textContent(), 'ok');
});

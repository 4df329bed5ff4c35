// The Settings view (issue 33.7), in Chromium against the real hub on a generated 300-pipe workspace: reached from the
// sidebar and the palette; the theme sticks; the scheduler switch is the top bar's; the pipe workers say how many and
// what they do; the outbox retention is saved in the hub (still there after a restart); the keychain says whether it
// works and shows no secret.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { writeBigProject } from '../helpers/big-project.js';

const SHOTS = '/work/screens/bench-ui';
const project = tempDir('datahub-ui-settings-');
const dataDir = tempDir('datahub-ui-settings-data-');
let hub: HubProcess;
let browser: Browser;
let page: Page;

const start = (): Promise<HubProcess> => startHub({ dataDir, args: ['--workspace', project, '--workers', '2'] });

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  writeBigProject(project);
  hub = await start();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  removeDir(dataDir);
  removeDir(project);
});

const heading = () => page.getByRole('heading', { level: 1, name: 'Settings' });

test('Settings opens from the sidebar and from the palette', async () => {
  await page.goto(`${hub.url}/#/pipes`);
  await page.getByTestId('sidebar').locator('button[data-view="settings"]').click();
  await heading().waitFor();
  assert.match(page.url(), /#\/settings$/);

  await page.getByTestId('sidebar').locator('button[data-view="pipes"]').click();
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('settings');
  await page.getByTestId('palette-input').press('Enter');
  await heading().waitFor();
});

test('the theme chosen in Settings applies at once and is kept after a reload', async () => {
  await page.getByTestId('settings-theme-dark').check();
  assert.equal(await page.evaluate('document.documentElement.dataset.theme ?? null'), 'dark');
  await page.reload();
  await heading().waitFor();
  assert.equal(await page.evaluate('document.documentElement.dataset.theme ?? null'), 'dark');
  assert.ok(await page.getByTestId('settings-theme-dark').isChecked());
  await page.getByTestId('settings-theme-system').check();
  assert.equal(await page.evaluate('document.documentElement.dataset.theme ?? null'), null);
});

test('the scheduler: paused on open, the switch runs it (the top bar follows) and pauses it again', async () => {
  const state = page.getByTestId('settings-scheduler-state');
  await state.filter({ hasText: 'Paused' }).waitFor();
  const toggle = page.getByTestId('settings-scheduler-toggle');
  assert.equal(await toggle.isChecked(), false);
  await toggle.check();
  await state.filter({ hasText: /Running: \d+ pipes? on a schedule/ }).waitFor();
  await page.getByTestId('scheduler-toggle').filter({ hasText: 'Schedules running' }).waitFor();
  const res = await fetch(`${hub.url}/desktop/scheduler`, { headers: { authorization: `Bearer ${hub.token}` } });
  assert.equal(((await res.json()) as { paused: boolean }).paused, false, 'the hub runs its schedules');
  await toggle.uncheck();
  await state.filter({ hasText: 'Paused' }).waitFor();
  await page.getByTestId('scheduler-toggle').filter({ hasText: 'Schedules paused' }).waitFor();
});

test('the pipe workers: the count the hub was started with and what they do now', async () => {
  await page.getByTestId('settings-workers-count').filter({ hasText: '2 threads run pipe transforms' }).waitFor();
  await textMatches(page.getByTestId('settings-workers-state'), /\d+ started, \d+ runs? in them/);
});

test('the keychain says whether it works and never shows a secret', async () => {
  const state = page.getByTestId('settings-keychain-state');
  await state.waitFor();
  // test/run.js runs the suite with an unlocked Secret Service of its own.
  await textMatches(state, /Available: tokens of saved connections are kept in the Secret Service/);
  assert.ok(!(await page.content()).includes(hub.token), 'the page holds no token');
  await page.screenshot({ path: `${SHOTS}/settings.png` });
});

test('the outbox retention is saved in the hub: refused out of range, kept after a restart', async () => {
  const keep = page.getByTestId('settings-outbox-keep');
  await keep.fill('0');
  assert.ok(await page.getByTestId('settings-outbox-save').isDisabled(), 'out of range cannot be saved');
  await keep.fill('3');
  await page.getByTestId('settings-outbox-save').click();
  await page.getByTestId('toast').filter({ hasText: "Each pipe's outbox keeps its last 3 runs." }).waitFor();
  assert.equal((await hub.json<{ keep_runs: number }>('/outbox/settings')).keep_runs, 3);

  await hub.stop();
  hub = await start();
  // The login link is the line after the one startHub waits for.
  for (let i = 0; i < 50 && !/one-time link/.test(hub.output()); i++) await new Promise((done) => setTimeout(done, 100));
  await signIn(page, hub);
  await page.goto(`${hub.url}/#/settings`);
  await heading().waitFor();
  await page.locator('[data-testid="settings-outbox-keep"]').waitFor();
  assert.equal(await page.getByTestId('settings-outbox-keep').inputValue(), '3', 'the hub kept it across a restart');
});

// Accessibility of the places test/renderer/ui-a11y.test.ts does not reach, in Chromium against real hubs: a remote instance
// opened in the workbench (a second hub plays it), the Remote view with its instances and the Sync compare, and the
// error states (a pipe with an invalid config, a failed run's reason, a pipe or dataset that does not exist, the
// signed-out page, a used login link). axe-core's WCAG 2.2 A/AA rules, light, dark and forced colors: no critical
// or serious finding.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';
import { seedCrew } from '../helpers/crew.js';
import { axeViolations, describeFindings } from '../helpers/axe.js';
import { forgetConnections, stopAndRemove } from '../helpers/connections.js';

let local: HubProcess;
let remote: HubProcess;
let browser: Browser;
let page: Page;
let folder: string;

const MODES = [{ colorScheme: 'light' }, { colorScheme: 'dark' }, { colorScheme: 'light', forcedColors: 'active' }] as const;

before(async () => {
  folder = tempDir('datahub-a11y-sync-');
  [local, remote] = await Promise.all([startHub(), startHub()]);
  await seedCrew(local, [
    { _id: 'crew-broken', type: 'pipe', source: { type: 'dataset', dataset: 'crew-members' }, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['if', ['eq', '_S._id', 'alan'], ['fail!', 'alan is not welcome']]] } }, pump: { mode: 'manual' } },
  ]);
  // Stored with force despite its error: a dataset source without its dataset.
  await local.json('/pipes?force=true', { method: 'POST', json: [{ _id: 'crew-invalid', type: 'pipe', source: { type: 'dataset' }, pump: { mode: 'manual' } }] });
  await local.json('/pipes/crew-broken/pump', { method: 'POST', body: new URLSearchParams({ operation: 'start' }) });
  for (let i = 0; i < 100; i++) {
    const pump = await local.json<{ 'last-run'?: { status: string } | null }>('/pipes/crew-broken/pump');
    if (pump['last-run']?.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await remote.json('/datasets/visitors/entities', { method: 'POST', json: [{ _id: 'ada', name: 'Ada' }, { _id: 'alan', name: 'Alan' }] });
  await remote.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'welcome', type: 'pipe', source: { type: 'dataset', dataset: 'visitors' }, transform: { type: 'dtl', rules: { default: [['copy', '*']] } }, pump: { mode: 'manual' } }],
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await signIn(page, local);
  await page.getByTestId('pipe-row').first().waitFor();
});

after(async () => {
  await browser?.close();
  await forgetConnections(local);
  await stopAndRemove(local, remote);
  if (folder) removeDir(folder);
});

/** axe over `p` in every mode; `prepare` brings the page to the state to check (again after each mode change). */
async function check(name: string, p: Page, prepare: () => Promise<void>, found: string[]): Promise<void> {
  for (const mode of MODES) {
    await p.emulateMedia(mode);
    await prepare();
    const f = await axeViolations(p);
    if (f.length > 0) {
      found.push(`${name} (${JSON.stringify(mode)}):\n  ${describeFindings(f)}`);
      console.log(found.at(-1));
    }
  }
  await p.emulateMedia({ colorScheme: 'light', forcedColors: 'none' });
}

/** Moves within the app by its hash, keeping the page (and so which instance it shows). */
async function hash(h: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(h)}`);
}

test('axe: error states — an invalid config, a failed run, a missing pipe or dataset, signed out, a used login link', async () => {
  const found: string[] = [];
  await check('pipes list with an invalid and a failed pipe', page, async () => {
    await hash('#/pipes');
    await page.locator('[data-testid="pipe-row"][data-pipe="crew-broken"] [data-testid="pipe-last-run"]').filter({ hasText: 'failed' }).waitFor();
  }, found);
  await check('pipe with an invalid config', page, async () => {
    await hash('#/pipes/crew-invalid/overview');
    await page.getByTestId('config-errors').waitFor();
  }, found);
  await check('a failed run and its reason', page, async () => {
    await hash('#/pipes/crew-broken/overview');
    await page.getByTestId('last-run').filter({ hasText: /failed/ }).waitFor();
  }, found);
  await check('the failed run in the log', page, async () => {
    await hash('#/pipes/crew-broken/log');
    await page.locator('#pipe-tab-log[aria-selected="true"]').waitFor();
    await page.locator('main td').filter({ hasText: 'pump-failed' }).first().waitFor();
  }, found);
  await check('a pipe that does not exist', page, async () => {
    await hash('#/pipes/no-such-pipe/overview');
    await page.locator('main [role="alert"], main .error').first().waitFor();
  }, found);
  await check('a dataset that does not exist', page, async () => {
    await hash('#/datasets/no-such-dataset');
    await page.locator('main [data-testid="dataset-error"], main [data-testid="empty"]').first().waitFor();
  }, found);

  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  try {
    const out = await context.newPage();
    await check('signed out', out, async () => {
      await out.goto(`${local.url}/#/pipes`);
      await out.getByTestId('signed-out').waitFor();
    }, found);
    await check('a used login link', out, async () => {
      await out.goto(`${local.url}/login?code=used`);
      await out.getByText('This login link is invalid').waitFor();
    }, found);
  } finally {
    await context.close();
  }
  assert.equal(found.length, 0, found.join('\n'));
});

test('axe: the Remote view, a remote instance opened in the workbench, and Sync compare', async () => {
  const found: string[] = [];
  await hash('#/remote');
  const panel = page.getByTestId('instance-connections');
  await panel.getByLabel('Instance name').fill('Staging');
  await panel.getByLabel('Instance API address').fill(remote.api);
  await panel.getByLabel('Instance token').fill(remote.token);
  await panel.getByRole('button', { name: 'Add instance' }).click();
  const row = panel.getByTestId('instance-row').filter({ hasText: 'Staging' });
  await row.waitFor();
  await check('remote view with an instance', page, async () => {
    await hash('#/remote');
    await row.waitFor();
  }, found);

  await row.getByTestId('instance-open').click();
  await page.getByTestId('instance').filter({ hasText: 'Staging' }).waitFor();
  await check('remote instance: pipes', page, async () => {
    await hash('#/pipes');
    await page.locator('[data-testid="pipe-row"][data-pipe="welcome"]').waitFor();
  }, found);
  for (const tab of ['overview', 'output', 'log', 'graph']) {
    await check(`remote instance: pipe ${tab} tab`, page, async () => {
      await hash(`#/pipes/welcome/${tab}`);
      await page.locator(`#pipe-tab-${tab}[aria-selected="true"]`).waitFor();
    }, found);
  }
  await check('remote instance: datasets', page, async () => {
    await hash('#/datasets');
    await page.getByTestId('datasets').getByText('visitors').first().waitFor();
  }, found);
  await check('remote instance: dataset explorer', page, async () => {
    await hash('#/datasets/visitors');
    await page.getByTestId('entity-row').first().waitFor();
  }, found);
  await check('remote instance: flow graph', page, async () => {
    await hash('#/graph');
    await page.locator('[data-key="pipe:welcome"]').waitFor();
  }, found);
  await check('remote instance: systems', page, async () => {
    await hash('#/systems');
    await page.getByTestId('systems').waitFor({ state: 'attached' });
  }, found);
  await page.getByTestId('instance').getByRole('button').click();
  await page.getByTestId('instance').filter({ hasText: 'This computer' }).waitFor();

  // Sync: download, change a pipe on disk, compare.
  await hash('#/remote');
  const sync = page.getByTestId('sync-panel');
  await sync.getByTestId('sync-folder').fill(folder);
  await sync.getByTestId('sync-download').click();
  await sync.getByTestId('sync-confirm').waitFor();
  await check('sync: confirm the download', page, async () => void (await sync.getByTestId('sync-confirm').waitFor()), found);
  await sync.getByTestId('sync-confirm-yes').click();
  await sync.getByTestId('sync-message').filter({ hasText: /Downloaded into/ }).waitFor();
  await check('sync: downloaded', page, async () => void (await sync.getByTestId('sync-message').waitFor()), found);
  const file = join(folder, 'node', 'pipes', 'welcome.conf.json');
  const pipe = JSON.parse(readFileSync(file, 'utf8')) as { pump: Record<string, unknown> };
  pipe.pump['schedule_interval'] = 3600;
  writeFileSync(file, JSON.stringify(pipe, null, 2));
  await sync.getByTestId('sync-compare').click();
  await sync.getByTestId('sync-diff').filter({ hasText: 'schedule_interval' }).waitFor();
  await check('sync: compare with a changed pipe', page, async () => void (await sync.getByTestId('sync-diff').waitFor()), found);
  await sync.getByTestId('sync-item').getByRole('checkbox').check();
  await sync.getByTestId('sync-upload').click();
  await check('sync: confirm the upload', page, async () => void (await sync.getByTestId('sync-confirm').waitFor()), found);
  await page.keyboard.press('Escape');
  assert.equal(found.length, 0, found.join('\n'));
});

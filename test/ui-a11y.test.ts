// Accessibility in Chromium against the real hub: axe-core's WCAG 2.2 A/AA rules over every view and dialog in
// light, dark and forced-colors mode (no critical or serious finding), and the keyboard paths (skip link, focus on
// the new page's heading, focus back to the opener when a dialog closes, a way out of Monaco, no keyboard trap).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from './helpers/hub-process.js';
import { launchChromium, signIn } from './helpers/browser.js';
import { seedCrew } from './helpers/crew.js';
import { axeViolations, describeFindings, type AxeFinding } from './helpers/axe.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

before(async () => {
  hub = await startHub();
  await seedCrew(hub);
  await hub.json('/pipes/shout/pump', { method: 'POST', body: new URLSearchParams({ operation: 'start' }) });
  await hub.json('/env', { method: 'POST', json: { region: 'eu' } }).catch(() => undefined);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await signIn(page, hub);
  await page.getByTestId('pipes').getByText('shout').first().waitFor();
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

interface ViewCase {
  name: string;
  hash: string;
  /** Waits until the view shows what it loaded. */
  ready: (p: Page) => Promise<void>;
  /** Opens a dialog or panel after the view is ready. */
  open?: (p: Page) => Promise<void>;
}

const testId = (id: string) => async (p: Page): Promise<void> => {
  await p.getByTestId(id).first().waitFor();
};

const VIEWS: ViewCase[] = [
  { name: 'pipes', hash: '#/pipes', ready: testId('pipe-row') },
  ...['overview', 'config', 'preview', 'output', 'log', 'graph'].map((tab) => ({ name: `pipe ${tab} tab`, hash: `#/pipes/shout/${tab}`, ready: testId('pipe-title') })),
  { name: 'datasets', hash: '#/datasets', ready: testId('datasets') },
  { name: 'dataset explorer', hash: '#/datasets/crew-members', ready: testId('entity-row') },
  {
    name: 'entity detail',
    hash: '#/datasets/crew-members',
    ready: testId('entity-row'),
    open: async (p) => {
      await p.getByTestId('entity-row').first().click();
      await p.keyboard.press('Enter');
      await p.getByTestId('entity-detail').waitFor();
    },
  },
  { name: 'flow graph', hash: '#/graph', ready: testId('graph-view') },
  { name: 'systems', hash: '#/systems', ready: testId('systems') },
  { name: 'system', hash: '#/systems/crm', ready: testId('system-title') },
  { name: 'environment', hash: '#/env', ready: testId('env') },
  { name: 'secrets', hash: '#/secrets', ready: testId('secrets') },
  { name: 'node config', hash: '#/config', ready: testId('export-json') },
  { name: 'tests', hash: '#/tests', ready: async () => undefined },
  { name: 'remote', hash: '#/remote', ready: async () => undefined },
  {
    name: 'command palette',
    hash: '#/pipes',
    ready: testId('pipe-row'),
    open: async (p) => {
      await p.keyboard.press('Control+k');
      await p.getByTestId('palette-input').fill('shout');
    },
  },
  {
    name: 'confirmation',
    hash: '#/systems/crm',
    ready: testId('system-title'),
    open: async (p) => {
      await p.getByTestId('system-delete').click();
      await p.getByTestId('confirm-dialog').waitFor();
    },
  },
  {
    name: 'toast',
    hash: '#/pipes',
    ready: testId('pipe-row'),
    open: async (p) => {
      await p.getByRole('button', { name: /reload/i }).first().click();
      await p.getByTestId('toast').first().waitFor();
    },
  },
  {
    name: 'new pipe dialog',
    hash: '#/pipes',
    ready: testId('pipe-row'),
    open: async (p) => {
      await p.getByTestId('new-pipe').click();
    },
  },
  {
    name: 'shortcuts',
    hash: '#/pipes',
    ready: testId('pipe-row'),
    open: async (p) => {
      await p.keyboard.press('?');
    },
  },
];

async function show(v: ViewCase): Promise<void> {
  await page.goto(`${hub.url}/${v.hash}`);
  await page.reload();
  await v.ready(page);
  if (v.open) await v.open(page);
}

test('axe: no critical or serious WCAG A/AA finding in any view or dialog, light, dark and forced colors', async () => {
  const found: string[] = [];
  for (const mode of [{ colorScheme: 'light' }, { colorScheme: 'dark' }, { colorScheme: 'light', forcedColors: 'active' }] as const) {
    await page.emulateMedia(mode);
    for (const v of VIEWS) {
      await show(v);
      const f: AxeFinding[] = await axeViolations(page);
      if (f.length > 0) found.push(`${v.name} (${JSON.stringify(mode)}):\n  ${describeFindings(f)}`);
    }
  }
  assert.equal(found.length, 0, found.join('\n'));
});

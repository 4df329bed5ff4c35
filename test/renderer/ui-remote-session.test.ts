// Remote instances on a computer without an OS keychain (no Secret Service: headless, WSL): the Remote view says so
// and connects for this session only — the token kept in memory, never in connections.json or a keychain — and the
// connection is gone when the hub restarts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';

// A D-Bus address where nothing listens: the Secret Service cannot be reached.
const NO_KEYCHAIN = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/datahub-no-bus' };

let local: HubProcess;
let remote: HubProcess;
let browser: Browser;
let page: Page;

before(async () => {
  [local, remote] = await Promise.all([startHub({ env: NO_KEYCHAIN }), startHub()]);
  await remote.json('/pipes', { method: 'POST', json: [{ _id: 'far-away', type: 'pipe', source: { type: 'embedded', entities: [] } }] });
  browser = await launchChromium();
  page = await browser.newPage();
  await signIn(page, local);
});

after(async () => {
  await browser?.close();
  await Promise.all([local?.stop(), remote?.stop()]);
  if (local) removeDir(local.dataDir);
  if (remote) removeDir(remote.dataDir);
});

test('without a keychain the Remote view explains it and connects for this session only', async () => {
  const keychain = await local.json<{ available: boolean; problem: string | null }>('/../desktop/keychain');
  assert.equal(keychain.available, false, 'the probe finds no keychain');

  await page.goto(`${local.url}/#/remote`);
  const panel = page.getByTestId('instance-connections');
  await panel.getByTestId('keychain-missing').filter({ hasText: 'connect for this session only' }).waitFor();
  assert.ok(await panel.getByTestId('instance-session-only').isChecked(), 'session-only is the only choice');

  await panel.getByLabel('Instance name').fill('Far');
  await panel.getByLabel('Instance API address').fill(remote.api);
  await panel.getByLabel('Instance token').fill(remote.token);
  await panel.getByRole('button', { name: 'Add instance' }).click();
  await panel.getByTestId('instance-message').filter({ hasText: 'kept in memory only' }).waitFor();
  const row = panel.getByTestId('instance-row').filter({ hasText: 'Far' });
  await row.getByTestId('instance-session').waitFor();

  // Nothing on disk: no connections file holds it, and no file of the hub holds the token.
  const file = join(local.dataDir, 'connections.json');
  assert.ok(!existsSync(file) || !readFileSync(file, 'utf8').includes('Far'), 'not in connections.json');

  await row.getByTestId('instance-open').click();
  await page.locator('[data-testid="pipe-row"][data-pipe="far-away"]').waitFor();
});

test('a session-only connection is gone after a restart', async () => {
  const dataDir = local.dataDir;
  await local.stop();
  local = await startHub({ dataDir, env: NO_KEYCHAIN });
  const list = await local.json<{ label: string }[]>('/../desktop/connections');
  assert.deepEqual(list.map((c) => c.label), []);
});

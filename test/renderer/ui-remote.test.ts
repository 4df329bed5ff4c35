// Remote instances in Chromium: add one on the Remote view, open it in the workbench (its pipes, a pump run on
// the remote), then download its configuration, change a pipe on disk, compare and upload with confirmation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';
import { forgetConnections, stopAndRemove } from '../helpers/connections.js';

let local: HubProcess;
let remote: HubProcess;
let browser: Browser;
let page: Page;
let folder: string;
const shots = join(REPO, 'test-results', 'screenshots');

before(async () => {
  mkdirSync(shots, { recursive: true });
  folder = tempDir('datahub-ui-sync-');
  [local, remote] = await Promise.all([startHub(), startHub()]);
  browser = await launchChromium();
  await remote.json('/datasets/visitors/entities', { method: 'POST', json: [{ _id: 'ada', name: 'Ada' }, { _id: 'alan', name: 'Alan' }] });
  await remote.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'welcome',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'visitors' },
        transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'greeting', ['concat', 'welcome ', '_S.name']]] } },
        pump: { mode: 'manual' },
      },
    ],
  });
  page = await browser.newPage();
  await signIn(page, local);
  await page.goto(`${local.url}/#/remote`);
});

after(async () => {
  await browser?.close();
  await forgetConnections(local);
  await stopAndRemove(local, remote);
  removeDir(folder);
});

/**
 * Compare, and wait until that comparison is over: an upload compares again by itself when it is done, and a click on
 * an item of that earlier comparison would be undone when the new one comes in (its selection starts empty).
 */
async function compareNow(sync: Locator): Promise<void> {
  await sync.getByTestId('sync-compare').click();
  await sync.locator('[data-testid="sync-compare"]:not([disabled])').waitFor();
}

test('add a remote instance, open it: the pipes list is the remote one and a pump starts on the remote', async () => {
  const panel = page.getByTestId('instance-connections');
  await panel.getByLabel('Instance name').fill('Staging');
  await panel.getByLabel('Instance API address').fill(remote.api);
  await panel.getByLabel('Instance token').fill(remote.token);
  await panel.getByRole('button', { name: 'Add instance' }).click();
  const row = panel.getByTestId('instance-row').filter({ hasText: 'Staging' });
  await row.waitFor();
  assert.equal(await panel.getByLabel('Instance token').inputValue(), '', 'the token field is cleared once stored');
  assert.ok(!(await page.content()).includes(remote.token), 'the page never shows the stored token');
  await page.screenshot({ path: join(shots, 'remote-instances.png'), fullPage: true });

  await row.getByTestId('instance-open').click();
  await page.getByTestId('instance').filter({ hasText: 'Staging' }).waitFor();
  const pipeRow = page.locator('[data-testid="pipe-row"][data-pipe="welcome"]');
  await pipeRow.waitFor();
  assert.equal(await page.getByTestId('pipe-row').count(), 1, 'only the remote pipe is listed');
  await page.screenshot({ path: join(shots, 'remote-pipes.png'), fullPage: true });

  await page.getByRole('button', { name: /^Datasets/ }).click();
  await page.getByTestId('datasets').getByText('visitors').first().waitFor();
  await page.getByRole('button', { name: /^Pipes/ }).click();
  await pipeRow.getByRole('button', { name: 'welcome' }).click();
  const start = page.getByTestId('pump-controls').locator('button[data-op="start"]:not([disabled])');
  await start.waitFor();
  await start.click();
  await page.getByTestId('op-message').filter({ hasText: 'start' }).waitFor();
  let out: { greeting?: string }[] = [];
  for (let i = 0; i < 100 && out.length < 2; i++) {
    const res = await remote.fetch('/datasets/welcome/entities');
    out = res.ok ? ((await res.json()) as typeof out) : [];
    if (out.length < 2) await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(out.map((e) => e.greeting).sort(), ['welcome Ada', 'welcome Alan'], 'the run happened on the remote');
  const localPipe = await local.fetch('/pipes/welcome');
  assert.equal(localPipe.status, 404, 'the local hub has no such pipe');
  await localPipe.text();
  await page.screenshot({ path: join(shots, 'remote-pipe-run.png'), fullPage: true });
});

test('download the remote config, change a pipe on disk, compare, upload after confirming', async () => {
  await page.getByTestId('instance').getByRole('button').click(); // back to this computer
  await page.getByRole('button', { name: /^Remote/ }).click();
  const sync = page.getByTestId('sync-panel');
  await sync.getByTestId('sync-folder').fill(folder);
  await sync.getByTestId('sync-download').click();
  await sync.getByTestId('sync-confirm').waitFor();
  await sync.getByTestId('sync-confirm-yes').click();
  await sync.getByTestId('sync-message').filter({ hasText: /Downloaded into/ }).waitFor();
  await sync.getByTestId('sync-in-step').waitFor();

  const file = join(folder, 'node', 'pipes', 'welcome.conf.json');
  const pipe = JSON.parse(readFileSync(file, 'utf8')) as { pump: Record<string, unknown> };
  pipe.pump['schedule_interval'] = 3600;
  writeFileSync(file, JSON.stringify(pipe, null, 2));

  await compareNow(sync);
  const item = sync.getByTestId('sync-item');
  await item.filter({ hasText: 'welcome' }).waitFor();
  assert.equal(await item.count(), 1, 'exactly the changed pipe differs');
  assert.equal(await item.getAttribute('data-status'), 'changed');
  const diff = sync.getByTestId('sync-diff');
  await diff.filter({ hasText: 'schedule_interval' }).waitFor();
  assert.equal(await diff.locator('pre.add').filter({ hasText: 'schedule_interval' }).count(), 1, 'the local side marks the new line');

  assert.ok(await sync.getByTestId('sync-upload').isDisabled(), 'nothing selected, nothing to upload');
  await item.getByRole('checkbox').check();
  await sync.getByTestId('sync-upload').click();
  const confirm = sync.getByTestId('sync-confirm');
  await confirm.filter({ hasText: 'update on the remote' }).waitFor();
  await page.screenshot({ path: join(shots, 'remote-sync-confirm.png'), fullPage: true });
  // Escape cancels: nothing reaches the remote.
  await page.keyboard.press('Escape');
  await confirm.waitFor({ state: 'detached' });
  assert.equal(((await remote.json<{ pump: Record<string, unknown> }>('/pipes/welcome/config')).pump['schedule_interval']), undefined);

  await sync.getByTestId('sync-upload').click();
  await sync.getByTestId('sync-confirm-yes').click();
  await sync.getByTestId('sync-results').filter({ hasText: 'done' }).waitFor();
  await sync.getByTestId('sync-in-step').waitFor();
  await page.screenshot({ path: join(shots, 'remote-sync-uploaded.png'), fullPage: true });
  const now = await remote.json<{ pump: Record<string, unknown> }>('/pipes/welcome/config');
  assert.equal(now.pump['schedule_interval'], 3600, 'the remote holds the uploaded change');
});

test('an upload after a colleague changed the remote is refused with a clear message; compare again, then it goes', async () => {
  const sync = page.getByTestId('sync-panel');
  const file = join(folder, 'node', 'pipes', 'welcome.conf.json');
  const mine = JSON.parse(readFileSync(file, 'utf8')) as { description?: string };
  mine.description = 'mine';
  writeFileSync(file, JSON.stringify(mine, null, 2));
  await compareNow(sync);
  const item = sync.getByTestId('sync-item').filter({ hasText: 'welcome' });
  await item.waitFor();
  await item.getByRole('checkbox').check();

  const theirs = await remote.json<Record<string, unknown>>('/pipes/welcome/config');
  await remote.json('/pipes/welcome/config', { method: 'PUT', json: { ...theirs, description: 'theirs' } });

  await sync.getByTestId('sync-upload').click();
  await sync.getByTestId('sync-confirm-yes').click();
  const conflict = sync.getByTestId('sync-conflict');
  await conflict.filter({ hasText: 'pipe welcome changed on the remote since you compared; compare again' }).waitFor();
  await page.screenshot({ path: join(shots, 'remote-sync-conflict.png'), fullPage: true });
  assert.equal((await remote.json<{ description?: string }>('/pipes/welcome/config')).description, 'theirs', 'nothing was overwritten');

  await sync.getByTestId('sync-compare-again').click();
  await conflict.waitFor({ state: 'detached' });
  await sync.getByTestId('sync-diff').filter({ hasText: 'theirs' }).waitFor();
  await item.getByRole('checkbox').check();
  await sync.getByTestId('sync-upload').click();
  await sync.getByTestId('sync-confirm-yes').click();
  await sync.getByTestId('sync-results').filter({ hasText: 'done' }).waitFor();
  assert.equal((await remote.json<{ description?: string }>('/pipes/welcome/config')).description, 'mine');
});

test('deleting a pipe on the remote needs an explicit confirmation', async () => {
  const sync = page.getByTestId('sync-panel');
  rmSync(join(folder, 'node', 'pipes', 'welcome.conf.json'));
  await compareNow(sync);
  const item = sync.getByTestId('sync-item').filter({ hasText: 'welcome' });
  await item.filter({ hasText: 'deletes' }).waitFor();
  assert.equal(await item.getAttribute('data-status'), 'removed');
  await item.getByRole('checkbox').check();
  await sync.getByTestId('sync-upload').click();
  const confirm = sync.getByTestId('sync-confirm');
  await confirm.filter({ hasText: 'delete from the remote' }).waitFor();
  assert.ok(await sync.getByTestId('sync-confirm-yes').isDisabled(), 'a deletion cannot be sent without ticking the confirmation');
  await sync.getByTestId('sync-confirm-delete').check();
  await page.screenshot({ path: join(shots, 'remote-sync-confirm-delete.png'), fullPage: true });
  await sync.getByTestId('sync-confirm-yes').click();
  await sync.getByTestId('sync-results').filter({ hasText: 'delete' }).filter({ hasText: 'done' }).waitFor();
  const gone = await remote.fetch('/pipes/welcome');
  assert.equal(gone.status, 404, 'the pipe is deleted on the remote');
  await gone.text();
});

// Opening a workspace folder from the workbench in a browser (issue 17.8), in Chromium against the real hub: the
// path field, the hub's check of the folder in words, and the switch (the pipe list shows the new folder's pipes).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

function project(prefix: string, pipes: string[]): string {
  const dir = tempDir(prefix);
  mkdirSync(join(dir, 'node', 'pipes'), { recursive: true });
  for (const id of pipes) writeFileSync(join(dir, 'node', 'pipes', `${id}.conf.json`), JSON.stringify({ _id: id, type: 'pipe', source: { type: 'embedded', entities: [] } }, null, 2));
  return dir;
}
const first = project('datahub-ui-open-first-', ['alpha-pipe']);
const second = project('datahub-ui-open-second-', ['gamma-pipe']);
writeFileSync(join(second, 'node', 'pipes', 'bad.conf.json'), '{"_id": "bad",');

before(async () => {
  hub = await startHub({ args: ['--workspace', first] });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
  removeDir(first);
  removeDir(second);
});

test('Node config shows the folder; a typed path is checked in words, then opened', async () => {
  await page.goto(`${hub.url}/#/config`);
  await page.getByTestId('workspace-folder-dir').filter({ hasText: first }).waitFor();
  await page.getByTestId('workspace-open-button').click();
  const dialog = page.getByTestId('workspace-open');
  await dialog.waitFor();
  assert.equal(await dialog.getByTestId('workspace-current').innerText(), first);

  // Nothing there: the hub says so, nothing changes.
  await dialog.getByTestId('workspace-path').fill(join(second, 'missing'));
  await dialog.getByTestId('workspace-check').click();
  await dialog.getByTestId('workspace-open-error').filter({ hasText: /there is no folder .*missing/ }).waitFor();
  assert.equal(await dialog.getByTestId('workspace-open-confirm').isDisabled(), true);
  // A file, not a folder.
  await dialog.getByTestId('workspace-path').fill(join(first, 'node', 'pipes', 'alpha-pipe.conf.json'));
  await page.keyboard.press('Enter');
  await dialog.getByTestId('workspace-open-error').filter({ hasText: 'is a file, not a folder' }).waitFor();

  // A project with a broken file: the check lists the file and what this hub would lose; "Open anyway" opens it.
  await dialog.getByTestId('workspace-path').fill(second);
  await dialog.getByTestId('workspace-check').click();
  const summary = dialog.getByTestId('workspace-open-summary');
  await summary.waitFor();
  assert.match(await summary.innerText(), /holds 1 pipe and 0 systems/);
  assert.match(await dialog.getByTestId('workspace-open-removed').innerText(), /alpha-pipe/);
  assert.match(await dialog.getByTestId('workspace-open-problems').innerText(), /pipes\/bad\.conf\.json: not valid JSON/);
  const confirm = dialog.getByTestId('workspace-open-confirm');
  assert.equal(await confirm.innerText(), 'Open anyway');
  await confirm.click();
  await dialog.waitFor({ state: 'detached' });
  assert.match(page.url(), /#\/pipes$/);
  await page.getByText('gamma-pipe').first().waitFor();
  assert.equal(await page.getByText('alpha-pipe').count(), 0, 'the old folder\'s pipe is gone from the list');
  // The list shows the new folder's unloadable file too.
  await page.getByTestId('workspace-problem').filter({ hasText: 'pipes/bad.conf.json' }).waitFor();
});

test('the palette opens the same dialog, showing the folder now open', async () => {
  await page.keyboard.press('Control+K');
  await page.getByTestId('palette-input').fill('open workspace folder');
  await page.keyboard.press('Enter');
  const dialog = page.getByTestId('workspace-open');
  await dialog.waitFor();
  assert.equal(await dialog.getByTestId('workspace-current').innerText(), second);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
});

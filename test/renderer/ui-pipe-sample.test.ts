// "Pull sample…" on a pipe's page, in Chromium: disabled until a remote instance is connected; then the dialog reads
// a filtered sample from the remote (a second hub), scrubs the patterns' properties, pins it in the pipe's file as
// its source's test alternative and says what it wrote; the page shows the reloaded pipe. The workspace is the
// 300-pipe project with one pipe of ours added.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { forgetConnections, stopAndRemove } from '../helpers/connections.js';
import { writeBigProject } from '../helpers/big-project.js';

const SHOTS = process.env['DATAHUB_SCREENS'] ?? join(REPO, 'test-results', 'screenshots');
const PEOPLE = [
  { _id: 'c1', name: 'Astrid Holm', email: 'astrid.holm@example.no', country: 'NO' },
  { _id: 'c2', name: 'Per Dahl', email: 'per.dahl@example.no', country: 'NO' },
  { _id: 'c3', name: 'Lena Ek', email: 'lena.ek@example.se', country: 'SE' },
];

let local: HubProcess;
let remote: HubProcess;
let browser: Browser;
let page: Page;
let dir: string;
const pipeFile = (): string => readFileSync(join(dir, 'node', 'pipes', 'customer.conf.json'), 'utf8');

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  dir = tempDir('ui-pipe-sample-');
  writeBigProject(dir);
  writeFileSync(join(dir, 'node', 'pipes', 'customer.conf.json'), `${JSON.stringify({ _id: 'customer', type: 'pipe', source: { type: 'dataset', dataset: 'crm-customer' } }, null, 2)}\n`);
  [local, remote] = await Promise.all([startHub({ args: ['--workspace', dir] }), startHub()]);
  await remote.json('/datasets/crm-customer/entities', { method: 'POST', json: PEOPLE });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await signIn(page, local);
});

after(async () => {
  await browser?.close();
  await forgetConnections(local);
  await stopAndRemove(local, remote);
  if (dir) removeDir(dir);
});

test('without a connected instance, "Pull sample…" is disabled and says why', async () => {
  await page.goto(`${local.url}/#/pipes/customer`);
  const button = page.getByTestId('pipe-pull-sample');
  await button.waitFor();
  assert.equal(await button.isDisabled(), true);
  assert.match((await button.getAttribute('title')) ?? '', /Connect a remote instance/);
});

test('the dialog pins a filtered, scrubbed sample and shows what it wrote; the page shows the new source', async () => {
  const saved = await fetch(`${local.url}/desktop/connections`, {
    method: 'POST',
    headers: { authorization: `Bearer ${local.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'instance', label: 'Staging', url: remote.api, token: remote.token }),
  });
  assert.equal(saved.status, 201, await saved.text());
  await page.reload();
  const button = page.getByTestId('pipe-pull-sample');
  await page.locator('[data-testid="pipe-pull-sample"]:not([disabled])').waitFor();
  await button.click();
  const dialog = page.getByTestId('pipe-sample-dialog');
  await dialog.waitFor();
  assert.equal(await dialog.getByTestId('pipe-sample-instance').locator('option:checked').textContent(), 'Staging');
  assert.match(await dialog.getByTestId('pipe-sample-scrub').inputValue(), /\*email\*/, 'e-mails are scrubbed unless the user says otherwise');
  await dialog.getByTestId('pipe-sample-by-filter').check();
  await dialog.getByTestId('pipe-sample-filter').fill('["eq", "_S.country", "NO"]');
  await page.screenshot({ path: join(SHOTS, 'pipe-sample-dialog.png') });
  await dialog.getByTestId('pipe-sample-pull').click();
  const result = dialog.getByTestId('pipe-sample-result');
  await result.waitFor();
  const words = (await result.textContent()) ?? '';
  // Two Norwegians, one e-mail each.
  assert.match(words, /Pinned 2 entities of dataset "crm-customer" on Staging/);
  assert.match(words, /Scrubbed 2 properties matching \*email\*/);
  assert.match(words, /pipes\/customer\.conf\.json/);
  await page.screenshot({ path: join(SHOTS, 'pipe-sample-result.png') });

  const text = pipeFile();
  for (const p of PEOPLE) assert.ok(!text.includes(p.email), `the file holds ${p.email}`);
  const written = JSON.parse(text) as { source: { type: string; alternatives: Record<string, { entities?: { _id: string; name: string }[] }> } };
  assert.equal(written.source.type, 'conditional');
  assert.deepEqual(written.source.alternatives['test']!.entities!.map((e) => e.name).sort(), ['Astrid Holm', 'Per Dahl']);

  await dialog.getByTestId('pipe-sample-close').click();
  await page.getByTestId('pipe-sample-dialog').waitFor({ state: 'detached' });
  // The page shows the reloaded pipe: its Config tab holds the conditional source.
  await page.getByRole('tab', { name: 'Config' }).click();
  await page.locator('.monaco-editor').getByText('conditional').first().waitFor();
  await page.screenshot({ path: join(SHOTS, 'pipe-sample-config.png') });
});

test('a remote that refuses is said in words in the dialog, and nothing is written', async () => {
  writeFileSync(join(dir, 'node', 'pipes', 'orphan.conf.json'), '{"_id": "orphan", "type": "pipe", "source": {"type": "dataset", "dataset": "gone"}}\n');
  // The workspace watcher loads the new file.
  for (let i = 0; i < 100 && (await local.fetch('/pipes/orphan')).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  await page.goto(`${local.url}/#/pipes/orphan`);
  await page.locator('[data-testid="pipe-pull-sample"]:not([disabled])').click();
  const dialog = page.getByTestId('pipe-sample-dialog');
  await dialog.getByTestId('pipe-sample-pull').click();
  const error = dialog.getByTestId('pipe-sample-error');
  await error.waitFor();
  await textMatches(error, /Staging has no dataset "gone"/);
  assert.equal(readFileSync(join(dir, 'node', 'pipes', 'orphan.conf.json'), 'utf8'), '{"_id": "orphan", "type": "pipe", "source": {"type": "dataset", "dataset": "gone"}}\n');
});

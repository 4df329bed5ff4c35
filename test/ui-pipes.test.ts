// The pipe list (live status, search, config-group filter, sorting, "New pipe") and the pipe page's pump controls,
// in Chromium against the real hub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from './helpers/hub-process.js';
import { launchChromium } from './helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const shots = join(REPO, 'test-results', 'screenshots');
const pageErrors: string[] = [];

const crew = [
  { _id: 'ada', name: 'Ada Lovelace' },
  { _id: 'alan', name: 'Alan Turing' },
  { _id: 'grace', name: 'Grace Hopper' },
  { _id: 'linus', name: 'Linus Torvalds' },
  { _id: 'margaret', name: 'Margaret Hamilton' },
  { _id: 'edsger', name: 'Edsger Dijkstra' },
];

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  browser = await launchChromium();
  await hub.json('/datasets/crew/entities', { method: 'POST', json: crew });
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        // batch_size 1 and a pause per entity: a run lasts a few seconds, long enough to be seen running.
        _id: 'crew-slow',
        type: 'pipe',
        metadata: { '$config-group': 'people' },
        source: { type: 'dataset', dataset: 'crew' },
        transform: { type: 'dtl', rules: { default: [['copy', '*'], ['sleep!', 1]] } },
        batch_size: 1,
        pump: { mode: 'manual' },
      },
      {
        _id: 'crew-broken',
        type: 'pipe',
        metadata: { '$config-group': 'people' },
        source: { type: 'dataset', dataset: 'crew' },
        transform: { type: 'dtl', rules: { default: [['copy', '*'], ['if', ['eq', '_S._id', 'alan'], ['fail!', 'alan is not welcome']]] } },
        pump: { mode: 'manual' },
      },
      { _id: 'orders-in', type: 'pipe', metadata: { '$config-group': 'shop' }, source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'orders' } },
      { _id: 'crew-scheduled', type: 'pipe', source: { type: 'dataset', dataset: 'crew' }, pump: { schedule_interval: 3600 } },
    ],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const m = /one-time link: (\S+)/.exec(hub.output());
  assert.ok(m, `serve printed a login link:\n${hub.output()}`);
  await page.goto(m[1]!);
  await page.getByTestId('pipe-row').first().waitFor();
});

after(async () => {
  assert.deepEqual(pageErrors, [], 'the page raised no errors');
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

const row = (id: string): Locator => page.locator(`[data-testid="pipe-row"][data-pipe="${id}"]`);
const shownIds = async (): Promise<string[]> => page.getByTestId('pipe-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pipe') ?? ''));

async function waitForIds(what: string, check: (ids: string[]) => boolean): Promise<string[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const ids = await shownIds();
    if (check(ids)) return ids;
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}; the list shows ${ids.join(', ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('search by id ("/" focuses it), the config-group filter and sortable columns narrow and order the list', async () => {
  assert.deepEqual(await shownIds(), ['crew-broken', 'crew-scheduled', 'crew-slow', 'orders-in']);
  await page.getByRole('heading', { name: 'Pipes' }).click();
  await page.keyboard.press('/');
  const search = page.getByTestId('pipe-search');
  assert.equal(await page.evaluate('document.activeElement?.getAttribute("data-testid")'), 'pipe-search', '"/" focuses the search box');
  await page.keyboard.type('slow');
  assert.deepEqual(await waitForIds('one match', (ids) => ids.length === 1), ['crew-slow']);
  await search.press('Escape');
  await waitForIds('Escape to clear the search', (ids) => ids.length === 4);

  await page.getByTestId('pipe-group').selectOption('people');
  assert.deepEqual(await waitForIds('the people group', (ids) => ids.length === 2), ['crew-broken', 'crew-slow']);
  const groups = await page.getByTestId('pipe-group').locator('option').allTextContents();
  assert.deepEqual(groups, ['all groups', '(default)', 'people', 'shop']);
  await page.getByTestId('pipe-group').selectOption({ label: '(default)' });
  assert.deepEqual(await waitForIds('the default group', (ids) => ids.length === 1), ['crew-scheduled']);
  await page.getByTestId('pipe-group').selectOption({ label: 'all groups' });
  await waitForIds('all groups', (ids) => ids.length === 4);

  await page.getByTestId('sort-id').click();
  assert.deepEqual(await waitForIds('descending ids', (ids) => ids[0] === 'orders-in'), ['orders-in', 'crew-slow', 'crew-scheduled', 'crew-broken']);
  await page.getByTestId('sort-schedule').click();
  await waitForIds('the only pipe on a schedule first', (ids) => ids[0] === 'crew-scheduled');
  assert.match((await row('crew-scheduled').getByTestId('pipe-schedule').textContent()) ?? '', /enabled/);
  assert.match((await row('crew-slow').getByTestId('pipe-schedule').textContent()) ?? '', /disabled/);
  await page.getByTestId('sort-id').click();
});

test('live status: a run shows "running", then its result and count; a failed run shows its error', async () => {
  assert.match((await row('crew-slow').getByTestId('pipe-last-run').textContent()) ?? '', /never/);
  await hub.fetch('/pipes/crew-slow/pump', { method: 'POST', body: new URLSearchParams({ operation: 'start' }) });
  await hub.fetch('/pipes/crew-broken/pump', { method: 'POST', body: new URLSearchParams({ operation: 'start' }) });
  await row('crew-slow').getByTestId('pipe-state').filter({ hasText: 'running' }).waitFor({ timeout: 5000 });
  await page.screenshot({ path: join(shots, 'pipes-list-running.png') });
  await row('crew-broken').getByTestId('pipe-last-run').filter({ hasText: 'failed' }).waitFor({ timeout: 15_000 });
  assert.match((await row('crew-broken').getByTestId('pipe-last-run').textContent()) ?? '', /alan is not welcome/);

  await row('crew-slow').getByTestId('pipe-state').filter({ hasText: 'idle' }).waitFor({ timeout: 15_000 });
  await row('crew-slow').getByTestId('pipe-last-run').filter({ hasText: /ok/ }).waitFor({ timeout: 5000 });
  assert.equal((await row('crew-slow').getByTestId('pipe-processed').textContent())?.trim(), String(crew.length));
  await page.screenshot({ path: join(shots, 'pipes-list.png') });
});

test('the pipe page disables the operations a pipe does not support and says why an operation failed', async () => {
  await row('orders-in').getByRole('button', { name: 'orders-in' }).click();
  const controls = page.getByTestId('pump-controls');
  await page.getByTestId('runtime').waitFor();
  // A receiver is filled by POSTs, not by a pump: every operation is disabled.
  for (const op of ['start', 'stop', 'enable', 'disable', 'start-rescan', 'update-last-seen', 'discard-retries']) {
    assert.ok(await controls.locator(`button[data-op="${op}"]`).isDisabled(), `${op} is disabled for a receiver`);
  }
  assert.match((await controls.locator('button[data-op="start"]').getAttribute('title')) ?? '', /does not support/);
  assert.match(page.url(), /#\/pipes\/orders-in$/);

  await page.getByRole('button', { name: '← Pipes' }).click();
  await row('crew-slow').getByRole('button', { name: 'crew-slow' }).click();
  await controls.locator('button[data-op="start"]:not([disabled])').waitFor();
  assert.ok(await controls.locator('button[data-op="enable"]').isDisabled(), 'a manual pump cannot be enabled');
  assert.ok(!(await controls.locator('button[data-op="update-last-seen"]').isDisabled()), 'a dataset source can be repositioned');
  // The chart holds the finished run; starting another run shows progress and adds a point.
  await page.locator('[data-testid="run-chart"][data-runs="1"]').waitFor();
  // The first run read everything: update-last-seen with an empty value starts over, so the next run has work.
  await controls.locator('button[data-op="update-last-seen"]').click();
  await page.getByTestId('last-seen-input').fill('');
  await page.getByTestId('op-confirm').getByRole('button', { name: 'Set' }).click();
  await page.getByTestId('op-message').filter({ hasText: 'update-last-seen' }).waitFor();
  await controls.locator('button[data-op="start"]').click();
  await page.getByTestId('run-progress').waitFor({ timeout: 5000 });
  assert.match((await page.getByTestId('run-progress').textContent()) ?? '', /in progress/);
  await page.screenshot({ path: join(shots, 'pipe-page-running.png') });
  await page.getByTestId('run-progress').waitFor({ state: 'detached', timeout: 15_000 });
  await page.locator('[data-testid="run-chart"][data-runs="2"]').waitFor({ timeout: 5000 });
  await page.locator('[data-testid="run-chart"] canvas').first().waitFor();
  await page.getByTestId('run-chart').screenshot({ path: join(shots, 'pipe-run-chart.png') });

  // update-last-seen takes a value; a bad one is refused with the hub's reason in words.
  await controls.locator('button[data-op="update-last-seen"]').click();
  await page.getByTestId('last-seen-input').fill('not-an-offset');
  await page.getByTestId('op-confirm').getByRole('button', { name: 'Set' }).click();
  await page.getByTestId('op-error').filter({ hasText: /failed \(400\).*invalid last-seen value/ }).waitFor();
  await page.screenshot({ path: join(shots, 'pipe-page.png'), fullPage: true });

  await page.getByRole('tab', { name: 'Execution log' }).click();
  assert.match(page.url(), /#\/pipes\/crew-slow\/log$/);
  const log = page.getByTestId('pump-log');
  await log.waitFor();
  assert.equal(await log.locator('tbody tr', { hasText: 'pump-completed' }).count(), 2);
});

test('"New pipe" creates a pipe from a template and opens its Config tab', async () => {
  await page.getByRole('button', { name: '← Pipes' }).click();
  await page.getByTestId('new-pipe').click();
  const dialog = page.getByTestId('new-pipe-dialog');
  await dialog.waitFor();
  await page.getByTestId('new-pipe-id').fill('crew-copy');
  await page.getByTestId('new-pipe-source').fill('');
  await page.getByTestId('new-pipe-create').click();
  assert.match((await page.getByTestId('new-pipe-error').textContent()) ?? '', /Name the dataset/);
  await page.getByTestId('new-pipe-source').fill('crew');
  await page.screenshot({ path: join(shots, 'pipes-new-dialog.png') });
  await page.getByTestId('new-pipe-create').click();
  await page.waitForURL(/#\/pipes\/crew-copy\/config$/);
  const config = await hub.json<{ source: { dataset: string }; transform: { type: string }; sink: { dataset: string } }>('/pipes/crew-copy/config');
  assert.equal(config.source.dataset, 'crew');
  assert.equal(config.transform.type, 'dtl');
  assert.equal(config.sink.dataset, 'crew-copy');

  // The same id again is refused, in words, and the dialog stays open.
  await page.getByRole('button', { name: '← Pipes' }).click();
  await page.getByTestId('new-pipe').click();
  await page.getByTestId('new-pipe-id').fill('crew-copy');
  await page.getByRole('radio', { name: /HTTP endpoint receiver/ }).check();
  await page.getByTestId('new-pipe-create').click();
  await page.getByTestId('new-pipe-error').filter({ hasText: /failed \(409\).*already exists/ }).waitFor();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
});

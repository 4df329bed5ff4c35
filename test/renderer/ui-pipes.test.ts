// The pipe list (live status from one GET /pipes per poll, search, config-group filter, sorting by any column, config
// errors, "New pipe", 1,000 pipes) and the pipe page's pump controls, live progress, execution log and run chart, in
// Chromium against the real hub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches, textEquals } from '../helpers/browser.js';

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

// A run of one entity per batch over this many: long enough (tens of seconds on a fast machine) to watch and stop.
const BIG = 200_000;

interface PumpInfo {
  'is-running': boolean;
  'is-disabled': boolean;
  'last-seen': string | null;
  'tracking-reset-at': string | null;
  runs: number;
  'last-run': { status: string; processed: number } | null;
}
type LogEntry = Record<string, unknown> & { _updated: number; event_type: string };

const pumpOf = (id: string): Promise<PumpInfo> => hub.json<PumpInfo>(`/pipes/${encodeURIComponent(id)}/pump`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  browser = await launchChromium();
  await hub.json('/datasets/crew/entities', { method: 'POST', json: crew });
  await hub.json('/datasets/big/entities', { method: 'POST', json: Array.from({ length: BIG }, (_, i) => ({ _id: `b${String(i).padStart(6, '0')}`, n: i })) });
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'crew-names',
        type: 'pipe',
        metadata: { '$config-group': 'people' },
        source: { type: 'dataset', dataset: 'crew' },
        transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'label', ['concat', 'crew: ', '_S.name']]] } },
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
      // One entity per batch over BIG entities: a long run that leaves the hub responsive, to watch and stop.
      { _id: 'big-slow', type: 'pipe', source: { type: 'dataset', dataset: 'big' }, batch_size: 1, pump: { mode: 'manual' } },
    ],
  });
  // Stored with force despite its error: the list shows the error count and the first message.
  await hub.json('/pipes?force=true', {
    method: 'POST',
    json: [{ _id: 'crew-invalid', type: 'pipe', metadata: { '$config-group': 'shop' }, source: { type: 'dataset' }, pump: { mode: 'manual' } }],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await signIn(page, hub);
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
const controls = (): Locator => page.getByTestId('pump-controls');
const opButton = (op: string): Locator => controls().locator(`button[data-op="${op}"]`);

async function waitForIds(what: string, check: (ids: string[]) => boolean): Promise<string[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const ids = await shownIds();
    if (check(ids)) return ids;
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}; the list shows ${ids.length} pipes: ${ids.slice(0, 12).join(', ')}…`);
    await sleep(50);
  }
}

/** Wait until a numeric data attribute passes a check; answers the number. */
async function waitForNumber(locator: Locator, attribute: string, what: string, check: (n: number) => boolean, timeoutMs = 10_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const raw = (await locator.count()) > 0 ? await locator.first().getAttribute(attribute) : null;
    const n = raw === null ? NaN : Number(raw);
    if (!Number.isNaN(n) && check(n)) return n;
    if (Date.now() > until) assert.fail(`timed out waiting for ${what} (last ${attribute}=${raw})`);
    await sleep(40);
  }
}

/** The pipe list, from wherever the page is: the Pipes view, and back from an open pipe. */
async function toList(): Promise<void> {
  await page.getByRole('button', { name: /^Pipes/ }).first().click();
  const back = page.getByRole('button', { name: '← Pipes' });
  if (await back.isVisible()) await back.click();
  await page.getByTestId('pipes').waitFor();
}

async function openPipe(id: string): Promise<void> {
  await toList();
  await row(id).getByRole('button', { name: id, exact: true }).click();
  await page.getByTestId('runtime').waitFor();
}

async function backToList(): Promise<void> {
  await page.getByRole('button', { name: '← Pipes' }).click();
  await page.getByTestId('pipes').waitFor();
}

test('search by id ("/" focuses it), the config-group filter and sortable columns narrow and order the list; the Config column counts errors', async () => {
  assert.deepEqual(await shownIds(), ['big-slow', 'crew-broken', 'crew-invalid', 'crew-names', 'crew-scheduled', 'orders-in']);
  await page.getByRole('heading', { name: 'Pipes' }).click();
  await page.keyboard.press('/');
  const search = page.getByTestId('pipe-search');
  assert.equal(await page.evaluate('document.activeElement?.getAttribute("data-testid")'), 'pipe-search', '"/" focuses the search box');
  await page.keyboard.type('names');
  assert.deepEqual(await waitForIds('one match', (ids) => ids.length === 1), ['crew-names']);
  await search.press('Escape');
  await waitForIds('Escape to clear the search', (ids) => ids.length === 6);

  await page.getByTestId('pipe-group').selectOption('people');
  assert.deepEqual(await waitForIds('the people group', (ids) => ids.length === 2), ['crew-broken', 'crew-names']);
  const groups = await page.getByTestId('pipe-group').locator('option').allTextContents();
  // Each group with the number of pipes it shows.
  assert.deepEqual(groups, ['all groups', '(default) (2)', 'people (2)', 'shop (2)']);
  await page.getByTestId('pipe-group').selectOption({ index: 1 });
  assert.deepEqual(await waitForIds('the default group', (ids) => ids.length === 2), ['big-slow', 'crew-scheduled']);
  await page.getByTestId('pipe-group').selectOption({ label: 'all groups' });
  await waitForIds('all groups', (ids) => ids.length === 6);

  await page.getByTestId('sort-id').click();
  assert.deepEqual(await waitForIds('descending ids', (ids) => ids[0] === 'orders-in'), ['orders-in', 'crew-scheduled', 'crew-names', 'crew-invalid', 'crew-broken', 'big-slow']);
  await page.getByTestId('sort-schedule').click();
  await waitForIds('the only pipe on a schedule first', (ids) => ids[0] === 'crew-scheduled');
  await textMatches(row('crew-scheduled').getByTestId('pipe-schedule'), /enabled · next in (59 min|1 h)/);
  await textMatches(row('crew-names').getByTestId('pipe-schedule'), /^\s*manual\s*$/, 'a manual pump does not read "disabled"');
  await page.getByTestId('sort-group').click();
  await waitForIds('by group: the default group first, then people, then shop', (ids) => ids.join() === 'big-slow,crew-scheduled,crew-broken,crew-names,crew-invalid,orders-in');

  // The Config column: the number of errors, the first message as the tooltip; sorting puts the broken one first.
  const config = row('crew-invalid').getByTestId('pipe-config-state');
  await textEquals(config, '1 error');
  assert.match((await config.getAttribute('title')) ?? '', /^\$\.source\.dataset: a dataset source needs "dataset"/);
  await textEquals(row('crew-names').getByTestId('pipe-config-state'), 'valid');
  await page.getByTestId('sort-config').click();
  await waitForIds('the pipe with a config error first', (ids) => ids[0] === 'crew-invalid');
  await page.getByTestId('sort-id').click();
  await waitForIds('ascending ids again', (ids) => ids[0] === 'big-slow');
});

test('live status from one request per poll: a running run counts up in the list, then shows its result and counts; a failed run shows its error', async () => {
  const requests: string[] = [];
  const onRequest = (r: { url: () => string }): void => void requests.push(new URL(r.url()).pathname);
  page.on('request', onRequest);
  await textMatches(row('crew-names').getByTestId('pipe-last-run'), /never/);
  for (const id of ['big-slow', 'crew-broken', 'crew-names']) {
    await hub.fetch(`/pipes/${id}/pump`, { method: 'POST', body: new URLSearchParams({ operation: 'start' }) });
  }
  await row('big-slow').getByTestId('pipe-state').filter({ hasText: 'running' }).waitFor({ timeout: 5000 });
  const progress = row('big-slow').getByTestId('pipe-progress');
  const first = await waitForNumber(progress, 'data-processed', 'the list to show entities processed', (n) => n >= 1);
  const later = await waitForNumber(progress, 'data-processed', 'the count in the list to grow', (n) => n > first);
  assert.ok(later < BIG);
  await textMatches(progress, /^[\d,]+$/);
  assert.equal(await progress.getAttribute('title'), 'Entities this run has processed so far');
  await page.screenshot({ path: join(shots, 'pipes-list-running.png') });
  await row('crew-broken').getByTestId('pipe-last-run').filter({ hasText: 'failed' }).waitFor({ timeout: 15_000 });
  await textMatches(row('crew-broken').getByTestId('pipe-last-run'), /alan is not welcome/);
  await textEquals(row('crew-broken').getByTestId('pipe-errors'), '1');

  await row('crew-names').getByTestId('pipe-last-run').filter({ hasText: /ok/ }).waitFor({ timeout: 15_000 });
  await textEquals(row('crew-names').getByTestId('pipe-processed'), String(crew.length));
  await textEquals(row('crew-names').getByTestId('pipe-changed'), String(crew.length));
  await textEquals(row('crew-names').getByTestId('pipe-errors'), '0');

  await hub.fetch('/pipes/big-slow/pump', { method: 'POST', body: new URLSearchParams({ operation: 'stop' }) });
  await row('big-slow').getByTestId('pipe-state').filter({ hasText: 'idle' }).waitFor({ timeout: 5000 });
  await row('big-slow').getByTestId('pipe-last-run').filter({ hasText: 'stopped' }).waitFor({ timeout: 5000 });
  const stopped = (await pumpOf('big-slow'))['last-run']!.processed;
  await textEquals(row('big-slow').getByTestId('pipe-processed'), String(stopped));
  await page.screenshot({ path: join(shots, 'pipes-list.png') });
  page.off('request', onRequest);
  assert.ok(requests.filter((p) => p === '/api/pipes').length >= 3, `the list polled GET /pipes: ${requests.join(' ')}`);
  assert.deepEqual(requests.filter((p) => p.endsWith('/pump')), [], 'the list reads no pump information of its own');
});

test('the pipe page disables operations the pipe does not support, and start while running / stop while idle; the progress counter grows; stop ends the run', async () => {
  await openPipe('orders-in');
  // A receiver is filled by POSTs, not by a pump: every operation is disabled.
  for (const op of ['start', 'stop', 'enable', 'disable', 'start-rescan', 'update-last-seen', 'discard-retries']) {
    assert.ok(await opButton(op).isDisabled(), `${op} is disabled for a receiver`);
  }
  assert.match((await opButton('start').getAttribute('title')) ?? '', /does not support/);
  assert.match(page.url(), /#\/pipes\/orders-in$/);

  await backToList();
  await row('big-slow').getByRole('button', { name: 'big-slow' }).click();
  await controls().locator('button[data-op="start"]:not([disabled])').waitFor();
  assert.ok(await opButton('enable').isDisabled(), 'a manual pump cannot be enabled');
  assert.ok(await opButton('stop').isDisabled(), 'stop is disabled while idle');
  assert.match((await opButton('stop').getAttribute('title')) ?? '', /idle/);
  assert.ok(!(await opButton('update-last-seen').isDisabled()), 'a dataset source can be repositioned');
  await page.locator('[data-testid="run-chart"][data-runs="1"]').waitFor();

  // Clearing last-seen starts over: the next run reads the whole source again (a run of several seconds).
  assert.notEqual((await pumpOf('big-slow'))['last-seen'], null);
  await opButton('update-last-seen').click();
  await page.getByTestId('last-seen-clear').click();
  await page.getByTestId('op-message').filter({ hasText: 'Last-seen cleared: the next run reads the source from the beginning.' }).waitFor();
  assert.equal((await pumpOf('big-slow'))['last-seen'], null);

  await opButton('start').click();
  await page.getByTestId('run-progress').waitFor({ timeout: 5000 });
  await controls().locator('button[data-op="start"][disabled]').waitFor();
  assert.match((await opButton('start').getAttribute('title')) ?? '', /A run is in progress/);
  assert.ok(!(await opButton('stop').isDisabled()), 'stop is enabled while the run runs');
  const counter = page.getByTestId('progress-processed');
  const first = await waitForNumber(counter, 'data-processed', 'the first entities processed', (n) => n >= 1);
  const later = await waitForNumber(counter, 'data-processed', 'the progress counter to grow', (n) => n > first);
  assert.ok(later < BIG, `still running: ${later}`);
  await textMatches(page.getByTestId('run-progress'), /Run in progress.*entities processed so far.*source entities left/);
  await page.screenshot({ path: join(shots, 'pipe-page-running.png'), fullPage: true });

  await opButton('stop').click();
  await page.getByTestId('op-message').filter({ hasText: /^Stopped: the run ended after its current batch \(\d+ entities processed\)\.$/ }).waitFor({ timeout: 5000 });
  await page.getByTestId('run-progress').waitFor({ state: 'detached' });
  await page.getByTestId('run-state').filter({ hasText: 'idle' }).waitFor();
  const after = await pumpOf('big-slow');
  const stoppedAt = after['last-run']!.processed;
  assert.equal(after['last-run']?.status, 'stopped');
  assert.ok(stoppedAt >= later && stoppedAt < BIG, `stopped part way: ${stoppedAt}`);
  await controls().locator('button[data-op="stop"][disabled]').waitFor();
  await page.getByTestId('last-run').filter({ hasText: `stopped: ${stoppedAt} processed` }).waitFor();
  // The chart draws both stopped runs with their counts.
  const ends = (await hub.json<LogEntry[]>('/pipes/big-slow/log')).filter((e) => e.event_type === 'pump-completed');
  assert.equal(ends.length, 2);
  // The second run re-reads entities the first wrote, so its changes can be fewer than it processed: each maximum is
  // read from the log on its own.
  const most = String(Math.max(...ends.map((e) => e['processed_entities'] as number)));
  const mostChanged = String(Math.max(...ends.map((e) => e['changed_entities'] as number)));
  await page.locator(`[data-testid="run-chart"][data-runs="2"][data-max-processed="${most}"][data-max-changed="${mostChanged}"][data-max-errors="0"]`).waitFor();

  // The log says so: its newest run ended "stopped", with the reason.
  await page.getByRole('tab', { name: 'Execution log' }).click();
  const stoppedRow = page.getByTestId('pump-log').getByTestId('log-row').first();
  await stoppedRow.filter({ hasText: 'pump-completed' }).waitFor();
  await textMatches(stoppedRow, /stopped.*stopped by the "stop" operation/);
  await page.getByRole('tab', { name: 'Overview' }).click();
});

test('update-last-seen is prefilled with the current position; set-last-seen-to-end and reset-tracking ask first; a refused value is shown in words', async () => {
  await openPipe('crew-names');
  const before = await pumpOf('crew-names');
  assert.equal(before['last-seen'], '5', 'the run read the six crew entities');
  await controls().locator('button[data-op="update-last-seen"]:not([disabled])').click();
  assert.equal(await page.getByTestId('last-seen-input').inputValue(), before['last-seen'], 'the input holds the current last-seen');
  assert.equal(await page.evaluate('document.activeElement?.getAttribute("data-testid")'), 'last-seen-input', 'the input has the focus');
  await page.getByTestId('last-seen-input').fill('1');
  await page.getByTestId('last-seen-input').press('Enter');
  await page.getByTestId('op-message').filter({ hasText: 'Last-seen set to 1: the next run reads what comes after it.' }).waitFor();
  assert.equal((await pumpOf('crew-names'))['last-seen'], '1');

  await opButton('update-last-seen').click();
  await page.getByTestId('last-seen-input').fill('not-an-offset');
  await page.getByTestId('last-seen-set').click();
  await page.getByTestId('op-error').filter({ hasText: /failed \(400\).*invalid last-seen value/ }).waitFor();
  assert.equal((await pumpOf('crew-names'))['last-seen'], '1', 'a refused value changes nothing');

  // set-last-seen-to-end: Cancel leaves the position; Yes moves it to the end of the source.
  await opButton('set-last-seen-to-end').click();
  const ask = page.getByTestId('op-confirm');
  await textMatches(ask, /Skip every unread source entity after offset 1\?.*data loss/);
  assert.equal(await page.evaluate('document.activeElement?.getAttribute("data-testid")'), 'op-confirm-yes', 'the confirm button has the focus');
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await ask.waitFor({ state: 'detached' });
  assert.equal((await pumpOf('crew-names'))['last-seen'], '1', 'cancelled: nothing changed');
  await opButton('set-last-seen-to-end').click();
  await page.getByTestId('op-confirm-yes').click();
  await page.getByTestId('op-message').filter({ hasText: 'Last-seen set to the end of the source (5)' }).waitFor();
  assert.equal((await pumpOf('crew-names'))['last-seen'], '5', 'the offset of the newest crew entity');

  // reset-tracking: Escape cancels the question; Yes resets.
  assert.equal((await pumpOf('crew-names'))['tracking-reset-at'], null);
  await opButton('reset-tracking').click();
  await page.getByTestId('op-confirm').filter({ hasText: 'Reset dependency tracking?' }).waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('op-confirm').waitFor({ state: 'detached' });
  assert.equal((await pumpOf('crew-names'))['tracking-reset-at'], null, 'Escape changed nothing');
  await opButton('reset-tracking').click();
  await page.getByTestId('op-confirm-yes').click();
  await page.getByTestId('op-message').filter({ hasText: 'Dependency tracking reset' }).waitFor();
  assert.notEqual((await pumpOf('crew-names'))['tracking-reset-at'], null);
  await page.screenshot({ path: join(shots, 'pipe-page.png'), fullPage: true });

  // A profiled run: the hub writes the CPU profile files and names them in the run's log entry.
  await opButton('update-last-seen').click();
  await page.getByTestId('last-seen-clear').click();
  await page.getByTestId('op-message').filter({ hasText: 'Last-seen cleared' }).waitFor();
  await page.getByTestId('start-profiler').check();
  await opButton('start').click();
  await page.getByTestId('op-message').filter({ hasText: /It is profiled: the profile files go to the hub’s logs folder/ }).waitFor();
  await page.getByTestId('pump-log').getByTestId('log-row').first().filter({ hasText: 'pump-completed' }).waitFor();
  const end = (await hub.json<LogEntry[]>('/pipes/crew-names/log?reverse=true&limit=1'))[0]!;
  // The hub thread's profile, then the pipe worker's that transformed (-worker1…).
  const kinds = (end['profile_files'] as string[]).map((f) => f.replace(/^.*crew-names-\d{8}T\d{6}\.\d{3}Z/, ''));
  assert.deepEqual(kinds.slice(0, 4), ['.cpuprofile', '.calltree', '-worker1.cpuprofile', '-worker1.calltree']);
});

test('disable and enable switch the schedule on the page and in the list', async () => {
  await openPipe('crew-scheduled');
  const pill = page.getByTestId('schedule-state');
  assert.equal(await pill.textContent(), 'schedule enabled');
  assert.ok(await opButton('enable').isDisabled(), 'enable is disabled while scheduling is enabled');
  await opButton('disable').click();
  await page.getByTestId('op-message').filter({ hasText: 'Scheduling disabled' }).waitFor();
  await pill.filter({ hasText: 'schedule disabled' }).waitFor();
  assert.equal((await pumpOf('crew-scheduled'))['is-disabled'], true);
  assert.ok(await opButton('disable').isDisabled(), 'disable is disabled once disabled');
  await backToList();
  await row('crew-scheduled').getByTestId('pipe-schedule').filter({ hasText: /^\s*disabled\s*$/ }).waitFor();

  await row('crew-scheduled').getByRole('button', { name: 'crew-scheduled' }).click();
  await controls().locator('button[data-op="enable"]:not([disabled])').click();
  await page.getByTestId('op-message').filter({ hasText: /^Scheduling enabled: next run / }).waitFor();
  await pill.filter({ hasText: 'schedule enabled' }).waitFor();
  assert.equal((await pumpOf('crew-scheduled'))['is-disabled'], false);
  await backToList();
  await row('crew-scheduled').getByTestId('pipe-schedule').filter({ hasText: /enabled · next in/ }).waitFor();
});

test('the execution log filters by event and status and opens an entry as JSON; the chart counts the failed run’s error', async () => {
  const failedEntry = (await hub.json<LogEntry[]>('/pipes/crew-broken/log')).find((e) => e.event_type === 'pump-failed')!;
  await openPipe('crew-broken');
  await page.locator(`[data-testid="run-chart"][data-runs="1"][data-max-errors="1"][data-max-processed="${String(failedEntry['processed_entities'])}"]`).waitFor();
  await page.getByRole('tab', { name: 'Execution log' }).click();
  const log = page.getByTestId('pump-log');
  await log.waitFor();
  const rows = log.getByTestId('log-row');
  assert.deepEqual(await rows.locator('td:nth-child(3)').allTextContents(), ['pump-failed', 'pump-started']);
  await page.getByTestId('log-filter-status').selectOption('failed');
  assert.deepEqual(await rows.locator('td:nth-child(3)').allTextContents(), ['pump-failed']);
  await textMatches(page.getByTestId('log-count'), /^1 of 2 loaded entries/);
  await page.getByTestId('log-filter-status').selectOption('');
  await page.getByTestId('log-filter-event').selectOption('pump-started');
  assert.deepEqual(await rows.locator('td:nth-child(3)').allTextContents(), ['pump-started']);
  await page.getByTestId('log-filter-event').selectOption('');

  // The failed entry opens in full: the traceback, the reason and the metrics as formatted JSON.
  await rows.filter({ hasText: 'pump-failed' }).getByTestId('log-row-toggle').click();
  const json = page.getByTestId('log-entry-json');
  const entry = JSON.parse((await json.textContent()) ?? '') as LogEntry;
  assert.equal(entry.event_type, 'pump-failed');
  assert.match(String(entry['reason_why_stopped']), /alan is not welcome/);
  assert.match(String(entry['traceback']), /alan is not welcome/);
  assert.equal(entry['write_errors'], 1);
  assert.deepEqual(entry, failedEntry, 'the whole entry');
  assert.equal(await page.getByTestId('log-entry-traceback').textContent(), failedEntry['traceback'], 'the traceback as lines of text');
  await textMatches(json, /\n {2}"reason_why_stopped": "alan is not welcome",\n/, 'indented JSON');
  await page.screenshot({ path: join(shots, 'pipe-log-expanded.png'), fullPage: true });
  await rows.filter({ hasText: 'pump-failed' }).getByTestId('log-row-toggle').press('Enter');
  await json.waitFor({ state: 'detached' });
});

test('the run chart draws processed, changed, errors and durations of the runs in the log, and pages back beyond the last 100 runs', async () => {
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'ticker', type: 'pipe', source: { type: 'dataset', dataset: 'ticks' }, pump: { mode: 'manual' } }] });
  // 130 runs: the first reads 50 new entities, the others 1 to 7 — the biggest run is older than the last 100.
  let next = 0;
  for (let i = 0; i < 130; i++) {
    const n = i === 0 ? 50 : (i % 7) + 1;
    await hub.json('/datasets/ticks/entities', { method: 'POST', json: Array.from({ length: n }, () => ({ _id: `t${next++}` })) });
    await hub.fetch('/pipes/ticker/pump', { method: 'POST', body: new URLSearchParams({ operation: 'start' }) });
    for (let k = 0; ; k++) {
      const p = await pumpOf('ticker');
      if (p.runs === i + 1 && !p['is-running']) break;
      assert.ok(k < 400, `run ${i + 1} ended`);
      await sleep(10);
    }
  }
  const ends = (await hub.json<LogEntry[]>('/pipes/ticker/log')).filter((e) => e.event_type === 'pump-completed');
  assert.equal(ends.length, 130);
  const max = (list: LogEntry[], key: string): string => String(Math.max(...list.map((e) => e[key] as number)));
  const last100 = ends.slice(-100);

  await openPipe('ticker');
  const chart = page.locator('[data-testid="run-chart"]');
  await page.locator('[data-testid="run-chart"][data-runs="100"]').waitFor();
  assert.equal(await chart.getAttribute('data-max-processed'), '7', 'the last 100 runs read at most 7 entities');
  assert.equal(await chart.getAttribute('data-max-changed'), '7');
  assert.equal(await chart.getAttribute('data-max-errors'), '0');
  assert.equal(await chart.getAttribute('data-max-duration'), max(last100, 'duration'));
  for (const [attr, key] of [['source-time', 'source_time'], ['transform-time', 'transform_time'], ['sink-time', 'sink_time']] as const) {
    assert.equal(await chart.getAttribute(`data-max-${attr}`), max(last100, key), `${key} is drawn`);
  }
  assert.equal(await chart.getAttribute('data-last-run'), new Date(String(ends.at(-1)!['end_time'])).toISOString());

  // Hovering a run shows its values in the legend.
  const over = chart.locator('.u-over');
  const box = (await over.boundingBox())!;
  await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
  const legend = chart.locator('.u-legend');
  await legend.locator('tr', { hasText: 'processed' }).locator('.u-value').filter({ hasText: /^\d+$/ }).waitFor();
  await textMatches(legend.locator('tr', { hasText: 'duration (s)' }).locator('.u-value'), /^\d+\.\d{3} s$/);

  // Older runs: one page more of the log, then all loaded runs in the chart.
  await page.getByTestId('chart-load-older').click();
  await page.getByTestId('chart-summary').filter({ hasText: /^\s*100 runs of 130 loaded/ }).waitFor();
  await page.getByTestId('chart-load-older').waitFor({ state: 'detached' });
  await page.getByTestId('chart-range').selectOption({ label: 'all loaded runs' });
  await page.locator('[data-testid="run-chart"][data-runs="130"]').waitFor();
  assert.equal(await chart.getAttribute('data-max-processed'), '50', 'the first, biggest run is drawn now');
  assert.equal(await chart.getAttribute('data-max-duration'), max(ends, 'duration'));
  assert.equal(await chart.getAttribute('data-first-run'), new Date(String(ends[0]!['end_time'])).toISOString());
  await chart.screenshot({ path: join(shots, 'pipe-run-chart.png') });
  // The dark theme: the legend takes the theme's text colour, the series the theme's colours.
  await page.emulateMedia({ colorScheme: 'dark' });
  const legendColour = async (): Promise<string> => String(await page.evaluate('getComputedStyle(document.querySelector(\'[data-testid="run-chart"] .u-legend\')).color'));
  const bodyColour = String(await page.evaluate('getComputedStyle(document.documentElement).color'));
  assert.equal(await legendColour(), bodyColour, 'the legend reads in the dark theme');
  assert.equal(bodyColour, 'rgb(230, 233, 237)');
  await chart.screenshot({ path: join(shots, 'pipe-run-chart-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });

  // The Log tab pages the same way: 200 entries, then the older 60, then the start of the log.
  await page.reload();
  await page.getByRole('tab', { name: 'Execution log' }).click();
  const rows = page.getByTestId('pump-log').getByTestId('log-row');
  await page.getByTestId('log-count').filter({ hasText: /^200 of 200 loaded entries \(older entries not loaded yet\)/ }).waitFor();
  assert.equal(await rows.count(), 200);
  await page.getByTestId('log-load-older').click();
  await page.getByTestId('log-start').waitFor();
  assert.equal(await rows.count(), 260);
  const offsets = await rows.evaluateAll((rs) => rs.map((r) => Number(r.getAttribute('data-offset'))));
  assert.deepEqual(offsets, [...offsets].sort((a, b) => b - a), 'newest first, without gaps or repeats');
  assert.equal(new Set(offsets).size, 260);
  await page.getByTestId('log-filter-event').selectOption('pump-completed');
  assert.equal(await rows.count(), 130);
  assert.equal(await page.locator('[data-testid="log-run-chart"]').getAttribute('data-max-processed'), '7', 'the Log tab has the chart too');
});

test('against a hub whose pipe list reports no last run (the hosted service), the list reads it from each visible pipe\'s execution log', async () => {
  // The hosted service's pipe runtime has no `last-run` or `current-run`: take them out of this hub's answers.
  const strip = async (route: import('playwright-core').Route): Promise<void> => {
    const response = await route.fetch();
    const pipes = (await response.json()) as { runtime: Record<string, unknown> }[];
    for (const p of pipes) {
      delete p.runtime['last-run'];
      delete p.runtime['current-run'];
    }
    await route.fulfill({ response, json: pipes });
  };
  await page.route(/\/api\/pipes$/, strip);
  try {
    await page.goto(`${hub.url}/#/pipes`);
    const broken = page.locator('tr[data-pipe="crew-broken"]');
    await broken.getByTestId('pipe-last-run').filter({ hasText: /failed/ }).waitFor();
    assert.match((await broken.getByTestId('pipe-last-run').getAttribute('title')) ?? '', /alan is not welcome/);
    const names = page.locator('tr[data-pipe="crew-names"]');
    const expected = (await pumpOf('crew-names'))['last-run'];
    assert.ok(expected, 'crew-names has run');
    await names.getByTestId('pipe-processed').filter({ hasText: String(expected.processed) }).waitFor();
    assert.equal(await page.locator('tr[data-pipe="orders-in"]').getByTestId('pipe-last-run').textContent().then((t) => t?.trim()), 'never');
  } finally {
    await page.unroute(/\/api\/pipes$/, strip);
  }
});

test('"New pipe" creates a pipe from a template and opens its Config tab', async () => {
  await toList();
  await page.getByTestId('new-pipe').click();
  const dialog = page.getByTestId('new-pipe-dialog');
  await dialog.waitFor();
  await page.getByTestId('new-pipe-id').fill('crew-copy');
  await page.getByTestId('new-pipe-source').fill('');
  await page.getByTestId('new-pipe-create').click();
  await textMatches(page.getByTestId('new-pipe-error'), /Name the dataset/);
  await page.getByTestId('new-pipe-source').fill('crew');
  await page.screenshot({ path: join(shots, 'pipes-new-dialog.png') });
  await page.getByTestId('new-pipe-create').click();
  await page.waitForURL(/#\/pipes\/crew-copy\/config$/);
  const config = await hub.json<{ source: { dataset: string }; transform: { type: string }; sink: { dataset: string } }>('/pipes/crew-copy/config');
  assert.equal(config.source.dataset, 'crew');
  assert.equal(config.transform.type, 'dtl');
  assert.equal(config.sink.dataset, 'crew-copy');

  // The same id again is refused, in words, before anything is sent, and the dialog stays open.
  await backToList();
  await page.getByTestId('new-pipe').click();
  await page.getByTestId('new-pipe-id').fill('crew-copy');
  await page.getByRole('radio', { name: /HTTP endpoint receiver/ }).check();
  await page.getByTestId('new-pipe-id-problem').filter({ hasText: /“crew-copy” already exists/ }).waitFor();
  assert.ok(await page.getByTestId('new-pipe-create').isDisabled(), 'Create waits for another id');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
});

test('with 1,000 more pipes the list renders the rows in view, scrolls, searches, filters by group and sorts', async () => {
  const bulk = Array.from({ length: 1000 }, (_, i) => ({
    _id: `bulk-${String(i).padStart(4, '0')}`,
    type: 'pipe',
    metadata: { '$config-group': `bulk-${i % 4}` },
    // Every 100th pipe lacks its source dataset: a config error.
    source: i % 100 === 42 ? { type: 'dataset' } : { type: 'dataset', dataset: 'crew' },
    pump: { mode: 'manual' },
  }));
  await hub.json('/pipes?force=true', { method: 'POST', json: bulk });
  const total = (await hub.json<unknown[]>('/pipes')).length;
  assert.ok(total >= 1005);
  const count = page.getByTestId('pipe-count');
  await count.filter({ hasText: `${total} of ${total}` }).waitFor({ timeout: 15_000 });
  // Only the rows in view are in the DOM; scrolling brings the others.
  const inDom = await page.getByTestId('pipe-row').count();
  assert.ok(inDom >= 20 && inDom < 120, `a window of rows is rendered: ${inDom}`);
  assert.deepEqual((await shownIds()).slice(0, 3), ['big-slow', 'bulk-0000', 'bulk-0001']);
  await page.screenshot({ path: join(shots, 'pipes-list-1000.png') });
  const scroller = page.getByTestId('pipes').locator('xpath=..');
  await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await row('ticker').waitFor();
  assert.equal((await shownIds()).at(-1), 'ticker', 'the last pipe by id at the bottom');
  await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight / 2));
  await waitForIds('the middle of the list', (ids) => ids.some((id) => id >= 'bulk-0480' && id <= 'bulk-0520'));
  await scroller.evaluate((el) => el.scrollTo(0, 0));

  await page.getByTestId('pipe-search').fill('bulk-0999');
  assert.deepEqual(await waitForIds('one bulk pipe', (ids) => ids.length === 1), ['bulk-0999']);
  await page.getByTestId('pipe-search').fill('bulk-');
  await count.filter({ hasText: `1000 of ${total}` }).waitFor();
  await page.getByTestId('pipe-group').selectOption('bulk-2');
  await count.filter({ hasText: `250 of ${total}` }).waitFor();
  const group2 = await waitForIds('the bulk-2 group', (ids) => ids[0] === 'bulk-0002');
  assert.ok(group2.every((id) => Number(id.slice(5)) % 4 === 2), 'only pipes of the group');
  await page.getByTestId('pipe-group').selectOption({ label: 'all groups' });
  await count.filter({ hasText: `1000 of ${total}` }).waitFor();
  await page.getByTestId('sort-config').click();
  const byConfig = await waitForIds('the broken bulk pipes first', (ids) => ids[0] === 'bulk-0042');
  assert.deepEqual(byConfig.slice(0, 10), Array.from({ length: 10 }, (_, k) => `bulk-${String(k * 100 + 42).padStart(4, '0')}`));
  await textEquals(row('bulk-0042').getByTestId('pipe-config-state'), '1 error');
  await page.getByTestId('pipe-search').fill('');
  await page.getByTestId('sort-id').click();
  await count.filter({ hasText: `${total} of ${total}` }).waitFor();
  await waitForIds('all pipes by id', (ids) => ids[0] === 'big-slow' && ids[1] === 'bulk-0000');
});

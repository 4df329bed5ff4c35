// Pumps (spec §3 pump states, §4.1 pump/log/webhook endpoints, §4.2 operations) against the real hub over HTTP.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir, tempDir, type HubProcess } from '../../helpers/hub-process.js';
import { pumpOperation, pushEntities, runPump, waitFor } from '../../helpers/api.js';

type Json = Record<string, unknown>;

interface LastRun {
  run_id: string;
  run_type: string;
  trigger: string;
  status: string;
  processed: number;
  changes: number;
  reason_why_stopped: string | null;
}

interface PumpInfo {
  _id: string;
  'is-running': boolean;
  'is-disabled': boolean;
  'last-seen': string | null;
  'pending-retries': number;
  rescan: { 'is-running': boolean; 'last-seen': string | null };
  'supported-operations': string[];
  'scheduler-disabled': boolean;
  'next-run': string | null;
  runs: number;
  'last-run': LastRun | null;
  'webhook-token': string;
}

interface LogEntity extends Json {
  _id: string;
  _updated: number;
  event_type: string;
}

let hub: HubProcess;

before(async () => {
  hub = await startHub();
});

after(async () => {
  if (!hub) return;
  await hub.stop();
  removeDir(hub.dataDir);
});

const p = (id: string): string => `/pipes/${encodeURIComponent(id)}`;
async function createPipe(h: HubProcess, config: Json): Promise<void> {
  await h.json('/pipes', { method: 'POST', json: [{ type: 'pipe', ...config }] });
}

const push = (dataset: string, entities: Json[]): Promise<void> => pushEntities(hub, dataset, entities);

function pump(id: string, h = hub): Promise<PumpInfo> {
  return h.json<PumpInfo>(`${p(id)}/pump`);
}

function operate(id: string, operation: string, extra: Record<string, string> = {}, h = hub): Promise<Response> {
  return h.fetch(`${p(id)}/pump`, { method: 'POST', body: new URLSearchParams({ operation, ...extra }) });
}

const op = (id: string, operation: string, extra: Record<string, string> = {}, h = hub): Promise<PumpInfo> => pumpOperation<PumpInfo>(h, id, operation, extra);

/** Run an operation that starts a run and wait until that run has ended; returns its summary. */
const run = (id: string, operation = 'start', h = hub): Promise<LastRun> => runPump<LastRun>(h, id, operation);

async function log(id: string, query = ''): Promise<LogEntity[]> {
  return hub.json<LogEntity[]>(`${p(id)}/log${query}`);
}

/** The last pump-completed (or -failed) event of a pipe. */
async function lastEnd(id: string): Promise<LogEntity> {
  const events = await log(id, '?reverse=true');
  const end = events.find((e) => e.event_type === 'pump-completed' || e.event_type === 'pump-failed');
  assert.ok(end, `${id} has an ended run in its log`);
  return end;
}

async function latest(dataset: string): Promise<Map<string, Json>> {
  const list = await hub.json<Json[]>(`/datasets/${encodeURIComponent(dataset)}/entities?history=false`);
  return new Map(list.map((e) => [e['_id'] as string, e]));
}

const DTL = {
  type: 'dtl',
  rules: {
    default: [
      ['filter', ['eq', '_S.keep', true]],
      ['copy', '*'],
      ['add', 'label', ['concat', 'x-', '_S.name']],
    ],
  },
};

test('a dataset -> DTL -> dataset pipe: incremental runs, filters and deletes', async () => {
  await push('src', [
    { _id: 'a', name: 'A', keep: true },
    { _id: 'b', name: 'B', keep: true },
    { _id: 'c', name: 'C', keep: false },
  ]);
  await createPipe(hub, { _id: 'dtl', source: { type: 'dataset', dataset: 'src' }, transform: DTL, pump: { schedule_interval: 3600 } });
  const info = await hub.json<{ runtime: { 'is-running': boolean; 'supported-operations': string[] } }>(p('dtl'));
  assert.deepEqual(info.runtime['supported-operations'], [
    'start',
    'start-rescan',
    'stop',
    'enable',
    'disable',
    'update-last-seen',
    'set-last-seen-to-end',
    'reset-tracking',
    'reset-rescan',
    'discard-retries',
  ]);

  const first = await run('dtl');
  assert.equal(first.status, 'completed');
  assert.equal(first.processed, 3);
  let sink = await latest('dtl');
  assert.equal(sink.get('a')?.['label'], 'x-A');
  assert.equal(sink.get('b')?.['label'], 'x-B');
  assert.equal(sink.get('c')?.['_deleted'], true, 'a filtered entity is written deleted');
  const end = await lastEnd('dtl');
  assert.equal(end.event_type, 'pump-completed');
  assert.equal(end['processed_entities'], 3);
  assert.equal(end['changed_entities'], 3);
  assert.equal(typeof end['duration'], 'number');
  assert.equal(typeof end['start_time'], 'string');
  assert.equal(typeof end['end_time'], 'string');
  assert.ok((await pump('dtl'))['last-seen'] !== null);

  // Only new and changed source entities are read by the next run.
  await push('src', [
    { _id: 'a', name: 'A2', keep: true },
    { _id: 'd', name: 'D', keep: true },
  ]);
  const second = await run('dtl');
  assert.equal(second.processed, 2);
  assert.equal((await lastEnd('dtl'))['processed_entities'], 2);
  sink = await latest('dtl');
  assert.equal(sink.get('a')?.['label'], 'x-A2');
  assert.equal(sink.get('d')?.['label'], 'x-D');

  // Nothing new: nothing processed.
  assert.equal((await run('dtl')).processed, 0);

  // The filter now rejects b: its sink version is deleted. A deleted source entity is deleted in the sink.
  await push('src', [
    { _id: 'b', name: 'B', keep: false },
    { _id: 'd', _deleted: true },
  ]);
  const third = await run('dtl');
  assert.equal(third.processed, 2);
  sink = await latest('dtl');
  assert.equal(sink.get('b')?.['_deleted'], true);
  assert.equal(sink.get('d')?.['_deleted'], true);
  assert.equal(sink.get('a')?.['_deleted'], false);

  // A rescan reads every source entity again; what the source no longer yields disappears from the sink.
  await push('dtl', [{ _id: 'stray', name: 'not from the source' }]);
  const rescan = await run('dtl', 'start-rescan');
  assert.equal(rescan.run_type, 'rescan');
  assert.equal(rescan.processed, 4, 'a, b, c and d (latest versions, deletes included)');
  sink = await latest('dtl');
  assert.equal(sink.get('stray')?.['_deleted'], true, 'deletion tracking of the rescan');
  assert.equal(sink.get('a')?.['_deleted'], false);
});

test('last-seen operations change what the next run reads', async () => {
  await op('dtl', 'update-last-seen', { 'last-seen': '' });
  assert.equal((await pump('dtl'))['last-seen'], null, 'an empty last-seen clears it');
  assert.equal((await run('dtl')).processed, 4, 'from the beginning again');

  await push('src', [{ _id: 'e', name: 'E', keep: true }]);
  const atEnd = await op('dtl', 'set-last-seen-to-end');
  const endOffset = Number(atEnd['last-seen']);
  assert.ok(endOffset > 0);
  assert.equal((await run('dtl')).processed, 0, 'e is skipped');
  assert.equal((await latest('dtl')).has('e'), false);

  await op('dtl', 'update-last-seen', { 'last-seen': String(endOffset - 1) });
  assert.equal((await pump('dtl'))['last-seen'], String(endOffset - 1));
  assert.equal((await run('dtl')).processed, 1);
  assert.equal((await latest('dtl')).get('e')?.['label'], 'x-E');

  const bad = await operate('dtl', 'update-last-seen', { 'last-seen': 'yesterday' });
  assert.equal(bad.status, 400);
  assert.equal((await op('dtl', 'reset-tracking'))['_id'], 'dtl');
});

test('unknown or unsupported operations answer 400 JSON; unknown pipes 404', async () => {
  for (const [id, operation] of [
    ['dtl', 'explode'],
    ['dtl', ''],
  ] as const) {
    const res = await operate(id, operation);
    assert.equal(res.status, 400, `${operation}: ${await res.clone().text()}`);
    const body = (await res.json()) as { error: string; detail: unknown };
    assert.equal(typeof body.error, 'string');
  }
  await createPipe(hub, { _id: 'receiver', source: { type: 'http_endpoint' } });
  assert.deepEqual((await pump('receiver'))['supported-operations'], []);
  const res = await operate('receiver', 'start');
  assert.equal(res.status, 400);
  assert.match(((await res.json()) as { error: string }).error, /does not support/);
  assert.equal((await hub.fetch(`${p('nope')}/pump`)).status, 404);
  assert.equal((await operate('nope', 'start')).status, 404);
  assert.equal((await hub.fetch(`${p('nope')}/log`)).status, 404);
});

test('stop ends a rescan, an interrupted rescan resumes, reset-rescan starts over', async () => {
  const many = Array.from({ length: 3000 }, (_, i) => ({ _id: `m${String(i).padStart(5, '0')}`, n: i }));
  await push('many', many);
  await createPipe(hub, { _id: 'slow', batch_size: 1, source: { type: 'dataset', dataset: 'many' }, pump: { mode: 'manual' } });
  // Stop on an idle pump does nothing.
  assert.equal((await op('slow', 'stop'))['is-running'], false);

  const started = await op('slow', 'start-rescan');
  assert.equal(started['supported-operations'].includes('start-rescan'), true);
  await op('slow', 'start-rescan'); // no second rescan while one runs
  await waitFor('the rescan to read something', async () => ((await pump('slow')).rescan['last-seen'] !== null ? true : undefined));
  const stopped = await op('slow', 'stop');
  assert.equal(stopped['is-running'], false, 'stop waits for the run to end');
  assert.equal(stopped.runs, 1, 'only one rescan ran');
  assert.equal(stopped['last-run']?.status, 'stopped');
  const resumeAt = Number(stopped.rescan['last-seen']);
  assert.ok(resumeAt >= 0 && resumeAt < 2999, `interrupted at ${resumeAt}`);

  // With a large batch the rescan is quick: it resumes where the stopped one ended.
  const quick = { _id: 'slow', type: 'pipe', batch_size: 1000, source: { type: 'dataset', dataset: 'many' }, pump: { mode: 'manual' } };
  await hub.json(`${p('slow')}/config`, { method: 'PUT', json: quick });
  const resumed = await run('slow', 'start-rescan');
  assert.equal(resumed.processed, 2999 - resumeAt, 'the rest of the source (offsets 0..2999)');
  assert.equal((await pump('slow')).rescan['last-seen'], null, 'a completed rescan leaves no resume position');
  assert.equal((await hub.json<{ count: number }>('/datasets/slow')).count, 3000, 'what the first part wrote is not deletion-tracked away');

  // Stopped again, reset-rescan makes the next rescan start from the beginning.
  await hub.json(`${p('slow')}/config`, { method: 'PUT', json: { ...quick, batch_size: 1 } });
  await op('slow', 'start-rescan');
  await waitFor('the rescan to read something', async () => ((await pump('slow')).rescan['last-seen'] !== null ? true : undefined));
  assert.notEqual((await op('slow', 'stop')).rescan['last-seen'], null);
  await op('slow', 'reset-rescan');
  assert.equal((await pump('slow')).rescan['last-seen'], null);
  await hub.json(`${p('slow')}/config`, { method: 'PUT', json: quick });
  const full = await run('slow', 'start-rescan');
  assert.equal(full.processed, 3000);
  assert.equal((await hub.json<{ count: number }>('/datasets/slow')).count, 3000);
});

test('discard-retries writes a pump-discard-retries entity; /log pages', async () => {
  const info = await op('dtl', 'discard-retries');
  assert.equal(info['pending-retries'], 0);
  const all = await log('dtl');
  assert.ok(all.some((e) => e._id === 'pump-discard-retries' && e.event_type === 'pump-discard-retries'));
  assert.ok(all.length >= 10);
  for (let i = 1; i < all.length; i++) assert.ok(all[i]!._updated > all[i - 1]!._updated);

  const firstTwo = await log('dtl', '?limit=2');
  assert.deepEqual(
    firstTwo.map((e) => e._updated),
    all.slice(0, 2).map((e) => e._updated),
  );
  const next = await log('dtl', `?limit=3&since=${firstTwo[1]!._updated}`);
  assert.deepEqual(
    next.map((e) => e._updated),
    all.slice(2, 5).map((e) => e._updated),
  );
  const reversed = await log('dtl', '?reverse=true&limit=2');
  assert.deepEqual(
    reversed.map((e) => e._updated),
    all.slice(-2).reverse().map((e) => e._updated),
  );
  const latestOnly = await log('dtl', '?history=false');
  const ids = latestOnly.map((e) => e._id);
  assert.equal(new Set(ids).size, ids.length, 'history=false: one version per _id');
  for (const id of ['pump-started', 'pump-completed', 'pump-discard-retries']) assert.ok(ids.includes(id), id);
  assert.equal((await log('dtl', '?limit=0')).length, 0);
});

test('a transform that throws fails the run, is logged, and the hub keeps answering', async () => {
  await push('src2', [{ _id: 'x' }]);
  await createPipe(hub, {
    _id: 'boom',
    source: { type: 'dataset', dataset: 'src2' },
    transform: { type: 'dtl', rules: { default: [['fail!', 'boom']] } },
    pump: { mode: 'manual' },
  });
  const r = await run('boom');
  assert.equal(r.status, 'failed');
  assert.match(r.reason_why_stopped ?? '', /boom/);
  const end = await lastEnd('boom');
  assert.equal(end.event_type, 'pump-failed');
  assert.match(String(end['reason_why_stopped']), /boom/);
  assert.equal((await pump('boom'))['last-seen'], null, 'a failed batch does not move the pump');
  assert.equal((await hub.fetch('/health')).status, 200);
  assert.equal((await hub.json<{ runtime: { 'is-running': boolean } }>(p('boom'))).runtime['is-running'], false);
});

test('embedded source to a dataset and to a null sink', async () => {
  const config = (entities: Json[]): Json => ({ _id: 'emb', source: { type: 'embedded', entities }, pump: { mode: 'manual' } });
  await createPipe(hub, config([{ _id: '1', v: 1 }, { _id: '2', v: 2 }]));
  assert.equal((await run('emb')).processed, 2);
  await hub.json(`${p('emb')}/config`, { method: 'PUT', json: { type: 'pipe', ...config([{ _id: '1', v: 10 }]) } });
  assert.equal((await run('emb')).processed, 1);
  const sink = await latest('emb');
  assert.equal(sink.get('1')?.['v'], 10);
  assert.equal(sink.get('2')?.['_deleted'], true, 'an entity the embedded source no longer has is deleted');

  await createPipe(hub, { _id: 'nowhere', source: { type: 'embedded', entities: [{ _id: '1' }] }, sink: { type: 'null' }, pump: { mode: 'manual' } });
  const r = await run('nowhere');
  assert.equal(r.status, 'completed');
  assert.equal(r.processed, 1);
  assert.equal((await hub.fetch('/datasets/nowhere')).status, 404, 'a null sink writes no dataset');
});

test('DTL hops read other datasets of the hub', async () => {
  await push('people', [{ _id: 'p1', name: 'Ann' }]);
  await push('pets', [{ _id: 'rex', owner: 'p1' }]);
  await createPipe(hub, {
    _id: 'pets-owners',
    source: { type: 'dataset', dataset: 'pets' },
    transform: {
      type: 'dtl',
      rules: { default: [['copy', '*'], ['add', 'owner_name', ['hops', { datasets: ['people p'], where: ['eq', '_S.owner', 'p._id'], return: 'p.name' }]]] },
    },
    pump: { mode: 'manual' },
  });
  const r = await run('pets-owners');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  assert.deepEqual((await latest('pets-owners')).get('rex')?.['owner_name'], ['Ann']);
});

test("the sink's circuit breaker counts the changes of each run", async () => {
  const config = (ids: string[]): Json => ({
    _id: 'guarded',
    source: { type: 'embedded', entities: ids.map((id) => ({ _id: id })) },
    sink: { circuit_breaker_threshold_count: 3 },
    pump: { mode: 'manual' },
  });
  await createPipe(hub, config(['a', 'b', 'c']));
  assert.equal((await run('guarded')).status, 'completed', '3 changes: at the limit');
  await hub.json(`${p('guarded')}/config`, { method: 'PUT', json: { type: 'pipe', ...config(['a', 'b', 'c', 'd', 'e']) } });
  assert.equal((await run('guarded')).status, 'completed', 'another 2 changes in a new run');
  await hub.json(`${p('guarded')}/config`, { method: 'PUT', json: { type: 'pipe', ...config(['v', 'w', 'x', 'y']) } });
  const tripped = await run('guarded');
  assert.equal(tripped.status, 'failed');
  assert.match(tripped.reason_why_stopped ?? '', /circuit breaker/);
  const info = await hub.json<{ count: number; 'circuit-breaker': { tripped: boolean } }>('/datasets/guarded');
  assert.equal(info['circuit-breaker'].tripped, true);
  assert.equal(info.count, 5, 'nothing of the tripping batch was written');
});

test('the schedule runs a pump by itself; disable stops it, start still works, enable resumes', async () => {
  await push('tick-src', [{ _id: 't' }]);
  await createPipe(hub, { _id: 'tick', source: { type: 'dataset', dataset: 'tick-src' }, pump: { schedule_interval: 1 } });
  const info = await pump('tick');
  assert.ok(info['next-run'] !== null, 'a next run is scheduled');
  await waitFor('a scheduled run', async () => ((await pump('tick')).runs >= 1 ? true : undefined), 5000);
  assert.equal((await pump('tick'))['last-run']?.trigger, 'schedule');

  const disabled = await op('tick', 'disable');
  assert.equal(disabled['is-disabled'], true);
  assert.equal(disabled['next-run'], null);
  assert.equal((await hub.json<{ runtime: { 'is-disabled': boolean } }>(p('tick'))).runtime['is-disabled'], true);
  // That it then stays unrun is checked on a clock the test moves (pump-schedule.test.ts).
  const manual = await run('tick');
  assert.equal(manual.trigger, 'manual', 'start works on a disabled pump');

  const enabled = await op('tick', 'enable');
  assert.equal(enabled['is-disabled'], false);
  const now = enabled.runs;
  await waitFor('a scheduled run after enable', async () => ((await pump('tick')).runs > now ? true : undefined), 5000);
  // Scheduled runs that change nothing are not logged; the first one (it wrote "t") and the manual one are.
  const ends = (await log('tick')).filter((e) => e.event_type === 'pump-completed');
  assert.equal(ends.filter((e) => e['trigger'] === 'schedule' && e['changed_entities'] === 0).length, 0);
  assert.ok(ends.some((e) => e['trigger'] === 'schedule' && e['changed_entities'] === 1));
  assert.ok(ends.some((e) => e['trigger'] === 'manual'));

  // The node metadata can switch the whole scheduler off.
  await hub.json('/metadata', { method: 'PUT', json: { task_manager: { disable_pump_scheduler: true } } });
  await waitFor('the scheduler to stop', async () => ((await pump('tick'))['next-run'] === null ? true : undefined));
  assert.equal((await pump('tick'))['scheduler-disabled'], true);
  await hub.json('/metadata', { method: 'DELETE' });
  await waitFor('the schedule to return', async () => ((await pump('tick'))['next-run'] !== null ? true : undefined));
  await op('tick', 'disable');
});

test('webhook: the right token schedules a run, a wrong token or unknown pipe is 404', async () => {
  const info = await pump('dtl');
  assert.equal(typeof info['webhook-token'], 'string');
  assert.ok(info['webhook-token'].length >= 16);
  assert.equal((await pump('dtl'))['webhook-token'], info['webhook-token'], 'the token is stable');
  const hook = (id: string, token: unknown): Promise<Response> => hub.fetch(`${p(id)}/webhook`, { method: 'POST', json: { token } });

  assert.equal((await hook('dtl', 'wrong')).status, 404);
  assert.equal((await hook('dtl', 42)).status, 404);
  assert.equal((await hook('nope', info['webhook-token'])).status, 404);
  assert.equal((await pump('dtl')).runs, info.runs);

  const res = await hook('dtl', info['webhook-token']);
  assert.equal(res.status, 200, await res.clone().text());
  const after = await waitFor('a webhook run', async () => {
    const i = await pump('dtl');
    return i.runs > info.runs && !i['is-running'] ? i : undefined;
  });
  assert.equal(after['last-run']?.trigger, 'webhook');
});

test('deleting a pipe drops its pump; a config change reschedules', async () => {
  await createPipe(hub, { _id: 'gone', source: { type: 'dataset', dataset: 'src' }, pump: { schedule_interval: 3600 } });
  const next = (await pump('gone'))['next-run'];
  assert.ok(next !== null);
  await hub.json(`${p('gone')}/config`, {
    method: 'PUT',
    json: { _id: 'gone', type: 'pipe', source: { type: 'dataset', dataset: 'src' }, pump: { cron_expression: '0 0 1 1 *' } },
  });
  const cron = await waitFor('the cron schedule', async () => {
    const n = (await pump('gone'))['next-run'];
    return n !== null && n !== next ? n : undefined;
  });
  assert.match(cron, /-01-01T00:00:00\.000Z$/, 'cron in UTC');
  const bad = await hub.fetch(`${p('gone')}/config`, {
    method: 'PUT',
    json: { _id: 'gone', type: 'pipe', source: { type: 'dataset', dataset: 'src' }, pump: { cron_expression: 'every now and then' } },
  });
  assert.equal(bad.status, 400, 'an invalid cron expression is a config error');
  assert.equal((await hub.fetch(p('gone'), { method: 'DELETE' })).status, 200);
  assert.equal((await hub.fetch(`${p('gone')}/pump`)).status, 404);
});

test('startup_options.json with disable_pump_scheduler keeps scheduled pumps from running', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'startup_options.json'), JSON.stringify({ task_manager: { disable_pump_scheduler: true } }));
  const h = await startHub({ dataDir: dir });
  try {
    await createPipe(h, { _id: 'idle', source: { type: 'embedded', entities: [{ _id: '1' }] }, pump: { schedule_interval: 1, run_at_startup: true } });
    const info = await pump('idle', h);
    assert.equal(info['scheduler-disabled'], true);
    assert.equal(info['next-run'], null, 'nothing is scheduled (pump-schedule.test.ts checks that nothing runs)');
    assert.equal(info.runs, 0, 'no startup run');
    assert.equal((await run('idle', 'start', h)).status, 'completed', 'a manual start still works');
  } finally {
    await h.stop();
    removeDir(dir);
  }
});

test('with namespaced identifiers on, pumped entities get no $ids (the merge source maintains them), add uses the pipe namespace; is-changed sees the previous source version', async () => {
  await hub.json('/metadata', { method: 'PUT', json: { namespaced_identifiers: true } });
  try {
    await push('ns-src', [{ _id: 'a', x: 1 }]);
    await createPipe(hub, {
      _id: 'ns-pipe',
      source: { type: 'dataset', dataset: 'ns-src' },
      transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'x', '_S.x'], ['add', 'changed', ['is-changed', '_.x']]] } },
    });
    assert.equal((await run('ns-pipe')).status, 'completed');
    const first = (await latest('ns-pipe')).get('a');
    assert.equal(first?.['$ids'], undefined, 'a pipe does not add $ids to what it writes');
    assert.equal(first?.['ns-pipe:x'], 1, 'add names the property in the pipe namespace');
    assert.equal(first?.['ns-pipe:changed'], null, 'no previous version on the first write');
    await push('ns-src', [{ _id: 'a', x: 2 }]);
    await run('ns-pipe');
    assert.equal((await latest('ns-pipe')).get('a')?.['ns-pipe:changed'], true);
    await push('ns-src', [{ _id: 'a', x: 2, other: 'y' }]);
    await run('ns-pipe');
    assert.equal((await latest('ns-pipe')).get('a')?.['ns-pipe:changed'], false, 'x did not change between the last two versions');
  } finally {
    await hub.json('/metadata', { method: 'DELETE' });
  }
});

test("trip! in a transform fails the run and trips the sink's circuit breaker until it is rolled back", async () => {
  await push('trip-src', [{ _id: 'x', bad: true }]);
  await createPipe(hub, {
    _id: 'trip-pipe',
    source: { type: 'dataset', dataset: 'trip-src' },
    transform: { type: 'dtl', rules: { default: [['copy', '*'], ['if', '_S.bad', ['trip!', 'bad data']]] } },
  });
  // The sink dataset exists before the run, so that the trip has somewhere to go.
  await hub.json('/datasets/trip-pipe/entities', { method: 'POST', json: [{ _id: 'old' }] });
  const last = await run('trip-pipe');
  assert.equal(last.status, 'failed');
  const info = await hub.json<{ 'circuit-breaker': { tripped: boolean; info: string } }>('/datasets/trip-pipe');
  assert.equal(info['circuit-breaker'].tripped, true);
  assert.match(info['circuit-breaker'].info, /bad data/);
  const refused = await hub.fetch('/datasets/trip-pipe/entities', { method: 'POST', json: [{ _id: 'new' }] });
  assert.equal(refused.status, 409);
  const rollback = await hub.fetch('/datasets/trip-pipe', { method: 'POST', body: new URLSearchParams({ operation: 'rollback-circuit-breaker' }) });
  assert.equal(rollback.status, 200, await rollback.text());
  assert.equal((await hub.json<{ 'circuit-breaker': { tripped: boolean } }>('/datasets/trip-pipe'))['circuit-breaker'].tripped, false);
});

test('a dataset source reads only its subset (an index of the source dataset), or every version with include_previous_versions', async () => {
  await createPipe(hub, { _id: 'kinds-in', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'kinds', indexes: ['_S.kind'] } });
  await hub.json('/receivers/kinds-in/entities', { method: 'POST', json: [{ _id: '1', kind: 'a' }, { _id: '2', kind: 'b' }, { _id: '3', kind: 'a' }] });
  await hub.json('/receivers/kinds-in/entities', { method: 'POST', json: [{ _id: '1', kind: 'a', v: 2 }] });
  await createPipe(hub, { _id: 'only-a', source: { type: 'dataset', dataset: 'kinds', subset: ['eq', '_S.kind', 'a'] } });
  await run('only-a');
  assert.deepEqual([...(await latest('only-a')).keys()].sort(), ['1', '3']);
  await createPipe(hub, { _id: 'all-versions', source: { type: 'dataset', dataset: 'kinds', include_previous_versions: true }, sink: { type: 'null' } });
  const r = await run('all-versions');
  assert.equal(r.processed, 4, 'three entities, one of them in two versions');
});

test('runtime.queues tells how many source entities wait for the pump, and empties after a run', async () => {
  await push('queue-src', [{ _id: '1' }, { _id: '2' }, { _id: '3' }]);
  await createPipe(hub, { _id: 'queue-pipe', source: { type: 'dataset', dataset: 'queue-src' }, pump: { mode: 'manual' } });
  const queues = async (): Promise<Record<string, number>> =>
    (await hub.json<{ runtime: { queues: Record<string, number> } }>('/pipes/queue-pipe')).runtime.queues;
  assert.deepEqual(await queues(), { retries: 0, source: 3, dependencies: 0 });
  await run('queue-pipe');
  assert.equal((await queues())['source'], 0);
  await push('queue-src', [{ _id: '1', changed: true }]);
  assert.equal((await queues())['source'], 1);
});

interface ListedPipe {
  _id: string;
  runtime: {
    'is-running': boolean;
    'is-rescanning': boolean;
    'current-run': { run_type: string; start_time: string; processed: number; changes: number; failed: number } | null;
    'last-run': (LastRun & { errors: number; duration: number; start_time: string; end_time: string }) | null;
    'next-run': string | null;
  };
}

async function listed(id: string): Promise<ListedPipe> {
  const all = await hub.json<ListedPipe[]>('/pipes');
  const found = all.find((x) => x._id === id);
  assert.ok(found, `${id} is in GET /pipes`);
  return found;
}

test('GET /pipes carries each pipe’s last run and the progress of a run in progress, so a list needs one request', async () => {
  await push('listed-src', Array.from({ length: 20_000 }, (_, i) => ({ _id: `l${String(i).padStart(5, '0')}`, n: i })));
  await push('listed-few', Array.from({ length: 8 }, (_, i) => ({ _id: `f${i}`, n: i })));
  // batch_size 1 over 20,000 entities: a run long enough to watch its counter and stop it.
  await createPipe(hub, { _id: 'listed-slow', batch_size: 1, source: { type: 'dataset', dataset: 'listed-src' }, pump: { mode: 'manual' } });
  await createPipe(hub, { _id: 'listed-fast', source: { type: 'dataset', dataset: 'listed-few' }, pump: { mode: 'manual' } });
  await createPipe(hub, {
    _id: 'listed-broken',
    source: { type: 'dataset', dataset: 'listed-few' },
    transform: { type: 'dtl', rules: { default: [['copy', '*'], ['if', ['eq', '_S._id', 'f3'], ['fail!', 'f3 is refused']]] } },
    pump: { schedule_interval: 7200 },
  });
  const idle = await listed('listed-slow');
  assert.equal(idle.runtime['last-run'], null, 'a pipe that never ran has no last run');
  assert.equal(idle.runtime['current-run'], null);
  assert.equal(idle.runtime['next-run'], null, 'a manual pump has no next run');
  const scheduled = (await listed('listed-broken')).runtime['next-run'];
  assert.ok(scheduled !== null && Date.parse(scheduled) > Date.now() + 7000_000, `a scheduled pump says when it runs next: ${scheduled}`);

  await op('listed-slow', 'start');
  // The counter grows batch by batch while the run goes.
  const first = await waitFor('the run to process an entity', async () => {
    const r = (await listed('listed-slow')).runtime;
    return r['is-running'] && r['current-run'] && r['current-run'].processed >= 1 ? r['current-run'] : undefined;
  });
  assert.equal(first.run_type, 'incremental');
  assert.ok(!Number.isNaN(Date.parse(first.start_time)));
  const later = await waitFor('the counter to grow', async () => {
    const c = (await listed('listed-slow')).runtime['current-run'];
    return c && c.processed > first.processed ? c : undefined;
  });
  assert.equal(later.changes, later.processed, 'every entity is new to the sink');
  const stopped = await op('listed-slow', 'stop');
  assert.equal(stopped['is-running'], false);
  const slow = (await listed('listed-slow')).runtime;
  assert.equal(slow['current-run'], null);
  assert.equal(slow['last-run']!.status, 'stopped');
  assert.ok(slow['last-run']!.processed >= later.processed && slow['last-run']!.processed < 20_000, `stopped part way: ${slow['last-run']!.processed}`);
  assert.match(slow['last-run']!.reason_why_stopped ?? '', /stop/);

  await run('listed-fast');
  const last = (await listed('listed-fast')).runtime['last-run']!;
  assert.equal(last.status, 'completed');
  assert.equal(last.processed, 8);
  assert.equal(last.changes, 8);
  assert.equal(last.errors, 0);
  assert.equal(typeof last.duration, 'number');
  assert.ok(Date.parse(last.end_time) >= Date.parse(last.start_time));
  assert.equal(last.reason_why_stopped, null);

  await run('listed-broken');
  const failed = (await listed('listed-broken')).runtime['last-run']!;
  assert.equal(failed.status, 'failed');
  assert.equal(failed.errors, 1, 'the failed write counts as an error');
  assert.match(failed.reason_why_stopped ?? '', /f3 is refused/);
  const end = await lastEnd('listed-broken');
  assert.equal(end['write_errors'], 1, 'the log counts the same error');
});

test('start with profiler=true writes a CPU profile of the run to the logs folder; a second profiled start waits its turn', async () => {
  await push('profiled-src', Array.from({ length: 5000 }, (_, i) => ({ _id: `x${i}`, n: i })));
  await createPipe(hub, {
    _id: 'profiled:one',
    batch_size: 10,
    source: { type: 'dataset', dataset: 'profiled-src' },
    transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'label', ['concat', 'n-', ['string', '_S.n']]]] } },
    pump: { mode: 'manual' },
  });
  await createPipe(hub, { _id: 'profiled-two', source: { type: 'dataset', dataset: 'profiled-src' }, pump: { mode: 'manual' } });
  assert.equal((await pump('profiled:one'))['supports-profiler' as keyof PumpInfo], true, 'the pump says it takes profiler=true');

  const bad = await operate('profiled:one', 'start', { profiler: 'yes please' });
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: string }).error, /invalid profiler value/);

  await op('profiled:one', 'start', { profiler: 'true' });
  // Only one run at a time can be profiled: the profiler samples the whole hub process.
  const second = await operate('profiled-two', 'start', { profiler: 'true' });
  assert.equal(second.status, 409, 'a second profiled run is refused while the first is profiled');
  assert.match(((await second.json()) as { error: string }).error, /profiled:one.*is being profiled/);
  assert.equal((await pump('profiled-two')).runs, 0, 'the refused start did not start a run');

  await waitFor('the profiled run to end', async () => ((await pump('profiled:one'))['is-running'] ? undefined : true), 15_000);
  const end = await lastEnd('profiled:one');
  assert.equal(end['status'], 'completed');
  const files = end['profile_files'] as string[];
  assert.equal(files.length, 2, `two profile files: ${JSON.stringify(files)}`);
  const [cpu, tree] = files as [string, string];
  assert.ok(cpu.startsWith(join(hub.dataDir, 'logs')), `in the logs folder: ${cpu}`);
  assert.match(cpu, /profiled%3Aone-\d{8}T\d{6}\.\d{3}Z\.cpuprofile$/, 'named with the pipe id and the start time');
  assert.match(tree, /\.calltree$/);
  const profile = JSON.parse(readFileSync(cpu, 'utf8')) as { nodes: { callFrame: { functionName: string } }[]; samples: number[] };
  assert.ok(profile.nodes.length > 10 && profile.samples.length > 0, 'a V8 CPU profile with samples');
  const calltree = readFileSync(tree, 'utf8');
  assert.match(calltree, /^# callgrind format\n/);
  assert.match(calltree, /^events: Microseconds$/m);
  assert.match(calltree, /^fn=\S+/m);

  // The profiler is free again; a start without it writes no files.
  const again = await run('profiled-two');
  assert.equal(again.status, 'completed');
  assert.equal((await lastEnd('profiled-two'))['profile_files'], undefined);
  await op('profiled-two', 'update-last-seen', { 'last-seen': '' });
  await op('profiled-two', 'start', { profiler: 'true' });
  await waitFor('the second profiled run', async () => ((await pump('profiled-two')).runs === 2 && !(await pump('profiled-two'))['is-running'] ? true : undefined));
  assert.equal(((await lastEnd('profiled-two'))['profile_files'] as string[]).length, 2);
});

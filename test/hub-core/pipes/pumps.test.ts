// Pumps (spec §3 pump states, §4.1 pump/log/webhook endpoints, §4.2 operations) against the real hub over HTTP: what
// runs and operations do with the data. Scheduling and what GET /pipes tells of runs: pumps-scheduling-and-status.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { waitFor } from '../../helpers/api.js';
import { createPipe, p, pumpApi, type Json } from '../../helpers/pump-api.js';

let hub: HubProcess;

before(async () => {
  hub = await startHub();
});

after(async () => {
  if (!hub) return;
  await hub.stop();
  removeDir(hub.dataDir);
});

const { push, pump, operate, op, run, log, lastEnd, latest } = pumpApi(() => hub);

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


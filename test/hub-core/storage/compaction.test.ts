// Compaction (features/compaction-feature.rst): a dataset keeps `compaction.keep_versions` versions of every entity
// (default 2), the dataset sink removing older ones as it writes; the latest version always stays (deletions too), and
// compaction never goes past the offset up to which a pipe doing dependency tracking on the dataset has seen it.
// Every expected count below is worked out by hand from those rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Hub } from '../../../hub-core/hub.js';
import { removeDir, startHub, tempDir, useHub } from '../../helpers/hub-process.js';
import { pumpOperation, pushEntities, runPump } from '../../helpers/api.js';

type Json = Record<string, unknown>;

interface DatasetInfo {
  'max-updated': number | null;
  count: number;
  'deleted-count': number;
  'stored-versions': number;
  'bytes-on-disk': number;
  compaction: {
    'keep-versions': number;
    sink: boolean;
    automatic: boolean;
    'time-threshold-hours': number | null;
    'growth-threshold': number;
    'whole-log': boolean;
    due: boolean;
    'last-run': string | null;
    'removed-versions': number;
  };
}

const hub = useHub();

const info = (dataset: string): Promise<DatasetInfo> => hub.json<DatasetInfo>(`/datasets/${encodeURIComponent(dataset)}`);
const entities = (dataset: string, query = ''): Promise<Json[]> => hub.json<Json[]>(`/datasets/${encodeURIComponent(dataset)}/entities${query}`);

async function run(id: string): Promise<void> {
  const r = await runPump<{ status: string; reason_why_stopped: string | null }>(hub, id);
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
}

/** How many versions of each entity a full history read returns. */
async function versionsPerEntity(dataset: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const e of await entities(dataset)) out[e['_id'] as string] = (out[e['_id'] as string] ?? 0) + 1;
  return out;
}

/** The latest version of every entity as a reader from `since` sees it (the last version it gets of each). */
async function latestSeen(dataset: string, since: number): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const e of await entities(dataset, `?since=${since}`)) out[e['_id'] as string] = e['_deleted'] === true ? 'deleted' : e['v'];
  return out;
}

/** A pipe copying dataset `source` into its own dataset, with the given `compaction` property (if any). */
async function copyPipe(id: string, source: string, compaction?: Json): Promise<void> {
  const pipe: Json = { _id: id, type: 'pipe', source: { type: 'dataset', dataset: source }, pump: { mode: 'manual' } };
  if (compaction) pipe['compaction'] = compaction;
  await hub.json('/pipes', { method: 'POST', json: [pipe] });
}

/** Round r writes version r of the given entities to the source and runs the pipe. */
async function round(source: string, pipe: string, r: number, ids: string[]): Promise<void> {
  await pushEntities(hub, source, ids.map((id) => ({ _id: id, v: r })));
  await run(pipe);
}

for (const [keep, after4] of [
  [undefined, [3, 6, 6, 6]],
  [2, [3, 6, 6, 6]],
  [1, [3, 3, 3, 3]],
] as const) {
  test(`keep_versions ${keep ?? '(default 2)'}: the sink dataset stores ${after4.join(', ')} versions after four rounds`, async () => {
    const name = `keep-${keep ?? 'default'}`;
    await copyPipe(name, `${name}-src`, keep === undefined ? undefined : { keep_versions: keep });
    // Rounds 1-3 change a, b and c; round 4 changes a only. Kept: min(keep (at least 1), versions written) per entity.
    const rounds = [['a', 'b', 'c'], ['a', 'b', 'c'], ['a', 'b', 'c'], ['a']];
    const stored: number[] = [];
    for (let r = 1; r <= 4; r++) {
      await round(`${name}-src`, name, r, rounds[r - 1]!);
      stored.push((await info(name))['stored-versions']);
    }
    assert.deepEqual(stored, after4);
    const k = Math.max(1, keep ?? 2);
    assert.deepEqual(await versionsPerEntity(name), { a: k, b: k, c: k });
    const i = await info(name);
    assert.equal(i.compaction['keep-versions'], keep ?? 2);
    assert.equal(i.compaction['removed-versions'], 10 - after4[3]!, 'ten versions were written in all');
    assert.notEqual(i.compaction['last-run'], null);
    assert.equal(i.count, 3);
    // A reader that starts from the beginning, behind every compaction, still gets the latest version of each.
    assert.deepEqual(await latestSeen(name, 0), { a: 4, b: 3, c: 3 });
  });
}

test('compaction.sink false keeps every version; nothing was compacted', async () => {
  await copyPipe('no-sink', 'no-sink-src', { sink: false });
  for (let r = 1; r <= 3; r++) await round('no-sink-src', 'no-sink', r, ['a', 'b']);
  const i = await info('no-sink');
  assert.equal(i['stored-versions'], 6);
  assert.equal(i.compaction['last-run'], null);
  assert.equal(i.compaction['removed-versions'], 0);
  assert.deepEqual(await versionsPerEntity('no-sink'), { a: 3, b: 3 });
});

test('a deletion is kept, and a reader behind the compaction gets the latest version of every entity', async () => {
  await copyPipe('deletes', 'deletes-src', { keep_versions: 1 });
  await round('deletes-src', 'deletes', 1, ['a', 'b', 'c']);
  const behind = (await info('deletes'))['max-updated']!;
  await round('deletes-src', 'deletes', 2, ['a', 'b', 'c']);
  await pushEntities(hub, 'deletes-src', [{ _id: 'b', _deleted: true }]);
  await run('deletes');
  await round('deletes-src', 'deletes', 3, ['c']);
  // a: v2; b: deleted; c: v3 — one version each.
  const i = await info('deletes');
  assert.equal(i['stored-versions'], 3);
  assert.equal(i.count, 2);
  assert.equal(i['deleted-count'], 1);
  assert.deepEqual(await latestSeen('deletes', behind), { a: 2, b: 'deleted', c: 3 });
  assert.deepEqual(await latestSeen('deletes', -1), { a: 2, b: 'deleted', c: 3 });
  const latest = await entities('deletes', '?history=false');
  assert.deepEqual(latest.map((e) => [e['_id'], e['_deleted']]).sort(), [['a', false], ['b', true], ['c', false]]);
});

test('a pipe doing dependency tracking on a dataset holds compaction off until it has seen the changes, disabled or not', async () => {
  // cust is written by a receiver pipe, whose dataset sink compacts as it writes (a dataset no pipe writes does not).
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'cust', type: 'pipe', source: { type: 'http_endpoint' } }] });
  const pushCust = (e: Json): Promise<unknown> => hub.json('/receivers/cust/entities', { method: 'POST', json: [e] });
  await pushCust({ _id: 'c1', name: 'v1' });
  await pushEntities(hub, 'ord', [{ _id: 'o1', customer: 'c1' }]);
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'ord-cust',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'ord' },
        transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'name', ['hops', { datasets: ['cust c'], where: ['eq', '_S.customer', 'c._id'], return: 'c.name' }]]] } },
        pump: { mode: 'scheduled', schedule_interval: 1000000 },
      },
    ],
  });
  await run('ord-cust');
  // The pipe has seen cust up to v1. v2..v4 stay (default keep 2 would leave only v3 and v4): the pipe needs them.
  for (const v of ['v2', 'v3', 'v4']) await pushCust({ _id: 'c1', name: v });
  assert.equal((await info('cust'))['stored-versions'], 4);
  await run('ord-cust');
  const out = await entities('ord-cust', '?history=false');
  assert.deepEqual(out.map((e) => e['name']), [['v4']]);
  // Seen up to v4: writing v5 removes v1..v3 (keeps v4 and v5).
  await pushCust({ _id: 'c1', name: 'v5' });
  assert.equal((await info('cust'))['stored-versions'], 2);
  // A disabled pipe holds compaction off as well: v4..v7 stay.
  await pumpOperation(hub, 'ord-cust', 'disable');
  for (const v of ['v6', 'v7']) await pushCust({ _id: 'c1', name: v });
  assert.equal((await info('cust'))['stored-versions'], 4);
  await pumpOperation(hub, 'ord-cust', 'enable');
  await run('ord-cust');
  assert.deepEqual((await entities('ord-cust', '?history=false')).map((e) => e['name']), [['v7']]);
  // Seen up to v7: writing v8 keeps v7 and v8.
  await pushCust({ _id: 'c1', name: 'v8' });
  assert.equal((await info('cust'))['stored-versions'], 2);
  // v9 and v10 unseen: v7..v10 stay. Then the hops are taken out of the pipe (as the documentation advises for a pipe
  // disabled for long): it no longer holds compaction off, and writing v11 keeps v10 and v11.
  for (const v of ['v9', 'v10']) await pushCust({ _id: 'c1', name: v });
  assert.equal((await info('cust'))['stored-versions'], 4);
  const res = await hub.fetch('/pipes/ord-cust/config', {
    method: 'PUT',
    json: { _id: 'ord-cust', type: 'pipe', source: { type: 'dataset', dataset: 'ord' }, pump: { mode: 'scheduled', schedule_interval: 1000000 } },
  });
  assert.equal(res.status, 200, await res.text());
  await pushCust({ _id: 'c1', name: 'v11' });
  assert.equal((await info('cust'))['stored-versions'], 2);
});

test('a bad compaction property is refused with a clear error; keep_versions below 2 warns', async () => {
  const res = await hub.fetch('/pipes', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ _id: 'bad-compaction', type: 'pipe', source: { type: 'dataset', dataset: 'x' }, compaction: { keep_versions: -1 } }]),
  });
  assert.equal(res.status, 400);
  const body = (await res.json()) as Json;
  assert.match(JSON.stringify(body), /keep_versions/);
  await copyPipe('warned', 'warned-src', { keep_versions: 1 });
  const pipe = await hub.json<{ config_errors?: Json[]; runtime?: Json }>('/pipes/warned');
  assert.match(JSON.stringify(pipe), /best effort/);
});

test('an entity that left a subset reads as deleted in that subset, however many of its versions were compacted away', async () => {
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'kinds', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'kinds', indexes: ['_S.kind'] }, compaction: { keep_versions: 1 } }],
  });
  const post = (e: Json): Promise<unknown> => hub.json('/receivers/kinds/entities', { method: 'POST', json: [e] });
  const subsetX = `subset=${encodeURIComponent(JSON.stringify(['eq', '_S.kind', 'x']))}`;
  await post({ _id: 's1', kind: 'x', v: 1 });
  await post({ _id: 's2', kind: 'x', v: 1 });
  const behind = (await info('kinds'))['max-updated']!;
  // s1 leaves subset x and changes twice more; with keep 1 only its last version is stored.
  await post({ _id: 's1', kind: 'y', v: 2 });
  await post({ _id: 's1', kind: 'z', v: 3 });
  assert.equal((await info('kinds'))['stored-versions'], 2);
  const seen = await entities('kinds', `?${subsetX}&since=${behind}`);
  assert.deepEqual(seen.map((e) => [e['_id'], e['_deleted']]), [['s1', true]]);
  const all = await entities('kinds', `?${subsetX}`);
  assert.deepEqual(all.map((e) => [e['_id'], e['_deleted']]), [['s2', false], ['s1', true]]);
});

// ---------------------------------------------------------------------------------------------------------------------
// Whole-log compaction: datasets the sink does not compact as it writes (no pipe writes them, or compaction.sink is
// false) are compacted by a scheduled pass when compaction.automatic is on; the `compact` operation runs one now.

interface CompactReply {
  operation: string;
  removed: number;
  'held-off': number;
}

const compact = (dataset: string): Promise<CompactReply> =>
  hub.json<CompactReply>(`/datasets/${encodeURIComponent(dataset)}`, { method: 'POST', json: { operation: 'compact' } });

test('a dataset no pipe writes keeps two versions of every entity after whole-log compaction; readers behind it see the latest and deletions', async () => {
  // Four rounds of a, b, c; b is deleted in round 4 (its fourth version is the deletion).
  for (let r = 1; r <= 4; r++) {
    await pushEntities(hub, 'posted', ['a', 'b', 'c'].map((id) => (r === 4 && id === 'b' ? { _id: id, _deleted: true } : { _id: id, v: r })));
  }
  let i = await info('posted');
  assert.equal(i['stored-versions'], 12, 'nothing is removed as posted entities are written');
  assert.equal(i.compaction['whole-log'], true);
  assert.equal(i.compaction.due, true);
  assert.ok(i['bytes-on-disk'] > 0);
  const behind = 2; // a reader that has seen round 1 only
  const r = await compact('posted');
  assert.deepEqual([r.removed, r['held-off']], [6, 0], 'versions 1 and 2 of each of the three entities go');
  i = await info('posted');
  assert.equal(i['stored-versions'], 6);
  assert.equal(i.compaction['removed-versions'], 6);
  assert.notEqual(i.compaction['last-run'], null);
  assert.equal(i.compaction.due, false, 'nothing was written since');
  assert.deepEqual(await versionsPerEntity('posted'), { a: 2, b: 2, c: 2 });
  assert.deepEqual(await latestSeen('posted', behind), { a: 4, b: 'deleted', c: 4 });
  assert.deepEqual(await latestSeen('posted', -1), { a: 4, b: 'deleted', c: 4 });
  // The explorer's history of an entity: its two newest versions.
  assert.deepEqual((await entities('posted')).filter((e) => e['_id'] === 'a').map((e) => e['v']), [3, 4]);
  assert.equal(i.count, 2);
  assert.equal(i['deleted-count'], 1);
});

test('time_threshold_hours keeps versions younger than the threshold; growth_threshold decides when a pass is due', async () => {
  await copyPipe('young', 'young-src', { sink: false, time_threshold_hours: 1, growth_threshold: 2.0 });
  for (let r = 1; r <= 3; r++) await round('young-src', 'young', r, ['a', 'b']);
  let i = await info('young');
  assert.equal(i.compaction['time-threshold-hours'], 1);
  assert.equal(i.compaction['growth-threshold'], 2);
  assert.equal(i.compaction.due, true, 'never compacted: due');
  const r = await compact('young');
  assert.deepEqual([r.removed, r['held-off']], [0, 2], 'the first versions of a and b are beyond keep 2 but less than an hour old');
  i = await info('young');
  assert.equal(i['stored-versions'], 6);
  assert.equal(i.compaction.due, true, 'a pass that left versions behind is due again');
  // Without the time threshold the same pass removes them, and the next pass is due once the offsets doubled.
  await hub.json('/pipes/young/config', {
    method: 'PUT',
    json: { _id: 'young', type: 'pipe', source: { type: 'dataset', dataset: 'young-src' }, pump: { mode: 'manual' }, compaction: { sink: false, growth_threshold: 2.0 } },
  });
  const again = await compact('young');
  assert.deepEqual([again.removed, again['held-off']], [2, 0]);
  i = await info('young');
  assert.equal(i['stored-versions'], 4);
  assert.equal(i.compaction.due, false, 'offsets 0..5 compacted');
  await round('young-src', 'young', 4, ['a', 'b']); // offsets 6, 7: 8 offsets, less than twice 6
  assert.equal((await info('young')).compaction.due, false);
  for (let r = 5; r <= 6; r++) await round('young-src', 'young', r, ['a', 'b']); // offsets 8..11: 12 = twice 6
  assert.equal((await info('young')).compaction.due, true);
});

test('deleting a dataset hands its space back to the OS (the database file shrinks)', async () => {
  const fileSize = (): number => statSync(join(hub.dataDir, 'hub.db')).size;
  const filler = 'x'.repeat(1000);
  for (let b = 0; b < 4; b++) await pushEntities(hub, 'bulky', Array.from({ length: 1000 }, (_, i) => ({ _id: `e${b}-${i}`, filler })));
  await compact('bulky'); // a checkpoint: the entities are in the database file now
  const bytes = (await info('bulky'))['bytes-on-disk'];
  assert.ok(bytes > 4_000_000, `4,000 entities of 1 kB take ${bytes} bytes`);
  const before = fileSize();
  await hub.json('/datasets/bulky', { method: 'DELETE' });
  // The deletion's reply does not wait for the pages to be handed back; a compact pass waits for that work to end.
  await pushEntities(hub, 'tiny', [{ _id: 't' }]);
  await compact('tiny');
  const after = fileSize();
  assert.ok(before > 2_000_000 && after < before / 3, `the file went from ${before} to ${after} bytes`);
});

test('the scheduled round compacts a dataset no pipe writes without being asked', async () => {
  const own = await startHub({ env: { DATAHUB_COMPACTION_INTERVAL_SECONDS: '1' } });
  try {
    for (let r = 1; r <= 3; r++) await pushEntities(own, 'scheduled', [{ _id: 'a', v: r }]);
    let stored = 3;
    // Polls until the round has run (no time limit of its own: the test runner's timeout applies).
    while (stored === 3) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      stored = (await own.json<DatasetInfo>('/datasets/scheduled'))['stored-versions'];
    }
    assert.equal(stored, 2);
    assert.deepEqual((await own.json<Json[]>('/datasets/scheduled/entities')).map((e) => e['v']), [2, 3]);
  } finally {
    await own.stop();
    removeDir(own.dataDir);
  }
});

test('a database made before incremental vacuum switches to it when it opens, its datasets intact', () => {
  const dir = tempDir('datahub-vacuum-');
  try {
    let local = new Hub(dir);
    local.datasets.open('kept').write([{ _id: 'k', v: 1 }]);
    local.close();
    // As older hubs left it: no auto-vacuum.
    const raw = new Database(join(dir, 'hub.db'));
    raw.pragma('auto_vacuum = NONE');
    raw.exec('VACUUM');
    assert.equal(raw.pragma('auto_vacuum', { simple: true }), 0);
    raw.close();
    local = new Hub(dir);
    try {
      assert.equal(local.db.pragma('auto_vacuum', { simple: true }), 2, 'incremental');
      assert.equal(local.datasets.require('kept').get('k')?.['v'], 1);
    } finally {
      local.close();
    }
  } finally {
    removeDir(dir);
  }
});

test('whole-log compaction too is held off by a pipe doing dependency tracking on the dataset, until it has seen the changes', async () => {
  // wl-cust is a dataset no pipe writes; wl-ord-cust joins it (dependency tracking from its first run).
  await pushEntities(hub, 'wl-cust', [{ _id: 'c1', name: 'v1' }]);
  await pushEntities(hub, 'wl-ord', [{ _id: 'o1', customer: 'c1' }]);
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'wl-ord-cust',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'wl-ord' },
        transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'name', ['hops', { datasets: ['wl-cust c'], where: ['eq', '_S.customer', 'c._id'], return: 'c.name' }]]] } },
        pump: { mode: 'manual' },
      },
    ],
  });
  await run('wl-ord-cust');
  for (const v of ['v2', 'v3', 'v4']) await pushEntities(hub, 'wl-cust', [{ _id: 'c1', name: v }]);
  // Keep 2 would remove v1 and v2, but the pipe has seen wl-cust only up to v1, and both were replaced after that.
  let r = await compact('wl-cust');
  assert.deepEqual([r.removed, r['held-off']], [0, 2]);
  assert.equal((await info('wl-cust'))['stored-versions'], 4);
  assert.equal((await info('wl-cust')).compaction.due, true, 'left versions behind: due again');
  await run('wl-ord-cust');
  assert.deepEqual((await entities('wl-ord-cust', '?history=false')).map((e) => e['name']), [['v4']]);
  r = await compact('wl-cust');
  assert.deepEqual([r.removed, r['held-off']], [2, 0]);
  assert.deepEqual((await entities('wl-cust')).map((e) => e['name']), ['v3', 'v4']);
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test('keep_versions 0 is refused without time_threshold_hours, which it needs', async () => {
  const res = await hub.fetch('/pipes', {
    method: 'POST',
    json: [{ _id: 'keep0-bad', type: 'pipe', source: { type: 'dataset', dataset: 'x' }, compaction: { keep_versions: 0 } }],
  });
  assert.equal(res.status, 400);
  assert.match(await res.text(), /time_threshold_hours/);
});

test('keep_versions 0: a version is kept only while younger than the time threshold, the latest one and deletions too', async () => {
  // time_threshold_hours 0: every version written before the compaction is old enough, and none is kept for its rank.
  // (The pauses only make sure the clock has moved past the previous write.)
  await copyPipe('keep0', 'keep0-src', { keep_versions: 0, time_threshold_hours: 0 });
  await round('keep0-src', 'keep0', 1, ['a', 'b', 'c']);
  let i = await info('keep0');
  assert.equal(i['stored-versions'], 3, 'the versions the write made are not older than it');
  assert.equal(i.compaction['keep-versions'], 0);
  await sleep(5);
  // The sink writes a2 and b2, then removes every version written before: a1, b1 and c1, c's latest: c is gone.
  await round('keep0-src', 'keep0', 2, ['a', 'b']);
  i = await info('keep0');
  assert.equal(i['stored-versions'], 2);
  assert.equal(i.count, 2);
  assert.deepEqual(await versionsPerEntity('keep0'), { a: 1, b: 1 });
  assert.deepEqual(await latestSeen('keep0', -1), { a: 2, b: 2 });
  await sleep(5);
  // a is deleted: its deletion is written, a2 and b2 go.
  await pushEntities(hub, 'keep0-src', [{ _id: 'a', _deleted: true }]);
  await run('keep0');
  i = await info('keep0');
  assert.deepEqual([i['stored-versions'], i.count, i['deleted-count']], [1, 0, 1]);
  assert.deepEqual(await latestSeen('keep0', -1), { a: 'deleted' });
  await sleep(5);
  // Once old enough, the deletion goes too (here by the compact operation, without a write).
  const r = await compact('keep0');
  assert.deepEqual([r.removed, r['held-off']], [1, 0]);
  i = await info('keep0');
  assert.deepEqual([i['stored-versions'], i.count, i['deleted-count'], i.compaction['removed-versions']], [0, 0, 0, 6]);
  assert.deepEqual(await entities('keep0'), []);
  // An entity written again after it was removed is stored anew.
  await round('keep0-src', 'keep0', 3, ['c']);
  assert.deepEqual(await latestSeen('keep0', -1), { c: 3 });
});

test('keep_versions 0: a version younger than the threshold stays, and so does one a dependency-tracking pipe has not seen', async () => {
  await copyPipe('young0', 'young0-src', { keep_versions: 0, time_threshold_hours: 1, sink: false });
  for (let r = 1; r <= 2; r++) await round('young0-src', 'young0', r, ['a', 'b']);
  assert.equal((await info('young0')).compaction.due, false, 'nothing is old enough yet');
  const young = await compact('young0');
  assert.deepEqual([young.removed, young['held-off']], [0, 4], 'all four versions are less than an hour old');

  await copyPipe('floor0', 'floor0-src', { keep_versions: 0, time_threshold_hours: 0 });
  await round('floor0-src', 'floor0', 1, ['k1']);
  await pushEntities(hub, 'floor0-orders', [{ _id: 'o1', k: 'k1' }]);
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'floor0-join',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'floor0-orders' },
        transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'v', ['hops', { datasets: ['floor0 f'], where: ['eq', '_S.k', 'f._id'], return: 'f.v' }]]] } },
        pump: { mode: 'manual' },
      },
    ],
  });
  await run('floor0-join'); // it has seen floor0 up to k1's first version
  await sleep(5);
  await round('floor0-src', 'floor0', 2, ['k1']);
  await sleep(5);
  const held = await compact('floor0');
  assert.deepEqual([held.removed, held['held-off']], [0, 2], "k1's first version is needed to see what changed; its second is unseen");
  await run('floor0-join');
  assert.deepEqual((await entities('floor0-join', '?history=false')).map((e) => e['v']), [[2]]);
  await sleep(5);
  const done = await compact('floor0');
  assert.deepEqual([done.removed, done['held-off']], [2, 0], 'seen: both go');
  assert.equal((await info('floor0')).count, 0);
});

test('readers paging through a dataset while whole-log compaction passes run between and during their pages get the latest version of every entity and every deletion', async () => {
  // 600 entities (more than one compaction step of 500); between pages some change, some are deleted, and the dataset
  // is compacted (keep 2, as a dataset no pipe writes): one pass awaited, one running while the next page is read.
  const ids = Array.from({ length: 600 }, (_, i) => `p${String(i).padStart(3, '0')}`);
  const model = new Map<string, unknown>(ids.map((id) => [id, 1]));
  await pushEntities(hub, 'paged', ids.map((id) => ({ _id: id, v: 1 })));
  const readers = [
    { query: '', cursor: -1, view: new Map<string, unknown>(), done: false },
    { query: '&history=false', cursor: -1, view: new Map<string, unknown>(), done: false },
  ];
  const readPage = async (r: (typeof readers)[number]): Promise<void> => {
    const page = await entities('paged', `?since=${r.cursor}&limit=50${r.query}`);
    for (const e of page) r.view.set(e['_id'] as string, e['_deleted'] === true ? 'deleted' : e['v']);
    if (page.length > 0) r.cursor = page[page.length - 1]!['_updated'] as number;
    r.done = page.length === 0;
  };
  for (let k = 0; k < 40 && !readers.every((r) => r.done); k++) {
    await Promise.all(readers.map(readPage));
    if (k >= 15) {
      await Promise.all([compact('paged'), ...readers.map(readPage)]);
      continue;
    }
    // Changes behind and ahead of the readers' cursors, and deletions.
    const changed = Array.from({ length: 40 }, (_, j) => ids[(k * 37 + j * 101) % ids.length]!);
    const deleted = [ids[(k * 53) % ids.length]!, ids[(k * 53 + 300) % ids.length]!];
    await pushEntities(hub, 'paged', [
      ...changed.filter((id) => !deleted.includes(id)).map((id) => ({ _id: id, v: k + 2 })),
      ...deleted.map((id) => ({ _id: id, _deleted: true })),
    ]);
    for (const id of changed) model.set(id, k + 2);
    for (const id of deleted) model.set(id, 'deleted');
    await compact('paged');
    await Promise.all([compact('paged'), ...readers.map(readPage)]);
  }
  assert.ok(readers.every((r) => r.done), 'the readers caught up');
  const i = await info('paged');
  assert.ok(i.compaction['removed-versions'] > 0, 'versions were compacted away while the readers paged');
  const expected = Object.fromEntries([...model].sort());
  for (const r of readers) assert.deepEqual(Object.fromEntries([...r.view].sort()), expected, `reader ${r.query || 'history'}`);
});

// Compaction (features/compaction-feature.rst): a dataset keeps `compaction.keep_versions` versions of every entity
// (default 2), the dataset sink removing older ones as it writes; the latest version always stays (deletions too), and
// compaction never goes past the offset up to which a pipe doing dependency tracking on the dataset has seen it.
// Every expected count below is worked out by hand from those rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from './helpers/hub-process.js';
import { pumpOperation, pushEntities, runPump } from './helpers/api.js';

type Json = Record<string, unknown>;

interface DatasetInfo {
  'max-updated': number | null;
  count: number;
  'deleted-count': number;
  'stored-versions': number;
  compaction: { 'keep-versions': number; sink: boolean; automatic: boolean; 'last-run': string | null; 'removed-versions': number };
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
  [0, [3, 3, 3, 3]],
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

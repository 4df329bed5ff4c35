// The transform of a pipe whose source or sink stays on the hub's thread (a merge source, an outbound sink) runs in a
// pipe worker (issue 32, point 1): the hub's thread reads the source and writes the sink, each batch's DTL runs in the
// worker. Before, a runaway entity of such a pipe held the hub's thread up to the 10 s per-entity bound: /api/health
// waited that long and a stop waited for it. Now /api/health answers at once and a stop ends the run within seconds
// (the worker is terminated and replaced); normal runs write what they wrote on the hub's thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { whileHealthPolled } from '../../helpers/runaway.js';
import { pumpOperation, pushEntities, runPump, sleep, waitFor } from '../../helpers/api.js';

type Json = Record<string, unknown>;

const hub = useHub({ env: { DATAHUB_PIPE_WORKERS: '2' } });

interface LastRun {
  status: string;
  processed: number;
  reason_why_stopped: string | null;
}
interface PumpInfo {
  'is-running': boolean;
  'last-run': LastRun | null;
}

const pump = (id: string): Promise<PumpInfo> => hub.json<PumpInfo>(`/pipes/${id}/pump`);
const runningInWorkers = async (): Promise<unknown> => ((await hub.json<Json>('/status'))['pipe_workers'] as Json)['running'];

/** A wildcard from the data against a long text: 10^11 steps, far past the 10 s the hub allows one entity. */
const PATTERN = `*${'a'.repeat(100_000)}b*`;
const TEXT = 'a'.repeat(1_000_000);
const HIT = ['add', 'hit', ['if', ['is-string', '_S.p'], ['matches', '_S.p', '_S.s'], false]];

test('a merge-source pipe with a runaway wildcard: /api/health answers while it runs, and stop ends it within seconds', async (t) => {
  await pushEntities(hub, 'spin-a', [{ _id: 'a1', f1: 1 }, { _id: 'a2', f1: 2, p: PATTERN, s: TEXT }]);
  await pushEntities(hub, 'spin-b', [{ _id: 'b1', f1: 1 }]);
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'merged-spin',
        type: 'pipe',
        source: { type: 'merge', version: 2, datasets: ['spin-a a', 'spin-b b'], equality: [['eq', 'a.f1', 'b.f1']] },
        transform: { type: 'dtl', rules: { default: [['copy', '*'], HIT] } },
        pump: { mode: 'manual' },
      },
    ],
  });
  // From the start, through the runaway entity (3 s after the run began), /api/health is polled; then the run is stopped.
  const busy = await whileHealthPolled(hub, async () => {
    await pumpOperation(hub, 'merged-spin', 'start');
    // (On the hub's thread the first poll may come only after the runaway entity has failed the run.)
    await waitFor('the run to start', async () => ((await pump('merged-spin'))['is-running'] || (await pump('merged-spin'))['last-run'] ? true : undefined), 30_000);
    await sleep(3000);
    return runningInWorkers();
  });
  const stop = await whileHealthPolled(hub, () => pumpOperation(hub, 'merged-spin', 'stop'));
  const slowest = Math.max(busy.slowest, stop.slowest);
  t.diagnostic(`slowest /api/health during the run ${busy.slowest.toFixed(0)} ms, during the stop ${stop.slowest.toFixed(0)} ms; stop took ${stop.ms.toFixed(0)} ms`);
  assert.equal(busy.result, 1, 'the run\'s transform is in a pipe worker');
  assert.ok(slowest < 1000, `the hub answered /api/health throughout (slowest ${slowest.toFixed(0)} ms)`);
  assert.ok(stop.ms < 8000, `the stop took ${stop.ms.toFixed(0)} ms (the entity alone may take 10 s)`);
  const info = await pump('merged-spin');
  assert.equal(info['is-running'], false);
  assert.equal(info['last-run']?.status, 'stopped');
  assert.match(info['last-run']?.reason_why_stopped ?? '', /stopped by the "stop" operation/);
  assert.equal(await runningInWorkers(), 0, 'the worker carries no run any more');
});

test('a merge-source pipe whose transform runs in a worker writes what the merge page\'s example gives, with lineage', async () => {
  const _note =
    'datanav/docs hub/documentation/service-configuration/pipes/configuration-sources-merge.rst, "Example configuration": ' +
    'A, B, C and the equality rules give 0|a1|1|b1|2|c1 (f1 [1, 1], f2 "x", f3 "X"), 0|a2, 1|b2, and the deleted 2|c2 and 2|c3 on their own. ' +
    'The transform (hub/dtl/dtl-functions-misc.rst / dtl-functions-lists.rst: copy, add, count) adds the number of $ids.';
  assert.ok(_note);
  await pushEntities(hub, 'doc-A', [{ _id: 'a1', f1: 1 }, { _id: 'a2', f1: 2 }]);
  await pushEntities(hub, 'doc-B', [{ _id: 'b1', f1: 1, f2: 'x' }, { _id: 'b2', f1: 3 }]);
  await pushEntities(hub, 'doc-C', [{ _id: 'c1', f3: 'X' }, { _id: 'c2', _deleted: true, f3: 'Y' }, { _id: 'c3', _deleted: true, f3: 'X' }]);
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'doc-result',
        type: 'pipe',
        // Three batches: the worker transforms one while the hub writes the one before.
        batch_size: 2,
        source: { type: 'merge', version: 2, datasets: ['doc-A a', 'doc-B b', 'doc-C c'], equality: [['eq', 'a.f1', 'b.f1'], ['eq', 'b.f2', ['lower', 'c.f3']]] },
        transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'members', ['count', '_S.$ids']]] } },
        pump: { mode: 'manual' },
      },
    ],
  });
  const run = await runPump<LastRun>(hub, 'doc-result', 'start', 30_000);
  assert.equal(run.status, 'completed', run.reason_why_stopped ?? '');
  assert.equal(run.processed, 5);
  const out = await hub.json<Json[]>('/datasets/doc-result/entities?deleted=true');
  const byId = new Map(out.map((e) => [e['_id'] as string, e]));
  assert.deepEqual([...byId.keys()].sort(), ['0|a1|1|b1|2|c1', '0|a2', '1|b2', '2|c2', '2|c3']);
  const abc = byId.get('0|a1|1|b1|2|c1')!;
  assert.deepEqual(abc['f1'], [1, 1]);
  assert.equal(abc['f2'], 'x');
  assert.equal(abc['f3'], 'X');
  assert.equal(abc['members'], 3);
  assert.equal(byId.get('0|a2')!['members'], 1);
  assert.equal(byId.get('2|c2')!['_deleted'], true);

  // Lineage: the merged entity's members, recorded on the hub's thread by the merge and carried through the worker.
  const up = await hub.json<{ steps: { pipe: string; contributors: { dataset: string; entity: string }[] }[] }>(
    `/datasets/doc-result/entities/${encodeURIComponent('0|a1|1|b1|2|c1')}/lineage?direction=up&depth=1`,
  );
  assert.equal(up.steps[0]?.pipe, 'doc-result');
  assert.deepEqual(
    up.steps[0]!.contributors.map((c) => [c.dataset, c.entity]),
    [['doc-A', 'a1'], ['doc-B', 'b1'], ['doc-C', 'c1']],
  );
});

test('an embedded pipe with an outbound (sql) sink, its transform in a worker, records the rows worked out by hand', async () => {
  const _note =
    'datanav/docs hub/documentation/service-configuration/pipes/configuration-sinks-sql.rst: a row per entity, by primary key; ' +
    'hub/dtl/dtl-functions-strings.rst "upper"; the hub runs the sql sink offline and records each row in the outbox (outbox.test.ts).';
  assert.ok(_note);
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'rows-db', type: 'system:postgresql', host: 'db.example.invalid', database: 'rows' }] });
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'rows-out',
        type: 'pipe',
        source: { type: 'embedded', entities: [{ _id: 'r1', row_id: 1, name: 'ann' }, { _id: 'r2', row_id: 2, name: 'bo' }, { _id: 'r3', row_id: 3, name: 'cy', skip: true }] },
        transform: { type: 'dtl', rules: { default: [['filter', ['neq', '_S.skip', true]], ['copy', 'row_id'], ['add', 'name', ['upper', '_S.name']]] } },
        sink: { type: 'sql', system: 'rows-db', table: 'person', primary_key: 'row_id' },
        pump: { mode: 'manual' },
      },
    ],
  });
  const run = await runPump<LastRun>(hub, 'rows-out', 'start', 30_000);
  assert.equal(run.status, 'completed', run.reason_why_stopped ?? '');
  assert.equal(run.processed, 3);
  const list = await hub.json<{ runs: { run_id: string; entities: number }[] }>('/pipes/rows-out/outbox');
  assert.equal(list.runs.length, 1);
  // The filtered entity is given to no sink but a dataset's (dtl-functions-transforms.rst, filter).
  assert.equal(list.runs[0]!.entities, 2);
  const first = await hub.json<{ records: Json[] }>(`/pipes/rows-out/outbox/${encodeURIComponent(list.runs[0]!.run_id)}/batches/1`);
  assert.deepEqual(first.records, [
    { key: 1, operation: 'upsert', body: { row_id: 1, name: 'ANN' } },
    { key: 2, operation: 'upsert', body: { row_id: 2, name: 'BO' } },
  ]);
});

test('a hops pipe with an outbound sink, its transform in a worker, tracks what it joined: a changed customer re-sends its orders', async () => {
  const _note =
    'datanav/docs hub/dtl/dtl-functions-hops.rst (hops: dependency tracking processes the source entities again when a joined entity changes); ' +
    'hub/documentation/service-configuration/pipes/configuration-sinks-sql.rst (a row per entity, by primary key).';
  assert.ok(_note);
  await pushEntities(hub, 'trk-customers', [{ _id: 'c1', name: 'Ann' }, { _id: 'c2', name: 'Bob' }]);
  await pushEntities(hub, 'trk-orders', [{ _id: 'o1', no: 1, customer: 'c1' }, { _id: 'o2', no: 2, customer: 'c1' }, { _id: 'o3', no: 3, customer: 'c2' }]);
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'trk-db', type: 'system:postgresql', host: 'db.example.invalid', database: 'trk' }] });
  const hops = { datasets: ['trk-customers c'], where: ['eq', '_S.customer', 'c._id'], return: 'c.name' };
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'trk-out',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'trk-orders' },
        transform: { type: 'dtl', rules: { default: [['copy', 'no'], ['add', 'customer', ['first', ['hops', hops]]]] } },
        sink: { type: 'sql', system: 'trk-db', table: 'orders', primary_key: 'no' },
        pump: { mode: 'manual' },
      },
    ],
  });
  const runOut = async (): Promise<Json[]> => {
    const r = await runPump<LastRun>(hub, 'trk-out', 'start', 30_000);
    assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
    const list = await hub.json<{ runs: { run_id: string; entities: number }[] }>('/pipes/trk-out/outbox');
    if (r.processed === 0) return [];
    const b = await hub.json<{ records: Json[] }>(`/pipes/trk-out/outbox/${encodeURIComponent(list.runs[0]!.run_id)}/batches/1`);
    return b.records;
  };
  assert.deepEqual(
    (await runOut()).map((r) => r['body']),
    [{ no: 1, customer: 'Ann' }, { no: 2, customer: 'Ann' }, { no: 3, customer: 'Bob' }],
  );
  assert.deepEqual(await runOut(), [], 'nothing changed: nothing sent');
  await pushEntities(hub, 'trk-customers', [{ _id: 'c1', name: 'Anna' }]);
  assert.deepEqual(
    (await runOut()).map((r) => r['body']),
    [{ no: 1, customer: 'Anna' }, { no: 2, customer: 'Anna' }],
    'the orders that joined c1, again',
  );
});

// POST /pipes/<id>/impact: what saving a draft and re-running the pipe from the start would do to its sink dataset.
// Each impact is checked against what really happens afterwards: the draft saved, last-seen cleared, the pipe run, and
// the sink dataset compared with how it was before, entity by entity.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { useHub, tempDir, removeDir, REPO, type HubProcess } from '../../helpers/hub-process.js';
import { expectError, pipePath, pumpOperation, pushEntities, runPump, waitFor } from '../../helpers/api.js';
import type { ImpactJob } from '../../../main/server/api/pipe-impact.js';

type Json = Record<string, unknown>;
type Snapshot = Map<string, { hash: string; deleted: boolean }>;

async function snapshot(h: HubProcess, dataset: string): Promise<Snapshot> {
  const res = await h.fetch(`/datasets/${encodeURIComponent(dataset)}/entities?history=false&deleted=true`);
  if (res.status === 404) return new Map();
  const list = (await res.json()) as { _id: string; _hash: string; _deleted: boolean }[];
  return new Map(list.map((e) => [e._id, { hash: e._hash, deleted: e._deleted }]));
}

/** What a run did to a dataset, entity by entity, by the same rules as the impact's counts. */
function compare(before: Snapshot, after: Snapshot): Record<string, number> {
  const c = { added: 0, changed: 0, deleted: 0, same: 0, 'deleted-not-live': 0 };
  for (const [id, a] of after) {
    const b = before.get(id);
    const wasLive = b !== undefined && !b.deleted;
    if (b !== undefined && b.hash === a.hash) c.same++;
    else if (!a.deleted) c[wasLive ? 'changed' : 'added']++;
    else c[wasLive ? 'deleted' : 'deleted-not-live']++;
  }
  return c;
}

async function impact(h: HubProcess, id: string, draft: Json, query = ''): Promise<ImpactJob> {
  const res = await h.fetch(`${pipePath(id)}/impact${query}`, { method: 'POST', json: draft });
  const text = await res.text();
  assert.equal(res.status, 202, text);
  const started = JSON.parse(text) as ImpactJob;
  assert.equal(started.status, 'running');
  return waitFor(`the impact of ${id}`, async () => {
    const job = await h.json<ImpactJob>(`${pipePath(id)}/impact`);
    return job.status === 'running' ? undefined : job;
  }, 30_000);
}

/** Save the draft, clear last-seen and run the pipe: what the impact promised to describe. */
async function saveAndRun(h: HubProcess, id: string, draft: Json): Promise<{ processed: number; changes: number }> {
  await h.json(`${pipePath(id)}/config`, { method: 'PUT', json: draft });
  // A source read whole has no last-seen: every run starts from the start.
  const supported = (await h.json<{ 'supported-operations': string[] }>(`${pipePath(id)}/pump`))['supported-operations'];
  if (supported.includes('update-last-seen')) await pumpOperation(h, id, 'update-last-seen', { 'last-seen': '' });
  return runPump<{ processed: number; changes: number }>(h, id);
}

const rules = (...r: unknown[]): Json => ({ type: 'dtl', rules: { default: r } });

describe('impact of a draft on a dataset-sourced pipe', () => {
  const h = useHub();

  const v1: Json = {
    _id: 'people-out',
    type: 'pipe',
    source: { type: 'dataset', dataset: 'people' },
    transform: rules(['copy', '*'], ['filter', ['gte', '_S.age', 18]]),
    sink: { type: 'dataset', dataset: 'people-out' },
    pump: { mode: 'manual' },
  };
  // Adults are marked, and 16- and 17-year-olds pass the filter now.
  const v2: Json = { ...v1, transform: rules(['copy', '*'], ['add', 'adult', ['gte', '_S.age', 18]], ['filter', ['gte', '_S.age', 16]]) };

  test('counts, per-property changes and samples agree exactly with a save and run afterwards', async () => {
    await pushEntities(h, 'people', [
      { _id: 'p1', name: 'Ann', age: 30 },
      { _id: 'p2', name: 'Bob', age: 17 },
      { _id: 'p3', name: 'Cid', age: 45 },
      { _id: 'p4', name: 'Dee', age: 12 },
      { _id: 'p5', name: 'Eve', age: 50 },
    ]);
    await h.json('/pipes', { method: 'POST', json: [v1] });
    await h.json('/pipes', {
      method: 'POST',
      json: [{ _id: 'people-report', type: 'pipe', source: { type: 'dataset', dataset: 'people-out' }, sink: { type: 'dataset' }, pump: { mode: 'manual' } }],
    });
    const first = await runPump<{ processed: number }>(h, 'people-out');
    assert.equal(first.processed, 5);
    // After that run the source gains p6 and loses p5.
    await pushEntities(h, 'people', [{ _id: 'p6', name: 'Fay', age: 22 }, { _id: 'p5', _deleted: true, name: 'Eve', age: 50 }]);

    const job = await impact(h, 'people-out', v2);
    assert.equal(job.status, 'done', JSON.stringify(job.error));
    const r = job.result!;
    assert.equal(r.dataset, 'people-out');
    assert.equal(r['deletes-unseen'], false, 'a dataset source is read incrementally: a reset run deletes nothing unseen');
    // Worked out by hand: p1 and p3 gain "adult"; p2 (17) is no longer filtered and p6 is new; p5 is deleted in the
    // source; p4 (12) stays filtered.
    assert.equal(r.processed, 6);
    assert.deepEqual([r.added, r.changed, r.deleted], [2, 2, 1]);
    assert.equal(r.unchanged + r['deleted-not-live'], 1, 'p4 stays deleted');
    assert.equal(r.untouched, 0);
    assert.deepEqual(r.properties, [{ property: 'adult', added: 2, removed: 0, changed: 0 }]);
    const p1 = r.samples.find((s) => s.id === 'p1')!;
    assert.equal(p1.kind, 'changed');
    assert.deepEqual(p1.before, { name: 'Ann', age: 30 });
    assert.deepEqual(p1.after, { name: 'Ann', age: 30, adult: true });
    assert.deepEqual(p1.properties, ['adult']);
    assert.deepEqual(r.samples.filter((s) => s.kind === 'added').map((s) => s.id).sort(), ['p2', 'p6']);
    assert.deepEqual(r.samples.find((s) => s.kind === 'deleted')?.after, null);
    assert.deepEqual(r.downstream, [{ pipe: 'people-report', dataset: 'people-out', via: 'source', depth: 1 }]);
    assert.equal(job.tests?.judged, false, 'no workspace: no tests to judge');

    // Nothing was written.
    const before = await snapshot(h, 'people-out');
    assert.equal(((await h.json(`${pipePath('people-out')}/config`)) as Json)['transform'] !== undefined, true);
    const run = await saveAndRun(h, 'people-out', v2);
    const after = await snapshot(h, 'people-out');
    const actual = compare(before, after);
    assert.deepEqual(
      { added: r.added, changed: r.changed, deleted: r.deleted, 'deleted-not-live': r['deleted-not-live'] },
      { added: actual['added'], changed: actual['changed'], deleted: actual['deleted'], 'deleted-not-live': actual['deleted-not-live'] },
    );
    assert.equal(r.processed, run.processed, 'processed entities as the run counts them');
    assert.equal(r['versions-written'], run.changes, 'versions written as the run counts its changes');
    const live = [...after.values()].filter((e) => !e.deleted).length;
    assert.equal(live, [...before.values()].filter((e) => !e.deleted).length + r.added - r.deleted);
  });

  test('the same draft again: nothing would change', async () => {
    const job = await impact(h, 'people-out', v2);
    const r = job.result!;
    assert.deepEqual([r.added, r.changed, r.deleted, r['versions-written']], [0, 0, 0, 0]);
    assert.equal(r.unchanged, 6);
    assert.deepEqual(r.downstream, [], 'nothing written, nothing downstream reprocesses');
    const before = await snapshot(h, 'people-out');
    const run = await saveAndRun(h, 'people-out', v2);
    assert.equal(run.changes, 0);
    assert.deepEqual(compare(before, await snapshot(h, 'people-out'))['same'], before.size);
  });

  test('bad drafts are 4xx in words, and nothing starts', async () => {
    await expectError(await h.fetch(`${pipePath('people-out')}/impact`, { method: 'POST', json: [1] }), 400, 'an array');
    await expectError(await h.fetch(`${pipePath('people-out')}/impact`, { method: 'POST', json: { ...v2, _id: 'other' } }), 400, 'another id');
    const e = await expectError(await h.fetch(`${pipePath('people-out')}/impact`, { method: 'POST', json: { ...v2, transform: rules(['nonsense-fn', 'x']) } }), 400, 'no compile');
    assert.match(`${e.error} ${String(e.detail)}`, /nonsense-fn/);
    await expectError(await h.fetch(`${pipePath('people-out')}/impact`, { method: 'POST', json: { ...v2, sink: { type: 'null' } } }), 400, 'not a dataset sink');
    await expectError(await h.fetch(`${pipePath('no-such-pipe')}/impact`, { method: 'POST', json: {} }), 404, 'unknown pipe');
    await expectError(await h.fetch(`${pipePath('no-such-pipe')}/impact`), 404, 'no job');
    await expectError(await h.fetch(`${pipePath('people-out')}/impact?sample=-1`, { method: 'POST', json: v2 }), 400, 'bad sample');
    // The last job is still the finished one.
    assert.equal((await h.json<ImpactJob>(`${pipePath('people-out')}/impact`)).status, 'done');
  });

  test('a transform that fails on an entity: the job fails naming it, as the run would', async () => {
    const failing = { ...v2, transform: rules(['copy', '*'], ['fail!', 'no good']) };
    const job = await impact(h, 'people-out', failing);
    assert.equal(job.status, 'failed');
    assert.match(job.error!.error, /transform fails on entity/);
  });

  test('one job at a time per pipe; DELETE cancels it', async () => {
    const many = Array.from({ length: 40_000 }, (_, i) => ({ _id: `b${i}`, n: i }));
    for (let i = 0; i < many.length; i += 10_000) await pushEntities(h, 'big', many.slice(i, i + 10_000));
    const big = { _id: 'big-out', type: 'pipe', source: { type: 'dataset', dataset: 'big' }, transform: rules(['copy', '*'], ['add', 'm', ['plus', '_S.n', 1]]), pump: { mode: 'manual' } };
    await h.json('/pipes', { method: 'POST', json: [big] });
    const res = await h.fetch(`${pipePath('big-out')}/impact`, { method: 'POST', json: big });
    assert.equal(res.status, 202);
    const second = await h.fetch(`${pipePath('big-out')}/impact`, { method: 'POST', json: big });
    const e = await expectError(second, 409, 'a second job');
    assert.match(e.error, /already running/);
    const progress = await h.json<ImpactJob>(`${pipePath('big-out')}/impact`);
    assert.equal(progress.progress.total, 40_000);
    const cancelled = await h.json<ImpactJob>(`${pipePath('big-out')}/impact`, { method: 'DELETE' });
    assert.equal(cancelled.status, 'cancelled');
    await new Promise((r) => setTimeout(r, 300));
    const later = await h.json<ImpactJob>(`${pipePath('big-out')}/impact`);
    assert.equal(later.status, 'cancelled');
    assert.equal(later.result, null);
    assert.ok(later.progress.processed < 40_000, `stopped early (${later.progress.processed})`);
    await expectError(await h.fetch(`${pipePath('big-out')}/impact`, { method: 'DELETE' }), 409, 'nothing running');
    // A new job may start at once.
    const again = await impact(h, 'big-out', big, '?tests=false&sample=0');
    assert.equal(again.result!.added, 40_000);
    assert.deepEqual(again.result!.samples, []);
  });
});

describe('impact of a draft whose source is read whole', () => {
  const h = useHub();
  const colours = (entities: Json[]): Json => ({ _id: 'colours', type: 'pipe', source: { type: 'embedded', entities }, pump: { mode: 'manual' } });

  test('entities the draft no longer gives are deleted by deletion tracking, as the run does', async () => {
    const v1 = colours([{ _id: 'red', hex: '#f00' }, { _id: 'green', hex: '#0f0' }, { _id: 'blue', hex: '#00f' }]);
    await h.json('/pipes', { method: 'POST', json: [v1] });
    await runPump(h, 'colours');
    const v2 = colours([{ _id: 'red', hex: '#ff0000' }, { _id: 'green', hex: '#0f0' }, { _id: 'cyan', hex: '#0ff' }]);
    const r = (await impact(h, 'colours', v2)).result!;
    assert.equal(r['deletes-unseen'], true);
    assert.deepEqual([r.added, r.changed, r.deleted, r.unchanged, r['versions-written']], [1, 1, 1, 1, 3]);
    assert.deepEqual(r.properties, [{ property: 'hex', added: 0, removed: 0, changed: 1 }]);
    assert.deepEqual(r.samples.find((s) => s.kind === 'deleted'), { id: 'blue', kind: 'deleted', before: { hex: '#00f' }, after: null, properties: ['hex'] });
    const before = await snapshot(h, 'colours');
    const run = await saveAndRun(h, 'colours', v2);
    const actual = compare(before, await snapshot(h, 'colours'));
    assert.deepEqual([actual['added'], actual['changed'], actual['deleted']], [r.added, r.changed, r.deleted]);
    assert.equal(run.changes, r['versions-written']);
    assert.equal(r['circuit-breaker'], null);
  });

  test('two entities with one id in a run compare in run order, as the sink writes them', async () => {
    const grouped = (entities: Json[]): Json => ({
      _id: 'groups',
      type: 'pipe',
      source: { type: 'embedded', entities },
      transform: { type: 'dtl', rules: { default: [['add', '_id', '_S.g'], ['add', 'v', '_S.v']] } },
      pump: { mode: 'manual' },
    });
    const a1 = { _id: 'a1', g: 'x', v: 1 };
    const a2 = { _id: 'a2', g: 'x', v: 2 };
    const a3 = { _id: 'a3', g: 'y', v: 3 };
    await h.json('/pipes', { method: 'POST', json: [grouped([a1, a2, a3])] });
    const first = await runPump<{ changes: number }>(h, 'groups');
    assert.equal(first.changes, 3, 'x twice, y once');
    // Swapped: x(2) is what the sink holds (nothing stored), then x(1) is stored; y is unchanged.
    const draft = grouped([a2, a1, a3]);
    const r = (await impact(h, 'groups', draft)).result!;
    assert.deepEqual([r.added, r.changed, r.deleted, r.unchanged, r['versions-written'], r['to-sink']], [0, 1, 0, 1, 1, 3]);
    assert.deepEqual(r.samples.map((x) => [x.id, x.before, x.after]), [['x', { v: 2 }, { v: 1 }]]);
    const before = await snapshot(h, 'groups');
    const run = await saveAndRun(h, 'groups', draft);
    const actual = compare(before, await snapshot(h, 'groups'));
    assert.deepEqual([actual['added'], actual['changed'], actual['deleted']], [r.added, r.changed, r.deleted]);
    assert.equal(run.changes, r['versions-written']);
  });

  test('a draft whose changes exceed the circuit breaker it sets: the impact says the run would trip, and it does', async () => {
    const entities = Array.from({ length: 6 }, (_, i) => ({ _id: `c${i}`, n: i }));
    const v1 = { ...colours(entities), _id: 'counted', batch_size: 2 };
    await h.json('/pipes', { method: 'POST', json: [v1] });
    await runPump(h, 'counted');
    // Every entity changes; two per batch; at most 3 changes: the second batch takes the run to 4.
    const v2 = { ...v1, source: { type: 'embedded', entities: entities.map((e) => ({ ...e, n: e.n + 1 })) }, sink: { type: 'dataset', circuit_breaker_threshold_count: 3 } };
    const r = (await impact(h, 'counted', v2)).result!;
    assert.equal(r.changed, 6);
    assert.deepEqual(r['circuit-breaker'], { limit: 3, 'would-trip': true, 'trips-after': 2, 'tripped-now': false });
    await h.json(`${pipePath('counted')}/config`, { method: 'PUT', json: v2 });
    const run = await runPump<{ status: string; changes: number; reason_why_stopped: string }>(h, 'counted');
    assert.equal(run.status, 'failed');
    assert.match(run.reason_why_stopped, /circuit breaker/);
    assert.equal(run.changes, 2, 'the first batch was written before the trip');
    const again = (await impact(h, 'counted', v2)).result!;
    assert.equal(again['circuit-breaker']?.['tripped-now'], true);
  });
});

describe('impact on the workspace tests', () => {
  const dir = tempDir('impact-shop-');
  cpSync(join(REPO, 'test', 'fixtures', 'projects', 'shop'), dir, { recursive: true });
  const h = useHub({ args: ['--workspace', dir] });
  after(() => removeDir(dir));

  test('a draft that renames a country makes its test and the report downstream start failing', async () => {
    const config = await h.json<Json>(`${pipePath('countries')}/config`);
    const source = config['source'] as { entities: Json[] };
    const draft = { ...config, source: { ...source, entities: source.entities.map((e) => (e['_id'] === 'SE' ? { ...e, name: 'Sverige' } : e)) } };
    const job = await impact(h, 'countries', draft);
    assert.equal(job.status, 'done', JSON.stringify(job.error));
    assert.equal(job.result!.added, 3, 'the local hub never ran the pipe: everything is new');
    assert.deepEqual(job.result!.downstream, [{ pipe: 'customer-report', dataset: 'countries', via: 'hops', depth: 1 }]);
    const tests = job.tests!;
    assert.equal(tests.judged, true, tests.reason ?? '');
    const byName = Object.fromEntries(tests.tests.map((t) => [t.name, t]));
    assert.deepEqual(Object.keys(byName).sort(), ['countries', 'customer-report']);
    assert.equal(byName['countries']!.change, 'starts-failing');
    assert.equal(byName['countries']!.diffs, 1);
    assert.equal(byName['customer-report']!.change, 'starts-failing');
    // The draft as stored: the same tests keep passing.
    const same = await impact(h, 'countries', config);
    assert.deepEqual(same.tests!.tests.map((t) => t.change), ['still-passing', 'still-passing']);
  });

  test('cancelling while the tests run stops them', async () => {
    const config = await h.json<Json>(`${pipePath('countries')}/config`);
    const res = await h.fetch(`${pipePath('countries')}/impact`, { method: 'POST', json: config });
    assert.equal(res.status, 202);
    await waitFor('the tests phase', async () => {
      const job = await h.json<ImpactJob>(`${pipePath('countries')}/impact`);
      assert.equal(job.status, 'running', 'the tests take a while');
      return job.progress.phase === 'tests' ? job : undefined;
    });
    const cancelled = await h.json<ImpactJob>(`${pipePath('countries')}/impact`, { method: 'DELETE' });
    assert.equal(cancelled.status, 'cancelled');
    await new Promise((r) => setTimeout(r, 500));
    const later = await h.json<ImpactJob>(`${pipePath('countries')}/impact`);
    assert.deepEqual([later.status, later.tests], ['cancelled', null]);
    // The hub goes on: a new impact starts and finishes.
    assert.equal((await impact(h, 'countries', config)).status, 'done');
  });
});

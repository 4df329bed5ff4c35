// Sinks that write out of the hub: the `json` sink (JSON Push to a system:url) between two real hub processes, and
// the pump's write retries and dead letter dataset when the push target refuses.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { pumpOperation, runPump } from '../../helpers/api.js';

type Json = Record<string, unknown>;

interface PumpInfo {
  'is-running': boolean;
  'pending-retries': number;
  runs: number;
  'last-run': { status: string; processed: number; reason_why_stopped: string | null } | null;
}

interface LogEntity extends Json {
  event_type: string;
}

/** A receives (http_endpoint pipes); B pumps to A with json sinks. */
let a: HubProcess;
let b: HubProcess;

before(async () => {
  [a, b] = await Promise.all([startHub(), startHub()]);
  // B reaches A through a system whose Authorization header comes from a system secret.
  await b.json('/systems', { method: 'POST', json: [{ _id: 'hub-a', type: 'system:url', base_url: `${a.api}/receivers/`, headers: { Authorization: '$SECRET(a-token)' } }] });
  await b.json('/systems/hub-a/secrets', { method: 'PUT', json: { 'a-token': `Bearer ${a.token}` } });
});

after(async () => {
  for (const h of [a, b]) {
    if (!h) continue;
    await h.stop();
    removeDir(h.dataDir);
  }
});

const p = (id: string): string => `/pipes/${encodeURIComponent(id)}`;
async function pump(h: HubProcess, id: string): Promise<PumpInfo> {
  return h.json<PumpInfo>(`${p(id)}/pump`);
}

const op = async (h: HubProcess, id: string, operation: string): Promise<void> => void (await pumpOperation(h, id, operation));

/** Start a run and wait until it has ended. */
const run = (h: HubProcess, id: string, operation = 'start'): Promise<NonNullable<PumpInfo['last-run']>> => runPump(h, id, operation, 10_000);

async function lastEnd(h: HubProcess, id: string): Promise<LogEntity> {
  const events = await h.json<LogEntity[]>(`${p(id)}/log?reverse=true`);
  const e = events.find((x) => x.event_type === 'pump-completed' || x.event_type === 'pump-failed');
  assert.ok(e, `${id} has an ended run`);
  return e;
}

async function entities(h: HubProcess, dataset: string): Promise<Map<string, Json>> {
  const list = await h.json<Json[]>(`/datasets/${encodeURIComponent(dataset)}/entities?history=false`);
  return new Map(list.map((e) => [e['_id'] as string, e]));
}

/** Business properties only (what the receiver must equal). */
function visible(e: Json | undefined): Json | undefined {
  if (!e) return undefined;
  return Object.fromEntries(Object.entries(e).filter(([k, v]) => !k.startsWith('_') || k === '_id' || (k === '_deleted' && v === true)));
}

async function receiver(id: string): Promise<void> {
  await a.json('/pipes', { method: 'POST', json: [{ _id: id, type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: id } }] });
}

async function pusher(id: string, source: string, target: string, pumpConfig: Json = {}, batchSize = 1000): Promise<void> {
  await b.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: id,
        type: 'pipe',
        batch_size: batchSize,
        source: { type: 'dataset', dataset: source },
        transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'pushed', true]] } },
        sink: { type: 'json', system: 'hub-a', url: `${target}/entities` },
        pump: { mode: 'manual', ...pumpConfig },
      },
    ],
  });
}

test('json sink: a full run pushes the output as one full sequence; deletes arrive deleted', async () => {
  await receiver('in');
  const people = Array.from({ length: 25 }, (_, i) => ({ _id: `p${i}`, n: i }));
  await b.json('/datasets/people/entities', { method: 'POST', json: people });
  // Batches of 10: the run is a sequence of several requests.
  await pusher('out', 'people', 'in', {}, 10);

  const first = await run(b, 'out');
  assert.equal(first.status, 'completed', first.reason_why_stopped ?? '');
  const onA = await entities(a, 'in');
  assert.equal(onA.size, 25);
  assert.deepEqual(visible(onA.get('p3')), { _id: 'p3', n: 3, pushed: true });

  // Something on A that B never sent goes away with B's next full sequence.
  await a.fetch('/receivers/in/entities', { method: 'POST', json: [{ _id: 'stray' }] });
  assert.ok((await entities(a, 'in')).has('stray'));

  // A deletion and a change on B's side, then a full run (rescan): A equals B's output.
  await b.json('/datasets/people/entities', { method: 'POST', json: [{ _id: 'p0', _deleted: true }, { _id: 'p1', n: 100 }] });
  const full = await run(b, 'out', 'start-rescan');
  assert.equal(full.status, 'completed', full.reason_why_stopped ?? '');
  const out = await entities(b, 'people');
  const after = await entities(a, 'in');
  assert.equal(after.get('p0')?.['_deleted'], true, 'p0 arrives deleted');
  assert.ok(!after.has('stray') || after.get('stray')?.['_deleted'] === true, 'what B did not send is deleted on A');
  for (const [eid, e] of out) {
    if (e['_deleted'] === true) continue;
    assert.deepEqual(visible(after.get(eid)), { ...visible(e), pushed: true }, eid);
  }
  assert.equal([...after.values()].filter((e) => e['_deleted'] !== true).length, 24);

  // A rescan leaves the incremental position alone: catch up, then an incremental run with one change sends just that.
  assert.equal((await run(b, 'out')).processed, 2);
  await b.json('/datasets/people/entities', { method: 'POST', json: [{ _id: 'p2', n: 200 }] });
  const inc = await run(b, 'out');
  assert.equal(inc.processed, 1);
  assert.equal((await entities(a, 'in')).get('p2')?.['n'], 200);
  const end = await lastEnd(b, 'out');
  assert.equal(end['entities_failed'], 0);
  assert.equal(end['write_errors'], 0);
});

test('json sink: a refused push without retry settings fails the run and keeps the position', async () => {
  await b.json('/datasets/plain/entities', { method: 'POST', json: [{ _id: 'x1' }, { _id: 'x2' }] });
  await pusher('plain-out', 'plain', 'no-such-pipe');
  const r = await run(b, 'plain-out');
  assert.equal(r.status, 'failed');
  assert.match(r.reason_why_stopped ?? '', /answered 404/);
  await receiver('no-such-pipe');
  const again = await run(b, 'plain-out');
  assert.equal(again.status, 'completed', again.reason_why_stopped ?? '');
  assert.equal(again.processed, 2, 'the failed batch is read again');
  assert.equal((await entities(a, 'no-such-pipe')).size, 2);
});

test('write retries: refused entities are retried on later runs, then go to the dead letter dataset', async () => {
  await receiver('gone');
  await b.json('/datasets/things/entities', { method: 'POST', json: [{ _id: 't1' }, { _id: 't2' }, { _id: 't3' }] });
  await pusher('retrying', 'things', 'gone', { max_retries_per_entity: 2, dead_letter_dataset: 'dead' });
  // The target goes away: every push is refused.
  await a.json(p('gone'), { method: 'DELETE' });

  const r1 = await run(b, 'retrying');
  assert.equal(r1.status, 'completed', r1.reason_why_stopped ?? '');
  assert.equal((await pump(b, 'retrying'))['pending-retries'], 3);
  let end = await lastEnd(b, 'retrying');
  assert.equal(end['entities_failed'], 3);
  assert.equal(end['write_errors'], 1);
  assert.equal(end['retry_entities_exist'], true);

  await run(b, 'retrying');
  assert.equal((await pump(b, 'retrying'))['pending-retries'], 3, 'one retry made, one left');
  end = await lastEnd(b, 'retrying');
  assert.equal(end['failed_retried_entities'], 3);
  assert.equal((await b.fetch('/datasets/dead/entities')).status, 404, 'nothing is dead yet');

  await run(b, 'retrying');
  assert.equal((await pump(b, 'retrying'))['pending-retries'], 0);
  end = await lastEnd(b, 'retrying');
  assert.equal(end['dead_entities'], 3);
  const dead = await entities(b, 'dead');
  assert.deepEqual([...dead.keys()].sort(), ['t1', 't2', 't3']);
  const t1 = dead.get('t1')!;
  assert.equal(t1['pipe'], 'retrying');
  assert.match(String(t1['error']), /404/);
  assert.deepEqual(visible(t1['entity'] as Json), { _id: 't1', pushed: true });
});

test('write retries: a retry that succeeds is delivered; discard-retries drops what is pending', async () => {
  await b.json('/datasets/later/entities', { method: 'POST', json: [{ _id: 'l1' }, { _id: 'l2' }] });
  await pusher('late', 'later', 'late-in', { max_retries_per_entity: 3 });
  await run(b, 'late');
  assert.equal((await pump(b, 'late'))['pending-retries'], 2);
  // The target appears: the next run delivers the retries.
  await receiver('late-in');
  await run(b, 'late');
  assert.equal((await pump(b, 'late'))['pending-retries'], 0);
  assert.equal((await lastEnd(b, 'late'))['successfully_retried_entities'], 2);
  assert.deepEqual([...(await entities(a, 'late-in')).keys()].sort(), ['l1', 'l2']);

  await b.json('/datasets/later/entities', { method: 'POST', json: [{ _id: 'l3' }] });
  await a.json(p('late-in'), { method: 'DELETE' });
  await run(b, 'late');
  assert.equal((await pump(b, 'late'))['pending-retries'], 1);
  await op(b, 'late', 'discard-retries');
  assert.equal((await pump(b, 'late'))['pending-retries'], 0);
  const events = await b.json<LogEntity[]>(`${p('late')}/log?reverse=true`);
  assert.equal(events.find((e) => e.event_type === 'pump-discard-retries')?.['discarded_retries'], 1);
  await receiver('late-in');
  await run(b, 'late');
  assert.equal((await lastEnd(b, 'late'))['successfully_retried_entities'], 0, 'discarded entities are not retried');
  assert.ok(!(await entities(a, 'late-in')).has('l3'));
});

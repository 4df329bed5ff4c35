// Dependency tracking of hops: a change in a joined dataset re-queues the source entities that joined to it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { pumpOperation, pushEntities, runPump } from '../../helpers/api.js';

type Json = Record<string, unknown>;

interface LastRun {
  status: string;
  processed: number;
  reason_why_stopped: string | null;
}

interface PumpInfo {
  runs: number;
  'is-running': boolean;
  'last-run': LastRun | null;
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
const push = (dataset: string, entities: Json[]): Promise<void> => pushEntities(hub, dataset, entities);

const op = (id: string, operation: string): Promise<PumpInfo> => pumpOperation<PumpInfo>(hub, id, operation);

/** Start a run and wait for it to end; the run must complete. */
async function run(id: string): Promise<LastRun> {
  const r = await runPump<LastRun>(hub, id);
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  return r;
}

/** The processed count of the pipe's last pump-completed event in its execution log. */
async function loggedProcessed(id: string): Promise<unknown> {
  const events = await hub.json<Json[]>(`${p(id)}/log?reverse=true`);
  return events.find((e) => e['event_type'] === 'pump-completed')?.['processed_entities'];
}

async function latest(dataset: string): Promise<Map<string, Json>> {
  const list = await hub.json<Json[]>(`/datasets/${encodeURIComponent(dataset)}/entities?history=false`);
  return new Map(list.map((e) => [e['_id'] as string, e]));
}

async function names(dataset: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [id, e] of await latest(dataset)) out[id] = e['customer_name'] ?? null;
  return out;
}

function joinPipe(id: string, source: string, hops: Json): Json {
  return {
    type: 'pipe',
    _id: id,
    source: { type: 'dataset', dataset: source },
    transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'customer_name', ['hops', hops]]] } },
    pump: { mode: 'manual' },
  };
}

test('a changed or deleted customer re-queues exactly the orders that joined to it; reset-tracking skips changes', async () => {
  await push('customers', [
    { _id: 'c1', name: 'Ann' },
    { _id: 'c2', name: 'Bob' },
  ]);
  await push('orders', [
    { _id: 'o1', customer: 'c1' },
    { _id: 'o2', customer: 'c1' },
    { _id: 'o3', customer: 'c2' },
    { _id: 'o4', customer: 'c9' },
  ]);
  await hub.json('/pipes', { method: 'POST', json: [joinPipe('orders-customers', 'orders', { datasets: ['customers c'], where: ['eq', '_S.customer', 'c._id'], return: 'c.name' })] });
  assert.equal((await run('orders-customers')).processed, 4);
  assert.deepEqual(await names('orders-customers'), { o1: ['Ann'], o2: ['Ann'], o3: ['Bob'], o4: [] });
  assert.equal((await run('orders-customers')).processed, 0, 'nothing changed: nothing to do');

  // One customer changes: the next run (no new orders) processes that customer's orders only.
  const o3Before = (await latest('orders-customers')).get('o3')?.['_updated'];
  await push('customers', [{ _id: 'c1', name: 'Anna' }]);
  assert.equal((await run('orders-customers')).processed, 2);
  assert.equal(await loggedProcessed('orders-customers'), 2);
  assert.deepEqual(await names('orders-customers'), { o1: ['Anna'], o2: ['Anna'], o3: ['Bob'], o4: [] });
  assert.equal((await latest('orders-customers')).get('o3')?.['_updated'], o3Before);
  assert.equal((await run('orders-customers')).processed, 0, 'the change is seen once');

  // A customer that appears: the order that looked it up (and found nothing) is processed again.
  await push('customers', [{ _id: 'c9', name: 'Cy' }]);
  assert.equal((await run('orders-customers')).processed, 1);
  assert.deepEqual((await names('orders-customers'))['o4'], ['Cy']);

  // A deleted customer: the joined value disappears.
  await push('customers', [{ _id: 'c2', _deleted: true }]);
  assert.equal((await run('orders-customers')).processed, 1);
  assert.deepEqual((await names('orders-customers'))['o3'], []);

  // An order that is processed again replaces its dependencies: o1 now joins c2, not c1.
  await push('orders', [{ _id: 'o1', customer: 'c2' }]);
  assert.equal((await run('orders-customers')).processed, 1);
  await push('customers', [{ _id: 'c1', name: 'Annabel' }]);
  assert.equal((await run('orders-customers')).processed, 1, 'only o2 still joins c1');
  assert.deepEqual(await names('orders-customers'), { o1: [], o2: ['Annabel'], o3: [], o4: ['Cy'] });

  // reset-tracking: changes made before it re-queue nothing; later ones do.
  await push('customers', [{ _id: 'c1', name: 'Skipped' }]);
  await op('orders-customers', 'reset-tracking');
  assert.equal((await run('orders-customers')).processed, 0);
  assert.deepEqual((await names('orders-customers'))['o2'], ['Annabel']);
  await push('customers', [{ _id: 'c1', name: 'Seen' }]);
  assert.equal((await run('orders-customers')).processed, 1);
  assert.deepEqual((await names('orders-customers'))['o2'], ['Seen']);
});

test("a pipe's first run that sees an entity twice keeps only what its last version looked up", async () => {
  // Every version is read (include_previous_versions), one per batch: v1 of h1 joins k1, v2 joins k2. The run
  // starts with no dependencies stored, and the second batch must still replace what the first one stored.
  await push('keys', [
    { _id: 'k1', label: 'one' },
    { _id: 'k2', label: 'two' },
  ]);
  await push('history', [{ _id: 'h1', key: 'k1' }]);
  await push('history', [{ _id: 'h1', key: 'k2' }]);
  const pipe: Json = { ...joinPipe('history-keys', 'history', { datasets: ['keys k'], where: ['eq', '_S.key', 'k._id'], return: 'k.label' }), batch_size: 1 };
  pipe['source'] = { type: 'dataset', dataset: 'history', include_previous_versions: true };
  await hub.json('/pipes', { method: 'POST', json: [pipe] });
  assert.equal((await run('history-keys')).processed, 2, 'both versions of h1');
  assert.deepEqual(await names('history-keys'), { h1: ['two'] });
  await push('keys', [{ _id: 'k1', label: 'uno' }]);
  assert.equal((await run('history-keys')).processed, 0, 'h1 no longer depends on k1');
  await push('keys', [{ _id: 'k2', label: 'dos' }]);
  assert.equal((await run('history-keys')).processed, 1, 'h1 depends on k2');
  assert.deepEqual(await names('history-keys'), { h1: ['dos'] });
});

test("a pipe's first run that sees an entity twice in one batch keeps only what its last version looked up", async () => {
  // The first run writes its rows without reading any back: an id listed twice in one batch must still end with the
  // keys of its last version alone (g1: k3 then k4; g2: nothing, then k3; g3: k4 then deleted).
  await push('keys2', [
    { _id: 'k3', label: 'three' },
    { _id: 'k4', label: 'four' },
  ]);
  await push('twice', [{ _id: 'g1', key: 'k3' }, { _id: 'g2' }, { _id: 'g3', key: 'k4' }]);
  await push('twice', [{ _id: 'g1', key: 'k4' }, { _id: 'g2', key: 'k3' }, { _id: 'g3', _deleted: true }]);
  const pipe: Json = joinPipe('twice-keys', 'twice', { datasets: ['keys2 k'], where: ['eq', '_S.key', 'k._id'], return: 'k.label' });
  pipe['source'] = { type: 'dataset', dataset: 'twice', include_previous_versions: true };
  await hub.json('/pipes', { method: 'POST', json: [pipe] });
  assert.equal((await run('twice-keys')).processed, 6, 'every version, in one batch');
  const first = await latest('twice-keys');
  assert.deepEqual([first.get('g1')?.['customer_name'], first.get('g2')?.['customer_name'], first.get('g3')?.['_deleted']], [['four'], ['three'], true]);
  await push('keys2', [{ _id: 'k4', label: 'cuatro' }]);
  assert.equal((await run('twice-keys')).processed, 1, 'g1 looks k4 up; g3 was deleted');
  await push('keys2', [{ _id: 'k3', label: 'tres' }]);
  assert.equal((await run('twice-keys')).processed, 1, 'g2 looks k3 up; g1 no longer does');
  const last = await latest('twice-keys');
  assert.deepEqual([last.get('g1')?.['customer_name'], last.get('g2')?.['customer_name']], [['cuatro'], ['tres']]);
});

test('a changed join key re-queues the entities that joined on the old key as well as the new one', async () => {
  await push('accounts', [
    { _id: 'a1', number: 7, name: 'Seven' },
    { _id: 'a2', number: 9, name: 'Nine' },
  ]);
  await push('invoices', [
    { _id: 'i1', account: 7 },
    { _id: 'i2', account: 8 },
    { _id: 'i3', account: 9 },
  ]);
  await hub.json('/pipes', { method: 'POST', json: [joinPipe('invoices-accounts', 'invoices', { datasets: ['accounts a'], where: ['eq', '_S.account', 'a.number'], return: 'a.name' })] });
  assert.equal((await run('invoices-accounts')).processed, 3);
  assert.deepEqual(await names('invoices-accounts'), { i1: ['Seven'], i2: [], i3: ['Nine'] });
  await push('accounts', [{ _id: 'a1', number: 8, name: 'Seven' }]);
  assert.equal((await run('invoices-accounts')).processed, 2);
  assert.deepEqual(await names('invoices-accounts'), { i1: [], i2: ['Seven'], i3: ['Nine'] });
});

test('"track-dependencies": false leaves the joined dataset untracked', async () => {
  await push('people', [{ _id: 'p1', name: 'Pat' }]);
  await push('tickets', [{ _id: 't1', customer: 'p1' }]);
  const hops = { datasets: ['people c'], where: ['eq', '_S.customer', 'c._id'], return: 'c.name' };
  await hub.json('/pipes', {
    method: 'POST',
    json: [joinPipe('tickets-people', 'tickets', { ...hops, 'track-dependencies': false }), joinPipe('tickets-people-tracked', 'tickets', hops)],
  });
  assert.equal((await run('tickets-people')).processed, 1);
  assert.equal((await run('tickets-people-tracked')).processed, 1);
  await push('people', [{ _id: 'p1', name: 'Patricia' }]);
  assert.equal((await run('tickets-people')).processed, 0);
  assert.deepEqual((await names('tickets-people'))['t1'], ['Pat']);
  assert.equal((await run('tickets-people-tracked')).processed, 1, 'the same join, tracked');
  assert.deepEqual((await names('tickets-people-tracked'))['t1'], ['Patricia']);
});

test('an entity tracks each dataset and key it looked up; one processed again with the same keys stays tracked, a deleted one goes', async () => {
  await push('owners', [
    { _id: 'w1', name: 'Wes' },
    { _id: 'w2', name: 'Wyn' },
  ]);
  await push('places', [
    { _id: 'pl1', code: 'OSL', title: 'Oslo' },
    { _id: 'pl2', code: 'BGO', title: 'Bergen' },
  ]);
  await push('boats', [
    { _id: 'b1', owner: 'w1', home: 'OSL' },
    { _id: 'b2', owner: 'w1', home: 'BGO' },
    { _id: 'b3', owner: 'w2', home: 'OSL' },
  ]);
  const pipe: Json = {
    type: 'pipe',
    _id: 'boats-joined',
    source: { type: 'dataset', dataset: 'boats' },
    transform: {
      type: 'dtl',
      rules: {
        default: [
          ['copy', '*'],
          ['add', 'owner_name', ['hops', { datasets: ['owners o'], where: ['eq', '_S.owner', 'o._id'], return: 'o.name' }]],
          ['add', 'place', ['hops', { datasets: ['places p'], where: ['eq', '_S.home', 'p.code'], return: 'p.title' }]],
        ],
      },
    },
    pump: { mode: 'manual' },
  };
  await hub.json('/pipes', { method: 'POST', json: [pipe] });
  assert.equal((await run('boats-joined')).processed, 3);

  // A change in either joined dataset re-queues the boats that looked up its key, by the key of that join.
  await push('places', [{ _id: 'pl1', code: 'OSL', title: 'Christiania' }]);
  assert.equal((await run('boats-joined')).processed, 2, 'b1 and b3 looked up OSL');
  await push('owners', [{ _id: 'w1', name: 'Wesley' }]);
  assert.equal((await run('boats-joined')).processed, 2, 'b1 and b2 looked up w1');
  const latestBoats = await latest('boats-joined');
  assert.deepEqual(latestBoats.get('b1')?.['place'], ['Christiania']);
  assert.deepEqual(latestBoats.get('b1')?.['owner_name'], ['Wesley']);

  // b1 was processed twice again with the same keys: it still depends on both.
  await push('owners', [{ _id: 'w1', name: 'Wes' }]);
  assert.equal((await run('boats-joined')).processed, 2);
  await push('places', [{ _id: 'pl1', code: 'OSL', title: 'Oslo' }]);
  assert.equal((await run('boats-joined')).processed, 2);

  // A boat that changes but keeps its keys keeps its dependencies; a deleted boat has none.
  await push('boats', [
    { _id: 'b1', owner: 'w1', home: 'OSL', length: 30 },
    { _id: 'b3', _deleted: true },
  ]);
  assert.equal((await run('boats-joined')).processed, 2);
  await push('places', [{ _id: 'pl1', code: 'OSL', title: 'Oslo!' }]);
  assert.equal((await run('boats-joined')).processed, 1, 'only b1 still looks OSL up');
  assert.deepEqual((await latest('boats-joined')).get('b1')?.['place'], ['Oslo!']);
});

test('a data folder of an older version, with its dependencies in one wide table, keeps tracking them', async () => {
  const old = await startHub();
  try {
    await pushEntities(old, 'members', [
      { _id: 'm1', club: 'k1' },
      { _id: 'm2', club: 'k2' },
    ]);
    await pushEntities(old, 'clubs', [
      { _id: 'k1', name: 'Chess' },
      { _id: 'k2', name: 'Go' },
    ]);
    await old.json('/pipes', { method: 'POST', json: [joinPipe('members-clubs', 'members', { datasets: ['clubs c'], where: ['eq', '_S.club', 'c._id'], return: 'c.name' })] });
    const first = await runPump<LastRun>(old, 'members-clubs');
    assert.equal(first.processed, 2);
    await old.stop();

    // What the older version kept: one row (pipe, dataset, path, key, eid) per dependency.
    const db = new Database(join(old.dataDir, 'hub.db'));
    db.exec(`
      CREATE TABLE pump_dependencies (
        pipe TEXT NOT NULL, dataset TEXT NOT NULL, path TEXT NOT NULL, key TEXT NOT NULL, eid TEXT NOT NULL,
        PRIMARY KEY (pipe, dataset, path, key, eid)) WITHOUT ROWID;
      CREATE INDEX pump_dependencies_eid ON pump_dependencies (pipe, eid);
      INSERT INTO pump_dependencies SELECT t.pipe, t.dataset, t.path, d.key, d.eid FROM pump_deps d JOIN pump_dep_trackers t ON t.num = d.tracker;
      DROP TABLE pump_deps;
      DROP TABLE pump_dep_trackers;
    `);
    const rows = db.prepare('SELECT count(*) FROM pump_dependencies').pluck().get();
    db.close();
    assert.equal(rows, 2);

    const reopened = await startHub({ dataDir: old.dataDir });
    try {
      await pushEntities(reopened, 'clubs', [{ _id: 'k2', name: 'Weiqi' }]);
      const again = await runPump<LastRun>(reopened, 'members-clubs');
      assert.equal(again.processed, 1, 'm2 joined k2');
      const list = await reopened.json<Json[]>('/datasets/members-clubs/entities?history=false');
      assert.deepEqual(list.find((e) => e['_id'] === 'm2')?.['customer_name'], ['Weiqi']);
    } finally {
      await reopened.stop();
    }
  } finally {
    await old.stop();
    removeDir(old.dataDir);
  }
});

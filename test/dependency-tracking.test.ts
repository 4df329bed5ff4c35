// Dependency tracking of hops: a change in a joined dataset re-queues the source entities that joined to it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, removeDir, type HubProcess } from './helpers/hub-process.js';
import { pumpOperation, pushEntities, runPump } from './helpers/api.js';

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

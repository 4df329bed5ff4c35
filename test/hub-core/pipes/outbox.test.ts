// Outbound pipes run offline (issue 13.7): a pipe whose sink is an outside system is valid, startable and scheduled;
// where the real write would happen each request goes to the pipe's outbox, following the sink's documentation
// (sql: rows upserted or deleted by primary key in batches of the sink's batch_size; elasticsearch: a bulk request
// per batch, documents indexed or deleted by _id without the root's "_*"/"$*" properties; rest: one request per
// entity to the operation it or the sink names; kafka: the entity's key and value). The expected records below are
// worked out by hand from those rules. A json sink whose URL answers really sends; one that does not is recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useHub } from '../../helpers/hub-process.js';
import { expectError, pipePath, pumpOperation, pushEntities, runPump } from '../../helpers/api.js';

type Json = Record<string, unknown>;

interface LastRun {
  status: string;
  processed: number;
  offline?: boolean;
  reason_why_stopped: string | null;
}
interface OutboxRun {
  run_id: string;
  sink_type: string;
  batches: number;
  entities: number;
  operations: Record<string, number>;
}
interface OutboxList {
  pipe: string;
  keep_runs: number;
  total: number;
  runs: OutboxRun[];
}
interface Batch {
  batch: number;
  target: Json;
  entities: number;
  operations: Record<string, number>;
  records?: Json[];
}

const hub = useHub();

const outbox = (id: string): Promise<OutboxList> => hub.json<OutboxList>(`${pipePath(id)}/outbox`);
const batches = (id: string, run: string): Promise<{ run: OutboxRun; total: number; batches: Batch[] }> =>
  hub.json(`${pipePath(id)}/outbox/${encodeURIComponent(run)}`);
const batch = (id: string, run: string, n: number, query = ''): Promise<Batch> =>
  hub.json<Batch>(`${pipePath(id)}/outbox/${encodeURIComponent(run)}/batches/${n}${query}`);

async function run(id: string): Promise<LastRun> {
  const r = await runPump<LastRun>(hub, id);
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  return r;
}

async function addPipes(pipes: Json[]): Promise<void> {
  await hub.json('/pipes', { method: 'POST', json: pipes });
}

test('a sql sink pipe is valid and scheduled, runs offline and records its rows by primary key in batches of batch_size', async () => {
  await pushEntities(hub, 'customers', [
    { _id: 'c1', cust_id: 1, name: 'Ann' },
    { _id: 'c2', cust_id: 2, name: 'Bo' },
    { _id: 'c3', cust_id: 3, name: 'Cy' },
    { _id: 'c4', cust_id: 4, name: 'Di' },
    { _id: 'c5', cust_id: 5, name: 'Ed', _deleted: true },
  ]);
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'crm-db', type: 'system:postgresql', host: 'db.example.invalid', database: 'crm' }] });
  await addPipes([
    {
      _id: 'customers-to-crm',
      type: 'pipe',
      source: { type: 'dataset', dataset: 'customers' },
      sink: { type: 'sql', system: 'crm-db', table: 'customer', primary_key: 'cust_id', batch_size: 2 },
    },
  ]);
  const info = await hub.json<{ runtime: { 'is-valid-config': boolean; 'config-errors': Json[]; 'is-disabled': boolean } }>(pipePath('customers-to-crm'));
  assert.equal(info.runtime['is-valid-config'], true);
  assert.deepEqual(info.runtime['config-errors'], [], 'no errors, and no warning that the sink is not run');
  assert.equal(info.runtime['is-disabled'], false, 'its schedule is on');
  const pump = await hub.json<{ 'supported-operations': string[] }>(`${pipePath('customers-to-crm')}/pump`);
  assert.ok(pump['supported-operations'].includes('start'), 'it can be started');
  assert.ok(pump['supported-operations'].includes('disable'), 'it is scheduled (disable applies)');

  const last = await run('customers-to-crm');
  assert.equal(last.processed, 5);
  assert.equal(last.offline, true, 'the run says it ran offline');

  const list = await outbox('customers-to-crm');
  assert.equal(list.total, 1);
  const r = list.runs[0]!;
  assert.equal(r.sink_type, 'sql');
  // batch_size 2: 5 entities make batches of 2, 2 and 1.
  assert.equal(r.batches, 3);
  assert.equal(r.entities, 5);
  assert.deepEqual(r.operations, { upsert: 4, delete: 1 });

  const detail = await batches('customers-to-crm', r.run_id);
  assert.deepEqual(
    detail.batches.map((b) => b.entities),
    [2, 2, 1],
  );
  assert.deepEqual(detail.batches[0]!.target, { system: 'crm-db', table: 'customer' });
  const first = await batch('customers-to-crm', r.run_id, 1);
  // A row is the entity's own properties; the key is the primary key column's value.
  assert.deepEqual(first.records, [
    { key: 1, operation: 'upsert', body: { cust_id: 1, name: 'Ann' } },
    { key: 2, operation: 'upsert', body: { cust_id: 2, name: 'Bo' } },
  ]);
  const lastBatch = await batch('customers-to-crm', r.run_id, 3);
  assert.deepEqual(lastBatch.records, [{ key: 5, operation: 'delete', body: null }]);
  // Paged entities of a batch.
  const paged = await batch('customers-to-crm', r.run_id, 1, '?offset=1&limit=1');
  assert.deepEqual(paged.records, [{ key: 2, operation: 'upsert', body: { cust_id: 2, name: 'Bo' } }]);

  // The pipe's output, whatever its sink.
  const output = await hub.json<Json[]>(`${pipePath('customers-to-crm')}/entities`);
  assert.deepEqual(
    output.map((e) => e['_id']),
    ['c1', 'c2', 'c3', 'c4', 'c5'],
  );

  // The execution log says so too.
  const log = await hub.json<Json[]>(`${pipePath('customers-to-crm')}/log?reverse=true`);
  const ended = log.find((e) => e['event_type'] === 'pump-completed');
  assert.equal(ended?.['offline'], true);
});

test('a second run records only what changed; the diff of two runs shows added, changed and not-sent keys', async () => {
  await pushEntities(hub, 'customers', [
    { _id: 'c2', cust_id: 2, name: 'Bob' },
    { _id: 'c6', cust_id: 6, name: 'Flo' },
  ]);
  await run('customers-to-crm');
  const list = await outbox('customers-to-crm');
  assert.equal(list.total, 2);
  const [second, first] = list.runs;
  assert.equal(second!.entities, 2, 'the incremental run sends the two new versions');
  const diff = await hub.json<{ added: Json[]; removed: Json[]; changed: { key: unknown; from: Json; to: Json }[]; unchanged: number }>(
    `${pipePath('customers-to-crm')}/outbox/diff?from=${first!.run_id}&to=${second!.run_id}`,
  );
  assert.deepEqual(diff.added, [{ key: 6, operation: 'upsert', body: { cust_id: 6, name: 'Flo' } }]);
  assert.deepEqual(diff.changed, [
    { key: 2, from: { key: 2, operation: 'upsert', body: { cust_id: 2, name: 'Bo' } }, to: { key: 2, operation: 'upsert', body: { cust_id: 2, name: 'Bob' } } },
  ]);
  assert.deepEqual(
    diff.removed.map((x) => x['key']),
    [1, 3, 4, 5],
  );
  assert.equal(diff.unchanged, 0);
  await expectError(await hub.fetch(`${pipePath('customers-to-crm')}/outbox/diff?from=nope&to=${second!.run_id}`), 404, 'an unknown run');
  await expectError(await hub.fetch(`${pipePath('customers-to-crm')}/outbox/diff?from=${second!.run_id}`), 400, 'a diff without "to"');
});

test('elasticsearch: one bulk request per batch, documents indexed or deleted by _id, "$index" over default_index', async () => {
  await pushEntities(hub, 'articles', [
    { _id: 'a1', title: 'One', $index: 'news', _internal: 'x' },
    { _id: 'a2', title: 'Two', $type: 'page' },
    { _id: 'a3', title: 'Three', _deleted: true },
  ]);
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'search', type: 'system:elasticsearch', hosts: ['es.example.invalid'] }] });
  await addPipes([
    {
      _id: 'articles-to-es',
      type: 'pipe',
      source: { type: 'dataset', dataset: 'articles' },
      sink: { type: 'elasticsearch', system: 'search', default_index: 'articles' },
    },
  ]);
  await run('articles-to-es');
  const r = (await outbox('articles-to-es')).runs[0]!;
  assert.equal(r.batches, 1, 'the pump batch is one bulk request');
  const b = await batch('articles-to-es', r.run_id, 1);
  assert.deepEqual(b.records, [
    { key: 'a1', operation: 'index', index: 'news', type: null, body: { title: 'One' } },
    { key: 'a2', operation: 'index', index: 'articles', type: 'page', body: { title: 'Two' } },
    { key: 'a3', operation: 'delete', index: 'articles', type: null, body: null },
  ]);
});

test('rest: one request per entity, to the operation the entity names or else the sink\'s, with its properties and payload', async () => {
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'people-api', type: 'system:rest', url_pattern: 'https://api.example.invalid/%s' }] });
  await addPipes([
    {
      _id: 'people-to-api',
      type: 'pipe',
      source: {
        type: 'embedded',
        entities: [
          { _id: 'john', operation: 'update-man', properties: { id: 'john' }, payload: '<man id="john">john</man>' },
          { _id: 'mary', properties: { id: 'mary' }, payload: { id: 'mary', age: 23 } },
          { _id: 'bob', operation: 'delete-man' },
        ],
      },
      sink: { type: 'rest', system: 'people-api', operation: 'update-woman', properties: { sex: 'F' }, payload: { id: 'unknown' } },
    },
  ]);
  await run('people-to-api');
  const r = (await outbox('people-to-api')).runs[0]!;
  assert.equal(r.batches, 3, 'one request per entity');
  assert.deepEqual(r.operations, { 'update-man': 1, 'update-woman': 1, 'delete-man': 1 });
  const records = await Promise.all([1, 2, 3].map(async (n) => (await batch('people-to-api', r.run_id, n)).records![0]));
  assert.deepEqual(records, [
    { key: 'john', operation: 'update-man', body: { properties: { id: 'john' }, payload: '<man id="john">john</man>' } },
    { key: 'mary', operation: 'update-woman', body: { properties: { id: 'mary' }, payload: { id: 'mary', age: 23 } } },
    { key: 'bob', operation: 'delete-man', body: { properties: { sex: 'F' }, payload: { id: 'unknown' } } },
  ]);
});

test('kafka and mail sinks are valid and record their messages', async () => {
  await addPipes([
    {
      _id: 'events-to-kafka',
      type: 'pipe',
      source: { type: 'embedded', entities: [{ _id: 'e1', key: 'k1', value: { n: 1 } }] },
      sink: { type: 'kafka', system: 'broker', topic: 'events' },
    },
    {
      _id: 'notices-by-mail',
      type: 'pipe',
      source: { type: 'embedded', entities: [{ _id: 'm1', to: 'ann@example.com', subject: 'Hi' }] },
      sink: { type: 'mail', system: 'smtp' },
    },
  ]);
  await run('events-to-kafka');
  const k = (await outbox('events-to-kafka')).runs[0]!;
  assert.deepEqual((await batch('events-to-kafka', k.run_id, 1)).target, { system: 'broker', topic: 'events' });
  assert.deepEqual((await batch('events-to-kafka', k.run_id, 1)).records, [{ key: 'k1', operation: 'produce', body: { n: 1 } }]);
  await run('notices-by-mail');
  const m = (await outbox('notices-by-mail')).runs[0]!;
  assert.deepEqual((await batch('notices-by-mail', m.run_id, 1)).records, [{ key: 'm1', operation: 'send', body: { to: 'ann@example.com', subject: 'Hi' } }]);
});

test('an outbox keeps the last keep_runs runs; update-last-seen back to the start and DELETE empty it', async () => {
  await expectError(await hub.fetch('/outbox/settings', { method: 'PUT', json: { keep_runs: 0 } }), 400, 'keep_runs 0');
  await expectError(await hub.fetch('/outbox/settings', { method: 'PUT', json: { keep_runs: 'two' } }), 400, 'keep_runs not a number');
  assert.deepEqual(await hub.json('/outbox/settings', { method: 'PUT', json: { keep_runs: 2 } }), { keep_runs: 2 });
  // customers-to-crm had two runs; a third pushes the first out.
  await pushEntities(hub, 'customers', [{ _id: 'c7', cust_id: 7, name: 'Gus' }]);
  const before = await outbox('customers-to-crm');
  await run('customers-to-crm');
  const after = await outbox('customers-to-crm');
  assert.equal(after.keep_runs, 2);
  assert.equal(after.total, 2);
  assert.equal(after.runs[1]!.run_id, before.runs[0]!.run_id, 'the newest two are kept');
  // A run that sends nothing leaves no run behind.
  await run('customers-to-crm');
  assert.equal((await outbox('customers-to-crm')).runs[0]!.run_id, after.runs[0]!.run_id);

  await pumpOperation(hub, 'customers-to-crm', 'update-last-seen', { 'last-seen': '' });
  assert.equal((await outbox('customers-to-crm')).total, 0, 'reset to the start clears the outbox');
  await run('customers-to-crm');
  assert.equal((await outbox('customers-to-crm')).runs[0]!.entities, 7, 'the next run sends everything again');
  const res = await hub.fetch(`${pipePath('customers-to-crm')}/outbox`, { method: 'DELETE' });
  assert.equal(res.status, 204);
  assert.equal((await outbox('customers-to-crm')).total, 0);
  await hub.json('/outbox/settings', { method: 'PUT', json: { keep_runs: 10 } });
});

test('bad outbox requests answer 4xx JSON', async () => {
  await expectError(await hub.fetch(`${pipePath('no-such-pipe')}/outbox`), 404, 'an unknown pipe');
  await expectError(await hub.fetch(`${pipePath('people-to-api')}/outbox/no-such-run`), 404, 'an unknown run');
  const r = (await outbox('people-to-api')).runs[0]!;
  await expectError(await hub.fetch(`${pipePath('people-to-api')}/outbox/${r.run_id}/batches/9`), 404, 'a batch the run does not have');
  await expectError(await hub.fetch(`${pipePath('people-to-api')}/outbox/${r.run_id}/batches/zero`), 400, 'a batch number that is not a number');
  await expectError(await hub.fetch(`${pipePath('people-to-api')}/outbox?limit=0`), 400, 'limit 0');
});

test('a json sink whose URL answers really sends; one whose URL does not is recorded in the outbox', async () => {
  const received: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (body !== '') received.push(...(JSON.parse(body) as unknown[]));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // A port nobody listens on: open one and close it again.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  try {
    await hub.json('/systems', {
      method: 'POST',
      json: [
        { _id: 'local-service', type: 'system:url', base_url: `http://127.0.0.1:${port}/` },
        { _id: 'gone-service', type: 'system:url', base_url: `http://127.0.0.1:${deadPort}/` },
      ],
    });
    const entities = [{ _id: 'x1', v: 1 }];
    await addPipes([
      { _id: 'push-live', type: 'pipe', source: { type: 'embedded', entities }, sink: { type: 'json', system: 'local-service', url: 'in' } },
      { _id: 'push-gone', type: 'pipe', source: { type: 'embedded', entities }, sink: { type: 'json', system: 'gone-service', url: 'in' } },
    ]);
    const live = await run('push-live');
    assert.notEqual(live.offline, true);
    assert.deepEqual(received, [{ _id: 'x1', v: 1 }], 'the local service got the entity');
    assert.equal((await outbox('push-live')).total, 0);

    const gone = await run('push-gone');
    assert.equal(gone.offline, true);
    const r = (await outbox('push-gone')).runs[0]!;
    const b = await batch('push-gone', r.run_id, 1);
    assert.deepEqual(b.target, { system: 'gone-service', url: `http://127.0.0.1:${deadPort}/in` });
    assert.deepEqual(b.records, [{ key: 'x1', operation: 'push', body: { _id: 'x1', v: 1 } }]);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

// The hosted service's own command-line client (sesam-py) against the local hub: its calls replayed over HTTP
// (test/helpers/sesam-client.ts) for upload → status → run → verify → test → wipe on a project in the client's layout
// (test/fixtures/projects/sesam-client), asserting what the client asserts; the internal scheduler
// (/pipes/run-all-pipes and its status, log and stop), node settings the client writes, rejected config, and $ENV in DTL.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO, removeDir, startHub, type HubProcess } from './helpers/hub-process.js';
import { ClientHttpError, SesamClient, type ClientPipe } from './helpers/sesam-client.js';

const PROJECT = join(REPO, 'test', 'fixtures', 'projects', 'sesam-client');

interface Json {
  [k: string]: unknown;
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('the node as the sesam client sees it', () => {
  let hub: HubProcess;
  let client: SesamClient;

  before(async () => {
    hub = await startHub();
    client = new SesamClient(hub.api, hub.token);
  });
  after(async () => {
    await hub.stop();
    removeDir(hub.dataDir);
  });

  test('the token names a subscription (the node id) and the status document says developer mode', async () => {
    const info = await client.apiInfo();
    const status = info['status'] as Json;
    assert.equal(status['developer_mode'], true, 'the client refuses most commands without status.developer_mode');
    assert.equal(client.subscriptionId(), info['node_id'], 'the first key of the principals object is the node id');
    assert.match(String(status['node_start_time']), /^\d{4}-\d\d-\d\dT/);
    assert.equal(status['node_start_time'], info['node_start_time']);
    const plain = await hub.json<Json>('/status');
    assert.equal(plain['node_start_time'], info['node_start_time'], 'GET /status carries the same start time');
    // Without the trailing slash too (the client builds "<node>/api").
    const res = await fetch(hub.api, { headers: { authorization: `bearer ${hub.token}` } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { status: Json }).status['developer_mode'], true);
  });

  test('every pipe in GET /pipes has runtime.state: null before its first run, then how its runs end, "disabled" when switched off', async () => {
    await hub.json('/pipes', {
      method: 'POST',
      json: [
        { _id: 'st-ok', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] }, pump: { mode: 'scheduled', schedule_interval: 3600 } },
        { _id: 'st-bad', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] }, transform: { type: 'dtl', rules: { default: [['fail!', 'no']] } }, pump: { mode: 'scheduled', schedule_interval: 3600 } },
        { _id: 'st-manual', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] }, pump: { mode: 'manual' } },
      ],
    });
    const state = async (id: string): Promise<unknown> => (await hub.json<ClientPipe[]>('/pipes')).find((p) => p._id === id)!.runtime.state;
    const pipes = await hub.json<ClientPipe[]>('/pipes');
    for (const p of pipes) assert.ok('state' in p.runtime, `${p._id} has runtime.state`);
    assert.equal(await state('st-ok'), null);
    assert.equal(await state('st-manual'), null, 'a manual pump before its first run');
    for (const id of ['st-ok', 'st-bad']) await hub.json(`/pipes/${id}/pump`, { method: 'POST', json: { operation: 'start' } });
    assert.equal(await waitFor('st-ok finished', async () => ((await state('st-ok')) === 'finished' ? true : undefined)), true);
    assert.equal(await waitFor('st-bad failed', async () => ((await state('st-bad')) === 'failed' ? true : undefined)), true);
    await hub.json('/pipes/st-ok/pump', { method: 'POST', json: { operation: 'disable' } });
    assert.equal(await state('st-ok'), 'disabled');
    for (const id of ['st-ok', 'st-bad', 'st-manual']) await hub.json(`/pipes/${id}`, { method: 'DELETE' });
  });

  test('$ENV(...) inside DTL expressions is replaced like elsewhere in config; an unknown one fails the run with its name', async () => {
    await hub.json('/env', { method: 'PUT', json: { 'node-env': 'test', greeting: 'Hello' } });
    const rules = [['copy', '_id'], ['add', 'is_test', ['eq', '$ENV(node-env)', 'test']], ['add', 'text', ['concat', '$ENV(greeting), ', '_S.name']]];
    await hub.json('/pipes', {
      method: 'POST',
      json: [{ _id: 'env-dtl', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a', name: 'Ada' }] }, transform: { type: 'dtl', rules: { default: rules } }, pump: { mode: 'manual' } }],
    });
    await hub.json('/pipes/env-dtl/pump', { method: 'POST', json: { operation: 'start' } });
    const stored = await waitFor('the run', async () => (await hub.json<Json[]>('/datasets/env-dtl/entities'))[0]);
    assert.equal(stored['is_test'], true);
    assert.equal(stored['text'], 'Hello, Ada');
    // The stored config keeps the reference; a changed variable is used from then on.
    assert.deepEqual((await hub.json<Json>('/pipes/env-dtl/config'))['transform'], { type: 'dtl', rules: { default: rules } });
    await hub.json('/env', { method: 'PUT', json: { 'node-env': 'prod', greeting: 'Hi' } });
    const preview = await hub.json<Json[]>('/pipes/env-dtl/entities?stage=sink');
    assert.equal(preview[0]!['is_test'], false);
    assert.equal(preview[0]!['text'], 'Hi, Ada');
    await hub.json('/env', { method: 'PUT', json: {} });
    await hub.json('/pipes/env-dtl/pump', { method: 'POST', json: { operation: 'start' } });
    const failed = await waitFor('the failed run', async () => {
      const p = (await hub.json<ClientPipe[]>('/pipes')).find((x) => x._id === 'env-dtl')!;
      return p.runtime.state === 'failed' ? p : undefined;
    });
    const lastRun = failed.runtime['last-run'] as Json;
    assert.match(String(lastRun['reason_why_stopped']), /unknown environment variable "node-env"/);
    const stage = await hub.fetch('/pipes/env-dtl/entities?stage=sink');
    assert.equal(stage.status, 400);
    assert.match(((await stage.json()) as { error: string }).error, /unknown environment variable/);
    await hub.json('/pipes/env-dtl', { method: 'DELETE' });
  });
});

export { ClientHttpError, PROJECT };

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

  test('every pipe in GET /pipes has runtime.state: null before its first run, then how its runs end', async () => {
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
    assert.equal(await state('st-manual'), 'disabled', 'a pump the schedule does not run');
    for (const id of ['st-ok', 'st-bad']) await hub.json(`/pipes/${id}/pump`, { method: 'POST', json: { operation: 'start' } });
    assert.equal(await waitFor('st-ok finished', async () => ((await state('st-ok')) === 'finished' ? true : undefined)), true);
    assert.equal(await waitFor('st-bad failed', async () => ((await state('st-bad')) === 'failed' ? true : undefined)), true);
    await hub.json('/pipes/st-ok/pump', { method: 'POST', json: { operation: 'disable' } });
    assert.equal(await state('st-ok'), 'disabled');
    for (const id of ['st-ok', 'st-bad', 'st-manual']) await hub.json(`/pipes/${id}`, { method: 'DELETE' });
  });
});

export { ClientHttpError, PROJECT };

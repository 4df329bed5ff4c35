// The desktop's registry routes with two real hubs: hub B adds hub A's registry (its token in the keychain), lists and
// previews A's entries through its own host, and enriches one in a single step (system:url, json source, DTL pipe
// with metadata.registry) — all three or none. Expected entities are A's posted ones, copied by the stub's
// ["copy", "*"].
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, type HubProcess } from '../../helpers/hub-process.js';
import { expectError, runPump } from '../../helpers/api.js';
import { forgetConnections, stopAndRemove } from '../../helpers/connections.js';

type Json = Record<string, unknown>;

let a: HubProcess;
let b: HubProcess;
let instanceId: string;
let regId: string;

const PEOPLE = [
  { _id: 'p1', first: 'Ada', city: 'london' },
  { _id: 'p2', first: 'Alan', city: 'wilmslow' },
];

function desk(h: HubProcess, path: string, init: { method?: string; json?: unknown } = {}): Promise<Response> {
  return fetch(`${h.url}/desktop${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${h.token}`, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
  });
}

async function deskJson<T>(h: HubProcess, path: string, init: { method?: string; json?: unknown } = {}, status = 200): Promise<T> {
  const res = await desk(h, path, init);
  const text = await res.text();
  assert.equal(res.status, status, `${path}: ${text}`);
  return JSON.parse(text) as T;
}

/** B's pipes and systems, to show that a refused enrich left nothing behind. */
async function configIds(h: HubProcess): Promise<string[]> {
  const pipes = await h.json<{ _id: string }[]>('/pipes');
  const systems = await h.json<{ _id: string }[]>('/systems');
  return [...pipes.map((p) => `pipe:${p._id}`), ...systems.map((s) => `system:${s._id}`)].sort();
}

before(async () => {
  [a, b] = await Promise.all([startHub(), startHub()]);
  instanceId = (await a.json<{ node_id: string }>('/status')).node_id;
  await a.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'people',
        type: 'pipe',
        source: { type: 'http_endpoint' },
        sink: { type: 'dataset', dataset: 'people' },
        metadata: { registry: { name: 'People', description: 'Who lives where', keywords: ['people', 'towns'], license: 'CC-BY-4.0' } },
      },
    ],
  });
  await a.json('/receivers/people/entities', { method: 'POST', json: PEOPLE });
  await a.json('/datasets/private/entities', { method: 'POST', json: [{ _id: 's1', secret: 'x' }] });
});

after(async () => {
  await forgetConnections(b);
  await stopAndRemove(a, b);
});

test('B adds A as a registry by its hub address, lists and previews its entries through its own host', async () => {
  const bad = await expectError(await desk(b, '/registries', { method: 'POST', json: { label: 'nothing', url: `${a.url}/somewhere-else` } }), '4xx', 'an address that is not a registry');
  assert.match(`${bad.error} ${String(bad.detail)}`, /not a dataset registry/);
  const refused = await expectError(await desk(b, '/registries', { method: 'POST', json: { label: 'A', url: a.url } }), 403, 'A is not shared and no token was given');
  assert.match(String(refused.detail), /token/);

  const added = await deskJson<{ id: string; url: string }>(b, '/registries', { method: 'POST', json: { label: 'Hub A', url: a.url, token: a.token } }, 201);
  assert.equal(added.url, `${a.url}/registry`, 'a hub address becomes its registry address');
  regId = added.id;
  const list = await deskJson<{ id: string; label: string; local: boolean }[]>(b, '/registries');
  assert.deepEqual(list.map((r) => [r.label, r.local]), [['This hub', true], ['Hub A', false]]);
  await expectError(await desk(b, '/registries', { method: 'POST', json: { label: 'again', url: `${a.url}/registry`, token: a.token } }), 409, 'the same registry twice');

  const page = await deskJson<{ instance_id: string; entries: Json[] }>(b, `/registries/${regId}/entries?q=lives`);
  assert.equal(page.instance_id, instanceId);
  assert.deepEqual(page.entries.map((e) => [e['dataset_id'], e['license'], e['entities']]), [['people', 'CC-BY-4.0', 2]]);
  assert.equal((await deskJson<{ entries: Json[] }>(b, `/registries/${regId}/entries?keyword=nothing`)).entries.length, 0);
  const entry = await deskJson<{ preview: Json[] }>(b, `/registries/${regId}/entries/${instanceId}/people`);
  assert.deepEqual(entry.preview.map((e) => e['first']), ['Ada', 'Alan']);
  await expectError(await desk(b, `/registries/${regId}/entries/${instanceId}/private`), 404, 'an unpublished dataset has no entry');
});

test('enrich refuses, creating nothing: a taken id (409), an entry that is not published or a path trick (404), a bad id (400)', async () => {
  await b.json('/pipes', { method: 'POST', json: [{ _id: 'taken-source', type: 'pipe', source: { type: 'embedded', entities: [] } }] });
  const before = await configIds(b);
  const enrich = (body: Json): Promise<Response> => desk(b, `/registries/${regId}/enrich`, { method: 'POST', json: { instance_id: instanceId, dataset_id: 'people', pipe_id: 'x', ...body } });

  const taken = await expectError(await enrich({ pipe_id: 'taken' }), 409, 'taken-source exists');
  assert.match(taken.error, /pipe "taken-source" already exists/);
  assert.match(String(taken.detail), /Nothing was created/);
  for (const ds of ['private', '../private', '%2e%2e', '..%2F..%2Fapi%2Fdatasets', 'system:pump:people']) {
    await expectError(await enrich({ dataset_id: ds, pipe_id: 'trick' }), 404, `dataset id ${ds}`);
  }
  await expectError(await enrich({ instance_id: 'another-instance', pipe_id: 'other' }), 404, 'another instance id');
  await expectError(await enrich({ pipe_id: 'has space' }), 400, 'a pipe id with a space');
  await expectError(await enrich({ pipe_id: 'a/b' }), 400, 'a pipe id with a slash');
  await expectError(await desk(b, '/registries/no-such-registry/enrich', { method: 'POST', json: { instance_id: instanceId, dataset_id: 'people', pipe_id: 'y' } }), 404, 'an unknown registry');
  assert.deepEqual(await configIds(b), before, 'no refused enrich left a pipe or system behind');
});

test('enrich creates the three components; the chain reads A and B publishes the result', async () => {
  const made = await deskJson<{ system: string; source: string; pipe: string }>(
    b,
    `/registries/${regId}/enrich`,
    { method: 'POST', json: { instance_id: instanceId, dataset_id: 'people', pipe_id: 'people-plus', name: 'People, enriched', description: 'More about people', keywords: ['people', ' enriched ', 'people'], license: 'CC0-1.0' } },
    201,
  );
  assert.deepEqual(made, { system: 'people-plus-registry', source: 'people-plus-source', pipe: 'people-plus', warnings: [] });
  const system = await b.json<Json>('/systems/people-plus-registry/config');
  assert.equal(system['type'], 'system:url');
  assert.equal(system['base_url'], `${a.url}/registry`);
  const source = await b.json<{ source: Json }>('/pipes/people-plus-source/config');
  assert.deepEqual([source.source['type'], source.source['url']], ['json', `/data/${instanceId}/people`]);
  const pipe = await b.json<{ metadata: Json; transform: Json }>('/pipes/people-plus/config');
  assert.deepEqual(pipe.metadata, { registry: { name: 'People, enriched', description: 'More about people', keywords: ['people', 'enriched'], license: 'CC0-1.0' } });

  let r = await runPump<{ status: string; reason_why_stopped: string | null }>(b, 'people-plus-source');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  r = await runPump(b, 'people-plus');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  const out = await b.json<Json[]>('/datasets/people-plus/entities?history=false&deleted=false');
  assert.deepEqual(out.map((e) => [e['_id'], e['first'], e['city']]), [['p1', 'Ada', 'london'], ['p2', 'Alan', 'wilmslow']]);

  const local = await deskJson<{ entries: Json[] }>(b, '/registries/local/entries');
  assert.deepEqual(local.entries.map((e) => [e['dataset_id'], e['name'], e['license'], e['entities']]), [['people-plus', 'People, enriched', 'CC0-1.0', 2]]);
  const datasets = await b.json<{ _id: string; published: boolean }[]>('/datasets');
  assert.deepEqual(datasets.filter((d) => d.published).map((d) => d._id), ['people-plus'], 'the intermediate dataset is not published');
});

test("enriching from a hub's own registry: the chain reads it with the admin token, and the answer says how long that lasts", async () => {
  const made = await deskJson<{ system: string; warnings: string[] }>(a, '/registries/local/enrich', { method: 'POST', json: { instance_id: instanceId, dataset_id: 'people', pipe_id: 'mine' } }, 201);
  assert.equal(made.warnings.length, 1);
  assert.match(made.warnings[0]!, /until the hub restarts.*registry\.share/);
  const system = await a.json<Json>('/systems/mine-registry/config');
  assert.equal(system['base_url'], `${a.url}/registry`);
  for (const pipe of ['mine-source', 'mine']) {
    const r = await runPump<{ status: string; reason_why_stopped: string | null }>(a, pipe);
    assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  }
  const out = await a.json<Json[]>('/datasets/mine/entities?history=false&deleted=false');
  assert.deepEqual(out.map((e) => e['_id']), ['p1', 'p2']);

  // Shared: no token is stored, and none is needed.
  await a.json('/metadata', { method: 'PUT', json: { registry: { share: true } } });
  const shared = await deskJson<{ warnings: string[] }>(a, '/registries/local/enrich', { method: 'POST', json: { instance_id: instanceId, dataset_id: 'people', pipe_id: 'open' } }, 201);
  assert.deepEqual(shared.warnings, []);
  assert.deepEqual(await a.json('/systems/open-registry/secrets'), []);
  const r = await runPump<{ status: string; reason_why_stopped: string | null }>(a, 'open-source');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  await a.json('/metadata', { method: 'PUT', json: {} });
});

test('a removed registry is gone, and its entries answer 404', async () => {
  const res = await desk(b, `/registries/${regId}`, { method: 'DELETE' });
  assert.equal(res.status, 204);
  await expectError(await desk(b, `/registries/${regId}/entries`), 404, 'the removed registry');
});

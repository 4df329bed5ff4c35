// The hub as a dataset registry (instance-api.md §1.5–1.7): hub A publishes through a receiver pipe with registry
// metadata; hub B reads A's registry with a json source (system:url base_url = A's registry address) and enriches it
// with DTL. Expected entities are worked out by hand from the posted data and the DTL rules.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { expectError, runPump } from '../../helpers/api.js';

type Json = Record<string, unknown>;

interface Entry extends Json {
  instance_id: string;
  dataset_id: string;
  name: string;
  description: string | null;
  keywords: string[];
  license: string | null;
  first_published: string;
  last_published: string | null;
  entities: number;
  links: { preview: string; data: string };
}

interface Page {
  instance_id: string;
  total: number;
  offset: number;
  limit: number;
  entries: Entry[];
}

let a: HubProcess;
let b: HubProcess;
let instanceId: string;
/** A system dataset: the execution log of pipe tick. */
const HIDDEN = 'system:pump_execution:tick';

const PEOPLE_PIPE = {
  _id: 'people',
  type: 'pipe',
  name: 'People of the town',
  source: { type: 'http_endpoint' },
  sink: { type: 'dataset', dataset: 'people' },
  metadata: { registry: { description: 'Who lives where', keywords: ['people', 'Towns'], license: 'CC-BY-4.0' } },
};

const PEOPLE = [
  { _id: 'p1', first: 'Ada', last: 'Lovelace', city: 'london' },
  { _id: 'p2', first: 'Alan', last: 'Turing', city: 'wilmslow' },
  { _id: 'p3', first: 'Grace', last: 'Hopper', city: 'new york' },
];

/** A registry request to hub h (its registry address is <url>/registry), with A's admin token unless told otherwise. */
function reg(h: HubProcess, path: string, token: string | null = h.token): Promise<Response> {
  return fetch(`${h.url}/registry${path}`, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
}

async function regJson<T>(h: HubProcess, path: string, token: string | null = h.token): Promise<T> {
  const res = await reg(h, path, token);
  const text = await res.text();
  assert.equal(res.status, 200, `${path}: ${text}`);
  return JSON.parse(text) as T;
}

async function post(h: HubProcess, pipe: string, entities: Json[]): Promise<void> {
  await h.json(`/receivers/${encodeURIComponent(pipe)}/entities`, { method: 'POST', json: entities });
}

async function setMetadata(h: HubProcess, registry: Json): Promise<void> {
  await h.json('/metadata', { method: 'PUT', json: { registry } });
}

/** The latest entities of a dataset, by id, without the hub's own `_` properties (but `_id` and `_deleted`). */
async function output(h: HubProcess, dataset: string): Promise<Record<string, Json>> {
  const list = await h.json<Json[]>(`/datasets/${encodeURIComponent(dataset)}/entities?history=false&deleted=false`);
  const out: Record<string, Json> = {};
  for (const e of list) {
    const clean: Json = {};
    for (const [k, v] of Object.entries(e)) if (!k.startsWith('_') || k === '_id') clean[k] = v;
    out[e['_id'] as string] = clean;
  }
  return out;
}

before(async () => {
  [a, b] = await Promise.all([startHub(), startHub()]);
  instanceId = (await a.json<{ node_id: string }>('/status')).node_id;
  await a.json('/pipes', { method: 'POST', json: [PEOPLE_PIPE] });
  await post(a, 'people', PEOPLE);
  // Datasets A does not publish: one written directly, one system dataset.
  await a.json('/datasets/private/entities', { method: 'POST', json: [{ _id: 's1', secret: 'x' }] });
  // (A system dataset is read-only through the API: a pump's run makes its execution log.)
  await a.json('/pipes', { method: 'POST', json: [{ _id: 'tick', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'h1', secret: 'y' }] }, sink: { type: 'null' }, pump: { mode: 'manual' } }] });
  await runPump(a, 'tick');
});

after(async () => {
  for (const h of [a, b]) {
    if (!h) continue;
    await h.stop();
    removeDir(h.dataDir);
  }
});

test('the registry lists a pipe\'s published dataset with its metadata, and only published ones', async () => {
  const root = await regJson<{ instance_id: string; entries: string }>(a, '');
  assert.deepEqual([root.instance_id, root.entries], [instanceId, '/entries'], 'the registry address says what it is');
  const page = await regJson<Page>(a, '/entries');
  assert.equal(page.instance_id, instanceId);
  assert.deepEqual(page.entries.map((e) => e.dataset_id), ['people'], 'neither "private" nor "system:pump_execution:tick" is listed');
  const e = page.entries[0]!;
  assert.equal(e.instance_id, instanceId);
  assert.equal(e.name, 'People of the town');
  assert.equal(e.description, 'Who lives where');
  assert.deepEqual(e.keywords, ['people', 'Towns']);
  assert.equal(e.license, 'CC-BY-4.0');
  assert.equal(e.entities, 3);
  assert.ok(Date.parse(e.first_published) <= Date.parse(e.last_published ?? ''), 'first publication is not after the last');
  assert.equal(e.links.data, `/data/${instanceId}/people`);
  assert.equal(e.links.preview, `/entries/${instanceId}/people`);

  // Filters: text (any case, name/description/keywords), keyword, licence; paging.
  assert.equal((await regJson<Page>(a, '/entries?q=LIVES')).total, 1);
  assert.equal((await regJson<Page>(a, '/entries?q=nothing-like-this')).total, 0);
  assert.equal((await regJson<Page>(a, '/entries?keyword=towns')).total, 1);
  assert.equal((await regJson<Page>(a, '/entries?keyword=town')).total, 0, 'a keyword matches whole');
  assert.equal((await regJson<Page>(a, '/entries?license=cc-by-4.0')).total, 1);
  assert.equal((await regJson<Page>(a, '/entries?license=MIT')).total, 0);
  const paged = await regJson<Page>(a, '/entries?offset=1&limit=5');
  assert.equal(paged.total, 1);
  assert.deepEqual(paged.entries, []);
});

test('an entry has a preview of its first 10 entities', async () => {
  await post(a, 'people', Array.from({ length: 12 }, (_, i) => ({ _id: `x${String(i).padStart(2, '0')}`, first: 'X', last: String(i), city: 'nowhere' })));
  const entry = await regJson<Entry & { preview: Json[] }>(a, `/entries/${instanceId}/people`);
  assert.equal(entry.entities, 15);
  assert.equal(entry.preview.length, 10);
  assert.deepEqual(entry.preview.slice(0, 3).map((p) => p['first']), ['Ada', 'Alan', 'Grace']);
  // Take the extra entities away again (deleted entities stay out of the preview and the count).
  await post(a, 'people', Array.from({ length: 12 }, (_, i) => ({ _id: `x${String(i).padStart(2, '0')}`, _deleted: true })));
  const again = await regJson<Entry & { preview: Json[] }>(a, `/entries/${instanceId}/people`);
  assert.equal(again.entities, 3);
  assert.deepEqual(again.preview.map((p) => p['_id']), ['p1', 'p2', 'p3']);
});

test('the data is JSON Pull: since, limit, deletions and the dataset headers', async () => {
  const res = await reg(a, `/data/${instanceId}/people?history=false`);
  assert.equal(res.status, 200);
  const all = (await res.json()) as Json[];
  assert.equal(res.headers.get('x-dataset-populated') !== null, true);
  const max = JSON.parse(res.headers.get('x-dataset-max-updated') ?? 'null') as number;
  assert.deepEqual(all.filter((e) => e['_deleted'] !== true).map((e) => e['_id']), ['p1', 'p2', 'p3']);
  assert.equal(all.filter((e) => e['_deleted'] === true).length, 12, 'deletions are in the stream');
  assert.equal(all[all.length - 1]?.['_updated'], max);
  const noDeletes = await regJson<Json[]>(a, `/data/${instanceId}/people?history=false&deleted=false`);
  assert.deepEqual(noDeletes.map((e) => e['_id']), ['p1', 'p2', 'p3']);
  const first = await regJson<Json[]>(a, `/data/${instanceId}/people?limit=2`);
  assert.equal(first.length, 2);
  const rest = await regJson<Json[]>(a, `/data/${instanceId}/people?since=${String(first[1]?.['_updated'])}`);
  assert.equal(rest[0]?.['_updated'], (first[1]?.['_updated'] as number) + 1, 'the continuation starts right after the last entity read');
});

test('hub B enriches A\'s published dataset from the registry, and a change in A reaches B on its next run', async () => {
  await b.json('/systems', {
    method: 'POST',
    json: [{ _id: 'registry-a', type: 'system:url', base_url: `${a.url}/registry`, headers: { Authorization: '$SECRET(a-token)' } }],
  });
  await b.json('/systems/registry-a/secrets', { method: 'PUT', json: { 'a-token': `Bearer ${a.token}` } });
  await b.json('/pipes', {
    method: 'POST',
    json: [
      { _id: 'people-a', type: 'pipe', source: { type: 'json', system: 'registry-a', url: `/data/${instanceId}/people`, supports_since: true } },
      {
        _id: 'people-enriched',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'people-a' },
        transform: {
          type: 'dtl',
          rules: {
            default: [
              ['copy', '_id'],
              ['add', 'name', ['concat', '_S.first', ' ', '_S.last']],
              ['add', 'city', ['upper', '_S.city']],
            ],
          },
        },
        metadata: { registry: { description: 'People with full names', keywords: ['people', 'enriched'], license: 'CC-BY-4.0' } },
      },
    ],
  });
  let r = await runPump<{ status: string; processed: number; reason_why_stopped: string | null }>(b, 'people-a');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  r = await runPump(b, 'people-enriched');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  assert.deepEqual(await output(b, 'people-enriched'), {
    p1: { _id: 'p1', name: 'Ada Lovelace', city: 'LONDON' },
    p2: { _id: 'p2', name: 'Alan Turing', city: 'WILMSLOW' },
    p3: { _id: 'p3', name: 'Grace Hopper', city: 'NEW YORK' },
  });

  // A change in A: Grace moves, Linus arrives. B's next run reads only what came after its position.
  await post(a, 'people', [
    { _id: 'p3', first: 'Grace', last: 'Hopper', city: 'arlington' },
    { _id: 'p4', first: 'Linus', last: 'Torvalds', city: 'portland' },
  ]);
  r = await runPump(b, 'people-a');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  assert.equal(r.processed, 2, 'the second run reads only the two new versions (incremental, by since)');
  await runPump(b, 'people-enriched');
  assert.deepEqual(await output(b, 'people-enriched'), {
    p1: { _id: 'p1', name: 'Ada Lovelace', city: 'LONDON' },
    p2: { _id: 'p2', name: 'Alan Turing', city: 'WILMSLOW' },
    p3: { _id: 'p3', name: 'Grace Hopper', city: 'ARLINGTON' },
    p4: { _id: 'p4', name: 'Linus Torvalds', city: 'PORTLAND' },
  });

  // B publishes its enriched dataset in its own registry (the intermediate one it does not).
  const bPage = await regJson<Page>(b, '/entries');
  assert.deepEqual(bPage.entries.map((e) => [e.dataset_id, e.entities]), [['people-enriched', 4]]);
});

test('path tricks, unpublished and system datasets and other instance ids answer 404 JSON', async () => {
  const paths = [
    `/data/${instanceId}/private`,
    `/entries/${instanceId}/private`,
    `/data/${instanceId}/${encodeURIComponent(HIDDEN)}`,
    `/data/${instanceId}/..%2Fprivate`,
    `/data/${instanceId}/%2e%2e`,
    `/data/${instanceId}/%2e%2e%2fapi%2fdatasets`,
    `/entries/${instanceId}/..%2F..%2Fapi%2Fdatasets`,
    `/data/other-instance/people`,
    `/data/${instanceId}/people/extra`,
    `/data/..%2F${instanceId}/people`,
    '/nothing-here',
  ];
  for (const path of paths) {
    const body = await expectError(await reg(a, path), 404, path);
    assert.doesNotMatch(JSON.stringify(body), /secret|"x"|"y"/, `${path} leaks nothing`);
  }
});

test('without a token the registry answers 401 unless sharing is on; publish_all publishes every non-system dataset', async () => {
  await expectError(await reg(a, '/entries', null), 401, 'no token, not shared');
  await expectError(await reg(a, `/data/${instanceId}/people`, null), 401, 'no token, not shared (data)');
  await expectError(await reg(a, '/entries', 'not-a-token'), 401, 'a wrong token');
  // A token without group:Admin (a configured user's) reads the registry only when it is shared.
  const email = 'reader@example.com';
  const password = 'a-long-enough-password-1';
  await a.json(`/users/${encodeURIComponent(email)}`, { method: 'PUT', json: { password, principals: ['group:Developer'] } });
  const login = await fetch(`${a.api}/jwt`, { method: 'POST', body: new URLSearchParams({ email, password }) });
  assert.equal(login.status, 200, 'the user logs in');
  const userToken = (await login.text()).trim();
  await expectError(await reg(a, '/entries', userToken), 403, 'a user token, not shared');
  // The host and origin checks of the rest of the server hold here too.
  const foreign = await fetch(`${a.url}/registry/entries`, { headers: { authorization: `Bearer ${a.token}`, origin: 'https://evil.example' } });
  await expectError(foreign, 403, 'a cross-origin request');
  try {
    await setMetadata(a, { share: true });
    const page = await regJson<Page>(a, '/entries', null);
    assert.deepEqual(page.entries.map((e) => e.dataset_id), ['people']);
    const data = await regJson<Json[]>(a, `/data/${instanceId}/people?history=false&deleted=false`, null);
    assert.equal(data.length, 4);
    await expectError(await reg(a, `/data/${instanceId}/private`, null), 404, 'shared, but unpublished');
    await expectError(await reg(a, '/entries', 'not-a-token'), 401, 'a wrong token, even when shared');
    assert.equal((await regJson<Page>(a, '/entries', userToken)).total, 1, 'a user token, shared');

    await setMetadata(a, { share: true, publish_all: true });
    const all = await regJson<Page>(a, '/entries', null);
    assert.deepEqual(all.entries.map((e) => e.dataset_id).sort(), ['people', 'private']);
    assert.equal(all.entries.find((e) => e.dataset_id === 'private')?.name, 'private');
    assert.equal((await regJson<Json[]>(a, `/data/${instanceId}/private`, null)).length, 1);
    await expectError(await reg(a, `/data/${instanceId}/${encodeURIComponent(HIDDEN)}`, null), 404, 'a system dataset under publish_all');
  } finally {
    await setMetadata(a, {});
  }
  await expectError(await reg(a, '/entries', null), 401, 'sharing off again');
  // The rest of the API is unaffected by sharing: /api still wants a token.
  assert.equal((await fetch(`${a.api}/datasets`)).status, 401);
});

test('the datasets list marks published datasets', async () => {
  const list = await a.json<{ _id: string; published: boolean }[]>('/datasets');
  const marks = Object.fromEntries(list.map((d) => [d._id, d.published]));
  assert.deepEqual(marks, { people: true, private: false, [HIDDEN]: false });
  assert.equal((await a.json<{ published: boolean }>('/datasets/people')).published, true);
  assert.equal((await a.json<{ published: boolean }>('/datasets/private')).published, false);
});

test('the config schema knows metadata.registry of a pipe and registry in the node metadata', async () => {
  const schema = await a.json<Json>('/config-schema');
  const validate = new Ajv({ allErrors: true, allowUnionTypes: true, keywords: ['enumDescriptions'] }).compile(schema);
  const paths = (config: Json): string[] => (validate(config) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`));
  assert.deepEqual(paths(PEOPLE_PIPE), [], 'the publishing pipe validates');
  assert.deepEqual(paths({ _id: 'node', type: 'metadata', registry: { publish_all: true, share: false }, other: 1 }), []);
  const withRegistry = (registry: unknown): Json => ({ ...PEOPLE_PIPE, metadata: { registry } });
  assert.ok(paths(withRegistry({ keywords: 'people' })).includes('/metadata/registry/keywords type'), 'keywords must be a list');
  assert.ok(paths(withRegistry({ keywords: ['a', 2] })).includes('/metadata/registry/keywords/1 type'), 'keywords are strings');
  assert.ok(paths(withRegistry({ license: ['MIT'] })).includes('/metadata/registry/license type'), 'a licence is text');
  assert.ok(paths({ _id: 'node', type: 'metadata', registry: { share: 'yes' } }).includes('/registry/share type'), 'share is a boolean');
  assert.ok(paths({ _id: 'node', type: 'metadata', registry: { publishall: true } }).includes('/registry additionalProperties'), 'a misspelled option');
});

// Node configuration, config groups, config history, zip export/import, env, secrets, metadata and namespaces
// (spec §2.5, §4.4) against the real hub over HTTP.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { unzipSync, zipSync, strFromU8, strToU8 } from 'fflate';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';

type Json = Record<string, unknown>;

let hub: HubProcess;

/** Every response body this file received (zip archives as their unpacked text): none may hold a secret value. */
const responses: { what: string; text: string }[] = [];

/** Secret values used in this file; each is unique so that a leak can be found by plain text search. */
const SECRET_VALUES = {
  node1: `node-secret-1-${randomUUID()}`,
  node2: `node-secret-2-${randomUUID()}`,
  node3: `node-secret-3-${randomUUID()}`,
  node1b: `node-secret-1b-${randomUUID()}`,
  system1: `system-secret-1-${randomUUID()}`,
  bad: `bad-secret-${randomUUID()}`,
};

before(async () => {
  hub = await startHub();
});

after(async () => {
  if (!hub) return;
  await hub.stop();
  removeDir(hub.dataDir);
});

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  bytes: Uint8Array;
  body: unknown;
}

/** Fetch an API path, recording the response body for the secret-leak check. */
async function call(method: string, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Reply> {
  const res = await hub.fetch(path, { ...init, method });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  let text: string;
  if (type.includes('application/zip')) {
    const files = unzipSync(bytes);
    text = Object.entries(files)
      .map(([name, data]) => `${name}\n${strFromU8(data)}`)
      .join('\n');
  } else {
    text = Buffer.from(bytes).toString('utf8');
  }
  responses.push({ what: `${method} ${path} -> ${res.status}`, text });
  let body: unknown;
  if (type.includes('json') && text !== '') body = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, bytes, body };
}

async function ok<T = unknown>(method: string, path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const r = await call(method, path, init);
  assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: expected 2xx, got ${r.status}: ${r.text}`);
  return r.body as T;
}

async function expectError(method: string, path: string, status: number, init: RequestInit & { json?: unknown } = {}): Promise<{ error: string; detail: unknown }> {
  const r = await call(method, path, init);
  assert.equal(r.status, status, `${method} ${path}: expected ${status}, got ${r.status}: ${r.text}`);
  assert.match(r.headers.get('content-type') ?? '', /application\/json/);
  const body = r.body as { error: string; detail: unknown };
  assert.equal(typeof body.error, 'string');
  assert.ok('detail' in body);
  return body;
}

const getConfig = (path = '/config'): Promise<Json[]> => ok<Json[]>('GET', path);

/** Configuration arrays compared by entity id, whatever their order. */
function byId(entities: readonly Json[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const e of entities) {
    assert.equal(typeof e['_id'], 'string');
    assert.equal(typeof e['type'], 'string');
    assert.ok(!((e['_id'] as string) in out), `duplicate ${String(e['_id'])}`);
    out[e['_id'] as string] = e;
  }
  return out;
}

const NODE = { _id: 'node', type: 'metadata', task_manager: { disable_pump_scheduler: true } };
const SYS1 = { _id: 'sys1', type: 'system:url', base_url: 'http://example.org/api/', headers: { Authorization: '$SECRET(token)' } };
const CP1 = { _id: 'cp1', type: 'pipe', source: { type: 'dataset', dataset: 'in' }, sink: { type: 'dataset', dataset: 'out' } };
const CP2 = { _id: 'cp2', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'cp2-data', indexes: ['_S.type'] } };
const CP3 = { _id: 'cp3', type: 'pipe', source: { type: 'json', system: 'sys1', url: '/data/x' } };
const FULL = [NODE, SYS1, CP1, CP2, CP3];

test('PUT /config with an array, then GET /config returns it', async () => {
  const r = await call('PUT', '/config', { json: FULL });
  assert.equal(r.status, 200, r.text);
  const config = await getConfig();
  assert.ok(Array.isArray(config));
  assert.deepEqual(byId(config), byId(FULL));

  const pipes = await ok<Json[]>('GET', '/pipes');
  assert.deepEqual(pipes.map((x) => x['_id']).sort(), ['cp1', 'cp2', 'cp3']);
  const systems = await ok<Json[]>('GET', '/systems');
  assert.deepEqual(
    systems.map((x) => x['_id']),
    ['sys1'],
  );
  assert.deepEqual(await ok('GET', '/pipes/cp2/config'), CP2);
  assert.deepEqual(await ok('GET', '/systems/sys1/config'), SYS1);
  const md = await ok<Json>('GET', '/metadata');
  assert.equal(md['_id'], 'node');
  assert.deepEqual(md['task_manager'], { disable_pump_scheduler: true });

  // The same configuration again is fine and changes nothing.
  assert.equal((await call('PUT', '/config', { json: FULL })).status, 200);
  assert.deepEqual(byId(await getConfig()), byId(FULL));
});

test('a second PUT /config without a pipe deletes that pipe and keeps the others', async () => {
  const cp1b = { ...CP1, sink: { type: 'dataset', dataset: 'out2' } };
  const r = await call('PUT', '/config', { json: [NODE, SYS1, cp1b, CP3] });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(byId(await getConfig()), byId([NODE, SYS1, cp1b, CP3]));
  await expectError('GET', '/pipes/cp2', 404);
  assert.deepEqual(await ok('GET', '/pipes/cp1/config'), cp1b);

  // Leaving out a system and the node metadata deletes them too.
  assert.equal((await call('PUT', '/config', { json: [cp1b, CP3] })).status, 200);
  assert.deepEqual(byId(await getConfig()), byId([cp1b, CP3]));
  await expectError('GET', '/systems/sys1', 404);
  const md = await ok<Json>('GET', '/metadata');
  assert.equal(md['task_manager'], undefined, 'the node metadata was removed');

  // Restore the full configuration for the tests that follow.
  assert.equal((await call('PUT', '/config', { json: FULL })).status, 200);
  assert.deepEqual(byId(await getConfig()), byId(FULL));
});

test('config groups: GET /config/<group>, PUT /config/<group> leaves other groups alone', async () => {
  const meta = (group: string): Json => ({ ['$config-group']: group });
  const gp1 = { _id: 'gp1', type: 'pipe', metadata: meta('g1'), source: { type: 'dataset', dataset: 'cp1' } };
  const gs1 = { _id: 'gs1', type: 'system:url', metadata: meta('g1'), base_url: 'http://example.com/' };
  const gp2 = { _id: 'gp2', type: 'pipe', metadata: meta('g2'), source: { type: 'http_endpoint' } };

  assert.equal((await call('PUT', '/config/g1', { json: [gp1, gs1] })).status, 200);
  assert.equal((await call('PUT', '/config/g2', { json: [gp2] })).status, 200);
  assert.deepEqual(byId(await getConfig('/config/g1')), byId([gp1, gs1]));
  assert.deepEqual(byId(await getConfig('/config/g2')), byId([gp2]));
  assert.deepEqual(byId(await getConfig()), byId(FULL), 'the default group does not hold other groups');
  assert.deepEqual(await getConfig('/config/no-such-group'), []);
  const info = await ok<{ config: { original: Json } }>('GET', '/pipes/gp1');
  assert.deepEqual(info.config.original, gp1, 'the group is kept in the pipe configuration');

  // Replacing group g1 changes g1 only.
  const gp1b = { ...gp1, source: { type: 'dataset', dataset: 'cp3' } };
  assert.equal((await call('PUT', '/config/g1', { json: [gp1b] })).status, 200);
  assert.deepEqual(byId(await getConfig('/config/g1')), byId([gp1b]));
  await expectError('GET', '/systems/gs1', 404);
  assert.deepEqual(byId(await getConfig('/config/g2')), byId([gp2]));
  assert.deepEqual(byId(await getConfig()), byId(FULL));

  // Replacing the default group leaves the groups alone.
  assert.equal((await call('PUT', '/config', { json: FULL })).status, 200);
  assert.deepEqual(byId(await getConfig('/config/g1')), byId([gp1b]));
  assert.deepEqual(byId(await getConfig('/config/g2')), byId([gp2]));

  // An entity of another group in the body is refused, and nothing changes.
  await expectError('PUT', '/config/g1', 400, { json: [gp1b, gp2] });
  await expectError('PUT', '/config/g1', 400, { json: [gp1b, { _id: 'nogroup', type: 'pipe', source: { type: 'http_endpoint' } }] });
  await expectError('PUT', '/config', 400, { json: [...FULL, gp1b] });
  await expectError('PUT', '/config/g1', 400, { json: [{ ...CP1 }] });
  // The node metadata belongs to the default group: a group PUT may not change it.
  await expectError('PUT', '/config/g1', 400, { json: [gp1b, { ...NODE, owner: 'group g1' }] });
  await expectError('PUT', '/config/g1', 400, { json: [gp1b, { ...NODE, metadata: meta('g1') }] });
  assert.deepEqual(await ok('GET', '/metadata'), NODE);
  assert.deepEqual(byId(await getConfig('/config/g1')), byId([gp1b]));
  assert.deepEqual(byId(await getConfig('/config/g2')), byId([gp2]));
  assert.deepEqual(byId(await getConfig()), byId(FULL));
  await expectError('GET', '/pipes/nogroup', 404);

  // Emptying a group deletes its entities.
  assert.equal((await call('PUT', '/config/g2', { json: [] })).status, 200);
  assert.deepEqual(await getConfig('/config/g2'), []);
  await expectError('GET', '/pipes/gp2', 404);
  assert.deepEqual(byId(await getConfig('/config/g1')), byId([gp1b]));
});

test('an invalid entity in the array answers 400 and changes nothing', async () => {
  const before = byId(await getConfig());
  const pipesBefore = (await ok<Json[]>('GET', '/pipes')).map((x) => x['_id']).sort();
  const invalid: [string, unknown][] = [
    ['pipe with an unknown source type', [...FULL, { _id: 'np', type: 'pipe', source: { type: 'no_such_source' } }]],
    ['pipe without source', [...FULL, { _id: 'np', type: 'pipe' }]],
    ['pipe with a bad index', [...FULL, { _id: 'np', type: 'pipe', source: { type: 'http_endpoint' }, sink: { indexes: ['type'] } }]],
    ['system:url without base_url', [...FULL, { _id: 'ns', type: 'system:url' }]],
    ['unknown configuration type', [...FULL, { _id: 'nx', type: 'widget' }]],
    ['entity without _id', [...FULL, { type: 'pipe', source: { type: 'http_endpoint' } }]],
    ['entity without type', [...FULL, { _id: 'nt' }]],
    ['not an object', [...FULL, 'cp1']],
    ['duplicate ids', [...FULL, { ...CP1, sink: { type: 'dataset', dataset: 'dup' } }]],
    ['metadata entity not named node', [...FULL, { _id: 'other', type: 'metadata' }]],
    ['not an array', { _id: 'cp1', type: 'pipe' }],
  ];
  for (const [name, body] of invalid) {
    const r = await call('PUT', '/config', { json: body });
    assert.equal(r.status, 400, `${name}: ${r.status} ${r.text}`);
    assert.equal(typeof (r.body as Json)['error'], 'string', name);
    // A change to an existing pipe in the same request is not applied either.
    assert.deepEqual(byId(await getConfig()), before, `${name}: nothing changed`);
  }
  // With the invalid entities the valid changes are refused too (the request is all or nothing).
  const changed = [{ ...CP1, sink: { type: 'dataset', dataset: 'changed' } }, SYS1, NODE, { _id: 'np', type: 'pipe', source: { type: 'no_such_source' } }];
  await expectError('PUT', '/config', 400, { json: changed });
  assert.deepEqual(byId(await getConfig()), before);
  assert.deepEqual((await ok<Json[]>('GET', '/pipes')).map((x) => x['_id']).sort(), pipesBefore);

  // force accepts configuration errors (best effort) ...
  const forced = [...FULL, { _id: 'np', type: 'pipe', source: { type: 'no_such_source' } }];
  assert.equal((await call('PUT', '/config?force=true', { json: forced })).status, 200);
  const np = await ok<{ runtime: { 'is-valid-config': boolean; 'config-errors': { elements: string }[] } }>('GET', '/pipes/np');
  assert.equal(np.runtime['is-valid-config'], false);
  assert.ok(np.runtime['config-errors'].some((e) => e.elements === '$.source.type'));
  // ... but not entities that are no configuration at all.
  await expectError('PUT', '/config?force=true', 400, { json: [...FULL, { _id: 'nx', type: 'widget' }] });
  assert.deepEqual(byId(await getConfig()), byId(forced));
  assert.equal((await call('PUT', '/config', { json: FULL })).status, 200);
  assert.deepEqual(byId(await getConfig()), byId(FULL));
});

interface HistoryEntry extends Json {
  _id: string;
  type: string;
  _updated: number;
  _deleted?: boolean;
}

test('/config-history/entity lists every version, with _deleted for deletions; reverse, limit and since', async () => {
  const v1 = { _id: 'hp', type: 'pipe', source: { type: 'dataset', dataset: 'v1' } };
  const v2 = { _id: 'hp', type: 'pipe', source: { type: 'dataset', dataset: 'v2' } };
  const v3 = { _id: 'hp', type: 'pipe', source: { type: 'dataset', dataset: 'v3' } };
  const v4 = { _id: 'hp', type: 'pipe', source: { type: 'http_endpoint' } };
  await ok('POST', '/pipes', { json: [v1] });
  await ok('PUT', '/pipes/hp/config', { json: v2 });
  await ok('PUT', '/pipes/hp/config', { json: v3 });
  await ok('DELETE', '/pipes/hp');
  assert.equal((await call('PUT', '/config', { json: [...FULL, v4] })).status, 200);

  const all = await ok<HistoryEntry[]>('GET', '/config-history/entity?entity_id=hp');
  assert.equal(all.length, 5, JSON.stringify(all));
  for (const e of all) {
    assert.equal(e._id, 'hp');
    assert.equal(e.type, 'pipe');
    assert.equal(typeof e._updated, 'number');
  }
  const sources = all.map((e) => (e['source'] as Json)['dataset'] ?? (e['source'] as Json)['type']);
  assert.deepEqual(sources, ['v1', 'v2', 'v3', 'v3', 'http_endpoint']);
  assert.deepEqual(
    all.map((e) => e._deleted === true),
    [false, false, false, true, false],
    'only the deletion is marked _deleted',
  );
  for (let i = 1; i < all.length; i++) assert.ok(all[i]!._updated > all[i - 1]!._updated, '_updated increases');

  const reversed = await ok<HistoryEntry[]>('GET', '/config-history/entity?entity_id=hp&reverse=true');
  assert.deepEqual(reversed, [...all].reverse());

  const limited = await ok<HistoryEntry[]>('GET', '/config-history/entity?entity_id=hp&limit=2');
  assert.deepEqual(limited, all.slice(0, 2));
  const reversedLimited = await ok<HistoryEntry[]>('GET', '/config-history/entity?entity_id=hp&reverse=true&limit=2');
  assert.deepEqual(reversedLimited, [all[4], all[3]]);

  const since = await ok<HistoryEntry[]>('GET', `/config-history/entity?entity_id=hp&since=${all[1]!._updated}`);
  assert.deepEqual(since, all.slice(2), 'since returns the versions after that offset');
  const sinceLimit = await ok<HistoryEntry[]>('GET', `/config-history/entity?entity_id=hp&since=${all[1]!._updated}&limit=1`);
  assert.deepEqual(sinceLimit, [all[2]]);
  const sinceLast = await ok<HistoryEntry[]>('GET', `/config-history/entity?entity_id=hp&since=${all[4]!._updated}`);
  assert.deepEqual(sinceLast, []);
  const reverseSince = await ok<HistoryEntry[]>('GET', `/config-history/entity?entity_id=hp&reverse=true&since=${all[3]!._updated}`);
  assert.deepEqual(reverseSince, [all[2], all[1], all[0]]);

  // Systems and the node metadata have a history too.
  const sysHistory = await ok<HistoryEntry[]>('GET', '/config-history/entity?entity_id=sys1');
  assert.ok(sysHistory.length >= 1);
  assert.ok(sysHistory.every((e) => e._id === 'sys1' && e.type === 'system:url'));
  const deletedSys = sysHistory.filter((e) => e._deleted === true);
  assert.ok(deletedSys.length >= 1, 'sys1 was deleted by an earlier PUT /config');

  assert.deepEqual(await ok('GET', '/config-history/entity?entity_id=never-existed'), []);
  await expectError('GET', '/config-history/entity', 400);

  assert.equal((await call('PUT', '/config', { json: FULL })).status, 200);
});

test('zip export and import round-trip (Accept and Accepts headers)', async () => {
  const odd = [
    { _id: 'z:1', type: 'pipe', source: { type: 'http_endpoint' } },
    { _id: 'z_1', type: 'pipe', source: { type: 'http_endpoint' } },
  ];
  const config = [...FULL, ...odd];
  assert.equal((await call('PUT', '/config', { json: config })).status, 200);
  const expected = byId(await getConfig());
  assert.deepEqual(expected, byId(config));

  for (const header of ['Accept', 'Accepts']) {
    const r = await call('GET', '/config', { headers: { [header]: 'application/zip' } });
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type') ?? '', /application\/zip/, header);
    const files = unzipSync(r.bytes);
    const names = Object.keys(files);
    for (const name of ['node-metadata.conf.json', 'systems/sys1.conf.json', 'pipes/cp1.conf.json', 'pipes/cp2.conf.json', 'pipes/cp3.conf.json']) {
      assert.ok(names.includes(name), `${header}: ${name} in ${names.join(', ')}`);
    }
    assert.deepEqual(JSON.parse(strFromU8(files['pipes/cp2.conf.json']!)), CP2);
    assert.deepEqual(JSON.parse(strFromU8(files['systems/sys1.conf.json']!)), SYS1);
    assert.deepEqual(JSON.parse(strFromU8(files['node-metadata.conf.json']!)), NODE);
    const fromZip: Json[] = [];
    for (const [name, data] of Object.entries(files)) {
      assert.match(name, /^(pipes\/.+|systems\/.+|node-metadata)\.conf\.json$/);
      const parsed = JSON.parse(strFromU8(data)) as Json | Json[];
      fromZip.push(...(Array.isArray(parsed) ? parsed : [parsed]));
    }
    assert.deepEqual(byId(fromZip), expected, `${header}: the zip holds every entity once, pipes "z:1" and "z_1" included`);
  }

  // Export, clear, import the zip: the same configuration comes back.
  const zip = (await call('GET', '/config', { headers: { Accept: 'application/zip' } })).bytes;
  assert.equal((await call('PUT', '/config', { json: [] })).status, 200);
  assert.deepEqual(await getConfig(), []);
  const r = await call('PUT', '/config', { body: zip, headers: { 'content-type': 'application/zip' } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(byId(await getConfig()), expected);

  // A zip with a broken file is refused and changes nothing.
  const broken = zipSync({ 'pipes/ok.conf.json': strToU8(JSON.stringify(CP1)), 'pipes/broken.conf.json': strToU8('{"_id": ') });
  await expectError('PUT', '/config', 400, { body: broken, headers: { 'content-type': 'application/zip' } });
  await expectError('PUT', '/config', 400, { body: strToU8('this is not a zip'), headers: { 'content-type': 'application/zip' } });
  // A zip with an invalid pipe is refused as a whole.
  const invalid = zipSync({
    'pipes/cp1.conf.json': strToU8(JSON.stringify(CP1)),
    'pipes/bad.conf.json': strToU8(JSON.stringify({ _id: 'bad', type: 'pipe', source: { type: 'no_such_source' } })),
  });
  await expectError('PUT', '/config', 400, { body: invalid, headers: { 'content-type': 'application/zip' } });
  assert.deepEqual(byId(await getConfig()), expected);

  // A group can be imported from a zip too.
  const groupZip = zipSync({ 'pipes/zg.conf.json': strToU8(JSON.stringify({ _id: 'zg', type: 'pipe', metadata: { '$config-group': 'zipgroup' }, source: { type: 'http_endpoint' } })) });
  assert.equal((await call('PUT', '/config/zipgroup', { body: groupZip, headers: { 'content-type': 'application/zip' } })).status, 200);
  assert.deepEqual(
    (await getConfig('/config/zipgroup')).map((e) => e['_id']),
    ['zg'],
  );
  assert.deepEqual(byId(await getConfig()), expected);

  assert.equal((await call('PUT', '/config', { json: FULL })).status, 200);
});

test('env: PUT, POST and PATCH (object map and [{name, value}] list), GET, DELETE; PUT replaces all', async () => {
  assert.equal((await call('PUT', '/env', { json: { A: '1', B: 'two' } })).status, 200);
  assert.deepEqual(await ok('GET', '/env'), { A: '1', B: 'two' });

  assert.equal((await call('POST', '/env', { json: [{ name: 'C', value: 'three' }, { name: 'B', value: 'zwei' }] })).status, 200);
  assert.deepEqual(await ok('GET', '/env'), { A: '1', B: 'zwei', C: 'three' });

  assert.equal((await call('PATCH', '/env', { json: { A: 'one', D: 'four' } })).status, 200);
  assert.deepEqual(await ok('GET', '/env'), { A: 'one', B: 'zwei', C: 'three', D: 'four' });

  assert.equal((await call('PATCH', '/env', { json: [{ name: 'E', value: 'five' }] })).status, 200);
  assert.equal((await call('POST', '/env', { json: { F: 'six' } })).status, 200);
  assert.deepEqual(await ok('GET', '/env'), { A: 'one', B: 'zwei', C: 'three', D: 'four', E: 'five', F: 'six' });

  assert.equal((await call('DELETE', '/env/B')).status, 200);
  assert.deepEqual(await ok('GET', '/env'), { A: 'one', C: 'three', D: 'four', E: 'five', F: 'six' });
  await expectError('DELETE', '/env/B', 404);

  // PUT replaces every variable, with either shape.
  assert.equal((await call('PUT', '/env', { json: [{ name: 'X', value: 'x' }, { name: 'Y', value: 'y' }] })).status, 200);
  assert.deepEqual(await ok('GET', '/env'), { X: 'x', Y: 'y' });
  assert.equal((await call('PUT', '/env', { json: { Z: 'z' } })).status, 200);
  assert.deepEqual(await ok('GET', '/env'), { Z: 'z' });

  // Values that are no scalars are refused, and nothing changes.
  await expectError('POST', '/env', 400, { json: { Q: { nested: true } } });
  await expectError('PUT', '/env', 400, { json: 'just a string' });
  assert.deepEqual(await ok('GET', '/env'), { Z: 'z' });
});

test('env and secret names that $ENV(...) or $SECRET(...) could not refer to are refused in words; nothing is written', async () => {
  assert.equal((await call('PUT', '/env', { json: { KEEP: 'k' } })).status, 200);
  for (const name of ['HAS SPACE', 'paren(s)', '', 'tab\there']) {
    const env = await expectError('POST', '/env', 400, { json: { OK_TOO: 'x', [name]: 'v' } });
    assert.match(`${env.error} ${String(env.detail)}`, /name .*not usable|\$ENV/, JSON.stringify(env));
    await expectError('POST', '/secrets', 400, { json: { ok_too: 'x', [name]: 'v' } });
  }
  await expectError('POST', '/env', 400, { json: [{ name: 'A B', value: 'v' }] });
  assert.deepEqual(await ok('GET', '/env'), { KEEP: 'k' });
  assert.ok(!(await ok<string[]>('GET', '/secrets')).includes('ok_too'));
  // Dots, dashes, colons and non-ASCII letters are fine.
  assert.equal((await call('POST', '/env', { json: { 'node-env': 'test', 'api.base:v2': 'x', 'straße': 'y' } })).status, 200);
  assert.deepEqual(Object.keys(await ok<Record<string, string>>('GET', '/env')), ['KEEP', 'api.base:v2', 'node-env', 'straße']);
  assert.equal((await call('PUT', '/env', { json: {} })).status, 200);
});

test('secrets: PUT replaces, POST merges, GET lists names only, DELETE', async () => {
  assert.equal((await call('PUT', '/secrets', { json: { s1: SECRET_VALUES.node1, s2: SECRET_VALUES.node2 } })).status, 200);
  assert.deepEqual(await ok('GET', '/secrets'), ['s1', 's2']);

  assert.equal((await call('POST', '/secrets', { json: { s3: SECRET_VALUES.node3, s1: SECRET_VALUES.node1b } })).status, 200);
  assert.deepEqual(await ok('GET', '/secrets'), ['s1', 's2', 's3']);

  assert.equal((await call('DELETE', '/secrets/s2')).status, 200);
  assert.deepEqual(await ok('GET', '/secrets'), ['s1', 's3']);
  await expectError('DELETE', '/secrets/s2', 404);

  assert.equal((await call('PUT', '/secrets', { json: { s1: SECRET_VALUES.node1 } })).status, 200);
  assert.deepEqual(await ok('GET', '/secrets'), ['s1'], 'PUT replaces all node secrets');

  // A refused request does not echo the secrets it carried.
  await expectError('POST', '/secrets', 400, { json: { good: SECRET_VALUES.bad, bad: { nested: true } } });
  assert.deepEqual(await ok('GET', '/secrets'), ['s1']);

  // System secrets are separate from the node secrets.
  assert.equal((await call('PUT', '/systems/sys1/secrets', { json: { token: SECRET_VALUES.system1 } })).status, 200);
  assert.deepEqual(await ok('GET', '/systems/sys1/secrets'), ['token']);
  assert.deepEqual(await ok('GET', '/secrets'), ['s1']);
});

test('/metadata GET, PUT, DELETE and /namespaces', async () => {
  const defaults = await ok<Record<string, string>>('GET', '/namespaces');
  assert.ok(defaults !== null && typeof defaults === 'object');
  const defaultCount = Object.keys(defaults).length;
  assert.ok(defaultCount > 0, 'the default namespaces are listed');
  for (const v of Object.values(defaults)) assert.equal(typeof v, 'string');

  const md = await ok<Json>('GET', '/metadata');
  assert.equal(md['_id'], 'node');
  assert.deepEqual(md['task_manager'], NODE.task_manager);

  const next = { _id: 'node', type: 'metadata', namespaces: { default: { ex: 'http://example.org/ns/' } }, owner: 'test' };
  const put = await ok<Json>('PUT', '/metadata', { json: next });
  assert.equal(put['_id'], 'node');
  assert.equal(put['owner'], 'test');
  const got = await ok<Json>('GET', '/metadata');
  assert.equal(got['owner'], 'test');
  assert.deepEqual(got['namespaces'], next.namespaces);
  assert.equal(got['task_manager'], undefined, 'PUT replaces the metadata');
  const inConfig = (await getConfig()).find((e) => e['_id'] === 'node');
  assert.deepEqual(inConfig, got, 'the node metadata is part of the configuration');

  const ns = await ok<Record<string, string>>('GET', '/namespaces');
  assert.equal(ns['ex'], 'http://example.org/ns/');
  for (const [k, v] of Object.entries(defaults)) assert.equal(ns[k], v, `default namespace ${k} is still listed`);

  await ok('DELETE', '/metadata');
  const cleared = await ok<Json>('GET', '/metadata');
  assert.equal(cleared['owner'], undefined);
  assert.equal(cleared['namespaces'], undefined);
  assert.ok(!(await getConfig()).some((e) => e['_id'] === 'node' && e['owner'] !== undefined));
  const after = await ok<Record<string, string>>('GET', '/namespaces');
  assert.equal(after['ex'], undefined);
  assert.equal(Object.keys(after).length, defaultCount);
});

test('no response ever holds a secret value', async () => {
  // Read everything that could leak a secret once more.
  for (const path of [
    '/config',
    '/config/g1',
    '/systems',
    '/systems?verbose=true',
    '/systems/sys1',
    '/systems/sys1/config',
    '/systems/sys1/secrets',
    '/secrets',
    '/env',
    '/metadata',
    '/pipes',
    '/pipes/cp3',
    '/config-history/entity?entity_id=sys1',
    '/config-history/entity?entity_id=s1',
    '/config-history/entity?entity_id=token',
    '/status',
    '/',
    '/namespaces',
  ]) {
    await call('GET', path);
  }
  await call('GET', '/config', { headers: { Accept: 'application/zip' } });
  assert.ok(responses.length > 50, `many responses were checked (${responses.length})`);
  for (const { what, text } of responses) {
    for (const [name, value] of Object.entries(SECRET_VALUES)) {
      assert.ok(!text.includes(value), `${what} holds the value of secret ${name}`);
    }
  }
});

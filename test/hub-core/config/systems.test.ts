// Systems API (spec §2.4, §4.5) against the real hub over HTTP.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { expectError } from '../../helpers/api.js';

type Json = Record<string, unknown>;

interface SystemInfo {
  _id: string;
  cached_response_info: { age: number; timestamp: string };
  [key: string]: unknown;
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

function checkSystemInfo(info: SystemInfo, id: string): void {
  assert.equal(info._id, id);
  assert.equal(typeof info.cached_response_info.age, 'number');
  assert.ok(!Number.isNaN(Date.parse(info.cached_response_info.timestamp)), 'timestamp is a date-time');
}

const postSystems = (configs: unknown[], force = false): Promise<Response> =>
  hub.fetch(`/systems${force ? '?force=true' : ''}`, { method: 'POST', json: configs });

async function systemIds(): Promise<string[]> {
  return (await hub.json<SystemInfo[]>('/systems')).map((s) => s._id);
}

const S1 = { _id: 's1', type: 'system:url', base_url: 'http://example.org/api/' };

test('systems CRUD: POST, GET list and one, GET/PUT config, DELETE', async () => {
  const res = await postSystems([S1, { _id: 'ns:s2', type: 'system:url', base_url: 'https://example.com/', metadata: { '$config-group': 'g' } }]);
  assert.equal(res.status, 200, await res.clone().text());
  const created = (await res.json()) as SystemInfo[];
  assert.deepEqual(
    created.map((s) => s._id),
    ['s1', 'ns:s2'],
  );
  checkSystemInfo(created[0]!, 's1');
  checkSystemInfo(created[1]!, 'ns:s2');

  const list = await hub.json<SystemInfo[]>('/systems');
  for (const s of list) checkSystemInfo(s, s._id);
  assert.deepEqual(list.map((s) => s._id).sort(), ['ns:s2', 's1']);
  const verbose = await hub.json<SystemInfo[]>('/systems?verbose=true');
  assert.deepEqual(verbose.map((s) => s._id).sort(), ['ns:s2', 's1']);

  checkSystemInfo(await hub.json<SystemInfo>('/systems/s1'), 's1');
  checkSystemInfo(await hub.json<SystemInfo>(`/systems/${encodeURIComponent('ns:s2')}`), 'ns:s2');

  assert.deepEqual(await hub.json('/systems/s1/config'), S1);
  const s2 = await hub.json<Json>(`/systems/${encodeURIComponent('ns:s2')}/config`);
  assert.equal(s2['_id'], 'ns:s2');
  assert.deepEqual(s2['metadata'], { '$config-group': 'g' });

  // PUT config replaces it and answers with the new configuration.
  const updated = { _id: 's1', type: 'system:url', base_url: 'http://example.net/v2/', headers: { 'X-Test': '1' } };
  const put = await hub.fetch('/systems/s1/config', { method: 'PUT', json: updated });
  assert.equal(put.status, 200, await put.clone().text());
  assert.deepEqual(await put.json(), updated);
  assert.deepEqual(await hub.json('/systems/s1/config'), updated);

  // A mismatching _id is refused.
  await expectError(await hub.fetch('/systems/s1/config', { method: 'PUT', json: { ...updated, _id: 'other' } }), 400, 'mismatching _id');
  await expectError(await hub.fetch('/systems/other'), 404, 'no system created under the body id');
  assert.deepEqual(await hub.json('/systems/s1/config'), updated);

  // Creating an existing system again is a conflict.
  await expectError(await postSystems([S1]), 409, 'existing system');
  assert.deepEqual(await hub.json('/systems/s1/config'), updated);

  // DELETE.
  const del = await hub.fetch(`/systems/${encodeURIComponent('ns:s2')}`, { method: 'DELETE' });
  assert.equal(del.status, 200, await del.clone().text());
  await expectError(await hub.fetch(`/systems/${encodeURIComponent('ns:s2')}`), 404, 'deleted system');
  await expectError(await hub.fetch(`/systems/${encodeURIComponent('ns:s2')}/config`), 404, 'deleted system config');
  await expectError(await hub.fetch(`/systems/${encodeURIComponent('ns:s2')}`, { method: 'DELETE' }), 404, 'delete twice');
  assert.deepEqual(await systemIds(), ['s1']);
});

test('an unknown system answers 404', async () => {
  for (const [method, path, init] of [
    ['GET', '/systems/nope', {}],
    ['DELETE', '/systems/nope', {}],
    ['GET', '/systems/nope/config', {}],
    ['PUT', '/systems/nope/config', { json: { _id: 'nope', type: 'system:url', base_url: 'http://x/' } }],
    ['GET', '/systems/nope/secrets', {}],
    ['PUT', '/systems/nope/secrets', { json: { a: 'b' } }],
    ['POST', '/systems/nope/secrets', { json: { a: 'b' } }],
    ['DELETE', '/systems/nope/secrets/a', {}],
    ['GET', '/systems/nope/logs', {}],
    ['GET', '/systems/nope/status', {}],
    ['POST', '/systems/nope/reload', {}],
    ['GET', '/systems/nope/proxy/x', {}],
  ] as [string, string, RequestInit & { json?: unknown }][]) {
    await expectError(await hub.fetch(path, { ...init, method }), 404, `${method} ${path}`);
  }
  await expectError(await hub.fetch('/systems/nope'), 404, 'PUT did not create it');
});

test('system:url without base_url is refused (400) and nothing is stored', async () => {
  await expectError(await postSystems([{ _id: 'no-url', type: 'system:url' }]), 400, 'no base_url');
  await expectError(await hub.fetch('/systems/no-url'), 404, 'not stored');
  await expectError(await postSystems([{ _id: 'bad-url', type: 'system:url', base_url: 'ftp://example.org/' }]), 400, 'not an http URL');
  await expectError(await postSystems([{ _id: 'no-type' }]), 400, 'no type');
  // A valid system next to an invalid one is not stored either.
  await expectError(await postSystems([{ _id: 'ok-one', type: 'system:url', base_url: 'http://x/' }, { _id: 'no-url', type: 'system:url' }]), 400, 'batch');
  await expectError(await hub.fetch('/systems/ok-one'), 404, 'valid system of a refused batch');
  assert.deepEqual(await systemIds(), ['s1']);

  // PUT config without base_url is refused and changes nothing.
  const before = await hub.json<Json>('/systems/s1/config');
  await expectError(await hub.fetch('/systems/s1/config', { method: 'PUT', json: { _id: 's1', type: 'system:url' } }), 400, 'PUT without base_url');
  assert.deepEqual(await hub.json('/systems/s1/config'), before);

  // With force the configuration error is accepted and reported.
  const forced = await postSystems([{ _id: 'no-url', type: 'system:url' }], true);
  assert.equal(forced.status, 200, await forced.clone().text());
  const [info] = (await forced.json()) as SystemInfo[];
  checkSystemInfo(info!, 'no-url');
  assert.deepEqual(await hub.json('/systems/no-url/config'), { _id: 'no-url', type: 'system:url' });
  assert.equal((await hub.fetch('/systems/no-url', { method: 'DELETE' })).status, 200);
});

test('POST /systems never stores a pipe or metadata entity, even with force', async () => {
  for (const type of ['pipe', 'metadata', 'url']) {
    const id = `sys-wrong-${type}`;
    await expectError(await postSystems([{ _id: id, type, source: { type: 'dataset', dataset: 'x' } }], true), 400, `type ${type}`);
    await expectError(await hub.fetch(`/systems/${id}`), 404, `type ${type}: no system`);
    await expectError(await hub.fetch(`/pipes/${id}`), 404, `type ${type}: no pipe`);
    assert.ok(!(await hub.json<Json[]>('/config')).some((e) => e['_id'] === id), `type ${type}: not in the configuration`);
  }
  await expectError(await hub.fetch('/systems/s1/config?force=true', { method: 'PUT', json: { _id: 's1', type: 'pipe', source: { type: 'http_endpoint' } } }), 400, 'PUT pipe type');
  await expectError(await hub.fetch('/pipes/s1'), 404, 'no pipe s1');
  assert.equal((await hub.json<Json>('/systems/s1/config'))['type'], 'system:url');
});

test('system secrets: PUT replaces, POST merges, GET lists names only', async () => {
  const values = { a: `va-${randomUUID()}`, b: `vb-${randomUUID()}`, c: `vc-${randomUUID()}`, a2: `va2-${randomUUID()}`, d: `vd-${randomUUID()}` };
  const texts: string[] = [];
  const read = async (path: string): Promise<unknown> => {
    const res = await hub.fetch(path);
    const text = await res.text();
    texts.push(text);
    assert.equal(res.status, 200, `${path}: ${text}`);
    return JSON.parse(text);
  };

  assert.deepEqual(await read('/systems/s1/secrets'), []);
  assert.equal((await hub.fetch('/systems/s1/secrets', { method: 'PUT', json: { a: values.a, b: values.b } })).status, 200);
  assert.deepEqual(await read('/systems/s1/secrets'), ['a', 'b']);

  assert.equal((await hub.fetch('/systems/s1/secrets', { method: 'POST', json: { c: values.c, a: values.a2 } })).status, 200);
  assert.deepEqual(await read('/systems/s1/secrets'), ['a', 'b', 'c'], 'POST keeps the other names');

  assert.equal((await hub.fetch('/systems/s1/secrets', { method: 'PUT', json: { d: values.d } })).status, 200);
  assert.deepEqual(await read('/systems/s1/secrets'), ['d'], 'PUT replaces every secret of the system');

  // Refused bodies.
  const bad = await hub.fetch('/systems/s1/secrets', { method: 'POST', json: { e: { nested: values.a } } });
  texts.push(await bad.clone().text());
  await expectError(bad, 400, 'secret value that is no string');
  await expectError(await hub.fetch('/systems/s1/secrets', { method: 'PUT', json: ['x'] }), 400, 'secrets as an array');
  assert.deepEqual(await read('/systems/s1/secrets'), ['d']);

  // System secrets are not node secrets; other systems have their own.
  assert.deepEqual(await read('/secrets'), []);
  await hub.json('/systems', { method: 'POST', json: [{ _id: 's3', type: 'system:url', base_url: 'http://example.org/' }] });
  assert.deepEqual(await read('/systems/s3/secrets'), []);

  // Nothing readable about the system holds a secret value.
  for (const path of ['/systems', '/systems?verbose=true', '/systems/s1', '/systems/s1/config', '/config', '/config-history/entity?entity_id=s1', '/status']) {
    await read(path);
  }
  for (const text of texts) for (const v of Object.values(values)) assert.ok(!text.includes(v), `a secret value in ${text.slice(0, 200)}`);

  // Deleting the system deletes its secrets: a new system of the same id starts without any.
  assert.equal((await hub.fetch('/systems/s1', { method: 'DELETE' })).status, 200);
  await hub.json('/systems', { method: 'POST', json: [S1] });
  assert.deepEqual(await read('/systems/s1/secrets'), []);
});

test('one system secret is deleted by name; unusable secret names are refused and nothing is written', async () => {
  await hub.json('/systems', { method: 'POST', json: [{ _id: 's4', type: 'system:url', base_url: 'http://example.org/' }] });
  const value = `v-${randomUUID()}`;
  assert.equal((await hub.fetch('/systems/s4/secrets', { method: 'PUT', json: { token: value, other: value } })).status, 200);

  const del = await hub.fetch('/systems/s4/secrets/token', { method: 'DELETE' });
  assert.equal(del.status, 200, await del.clone().text());
  assert.equal(await del.text(), '');
  assert.deepEqual(await hub.json('/systems/s4/secrets'), ['other']);
  const again = await expectError(await hub.fetch('/systems/s4/secrets/token', { method: 'DELETE' }), 404, 'a secret deleted twice');
  assert.match(again.error, /token/);

  for (const name of ['two words', 'call(me)', '']) {
    const res = await hub.fetch('/systems/s4/secrets', { method: 'POST', json: { fine: value, [name]: value } });
    const text = await res.clone().text();
    const body = await expectError(res, 400, `secret name ${JSON.stringify(name)}`);
    assert.match(`${body.error} ${String(body.detail)}`, /name/);
    assert.ok(!text.includes(value), 'the refusal does not echo the value');
  }
  assert.deepEqual(await hub.json('/systems/s4/secrets'), ['other'], 'a refused batch writes nothing');
  assert.equal((await hub.fetch('/systems/s4', { method: 'DELETE' })).status, 200);
});

test('microservice-only routes answer a 4xx JSON error (never 500) for system:url and system:microservice', async () => {
  const ms = { _id: 'ms1', type: 'system:microservice', docker: { image: 'example/service:latest', port: 5000 } };
  const res = await postSystems([ms]);
  assert.equal(res.status, 200, await res.clone().text());
  assert.deepEqual(await hub.json('/systems/ms1/config'), ms);

  const calls: [string, string, RequestInit & { json?: unknown }][] = [
    ['GET', 'logs', {}],
    ['GET', `logs?since=${encodeURIComponent('2024-01-01T00:00:00Z')}`, {}],
    ['GET', 'status', {}],
    ['POST', 'reload', {}],
    ['GET', 'proxy/x', {}],
    ['GET', 'proxy/a/b/c?q=1', {}],
    ['POST', 'proxy/x', { json: { hello: 'world' } }],
    ['POST', 'proxy/x', { body: 'plain text', headers: { 'content-type': 'text/plain' } }],
    ['PUT', 'proxy/x', { json: [1, 2, 3] }],
    ['PATCH', 'proxy/x', { json: { a: 1 } }],
    ['DELETE', 'proxy/x', {}],
  ];
  for (const system of ['s1', 'ms1']) {
    for (const [method, rest, init] of calls) {
      await expectError(await hub.fetch(`/systems/${system}/${rest}`, { ...init, method }), '4xx', `${method} /systems/${system}/${rest}`);
    }
  }
  // The systems are untouched.
  assert.deepEqual(await hub.json('/systems/ms1/config'), ms);
  assert.deepEqual(await hub.json('/systems/s1/config'), S1);
});

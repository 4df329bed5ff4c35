// Bytes and types are checked at the door: on every route that takes a JSON body (taken from the hub's own OpenAPI
// document, so a new route is covered without touching this file), bytes that are not UTF-8 and escapes of unpaired
// UTF-16 surrogates are a 400 naming where, and a value of the wrong type is a 400 naming the field, not converted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir, tempDir, type HubProcess } from '../../helpers/hub-process.js';

let hub: HubProcess;
let workspace: string;

before(async () => {
  workspace = tempDir('datahub-hostile-ws-');
  mkdirSync(join(workspace, 'node', 'pipes'), { recursive: true });
  hub = await startHub({ args: ['--workspace', workspace] });
});

after(async () => {
  if (hub) {
    await hub.stop();
    removeDir(hub.dataDir);
  }
  removeDir(workspace);
});

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  minimum?: number;
  minLength?: number;
  minItems?: number;
  [k: string]: unknown;
}
interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface Route {
  method: string;
  path: string;
  body: Schema | undefined;
}

/** Every route with a body, from the OpenAPI document; path parameters filled with a plain word. */
async function bodyRoutes(): Promise<Route[]> {
  const doc = await (await fetch(`${hub.url}/api/reference/json`, { headers: { authorization: `Bearer ${hub.token}` } })).json() as {
    paths: Record<string, Record<string, Operation>>;
  };
  const routes: Route[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!['post', 'put', 'patch', 'delete'].includes(method)) continue;
      routes.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'hostile'), body: op.requestBody?.content?.['application/json']?.schema });
    }
  }
  return routes;
}

/**
 * Routes whose body is not parsed by the hub as JSON: the remote instance proxy hands it on to the remote as it is
 * (the remote checks it). They still answer 4xx here (no such remote connection).
 */
const PASSED_ON = /^\/desktop\/remote\//;

const send = (route: Route, body: Buffer | string): Promise<Response> =>
  fetch(hub.url + route.path, { method: route.method, body, headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' } });

const HOSTILE: { name: string; body: Buffer; detail: RegExp; valueOnly?: boolean }[] = [
  { name: 'FF FE in a value', body: Buffer.concat([Buffer.from('{"a": "x'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), detail: /UTF-8: byte offset 8 \(bytes FF FE/ },
  { name: 'C3 28 in a value', body: Buffer.concat([Buffer.from('{"a": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), detail: /UTF-8: byte offset 7 \(bytes C3 28/ },
  { name: 'ED A0 80 (an encoded surrogate) in a key', body: Buffer.concat([Buffer.from('{"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('": 1}')]), detail: /UTF-8: byte offset 2 \(bytes ED A0 80/ },
  { name: 'a truncated sequence at the end', body: Buffer.concat([Buffer.from('["'), Buffer.from([0xe2, 0x82])]), detail: /UTF-8: byte offset 2/ },
  { name: 'a lone high surrogate escape in a value', body: Buffer.from('{"a": "x\\ud800y"}'), detail: /unpaired UTF-16 surrogate \(\\ud800/, valueOnly: true },
  { name: 'a lone low surrogate escape in a key', body: Buffer.from('{"\\udc00k": "v"}'), detail: /property name .*unpaired UTF-16 surrogate \(\\udc00/ },
  { name: 'a reversed pair in an array', body: Buffer.from('["\\udc00\\ud800"]'), detail: /unpaired UTF-16 surrogate/, valueOnly: true },
];

let tried = 0;
let refused = 0;

test('invalid UTF-8 and lone surrogates are a 400 on every route that takes a body, and nothing is stored', async () => {
  const routes = await bodyRoutes();
  assert.ok(routes.length > 60, `the OpenAPI document lists the routes (${routes.length})`);
  const wrong: string[] = [];
  for (const route of routes) {
    for (const h of HOSTILE) {
      tried++;
      const res = await send(route, h.body);
      const text = await res.text();
      if (res.status >= 400 && res.status < 500) refused++;
      // An entity's string values may hold what JSON allows (they are stored escaped and read back as sent): there
      // the body is refused for the entity's shape instead; names are checked (test below).
      if (PASSED_ON.test(route.path) || (h.valueOnly && /\/entities$/.test(route.path))) {
        if (res.status < 400 || res.status >= 500) wrong.push(`${route.method} ${route.path} (${h.name}): ${res.status} ${text.slice(0, 200)}`);
        continue;
      }
      let detail = '';
      try {
        detail = (JSON.parse(text) as { detail?: string }).detail ?? '';
      } catch {
        /* reported below */
      }
      if (res.status !== 400 || !h.detail.test(detail)) wrong.push(`${route.method} ${route.path} (${h.name}): ${res.status} ${text.slice(0, 200)}`);
    }
  }
  assert.deepEqual(wrong, [], `routes that took bad text:\n${wrong.join('\n')}`);
  // Nothing of it reached the data folder: no U+FFFD (EF BF BD) was written anywhere.
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(hub.dataDir);
  walk(workspace);
  for (const f of files) assert.ok(!readFileSync(f).includes(Buffer.from([0xef, 0xbf, 0xbd])), `${f} holds U+FFFD`);
  assert.equal((await hub.fetch('/health')).status, 200);
});

test('JSON Push: a lone surrogate in a property name (at any depth) is a 400; in a value it is kept as sent', async () => {
  for (const body of ['[{"_id": "a", "\\ud800": 1}]', '[{"_id": "a", "o": {"k\\udfff": 1}}]', '[{"_id": "a", "l": [{"\\ud83d": 1}]}]']) {
    tried++;
    const res = await hub.fetch('/datasets/lone/entities', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    const text = await res.text();
    assert.equal(res.status, 400, `${body}: ${text}`);
    refused++;
    assert.match(text, /property name/);
  }
  for (const bytes of [Buffer.from([0x5b, 0x7b, 0x22, 0x5f, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d, 0x5d])]) {
    tried++;
    const res = await hub.fetch('/datasets/lone/entities', { method: 'POST', body: bytes, headers: { 'content-type': 'application/json' } });
    const text = await res.text();
    assert.equal(res.status, 400, text);
    refused++;
    assert.match(text, /byte offset 9 \(bytes FF/);
  }
  // JSON lines (JSON Push to a receiver) are read as they arrive, a part at a time: the same checks.
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'lone-recv', type: 'pipe', source: { type: 'http_endpoint' } }] });
  for (const body of [Buffer.concat([Buffer.from('{"_id": "a"}\n{"_id": "b", "v": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]), Buffer.from('{"_id": "a"}\n{"_id": "b", "\\udc00": 1}\n')]) {
    tried++;
    const res = await hub.fetch('/receivers/lone-recv/entities', { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } });
    const text = await res.text();
    assert.equal(res.status, 400, text);
    refused++;
    assert.match(text, /in entities #0 to #1: (the body is not valid UTF-8: the bytes C3 28|the property name)/);
  }
  assert.equal((await hub.fetch('/datasets/lone')).status, 404, 'nothing written');
  assert.equal((await hub.fetch('/datasets/lone-recv')).status, 404, 'nothing pushed');
  // A pair is text, and a value may hold what JSON allows.
  await hub.json('/datasets/ok/entities', { method: 'POST', body: '[{"_id": "a", "\\ud83d\\ude00": "\\ud83d\\ude00", "v": "x\\ud800"}]', headers: { 'content-type': 'application/json' } });
  const [stored] = await hub.json<Record<string, string>[]>('/datasets/ok/entities');
  assert.equal(stored!['😀'], '😀');
  assert.equal(stored!['v'], 'x\ud800');
});

test('a body that is valid UTF-8 (a byte order mark, pairs, escapes that look like surrogates) is taken', async () => {
  const pipe = { _id: 'bom-pipe', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a', s: '😀 \\ud800 as text' }] } };
  const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(pipe))]);
  const res = await hub.fetch('/pipes', { method: 'POST', body: Buffer.concat([body.subarray(0, 3), Buffer.from('['), body.subarray(3), Buffer.from(']')]), headers: { 'content-type': 'application/json' } });
  assert.equal(res.status, 200, await res.text());
  const config = await hub.json<{ source: { entities: { s: string }[] } }>('/pipes/bom-pipe/config');
  assert.equal(config.source.entities[0]!.s, '😀 \\ud800 as text');
});

/** A value of the schema's type (for the fields a body needs besides the one under test). */
function sample(s: Schema | undefined): unknown {
  if (!s) return 'x';
  if (s.enum) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      if (s.format === 'email' || (typeof s.pattern === 'string' && s.pattern.includes('@'))) return 'a@example.com';
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items));
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const r of s.required ?? []) o[r] = sample(s.properties?.[r]);
      return o;
    }
    default:
      return 'x';
  }
}

/** A value of another type than the schema's (one a coercing validator would have converted), or undefined. */
function wrongType(s: Schema): unknown {
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length !== 1) return undefined;
  switch (types[0]) {
    case 'string':
      return 5;
    case 'integer':
    case 'number':
      return '5';
    case 'boolean':
      return 'true';
    case 'array':
      return typeof sample(s.items) === 'string' ? 'group:Admin' : 5;
    default:
      return undefined;
  }
}

test('a value of the wrong type is a 400 naming the field on every route whose body schema lists its fields', async () => {
  // A pipe of that name, so routes that look the pipe up first (the pump's operations) reach the body check.
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'hostile', type: 'pipe', source: { type: 'dataset', dataset: 'nothing' }, pump: { mode: 'manual' } }] });
  // The webhook answers 404 to anything but the pipe's own token (a string): a token of another type is refused too.
  const routes = (await bodyRoutes()).filter((r) => r.body?.properties && !PASSED_ON.test(r.path) && !r.path.endsWith('/webhook'));
  assert.ok(routes.length > 20, `routes with body fields: ${routes.length}`);
  const wrong: string[] = [];
  let cases = 0;
  for (const route of routes) {
    const schema = route.body!;
    for (const [field, fieldSchema] of Object.entries(schema.properties!)) {
      const bad = wrongType(fieldSchema);
      if (bad === undefined) continue;
      const body = sample(schema) as Record<string, unknown>;
      body[field] = bad;
      cases++;
      tried++;
      const res = await send(route, JSON.stringify(body));
      const text = await res.text();
      if (res.status >= 400 && res.status < 500) refused++;
      if (res.status !== 400 || !text.includes(field)) wrong.push(`${route.method} ${route.path} ${field}=${JSON.stringify(bad)}: ${res.status} ${text.slice(0, 200)}`);
    }
  }
  assert.ok(cases > 40, `wrong-type cases: ${cases}`);
  assert.deepEqual(wrong, [], `converted instead of refused:\n${wrong.join('\n')}`);
});

test('the cases of the issue: a pipe _id 5, principals as a string, an unknown field where the fields are listed', async () => {
  const cases: { path: string; method: string; json: unknown; field: RegExp }[] = [
    { path: '/pipes', method: 'POST', json: [{ _id: 5, type: 'pipe', source: { type: 'embedded', entities: [] } }], field: /_id/ },
    { path: '/users/a@example.com', method: 'PUT', json: { password: 'secret-pass-1', principals: 'group:Admin' }, field: /principals/ },
    { path: '/outbox/settings', method: 'PUT', json: { keep_runs: '5' }, field: /keep_runs/ },
    { path: '/outbox/settings', method: 'PUT', json: { keep_runs: 5, keep_run: 6 }, field: /"keep_run" is not a known field/ },
    { path: '/users/b@example.com', method: 'PUT', json: { password: 'secret-pass-1', principal: ['group:Admin'] }, field: /"principal" is not a known field/ },
    { path: '/dtl/preview', method: 'POST', json: { transform: { type: 'dtl', rules: { default: [['copy', '*']] } }, entities: [], entitys: [{ _id: 'a' }] }, field: /"entitys" is not a known field/ },
  ];
  for (const c of cases) {
    tried++;
    const res = await hub.fetch(c.path, { method: c.method, json: c.json });
    const text = await res.text();
    assert.equal(res.status, 400, `${c.method} ${c.path} ${JSON.stringify(c.json)}: ${text}`);
    refused++;
    assert.match((JSON.parse(text) as { detail: string }).detail, c.field);
  }
  assert.equal((await hub.fetch('/pipes/5')).status, 404, 'no pipe "5"');
  const users = JSON.stringify(await hub.json('/users'));
  assert.ok(!users.includes('a@example.com') && !users.includes('b@example.com'), `no user made: ${users}`);
  // Query strings are text: their numbers and booleans are still read as such.
  assert.equal((await hub.fetch('/datasets?verbose=true')).status, 200);
});

const FORMS: { name: string; body: Buffer; detail: RegExp }[] = [
  { name: 'raw FF FE in a value', body: Buffer.concat([Buffer.from('operation=update-last-seen&last-seen='), Buffer.from([0xff, 0xfe])]), detail: /UTF-8: byte offset 37 \(bytes FF FE/ },
  { name: '%C3%28 in a value', body: Buffer.from('operation=update-last-seen&last-seen=x%C3%28'), detail: /form field "last-seen": not valid UTF-8 .*bytes C3 28/ },
  { name: '%ED%A0%80 (an encoded surrogate) in a value', body: Buffer.from('operation=start&profiler=%ED%A0%80'), detail: /form field "profiler": not valid UTF-8 .*bytes ED A0 80/ },
  { name: '%FF in a field name', body: Buffer.from('operation=start&%FFx=1'), detail: /name of the form field "%FFx": not valid UTF-8/ },
];

test('a form body with bytes that are not UTF-8 (raw or %-escaped) is a 400 on every route that takes a body', async () => {
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'form-pipe', type: 'pipe', source: { type: 'dataset', dataset: 'form-src' }, pump: { mode: 'manual' } }] });
  // The pump's operations are forms: the pipe exists, so the body is what is refused, and the pump is untouched.
  const routes = [{ method: 'POST', path: '/api/pipes/form-pipe/pump', body: undefined }, ...(await bodyRoutes())];
  const wrong: string[] = [];
  for (const route of routes) {
    for (const f of FORMS) {
      tried++;
      const res = await fetch(hub.url + route.path, { method: route.method, body: f.body, headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/x-www-form-urlencoded' } });
      const text = await res.text();
      if (res.status >= 400 && res.status < 500) refused++;
      if (PASSED_ON.test(route.path)) {
        if (res.status < 400 || res.status >= 500) wrong.push(`${route.method} ${route.path} (${f.name}): ${res.status} ${text.slice(0, 200)}`);
        continue;
      }
      let detail = '';
      try {
        detail = (JSON.parse(text) as { detail?: string }).detail ?? '';
      } catch {
        /* reported below */
      }
      if (res.status !== 400 || !f.detail.test(detail)) wrong.push(`${route.method} ${route.path} (${f.name}): ${res.status} ${text.slice(0, 200)}`);
    }
  }
  assert.deepEqual(wrong, [], `routes that took bad form text:\n${wrong.join('\n')}`);
  const pump = await hub.json<{ 'last-seen': unknown; 'last-run': unknown }>('/pipes/form-pipe/pump');
  assert.equal(pump['last-seen'], null, 'last-seen untouched');
  assert.equal(pump['last-run'], null, 'no run started');
  // A form of valid UTF-8, escaped or not, is read as sent ("+" is a space).
  const post = (body: string): Promise<Response> =>
    fetch(`${hub.url}/api/pipes/form-pipe/pump`, { method: 'POST', body, headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/x-www-form-urlencoded' } });
  const accented = await post('operation=update-last-seen&last-seen=%C3%A9t%C3%A9+1');
  assert.equal(accented.status, 400);
  assert.match(await accented.text(), /invalid last-seen value \\"été 1\\"/);
  const ok = await post('operation=update-last-seen&last-seen=+%34%32');
  assert.equal(ok.status, 200, await ok.text());
  assert.equal((await hub.json<{ 'last-seen': unknown }>('/pipes/form-pipe/pump'))['last-seen'], '42');
});

test('hostile-input count', () => {
  console.log(`hostile inputs tried: ${tried}, answered 4xx: ${refused}`);
  assert.equal(refused, tried);
});

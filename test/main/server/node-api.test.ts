// Node-level routes of the instance API (§4.4, §4.9): service info, status, diagnostics, license, the OpenAPI reference.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { UnsecuredJWT } from 'jose';
import { removeDir, startHub, type HubProcess } from '../../helpers/hub-process.js';

const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A JWT-shaped license key made by hand (the hub reads its claims; it cannot check a vendor signature). */
function handMadeKey(claims: Record<string, unknown>): string {
  return `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url(claims)}.${Buffer.from('not-a-real-signature').toString('base64url')}`;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

interface OpenApiParameter {
  name: string;
  in: string;
}
interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { parameters?: OpenApiParameter[]; security?: unknown[] }>>;
  components?: { securitySchemes?: Record<string, { type: string; scheme?: string }> };
}

async function expectJsonError(res: Response, status: number, what: string): Promise<{ error: string; detail: string | null }> {
  const text = await res.text();
  assert.equal(res.status, status, `${what}: expected ${status}, got ${res.status}: ${text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${what}: JSON`);
  const body = JSON.parse(text) as { error: string; detail: string | null };
  assert.equal(typeof body.error, 'string', `${what}: has "error"`);
  assert.ok('detail' in body, `${what}: has "detail"`);
  return body;
}

describe('node API', () => {
  let hub: HubProcess;

  before(async () => {
    hub = await startHub({ env: { DATAHUB_GIT_REVISION: 'abc1234', DATAHUB_BUILD: '77' } });
  });

  after(async () => {
    if (!hub) return;
    await hub.stop();
    removeDir(hub.dataDir);
  });

  test('GET /api/ reports status.git-revision and status.ci-buildnumber', async () => {
    const info = await hub.json<{ status: Record<string, unknown> }>('/');
    assert.equal(info.status['git-revision'], 'abc1234');
    assert.equal(info.status['ci-buildnumber'], '77');
    const aggregated = await hub.json<{ status: Record<string, unknown> }>('/?aggregated=true');
    assert.equal(typeof aggregated.status['git-revision'], 'string');
    const notAggregated = await hub.json<{ status: Record<string, unknown> }>('/?aggregated=false');
    assert.equal(typeof notAggregated.status['ci-buildnumber'], 'string');
    await expectJsonError(await hub.fetch('/?aggregated=maybe'), 400, 'aggregated=maybe');
  });

  test('GET /api/status has node_id, node_version, node_start_time, node_uptime and memory', async () => {
    const before = Date.now();
    const status = await hub.json<Record<string, unknown>>('/status');
    assert.equal(typeof status['node_id'], 'string');
    assert.ok((status['node_id'] as string).length > 0);
    assert.equal(typeof status['node_version'], 'string');
    assert.ok((status['node_version'] as string).length > 0);

    const start = status['node_start_time'];
    assert.ok(typeof start === 'string' || typeof start === 'number', `node_start_time: ${JSON.stringify(start)}`);
    const startMs = new Date(start).getTime();
    assert.ok(Number.isFinite(startMs), `node_start_time parses: ${String(start)}`);
    assert.ok(startMs <= before + 1000, 'the node started before now');
    assert.ok(startMs > before - 10 * 60_000, 'the node started recently');

    const uptime = status['node_uptime'];
    assert.equal(typeof uptime, 'number');
    assert.ok((uptime as number) >= 0);

    const memory = status['memory'];
    assert.ok(memory !== null && typeof memory === 'object', 'memory statistics');
    const values = Object.values(memory as Record<string, unknown>);
    assert.ok(values.length > 0);
    assert.ok(values.some((v) => typeof v === 'number' && v > 0), 'some memory figure is a positive number');

    // The same node id as GET /api/.
    const info = await hub.json<Record<string, unknown>>('/');
    if ('node_id' in info) assert.equal(info['node_id'], status['node_id']);
    // Uptime does not go backwards.
    const later = await hub.json<Record<string, unknown>>('/status');
    assert.ok((later['node_uptime'] as number) >= (uptime as number));
    assert.equal(later['node_start_time'], start);
  });

  test('GET /api/status/heap and /api/status/debugmallocstats are plain text', async () => {
    for (const path of ['/status/heap', '/status/debugmallocstats']) {
      const res = await hub.fetch(path);
      const text = await res.text();
      assert.equal(res.status, 200, `${path}: ${text}`);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/, path);
      assert.ok(text.trim().length > 0, `${path} is not empty`);
    }
  });

  test('POST /api/logs (form loglevel) answers {msg}', async () => {
    for (const level of ['DEBUG', 'INFO', 'warning']) {
      const res = await hub.fetch('/logs', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ loglevel: level }).toString(),
      });
      const text = await res.text();
      assert.equal(res.status, 200, `loglevel ${level}: ${text}`);
      const body = JSON.parse(text) as { msg?: unknown };
      assert.equal(typeof body.msg, 'string');
      assert.ok((body.msg as string).length > 0);
    }
    const named = await hub.fetch('/logs', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ loglevel: 'ERROR', logger_name: 'pump' }).toString(),
    });
    assert.equal(named.status, 200);
    assert.equal(typeof ((await named.json()) as { msg: unknown }).msg, 'string');

    const form = (fields: Record<string, string>): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    await expectJsonError(await hub.fetch('/logs', form({ loglevel: 'LOUD' })), 400, 'unknown level');
    await expectJsonError(await hub.fetch('/logs', form({ logger_name: 'x' })), 400, 'no loglevel');
    // A misspelt field is named, not dropped while the answer says the level of "the hub" was set.
    const typo = await hub.fetch('/logs', form({ loglevel: 'DEBUG', logger: 'pump' }));
    assert.equal(typo.status, 400);
    assert.match(((await typo.json()) as { detail: string }).detail, /"logger" is not a known field/);
    // Restore a quiet level.
    await hub.json('/logs', form({ loglevel: 'INFO' }));
  });

  test('license: none at first; a JWT-shaped key with a future exp is stored and GET shows its claims', async () => {
    const initial = await hub.json<Record<string, unknown>>('/license');
    assert.equal(initial['licensed'], false);

    const exp = nowSeconds() + 30 * 24 * 3600;
    const key = new UnsecuredJWT({ licensee: 'Example AS', seats: 5 }).setSubject('example-license').setIssuedAt().setExpirationTime(exp).encode();
    const put = await hub.fetch('/license', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: key });
    assert.equal(put.status, 200, await put.clone().text());
    assert.equal((await put.text()).trim(), '', 'PUT /license answers empty');

    const got = await hub.json<Record<string, unknown>>('/license');
    assert.equal(got['licensed'], true);
    assert.equal(got['licensee'], 'Example AS');
    assert.equal(got['seats'], 5);
    assert.equal(got['sub'], 'example-license');
    assert.equal(got['exp'], exp);
    assert.ok(!JSON.stringify(got).includes(key), 'GET /license does not return the key');

    // A hand-made key sent as a JSON string replaces it.
    const key2 = handMadeKey({ licensee: 'Other Org', exp: nowSeconds() + 3600 });
    const put2 = await hub.fetch('/license', { method: 'PUT', json: key2 });
    assert.equal(put2.status, 200, await put2.clone().text());
    assert.equal((await hub.json<Record<string, unknown>>('/license'))['licensee'], 'Other Org');
  });

  test('license: garbage and expired keys -> 400 JSON, the installed license is kept', async () => {
    const before = await hub.json<Record<string, unknown>>('/license');
    const garbage = ['garbage', 'not.a.jwt!', 'a.b.c', '', '{"licensee":"x"}', `${b64url({ alg: 'none' })}.not-json.`];
    for (const key of garbage) {
      const res = await hub.fetch('/license', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: key });
      await expectJsonError(res, 400, `garbage key ${JSON.stringify(key)}`);
    }
    const expired = handMadeKey({ licensee: 'Expired AS', exp: nowSeconds() - 3600 });
    const err = await expectJsonError(await hub.fetch('/license', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: expired }), 400, 'expired key');
    assert.match(`${err.error} ${err.detail ?? ''}`, /expired/i);
    const expiredJson = await hub.fetch('/license', { method: 'PUT', json: new UnsecuredJWT({}).setExpirationTime(nowSeconds() - 10).encode() });
    await expectJsonError(expiredJson, 400, 'expired key as JSON');

    assert.deepEqual(await hub.json<Record<string, unknown>>('/license'), before, 'refused keys did not replace the license');
  });

  test('license routes need a token', async () => {
    assert.equal((await fetch(`${hub.api}/license`)).status, 401);
    const key = handMadeKey({ exp: nowSeconds() + 3600 });
    assert.equal((await fetch(`${hub.api}/license`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: key })).status, 401);
  });

  test('GET /api/reference/json is OpenAPI 3 and documents the routes and their query parameters', async () => {
    const res = await hub.fetch('/reference/json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const doc = (await res.json()) as OpenApiDoc;
    assert.match(doc.openapi, /^3\.\d+\.\d+$/);
    assert.equal(typeof doc.info.title, 'string');
    assert.equal(typeof doc.info.version, 'string');

    const expectPath = (path: string, method: string): { parameters?: OpenApiParameter[]; security?: unknown[] } => {
      const op = doc.paths[path]?.[method];
      assert.ok(op, `${method.toUpperCase()} ${path} is documented; paths: ${Object.keys(doc.paths).join(', ')}`);
      return op;
    };
    const params = (op: { parameters?: OpenApiParameter[] }, where: string): string[] => (op.parameters ?? []).filter((p) => p.in === where).map((p) => p.name);

    const entities = expectPath('/api/datasets/{dataset_id}/entities', 'get');
    assert.deepEqual(params(entities, 'path'), ['dataset_id']);
    for (const q of ['since', 'limit', 'history', 'deleted', 'subset']) assert.ok(params(entities, 'query').includes(q), `dataset entities documents ?${q}`);

    const receiver = expectPath('/api/receivers/{pipe_id}/entities', 'post');
    assert.deepEqual(params(receiver, 'path'), ['pipe_id']);
    for (const q of ['sequence_id', 'is_full', 'request_id', 'previous_request_id', 'is_first', 'is_last']) {
      assert.ok(params(receiver, 'query').includes(q), `receiver documents ?${q}`);
    }

    for (const [path, method] of [
      ['/api/', 'get'],
      ['/api/status', 'get'],
      ['/api/status/heap', 'get'],
      ['/api/status/debugmallocstats', 'get'],
      ['/api/status/stacktrace', 'get'],
      ['/api/logs', 'post'],
      ['/api/license', 'get'],
      ['/api/license', 'put'],
      ['/api/jwt', 'post'],
      ['/api/pipes', 'get'],
      ['/api/datasets', 'get'],
    ] as const) {
      expectPath(path, method);
    }
    assert.ok(params(expectPath('/api/', 'get'), 'query').includes('aggregated'));

    // Bearer auth is declared, and the public routes say they need none.
    const schemes = Object.values(doc.components?.securitySchemes ?? {});
    assert.ok(schemes.some((s) => s.type === 'http' && s.scheme === 'bearer'), 'a bearer security scheme');
    assert.deepEqual(expectPath('/api/health', 'get').security, []);
    assert.deepEqual(expectPath('/api/jwt', 'post').security, []);
  });

  test('GET /api/reference serves the HTML reference (its assets load with the token)', async () => {
    const res = await hub.fetch('/reference');
    const html = await res.text();
    assert.equal(res.status, 200, html);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(html, /<html/i);
    // Every script and stylesheet the page names is served.
    const assets = [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
    assert.ok(assets.length > 0, 'the page loads scripts');
    for (const asset of assets) {
      const url = new URL(asset, `${hub.api}/reference`);
      const a = await fetch(url, { headers: { authorization: `Bearer ${hub.token}` } });
      assert.equal(a.status, 200, `${url.pathname}`);
      await a.arrayBuffer();
    }
    assert.equal((await fetch(`${hub.api}/reference/json`)).status, 401, 'the reference needs a token like the rest of /api');
  });

  test('an unknown /api route -> 404 JSON', async () => {
    const res = await hub.fetch('/whatever');
    const body = await expectJsonError(res, 404, 'GET /api/whatever');
    assert.match(body.detail ?? '', /\/api\/whatever/);
    await expectJsonError(await hub.fetch('/status/nothing'), 404, 'GET /api/status/nothing');
    await expectJsonError(await hub.fetch('/status', { method: 'PATCH', json: {} }), 404, 'PATCH /api/status');
    await expectJsonError(await hub.fetch('/whatever', { method: 'POST', json: { a: 1 } }), 404, 'POST /api/whatever');
  });
});

// The hub's browser-facing defences: Host guard (DNS rebinding), Origin guard, no CORS, loopback-only binding.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { removeDir, startHub, type HubProcess } from '../../helpers/hub-process.js';

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request to 127.0.0.1:<port> with exactly the headers given (a Host header included). */
function raw(port: number, path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

function assertJsonError(res: RawResponse, status: number, what: string): void {
  assert.equal(res.status, status, `${what}: expected ${status}, got ${res.status}: ${res.body}`);
  assert.match(String(res.headers['content-type'] ?? ''), /^application\/json/, `${what}: JSON`);
  const body = JSON.parse(res.body) as { error?: unknown; detail?: unknown };
  assert.equal(typeof body.error, 'string', `${what}: has "error"`);
  assert.ok('detail' in body, `${what}: has "detail"`);
}

function corsHeaders(headers: IncomingHttpHeaders | Headers): string[] {
  const names = headers instanceof Headers ? [...headers.keys()] : Object.keys(headers);
  return names.filter((n) => n.toLowerCase().startsWith('access-control-'));
}

/** Whether a TCP connection to host:port is accepted (false on refusal, error or a 2 s timeout). */
function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 2000);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

describe('security', () => {
  let hub: HubProcess;
  let port: number;
  let auth: Record<string, string>;

  before(async () => {
    hub = await startHub();
    port = Number(new URL(hub.url).port);
    auth = { authorization: `Bearer ${hub.token}` };
  });

  after(async () => {
    if (!hub) return;
    await hub.stop();
    removeDir(hub.dataDir);
  });

  test('the printed URL is on 127.0.0.1', () => {
    assert.equal(new URL(hub.url).hostname, '127.0.0.1');
    assert.ok(port > 0);
  });

  test('Host guard: a foreign Host -> 403 JSON, even with a valid token and on public routes', async () => {
    for (const host of ['evil.example:1234', `evil.example:${port}`, 'evil.example', `127.0.0.1:${port + 1}`, `localhost.evil.example:${port}`, `127.0.0.1:${port}.evil.example`]) {
      assertJsonError(await raw(port, '/api/pipes', { host, ...auth }), 403, `GET /api/pipes Host ${host}`);
      assertJsonError(await raw(port, '/api/health', { host }), 403, `GET /api/health Host ${host}`);
    }
    assertJsonError(
      await raw(port, '/api/jwt', { host: 'evil.example:1234', 'content-type': 'application/x-www-form-urlencoded' }, 'POST', 'email=a%40b.c&password=whatever1'),
      403,
      'POST /api/jwt with a foreign Host',
    );
    // The guard is not just for /api.
    assert.equal((await raw(port, '/', { host: 'evil.example:1234' })).status, 403, 'GET / with a foreign Host');
  });

  test('Host guard: 127.0.0.1:<port>, localhost:<port> and [::1]:<port> are accepted', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      const health = await raw(port, '/api/health', { host });
      assert.equal(health.status, 200, `health with Host ${host}: ${health.body}`);
      const pipes = await raw(port, '/api/pipes', { host, ...auth });
      assert.equal(pipes.status, 200, `pipes with Host ${host}: ${pipes.body}`);
    }
  });

  test('Origin guard: a cross-site Origin -> 403 JSON', async () => {
    const host = `127.0.0.1:${port}`;
    for (const origin of ['http://evil.example', 'https://evil.example', `http://evil.example:${port}`, `http://localhost:${port + 1}`, `http://127.0.0.1:${port}.evil.example`, 'not a url']) {
      assertJsonError(await raw(port, '/api/pipes', { host, origin, ...auth }), 403, `GET /api/pipes Origin ${origin}`);
      assertJsonError(await raw(port, '/api/health', { host, origin }), 403, `GET /api/health Origin ${origin}`);
    }
    assertJsonError(
      await raw(port, '/api/metadata', { host, origin: 'http://evil.example', 'content-type': 'application/json', ...auth }, 'PUT', '{"x":"y"}'),
      403,
      'PUT with a cross-site Origin',
    );
    const md = await hub.json<Record<string, unknown>>('/metadata');
    assert.notEqual(md['x'], 'y', 'the refused PUT changed nothing');
    assertJsonError(
      await raw(port, '/api/jwt', { host, origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, 'POST', 'email=a%40b.c&password=whatever1'),
      403,
      'POST /api/jwt with a cross-site Origin',
    );
  });

  test('Origin guard: the same origin is accepted', async () => {
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const res = await raw(port, '/api/pipes', { host: `127.0.0.1:${port}`, origin, ...auth });
      assert.equal(res.status, 200, `Origin ${origin}: ${res.body}`);
    }
  });

  test('the browser session cookie does not pass the Host and Origin guards', async () => {
    const { url } = await hub.json<{ url: string }>('/login-url', { method: 'POST' });
    const login = await fetch(url, { redirect: 'manual' });
    assert.equal(login.status, 303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const host = `127.0.0.1:${port}`;
    assert.equal((await raw(port, '/api/pipes', { host, cookie })).status, 200, 'same-origin with the cookie');
    assert.equal((await raw(port, '/api/pipes', { host, cookie, origin: `http://${host}` })).status, 200, 'same Origin with the cookie');
    for (const origin of ['http://evil.example', `http://127.0.0.1:${port + 1}`, `http://localhost:${port + 1}`]) {
      // Another local port is the same *site* for cookies, so only the Origin check stops it.
      assertJsonError(
        await raw(port, '/api/logs', { host, cookie, origin, 'content-type': 'application/x-www-form-urlencoded' }, 'POST', 'loglevel=DEBUG'),
        403,
        `form POST with the cookie from ${origin}`,
      );
    }
    assertJsonError(await raw(port, '/api/pipes', { host: 'evil.example:1234', cookie }), 403, 'the cookie with a foreign Host');
    // A login link is refused on a foreign Host too.
    assert.equal((await raw(port, '/login?code=x', { host: 'evil.example:1234' })).status, 403);
  });

  test('no CORS headers on responses', async () => {
    const plain = await hub.fetch('/pipes');
    assert.equal(plain.status, 200);
    assert.deepEqual(corsHeaders(plain.headers), []);
    for (const origin of [`http://127.0.0.1:${port}`, 'http://evil.example']) {
      const res = await raw(port, '/api/pipes', { host: `127.0.0.1:${port}`, origin, ...auth });
      assert.deepEqual(corsHeaders(res.headers), [], `GET with Origin ${origin}`);
      const health = await raw(port, '/api/health', { host: `127.0.0.1:${port}`, origin });
      assert.deepEqual(corsHeaders(health.headers), [], `health with Origin ${origin}`);
    }
    const denied = await fetch(`${hub.api}/pipes`);
    assert.equal(denied.status, 401);
    assert.deepEqual(corsHeaders(denied.headers), [], 'the 401');
  });

  test('no CORS headers on an OPTIONS preflight', async () => {
    for (const origin of ['http://evil.example', `http://localhost:${port}`]) {
      for (const path of ['/api/pipes', '/api/health', '/api/jwt']) {
        const res = await raw(port, path, {
          host: `127.0.0.1:${port}`,
          origin,
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'authorization, content-type',
        }, 'OPTIONS');
        assert.deepEqual(corsHeaders(res.headers), [], `OPTIONS ${path} from ${origin}: ${JSON.stringify(res.headers)}`);
      }
    }
  });

  test('listens only on 127.0.0.1 by default', async (t) => {
    assert.equal(await canConnect('127.0.0.1', port), true, 'loopback connects');
    const addresses = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .filter((a) => !a.internal && !a.address.startsWith('fe80:'))
      .map((a) => a.address);
    if (addresses.length === 0) {
      t.skip('this machine has no non-loopback address to try');
      return;
    }
    for (const address of addresses) {
      assert.equal(await canConnect(address, port), false, `the hub accepted a connection on ${address}:${port}`);
    }
  });
});

describe('Origin: null', () => {
  let hub: HubProcess;
  before(async () => {
    hub = await startHub();
  });
  after(async () => {
    await hub.stop();
    removeDir(hub.dataDir);
  });

  test('an opaque origin (sandboxed frame, file: page) is refused even with a valid token', async () => {
    const res = await hub.fetch('/pipes', { headers: { origin: 'null' } });
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { error: string }).error, 'forbidden origin');
  });
});

// Authentication of the instance API: bearer JWTs, /api/jwt for configured users, admin-only routes.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';
import { CLI, removeDir, startHub, tempDir, type HubProcess } from '../../helpers/hub-process.js';

const run = promisify(execFile);
const isWindows = process.platform === 'win32';

interface ErrorBody {
  error: string;
  detail: string | null;
}

/** Check a response is a 401 with the JSON error body. */
async function expect401(res: Response, what: string): Promise<ErrorBody> {
  const text = await res.text();
  assert.equal(res.status, 401, `${what}: expected 401, got ${res.status}: ${text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${what}: 401 is JSON`);
  const body = JSON.parse(text) as ErrorBody;
  assert.equal(typeof body.error, 'string', `${what}: body has "error"`);
  assert.ok(body.error.length > 0);
  assert.ok('detail' in body, `${what}: body has "detail"`);
  return body;
}

async function expectStatus(res: Response, status: number, what: string): Promise<string> {
  const text = await res.text();
  assert.equal(res.status, status, `${what}: expected ${status}, got ${res.status}: ${text}`);
  return text;
}

/** POST /api/jwt with form fields (application/x-www-form-urlencoded), no token. */
function login(hub: HubProcess, email: string, password: string): Promise<Response> {
  return fetch(`${hub.api}/jwt`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password }).toString(),
  });
}

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** A GET with the path sent exactly as given (fetch would normalise percent-encoding). */
function rawGet(hub: HubProcess, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const url = new URL(hub.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: Number(url.port), path, method: 'GET', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('auth', () => {
  let hub: HubProcess;
  let other: HubProcess;
  const email = 'dev@example.com';
  const password = `Plain-Pass-${randomBytes(6).toString('hex')}`;
  let userToken = '';

  before(async () => {
    [hub, other] = await Promise.all([startHub(), startHub()]);
  });

  after(async () => {
    for (const h of [hub, other]) {
      if (!h) continue;
      await h.stop();
      removeDir(h.dataDir);
    }
  });

  test('the admin token from <data>/access-token works; its principals map the node id to the roles, as the hosted service writes them', async () => {
    await expectStatus(await hub.fetch('/pipes'), 200, 'GET /pipes with the admin token');
    const { node_id: nodeId } = await hub.json<{ node_id: string }>('/');
    const claims = decodeJwt(hub.token);
    assert.deepEqual(claims['principals'], { [nodeId]: ['group:Admin'] });
  });

  test('a token of this hub with principals as a plain array (the older form) is still accepted, admin rights included', async () => {
    const key = new Uint8Array(Buffer.from(readFileSync(join(hub.dataDir, 'signing-key'), 'utf8').trim(), 'base64'));
    // Local tokens belong to one start of the hub (its `launch` claim); the principals' form is what is tested here.
    const launch = decodeJwt(hub.token)['launch'];
    const old = await new SignJWT({ principals: ['group:Admin'], kind: 'local', launch })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('old-tool')
      .setIssuer('datahub-desktop')
      .setIssuedAt()
      .sign(key);
    await expectStatus(await hub.fetch('/status/stacktrace', { headers: bearer(old) }), 200, 'admin-only route with an array-form token');
    const noRoles = await new SignJWT({ principals: { x: 'not a list' }, kind: 'local', launch })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('odd-tool')
      .setIssuer('datahub-desktop')
      .setIssuedAt()
      .sign(key);
    await expectStatus(await hub.fetch('/status/stacktrace', { headers: bearer(noRoles) }), 403, 'a principals object without role lists grants nothing');
  });

  test('no token -> 401 JSON with WWW-Authenticate', async () => {
    const res = await fetch(`${hub.api}/pipes`);
    await expect401(res, 'no token');
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
    await expect401(await fetch(`${hub.api}/status`), 'no token on /status');
    await expect401(await fetch(`${hub.api}/datasets`), 'no token on /datasets');
  });

  test('malformed Authorization headers -> 401 JSON', async () => {
    const cases: Record<string, string> = {
      'Bearer garbage': 'not a JWT',
      'Bearer a.b.c': 'three parts, not base64 JSON',
      'Bearer ': 'empty token',
      Bearer: 'scheme only',
      [`Basic ${Buffer.from('admin:admin').toString('base64')}`]: 'basic auth',
      [hub.token]: 'token without the Bearer scheme',
      [`Bearer ${hub.token}x`]: 'tampered signature',
      [`Bearer ${hub.token} extra`]: 'trailing garbage',
    };
    for (const [header, what] of Object.entries(cases)) {
      await expect401(await fetch(`${hub.api}/pipes`, { headers: { authorization: header } }), what);
    }
  });

  test("a token signed by another hub's key -> 401 (both ways)", async () => {
    assert.notEqual(readFileSync(join(hub.dataDir, 'signing-key'), 'utf8'), readFileSync(join(other.dataDir, 'signing-key'), 'utf8'));
    const a = await expect401(await hub.fetch('/pipes', { headers: bearer(other.token) }), "other hub's token on hub");
    assert.match(a.error, /invalid token/);
    await expect401(await other.fetch('/pipes', { headers: bearer(hub.token) }), "hub's token on other hub");
    // Each still accepts its own.
    await expectStatus(await hub.fetch('/pipes'), 200, 'own token');
    await expectStatus(await other.fetch('/pipes'), 200, 'own token');
  });

  test('an unsigned token (alg none) claiming group:Admin -> 401', async () => {
    const forged = new UnsecuredJWT({ principals: ['group:Admin'] }).setSubject('mallory').setIssuer('datahub-desktop').setIssuedAt().encode();
    await expect401(await hub.fetch('/pipes', { headers: bearer(forged) }), 'alg none');
    await expect401(await hub.fetch('/status/stacktrace', { headers: bearer(forged) }), 'alg none on stacktrace');
  });

  test('a percent-encoded path does not bypass authentication', async () => {
    // "/%61pi/pipes" is routed to the /api/pipes handler.
    const encoded = await rawGet(hub, '/%61pi/pipes');
    assert.equal(encoded.status, 401, `GET /%61pi/pipes without a token: ${encoded.status} ${encoded.body}`);
    const withToken = await rawGet(hub, '/%61pi/pipes', bearer(hub.token));
    assert.ok(withToken.status === 200 || withToken.status === 404, `with the token: ${withToken.status}`);
    for (const path of ['/%61pi/metadata', '/ap%69/pipes', '/api%2Fpipes', `${hub.url}/api/pipes`, `${hub.url}/%61pi/pipes`]) {
      const res = await rawGet(hub, path);
      assert.ok(res.status === 401 || res.status === 404, `GET ${path} without a token: ${res.status} ${res.body}`);
    }
  });

  test('GET /api/health needs no token; POST /api/jwt is reachable without one', async () => {
    const res = await fetch(`${hub.api}/health`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { status: string }).status, 'ok');
    // Without a token /jwt answers about the credentials, not "authentication required".
    const jwt = await login(hub, 'nobody@example.com', 'whatever-password');
    const body = await expect401(jwt, 'unknown user');
    assert.doesNotMatch(body.error, /authentication required/);
  });

  test('access-token and signing-key are mode 0600, the data dir 0700', { skip: isWindows ? 'POSIX file modes' : false }, () => {
    for (const h of [hub, other]) {
      assert.equal(statSync(join(h.dataDir, 'access-token')).mode & 0o777, 0o600, 'access-token');
      assert.equal(statSync(join(h.dataDir, 'signing-key')).mode & 0o777, 0o600, 'signing-key');
      assert.equal(statSync(h.dataDir).mode & 0o777, 0o700, 'data dir');
    }
  });

  test('a restart tightens loosened modes of the token, the key and the data dir', { skip: isWindows ? 'POSIX file modes' : false }, async () => {
    const dataDir = tempDir();
    try {
      const first = await startHub({ dataDir });
      assert.equal(await first.stop(), 0);
      chmodSync(join(dataDir, 'access-token'), 0o644);
      chmodSync(join(dataDir, 'signing-key'), 0o644);
      chmodSync(dataDir, 0o755);
      const second = await startHub({ dataDir });
      try {
        assert.equal(statSync(join(dataDir, 'access-token')).mode & 0o777, 0o600, 'access-token');
        assert.equal(statSync(join(dataDir, 'signing-key')).mode & 0o777, 0o600, 'signing-key');
        assert.equal(statSync(dataDir).mode & 0o777, 0o700, 'data dir');
        // Each start writes a new admin token; the one of the earlier start is refused.
        assert.notEqual(second.token, first.token, 'a new token at each start');
        const old = await expect401(await second.fetch('/pipes', { headers: bearer(first.token) }), 'the token of the earlier start');
        assert.match(old.detail ?? '', /earlier start/);
        assert.equal((await second.fetch('/pipes')).status, 200, 'the new token works');
      } finally {
        await second.stop();
      }
    } finally {
      removeDir(dataDir);
    }
  });

  test('an admin creates a user; POST /api/jwt (form) gives a token that works on /api/pipes', async () => {
    const created = await hub.fetch(`/users/${encodeURIComponent(email)}`, { method: 'PUT', json: { password, principals: ['group:Developer'] } });
    const createdText = await expectStatus(created, 200, 'PUT /users');
    assert.ok(!createdText.includes(password), 'the reply does not echo the password');
    const list = await hub.json<{ email: string; principals: string[] }[]>('/users');
    const entry = list.find((u) => u.email === email);
    assert.ok(entry, 'GET /users lists the user');
    assert.deepEqual(entry.principals, ['group:Developer']);
    assert.ok(!JSON.stringify(list).includes(password), 'GET /users does not show the password');
    assert.ok(!JSON.stringify(list).includes('scrypt'), 'GET /users does not show the hash');

    const res = await login(hub, email, password);
    userToken = (await expectStatus(res, 200, 'POST /jwt')).trim();
    assert.match(userToken, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'the body is the token itself');
    const claims = decodeJwt(userToken);
    assert.equal(claims.sub, email);
    const { node_id: nodeId } = await hub.json<{ node_id: string }>('/');
    assert.deepEqual(claims['principals'], { [nodeId]: ['group:Developer'] });
    assert.equal(typeof claims.exp, 'number', 'a /jwt token expires');
    assert.ok(claims.exp! * 1000 > Date.now());

    const pipes = await hub.fetch('/pipes', { headers: bearer(userToken) });
    assert.equal(pipes.status, 200, await pipes.clone().text());
    assert.ok(Array.isArray(await pipes.json()));
    // The user's token is for this hub only.
    await expect401(await other.fetch('/pipes', { headers: bearer(userToken) }), 'user token on another hub');
  });

  test('wrong password and unknown user -> 401 JSON, the same answer', async () => {
    const wrong = await expect401(await login(hub, email, `${password}x`), 'wrong password');
    const unknown = await expect401(await login(hub, 'ghost@example.com', password), 'unknown user');
    assert.deepEqual(wrong, unknown, 'no hint whether the user exists');
    await expect401(await login(hub, email, ''), 'empty password');
    const missing = await fetch(`${hub.api}/jwt`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email }).toString(),
    });
    assert.equal(missing.status, 400, 'missing password field');
  });

  test('the plain password is not stored in hub.db', () => {
    const db = new Database(join(hub.dataDir, 'hub.db'), { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('SELECT * FROM users').all() as Record<string, unknown>[];
      const row = rows.find((r) => r['email'] === email);
      assert.ok(row, 'the user is in the users table');
      for (const r of rows) {
        for (const [column, value] of Object.entries(r)) {
          const text = Buffer.isBuffer(value) ? value.toString('latin1') : String(value);
          assert.ok(!text.includes(password), `users.${column} holds the plain password`);
        }
      }
      assert.match(String(row['password_hash']), /^scrypt\$/, 'a scrypt hash is stored');
    } finally {
      db.close();
    }
    // Nor anywhere in the database files (the WAL included) or the hub's output.
    for (const file of ['hub.db', 'hub.db-wal']) {
      const path = join(hub.dataDir, file);
      if (existsSync(path)) assert.ok(!readFileSync(path).includes(Buffer.from(password)), `${file} contains the plain password`);
    }
    assert.ok(!hub.output().includes(password), 'the hub output shows the password');
  });

  test('stacktrace: admin 200 HTML, a group:Developer user 403 JSON, no token 401', async () => {
    assert.ok(userToken, 'the user test ran first');
    const admin = await hub.fetch('/status/stacktrace');
    const html = await expectStatus(admin, 200, 'admin stacktrace');
    assert.match(admin.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(html, /<html|<!doctype html/i);

    const dev = await hub.fetch('/status/stacktrace', { headers: bearer(userToken) });
    const text = await expectStatus(dev, 403, 'developer stacktrace');
    assert.match(dev.headers.get('content-type') ?? '', /^application\/json/);
    const body = JSON.parse(text) as ErrorBody;
    assert.equal(typeof body.error, 'string');
    assert.ok('detail' in body);

    await expect401(await fetch(`${hub.api}/status/stacktrace`), 'no token');
  });

  test('user management needs group:Admin', async () => {
    assert.ok(userToken, 'the user test ran first');
    const dev = bearer(userToken);
    await expectStatus(await hub.fetch('/users', { headers: dev }), 403, 'GET /users as developer');
    await expectStatus(
      await hub.fetch('/users/evil%40example.com', { method: 'PUT', headers: dev, json: { password: 'password123', principals: ['group:Admin'] } }),
      403,
      'PUT /users as developer',
    );
    await expectStatus(await hub.fetch(`/users/${encodeURIComponent(email)}`, { method: 'DELETE', headers: dev }), 403, 'DELETE /users as developer');
    // The developer could not make itself an admin.
    await expect401(await login(hub, 'evil@example.com', 'password123'), 'the refused user was not created');

    await expect401(await fetch(`${hub.api}/users`), 'GET /users without a token');
    await expect401(
      await fetch(`${hub.api}/users/x%40example.com`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'password123' }) }),
      'PUT /users without a token',
    );
    await expect401(await fetch(`${hub.api}/users/${encodeURIComponent(email)}`, { method: 'DELETE' }), 'DELETE /users without a token');
  });

  test('browser session: a one-time login link sets an HttpOnly SameSite=Strict cookie that works on /api', async () => {
    const { url } = await hub.json<{ url: string }>('/login-url', { method: 'POST' });
    const link = new URL(url);
    assert.equal(link.origin, hub.url, 'the link points at this hub');
    assert.equal(link.pathname, '/login');
    assert.ok(!url.includes(hub.token), 'the long-lived token is not in the link');

    const res = await fetch(url, { redirect: 'manual' });
    assert.equal(res.status, 303);
    const setCookie = res.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /^datahub_session_[0-9a-f]{12}=[\w-]+\.[\w-]+\.[\w-]+;/);
    assert.match(setCookie, /;\s*HttpOnly/i);
    assert.match(setCookie, /;\s*SameSite=Strict/i);
    assert.match(setCookie, /;\s*Path=\//i);
    const cookie = setCookie.split(';')[0]!;
    const cookieName = cookie.split('=')[0]!;

    await expectStatus(await fetch(`${hub.api}/pipes`, { headers: { cookie } }), 200, 'cookie on /api/pipes');
    // The code works once.
    const again = await fetch(url, { redirect: 'manual' });
    assert.equal(again.status, 401, 'a used login link');
    assert.equal(again.headers.get('set-cookie'), null);
    const bogus = await fetch(`${hub.url}/login?code=not-a-code`, { redirect: 'manual' });
    assert.equal(bogus.status, 401);
    assert.equal(bogus.headers.get('set-cookie'), null);
    // A bad bearer header is not rescued by the cookie; a forged or foreign cookie is refused.
    await expect401(await fetch(`${hub.api}/pipes`, { headers: { cookie, authorization: 'Bearer garbage' } }), 'cookie with a bad bearer');
    await expect401(await fetch(`${hub.api}/pipes`, { headers: { cookie: `${cookieName}=garbage` } }), 'garbage cookie');
    await expect401(await fetch(`${hub.api}/pipes`, { headers: { cookie: `${cookieName}=${other.token}` } }), "another hub's token as cookie");
    // Another hub does not accept this hub's session.
    await expect401(await fetch(`${other.api}/pipes`, { headers: { cookie } }), 'session on another hub');
    await expect401(await fetch(`${hub.api}/login-url`, { method: 'POST' }), 'login-url without a token');
  });

  test('logging out revokes the session on the hub: the same cookie is refused afterwards', async () => {
    const { url } = await hub.json<{ url: string }>('/login-url', { method: 'POST' });
    const cookie = (await fetch(url, { redirect: 'manual' })).headers.get('set-cookie')!.split(';')[0]!;
    await expectStatus(await fetch(`${hub.api}/pipes`, { headers: { cookie } }), 200, 'the session works');
    const out = await fetch(`${hub.url}/logout`, { method: 'POST', headers: { cookie } });
    assert.equal(out.status, 204);
    assert.match(out.headers.get('set-cookie') ?? '', /datahub_session_[0-9a-f]+=;/, 'the browser is told to drop the cookie');
    // A copy of the cookie (another tab, a stolen one) no longer works either.
    const after = await expect401(await fetch(`${hub.api}/pipes`, { headers: { cookie } }), 'the cookie after logout');
    assert.match(after.detail ?? '', /signed out/);
  });

  test('a non-admin user cannot turn a login link into an admin session', async () => {
    assert.ok(userToken, 'the user test ran first');
    const res = await hub.fetch('/login-url', { method: 'POST', headers: bearer(userToken) });
    const text = await res.text();
    if (res.status === 403) return; // refused outright
    assert.equal(res.status, 200, text);
    const { url } = JSON.parse(text) as { url: string };
    const login = await fetch(url, { redirect: 'manual' });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    assert.ok(cookie, `the link signed in: ${login.status}`);
    // The session must not have more rights than the user who asked for the link.
    const stack = await fetch(`${hub.api}/status/stacktrace`, { headers: { cookie } });
    assert.equal(stack.status, 403, 'a group:Developer user got an admin session from POST /api/login-url');
    const users = await fetch(`${hub.api}/users`, { headers: { cookie } });
    assert.equal(users.status, 403, 'the session can manage users');
  });

  test('an admin deletes a user; the user can no longer log in', async () => {
    const tmpEmail = 'temp@example.com';
    await hub.json(`/users/${encodeURIComponent(tmpEmail)}`, { method: 'PUT', json: { password: 'temporary-pass', principals: ['group:Developer'] } });
    await expectStatus(await login(hub, tmpEmail, 'temporary-pass'), 200, 'login before delete');
    await expectStatus(await hub.fetch(`/users/${encodeURIComponent(tmpEmail)}`, { method: 'DELETE' }), 200, 'DELETE /users');
    await expect401(await login(hub, tmpEmail, 'temporary-pass'), 'login after delete');
    const list = await hub.json<{ email: string }[]>('/users');
    assert.ok(!list.some((u) => u.email === tmpEmail));
    await expectStatus(await hub.fetch(`/users/${encodeURIComponent(tmpEmail)}`, { method: 'DELETE' }), 404, 'DELETE of a missing user');
  });
});

describe('CLI user add', () => {
  test('`datahub user add` then POST /api/jwt works on a hub started on that data dir', async () => {
    const dataDir = tempDir();
    let hub: HubProcess | undefined;
    try {
      const devPassword = `cli-dev-${randomBytes(6).toString('hex')}`;
      const adminPassword = `cli-admin-${randomBytes(6).toString('hex')}`;
      const dev = await run(process.execPath, [CLI, 'user', 'add', '--email', 'cli-dev@example.com', '--password', devPassword, '--data', dataDir]);
      assert.match(dev.stdout, /cli-dev@example\.com/);
      assert.match(dev.stdout, /group:Developer/, 'the default principal is group:Developer (least privilege)');
      const admin = await run(process.execPath, [CLI, 'user', 'add', '--email', 'cli-admin@example.com', '--password', adminPassword, '--principal', 'group:Admin', '--data', dataDir]);
      assert.match(admin.stdout, /group:Admin/);

      hub = await startHub({ dataDir });
      const devToken = (await expectStatus(await login(hub, 'cli-dev@example.com', devPassword), 200, 'login cli-dev')).trim();
      await expectStatus(await hub.fetch('/pipes', { headers: bearer(devToken) }), 200, 'cli-dev on /pipes');
      await expectStatus(await hub.fetch('/status/stacktrace', { headers: bearer(devToken) }), 403, 'cli-dev on stacktrace');

      const adminToken = (await expectStatus(await login(hub, 'cli-admin@example.com', adminPassword), 200, 'login cli-admin')).trim();
      await expectStatus(await hub.fetch('/status/stacktrace', { headers: bearer(adminToken) }), 200, 'cli-admin on stacktrace');
      await expect401(await login(hub, 'cli-dev@example.com', adminPassword), 'cli-dev with the wrong password');

      const db = new Database(join(dataDir, 'hub.db'), { readonly: true, fileMustExist: true });
      try {
        const dump = JSON.stringify(db.prepare('SELECT * FROM users').all());
        assert.ok(!dump.includes(devPassword) && !dump.includes(adminPassword), 'CLI users are stored hashed');
      } finally {
        db.close();
      }
    } finally {
      await hub?.stop();
      removeDir(dataDir);
    }
  });

  test('`datahub user add` without --password is a usage error', async () => {
    const dataDir = tempDir();
    try {
      await assert.rejects(run(process.execPath, [CLI, 'user', 'add', '--email', 'x@example.com', '--data', dataDir]), (e: { code?: number; stderr?: string }) => {
        assert.equal(e.code, 2);
        assert.match(e.stderr ?? '', /--password/);
        return true;
      });
    } finally {
      removeDir(dataDir);
    }
  });
});

describe('deleting a user', () => {
  let hub: HubProcess;
  before(async () => {
    hub = await startHub();
  });
  after(async () => {
    await hub.stop();
    removeDir(hub.dataDir);
  });

  test("revokes the user's existing tokens at once", async () => {
    const password = `revoke-${randomBytes(6).toString('hex')}`;
    const put = await hub.fetch('/users/gone@example.com', { method: 'PUT', json: { password } });
    assert.equal(put.status, 200, await put.text());
    const res = await fetch(`${hub.api}/jwt`, { method: 'POST', body: new URLSearchParams({ email: 'gone@example.com', password }) });
    assert.equal(res.status, 200);
    const token = await res.text();
    assert.equal((await hub.fetch('/pipes', { headers: { authorization: `Bearer ${token}` } })).status, 200);
    assert.equal((await hub.fetch('/users/gone@example.com', { method: 'DELETE' })).status, 200);
    const after = await hub.fetch('/pipes', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(after.status, 401);
    assert.match(((await after.json()) as { detail: string }).detail, /no longer exists/);
  });
});

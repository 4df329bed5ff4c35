// Secrets never echo back (issue 32.4): a remote that repeats the request's URL and headers in its error body, a
// base_url built from secret user, password and path, and an outbox whose target URL holds a secret. The secret values
// (as written, URL-encoded in any part of a URL, JSON-escaped, or inside a Basic credential) appear in no API answer,
// in no file of the data folder (hub.db and its -wal included) and not in the hub's log.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { useHub } from '../../helpers/hub-process.js';
import { runPump } from '../../helpers/api.js';
import { secretMask } from '../../../hub-core/security/index.js';

const hub = useHub();

// Values with characters each part of a URL encodes its own way ("$+," stay in a user-info, " " becomes %20 in a path,
// "|" stays in a path but not in encodeURIComponent's form).
const SECRETS = {
  'echo-user': 'usr-Kq7w',
  'echo-pass': 'Pw$9+Zr7,x;y=Q',
  'echo-path': 'tok 7Hk2|pathSecret',
  'echo-key': 'key-Mm41-header-secret',
  'out-path': 'outbox Path$Secret|9',
} as const;

/** Every form a secret value can take in text the hub shows or stores. */
function forms(v: string): string[] {
  const u = new URL('http://h/');
  u.password = v;
  const p = new URL('http://h/');
  p.pathname = `/${v}`;
  const q = new URL('http://h/');
  q.search = `?${v}`;
  return [...new Set([v, encodeURIComponent(v), encodeURI(v), JSON.stringify(v).slice(1, -1), u.password, p.pathname.slice(1), q.search.slice(1), new URLSearchParams({ x: v }).toString().slice(2)])];
}
const ALL_FORMS = Object.values(SECRETS).flatMap(forms);
const BASIC = Buffer.from(`${SECRETS['echo-user']}:${SECRETS['echo-pass']}`).toString('base64');

let answers = 0;
function noSecret(where: string, text: string): void {
  answers++;
  for (const f of [...ALL_FORMS, BASIC]) {
    const at = text.indexOf(f);
    assert.ok(at < 0, `${where} shows a secret (${JSON.stringify(f)}): …${text.slice(Math.max(0, at - 200), at + 80)}…`);
  }
}

async function read(path: string, init?: RequestInit & { json?: unknown }): Promise<{ status: number; text: string }> {
  const res = await hub.fetch(path, init);
  const text = await res.text();
  noSecret(`${init?.method ?? 'GET'} ${path} (${res.status})`, text);
  return { status: res.status, text };
}

let echo: Server;
let echoPort = 0;
const seen: string[] = [];

before(async () => {
  // The stand-in remote: every request is refused with a 500 whose body repeats the request line and headers.
  echo = createServer((req, res) => {
    seen.push(`${req.url ?? ''} ${req.headers.authorization ?? ''}`);
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(`internal error for ${req.method ?? ''} ${req.url ?? ''} with headers ${JSON.stringify(req.headers)}`);
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  echoPort = (echo.address() as AddressInfo).port;
});

after(async () => {
  await new Promise((r) => echo.close(r));
});

test('a remote echoing URL and headers in a 500: preview, impact, pump run and log show no secret', async () => {
  await hub.json('/systems', {
    method: 'POST',
    json: [
      { _id: 'echo-creds', type: 'system:url', base_url: `http://$SECRET(echo-user):$SECRET(echo-pass)@127.0.0.1:${echoPort}/$SECRET(echo-path)/`, headers: { 'X-Api-Key': '$SECRET(echo-key)' } },
      { _id: 'echo-basic', type: 'system:url', base_url: `http://127.0.0.1:${echoPort}/`, authentication: 'basic', username: '$SECRET(echo-user)', password: '$SECRET(echo-pass)' },
    ],
  });
  for (const system of ['echo-creds', 'echo-basic']) {
    const names = system === 'echo-creds' ? ['echo-user', 'echo-pass', 'echo-path', 'echo-key'] : ['echo-user', 'echo-pass'];
    await hub.json(`/systems/${system}/secrets`, { method: 'PUT', json: Object.fromEntries(names.map((n) => [n, SECRETS[n as keyof typeof SECRETS]])) });
  }
  for (const system of ['echo-creds', 'echo-basic']) {
    const id = `from-${system}`;
    const pipe = { _id: id, type: 'pipe', source: { type: 'json', system, url: 'items?x=1' }, pump: { mode: 'manual', max_retries_per_entity: 0 } };
    await read('/pipes', { method: 'POST', json: [pipe] });
    // The stored pipe and a draft of it.
    const stored = await read(`/pipes/${id}/preview`, { method: 'POST', json: {} });
    assert.equal(stored.status, 200, stored.text);
    const preview = JSON.parse(stored.text) as { 'source-error': string | null };
    assert.match(preview['source-error'] ?? '', /500/, `the source error says what the remote answered: ${preview['source-error']}`);
    assert.match(preview['source-error'] ?? '', system === 'echo-basic' ? /"authorization":"Basic \*{8}"/ : /\/\*{8}\/items/, `the secret parts are masked, not dropped: ${preview['source-error']}`);
    await read(`/pipes/${id}/preview`, { method: 'POST', json: { config: pipe } });
    await read(`/pipes/${id}/entities?stage=source`);
    // The impact of a draft: the job's error quotes the remote.
    const started = await read(`/pipes/${id}/impact?tests=false`, { method: 'POST', json: pipe });
    assert.equal(started.status, 202, started.text);
    let job: { status: string; error: { detail: string | null } | null } = { status: 'running', error: null };
    for (let i = 0; i < 100 && job.status === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      job = JSON.parse((await read(`/pipes/${id}/impact`)).text) as typeof job;
    }
    assert.equal(job.status, 'failed', JSON.stringify(job));
    assert.match(job.error?.detail ?? '', /\*{8}/, `masked: ${job.error?.detail}`);
    // A pump run: reason, log, pipe info.
    await runPump(hub, id, 'start', 15_000);
    await read(`/pipes/${id}/pump`);
    await read(`/pipes/${id}`);
    await read(`/pipes/${id}/log`);
    await read(`/datasets/system:pump_execution:${id}/entities`);
  }
  // A sink writing to the remote: its refusals become the run's reason and the retry queue's errors.
  await read('/pipes', {
    method: 'POST',
    json: [{ _id: 'to-echo', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }, { _id: 'b' }] }, sink: { type: 'json', system: 'echo-creds', url: 'in' }, pump: { mode: 'manual', max_retries_per_entity: 3 } }],
  });
  await runPump(hub, 'to-echo', 'start', 15_000);
  for (const path of ['/pipes/to-echo/pump', '/pipes/to-echo', '/pipes/to-echo/log', '/pipes/to-echo/outbox']) await read(path);
  assert.ok(seen.some((s) => s.includes(encodeURI(SECRETS['echo-key'])) || s.startsWith('/tok')), 'the remote was really asked');
  assert.ok(seen.some((s) => s.includes('Basic ')), 'with a Basic credential');
  await read('/pipes');
  await read('/systems');
  await read('/systems/echo-creds/config');
  await read('/secrets');
});

test('an outbox whose target URL has a secret in its path: masked in the API and in hub.db', async () => {
  // A port nobody listens on: the json sink's writes go to the outbox.
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'gone', type: 'system:url', base_url: `http://127.0.0.1:${deadPort}/$SECRET(out-path)/` }] });
  await hub.json('/systems/gone/secrets', { method: 'PUT', json: { 'out-path': SECRETS['out-path'] } });
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'to-gone', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a', v: 1 }] }, sink: { type: 'json', system: 'gone', url: 'in' }, pump: { mode: 'manual' } }],
  });
  await runPump(hub, 'to-gone', 'start', 15_000);
  const list = JSON.parse((await read('/pipes/to-gone/outbox')).text) as { runs: { run_id: string }[] };
  assert.equal(list.runs.length, 1, JSON.stringify(list));
  const run = list.runs[0]!.run_id;
  await read(`/pipes/to-gone/outbox/${encodeURIComponent(run)}`);
  const batch = await read(`/pipes/to-gone/outbox/${encodeURIComponent(run)}/batches/1`);
  assert.match(batch.text, /\*{8}/, `the target URL is shown with the secret masked: ${batch.text}`);
  await read('/pipes/to-gone/outbox/diff?from=' + encodeURIComponent(run) + '&to=' + encodeURIComponent(run));
});

test("no secret in any file of the data folder (hub.db, its -wal) nor in the hub's log", async () => {
  // Checkpoint nothing on purpose: the -wal holds the latest writes.
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(hub.dataDir);
  assert.ok(files.some((f) => f.endsWith('hub.db')), files.join(', '));
  for (const f of files) {
    const bytes = readFileSync(f);
    for (const form of [...ALL_FORMS, BASIC]) {
      for (const enc of ['utf8', 'utf16le'] as const) {
        assert.ok(!bytes.includes(Buffer.from(form, enc)), `${f} holds the secret form ${JSON.stringify(form)} (${enc})`);
      }
    }
  }
  noSecret("the hub's log", hub.output());
  console.log(`answers and files searched for ${ALL_FORMS.length + 1} secret forms: ${answers} answers, ${files.length} files`);
});

test('the mask: each URL part\'s encoding, a Basic credential, a value cut off at the end; other text left alone', () => {
  const mask = secretMask(Object.values(SECRETS));
  for (const f of ALL_FORMS) assert.equal(mask(`a ${f} b`), 'a ******** b', f);
  assert.equal(mask(`authorization: Basic ${BASIC}`), 'authorization: Basic ********');
  assert.equal(mask(`Basic ${Buffer.from('someone:else').toString('base64')}`), `Basic ${Buffer.from('someone:else').toString('base64')}`, 'a credential without a secret stays');
  assert.equal(mask(`quoted up to 300 characters: "${SECRETS['echo-key'].slice(0, 9)}`), 'quoted up to 300 characters: "********');
  assert.equal(mask('key-M'), 'key-M', 'five characters are too few to tell a value by');
  assert.equal(mask('nothing secret here'), 'nothing secret here');
});

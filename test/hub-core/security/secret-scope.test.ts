// Secrets stay secret (issue 16.1): `$SECRET(...)` is replaced only where the hosted service replaces it (system
// configuration), never in a pipe's entities, previews or outputs; a secret value, or a URL built from one, is masked
// in stored reasons, the execution log, API errors and the hub's own log lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useHub, type HubProcess } from '../../helpers/hub-process.js';
import { runPump } from '../../helpers/api.js';

type Json = Record<string, unknown>;

const hub = useHub();
const PASSWORD = 'pw-Zq81-very-secret';
const PATH_SECRET = 'tok-7Hk2xPathSecret';
const HEADER_SECRET = 'Bearer hdr-Mm41-secret';

const p = (id: string): string => `/pipes/${encodeURIComponent(id)}`;

async function text(h: HubProcess, path: string, init?: RequestInit): Promise<string> {
  return (await h.fetch(path, init)).text();
}

function noSecret(where: string, body: string, ...values: string[]): void {
  for (const v of values) {
    assert.ok(!body.includes(v), `${where} shows the secret value ${JSON.stringify(v)}: ${body.slice(Math.max(0, body.indexOf(v) - 300), body.indexOf(v) + 100)}`);
    assert.ok(!body.includes(encodeURIComponent(v)), `${where} shows the secret value URL-encoded: ${body.slice(Math.max(0, body.indexOf(v) - 300), body.indexOf(v) + 100)}`);
  }
}

test('an embedded source cannot read a secret: entities, stages, preview and sink dataset keep the reference', async () => {
  await hub.json('/secrets', { method: 'PUT', json: { DB_PASSWORD: PASSWORD } });
  const pipe = { _id: 'peek', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'x', v: '$SECRET(DB_PASSWORD)' }] } };
  await hub.json('/pipes', { method: 'POST', json: [pipe] });

  for (const stage of ['', '?stage=source', '?stage=before-transforms', '?stage=after-transforms', '?stage=sink']) {
    noSecret(`/pipes/peek/entities${stage}`, await text(hub, `${p('peek')}/entities${stage}`), PASSWORD);
  }
  const preview = await hub.fetch(`${p('peek')}/preview`, { method: 'POST', body: JSON.stringify(pipe), headers: { 'content-type': 'application/json' } });
  noSecret('the preview', await preview.text(), PASSWORD);

  const run = await runPump<{ status: string }>(hub, 'peek');
  assert.equal(run.status, 'completed');
  const stored = await hub.json<Json[]>('/datasets/peek/entities?history=false');
  assert.equal(stored[0]?.['v'], '$SECRET(DB_PASSWORD)', 'the value stays as written: secrets are for system configuration');
  noSecret('the sink dataset', JSON.stringify(stored), PASSWORD);
  noSecret('the execution log', await text(hub, `${p('peek')}/log`), PASSWORD);
});

test("a failing json sink whose system URL and header are secrets, and a remote echoing them, show neither", async () => {
  // The remote refuses every push and copies the request's path and Authorization header into its error body.
  const remote: Server = createServer((req, res) => {
    res.writeHead(401, { 'content-type': 'text/plain' });
    res.end(`refused ${req.url ?? ''} with ${req.headers.authorization ?? ''}`);
  });
  await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r));
  try {
    const port = (remote.address() as AddressInfo).port;
    await hub.json('/systems', {
      method: 'POST',
      json: [{ _id: 'vault', type: 'system:url', base_url: '$SECRET(vault-url)', headers: { Authorization: '$SECRET(vault-auth)' } }],
    });
    await hub.json('/systems/vault/secrets', { method: 'PUT', json: { 'vault-url': `http://127.0.0.1:${port}/${PATH_SECRET}/`, 'vault-auth': HEADER_SECRET } });
    await hub.json('/pipes', {
      method: 'POST',
      json: [{ _id: 'out', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] }, sink: { type: 'json', system: 'vault', url: 'in' }, pump: { max_retries_per_entity: 0 } }],
    });
    const run = await runPump<{ status: string; reason_why_stopped: string | null }>(hub, 'out', 'start', 15_000);
    assert.equal(run.status, 'failed');
    assert.match(run.reason_why_stopped ?? '', /401/, 'the reason still says what the remote answered');
    assert.match(run.reason_why_stopped ?? '', /\*{3,}/, 'the secret parts are masked, not dropped silently');
    noSecret('last-run in /pump', await text(hub, `${p('out')}/pump`), PATH_SECRET, HEADER_SECRET);
    noSecret('/pipes', await text(hub, '/pipes'), PATH_SECRET, HEADER_SECRET);
    noSecret(`/pipes/out`, await text(hub, p('out')), PATH_SECRET, HEADER_SECRET);
    noSecret('the execution log', await text(hub, `${p('out')}/log`), PATH_SECRET, HEADER_SECRET);
    noSecret("the hub's log", hub.output(), PATH_SECRET, HEADER_SECRET);
  } finally {
    await new Promise((r) => remote.close(r));
  }
});

test('a secret of two characters is masked where it stands on its own, and words that contain it stay readable', async () => {
  // The remote quotes the Authorization header (the short secret) back in its refusal.
  const remote: Server = createServer((req, res) => {
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end(`refused: the token ${req.headers.authorization ?? ''} is not accepted`);
  });
  await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r));
  try {
    const port = (remote.address() as AddressInfo).port;
    await hub.json('/systems', { method: 'POST', json: [{ _id: 'short', type: 'system:url', base_url: `http://127.0.0.1:${port}/`, headers: { Authorization: '$SECRET(tiny)' } }] });
    await hub.json('/systems/short/secrets', { method: 'PUT', json: { tiny: 'ed' } });
    await hub.json('/pipes', {
      method: 'POST',
      json: [{ _id: 'out-short', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] }, sink: { type: 'json', system: 'short', url: 'in' }, pump: { max_retries_per_entity: 0 } }],
    });
    const run = await runPump<{ status: string; reason_why_stopped: string | null }>(hub, 'out-short', 'start', 15_000);
    assert.equal(run.status, 'failed');
    const reason = run.reason_why_stopped ?? '';
    assert.match(reason, /the token \*{8} is not accepted/, `the secret is masked: ${reason}`);
    assert.match(reason, /refused/, `"refused" (which holds "ed") is left readable: ${reason}`);
    assert.doesNotMatch(reason, /(?<![a-z])ed(?![a-z])/i, reason);
    assert.doesNotMatch(await text(hub, `${p('out-short')}/log`), /token ed /);
  } finally {
    await new Promise((r) => remote.close(r));
  }
});

test('an API error about a system built from secrets masks them', async () => {
  // A value composed of text and a secret, as the service's documentation allows in system configuration.
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'bad-url', type: 'system:url', base_url: 'http://[$SECRET(broken)]/' }] });
  await hub.json('/systems/bad-url/secrets', { method: 'PUT', json: { broken: PATH_SECRET } });
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'from-bad', type: 'pipe', source: { type: 'json', system: 'bad-url', url: 'x' } }],
  });
  const res = await hub.fetch(`${p('from-bad')}/entities?stage=source`);
  const body = await res.text();
  assert.ok(res.status >= 400 && res.status < 500, `a 4xx: ${res.status} ${body}`);
  noSecret('the API error', body, PATH_SECRET);
  const run = await runPump<{ status: string; reason_why_stopped: string | null }>(hub, 'from-bad');
  assert.equal(run.status, 'failed');
  noSecret('the reason', run.reason_why_stopped ?? '', PATH_SECRET);
  noSecret("the hub's log", hub.output(), PATH_SECRET);
});

test('a transform may use a secret as the key of encrypt and decrypt, and nowhere else', async () => {
  await hub.json('/secrets', { method: 'POST', json: { 'fernet-pass': 'a-long-passphrase-1234' } });
  const rules = {
    default: [
      ['copy', '_id'],
      ['add', 'round-trip', ['decrypt', '$SECRET(fernet-pass)', ['encrypt', '$SECRET(fernet-pass)', 'hello']]],
      ['add', 'with-the-real-key', ['decrypt', ['concat', 'a-long-', 'passphrase-1234'], ['encrypt', '$SECRET(fernet-pass)', 'hello']]],
      ['add', 'as-a-value', '$SECRET(fernet-pass)'],
      ['add', 'quoted', ['literal', ['encrypt', '$SECRET(fernet-pass)', 'x']]],
      ['add', 'in-a-dict', { call: ['decrypt', '$SECRET(fernet-pass)', 'x'] }],
    ],
  };
  const res = await hub.json<{ ok: boolean; results: { entities?: Json[] }[] }>('/dtl/preview', {
    method: 'POST',
    json: { transform: { type: 'dtl', rules }, entities: [{ _id: 'e' }] },
  });
  const e = res.results[0]?.entities?.[0];
  assert.equal(e?.['round-trip'], 'hello');
  assert.equal(e?.['with-the-real-key'], 'hello', 'the key is the secret value');
  assert.equal(e?.['as-a-value'], '$SECRET(fernet-pass)', 'a value stays as written');
  assert.deepEqual(e?.['quoted'], ['encrypt', '$SECRET(fernet-pass)', 'x'], 'a literal is output as written, so its key is not replaced');
  assert.deepEqual(e?.['in-a-dict'], { call: ['decrypt', '$SECRET(fernet-pass)', 'x'] }, 'a dict is a constant');
  noSecret('the preview', JSON.stringify(res), 'a-long-passphrase-1234');
});

test('a pipe that refers to a secret in its source or sink is warned that it stays as written', async () => {
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'hdr', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'x', v: '$SECRET(DB_PASSWORD)' }] }, sink: { type: 'json', system: 'vault', url: 'in', headers: { 'x-key': '$SECRET(DB_PASSWORD)' } } }],
  });
  const info = await hub.json<{ runtime: { 'is-valid-config': boolean; 'config-errors': { elements: string; level: string; msg: string }[] } }>(p('hdr'));
  assert.equal(info.runtime['is-valid-config'], true, 'a warning, not an error');
  const warnings = info.runtime['config-errors'].filter((e) => /SECRET/.test(e.msg));
  assert.deepEqual(warnings.map((w) => [w.elements, w.level]), [['$.sink.headers.x-key', 'warning']], 'entities are data: only the sink header is warned about');
  assert.match(warnings[0]?.msg ?? '', /system configuration only/);
});

// A second hub process plays the remote instance: the local hub reaches it through /desktop/remote/<conn>/api
// with the token from the real OS keychain, and moves configuration to and from a local folder.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startHub, removeDir, tempDir, type HubProcess } from '../../helpers/hub-process.js';
import { ConnectionStore } from '../../../main/remote/connections.js';
import { OsKeychain } from '../../../main/secrets/keychain.js';

let local: HubProcess;
let remote: HubProcess;
let store: ConnectionStore;
let conn: string;
const seen: string[] = [];

/** A call through the local hub's proxy; every answer is kept to check that no token ever leaks. */
async function viaProxy(connection: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${local.token}`);
  const res = await fetch(`${local.url}/desktop/remote/${encodeURIComponent(connection)}/api${path}`, { ...init, headers });
  seen.push(JSON.stringify([...res.headers.entries()]));
  return res;
}

async function proxyJson<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await viaProxy(conn, path, init);
  const text = await res.text();
  seen.push(text);
  assert.ok(res.ok, `${init.method ?? 'GET'} ${path} through the proxy -> ${res.status}: ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

async function host<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<{ status: number; body: T }> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${local.token}`);
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  const { json, ...rest } = init;
  const res = await fetch(`${local.url}/desktop${path}`, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) });
  const text = await res.text();
  seen.push(text);
  return { status: res.status, body: JSON.parse(text) as T };
}

function peakRssKb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

before(async () => {
  [local, remote] = await Promise.all([startHub(), startHub()]);
  store = new ConnectionStore(local.dataDir, new OsKeychain());
  const c = await store.add({ kind: 'instance', label: 'Staging', url: remote.api, token: remote.token });
  conn = c.id;
  await remote.json('/datasets/people/entities', { method: 'POST', json: [{ _id: 'ada', name: 'Ada' }, { _id: 'alan', name: 'Alan' }] });
  await remote.json('/systems', { method: 'POST', json: [{ _id: 'crm', type: 'system:url', base_url: 'http://crm.invalid/api' }] });
  await remote.json('/secrets', { method: 'PUT', json: { 'crm-password': 'hunter2' } });
  await remote.json('/env', { method: 'PUT', json: { region: 'north' } });
});

after(async () => {
  for (const c of store?.list() ?? []) await store.remove(c.id);
  await Promise.all([local?.stop(), remote?.stop()]);
  if (local) removeDir(local.dataDir);
  if (remote) removeDir(remote.dataDir);
});

test('the connection token is kept in the OS keychain, not in the connections file', async () => {
  assert.equal(await store.token(conn), remote.token);
  assert.doesNotMatch(readFileSync(join(local.dataDir, 'connections.json'), 'utf8'), new RegExp(remote.token.slice(-20)));
});

test('remote pipes and datasets are browsed through the proxy, and a remote pump run changes the remote dataset', async () => {
  const created = await proxyJson<{ _id: string }[]>('/pipes', {
    method: 'POST',
    // The renderer's own cookie and Origin must not travel on: the remote would refuse a foreign Origin.
    headers: { 'content-type': 'application/json', cookie: 'ui-session=from-the-renderer', origin: local.url },
    body: JSON.stringify([{ _id: 'greet', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'hello', ['concat', 'hi ', '_S.name']]] } }, pump: { mode: 'manual' } }]),
  });
  assert.deepEqual(created.map((p) => p._id), ['greet']);
  const pipes = await proxyJson<{ _id: string }[]>('/pipes');
  assert.ok(pipes.some((p) => p._id === 'greet'), 'the remote pipe is listed through the proxy');
  const datasets = await proxyJson<{ _id: string }[]>('/datasets');
  assert.ok(datasets.some((d) => d._id === 'people'));

  // The pump form (urlencoded) goes through unchanged; the run happens on the remote.
  await proxyJson('/pipes/greet/pump', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'operation=start' });
  let out: { _id: string; hello?: string }[] = [];
  for (let i = 0; i < 100 && out.length < 2; i++) {
    const res = await remote.fetch('/datasets/greet/entities');
    out = res.ok ? ((await res.json()) as typeof out) : [];
    if (out.length < 2) await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(out.map((e) => e.hello).sort(), ['hi Ada', 'hi Alan']);
  const viaProxyOut = await proxyJson<{ _id: string }[]>('/datasets/greet/entities?limit=1');
  assert.equal(viaProxyOut.length, 1, 'query strings reach the remote');
  const local404 = await local.fetch('/pipes/greet');
  assert.equal(local404.status, 404, 'nothing was created on the local hub');
  await local404.text();
});

test('a 100k-entity remote dataset pages through the proxy and streams with bounded memory', async () => {
  const pad = 'x'.repeat(400);
  for (let start = 0; start < 100_000; start += 20_000) {
    const batch = Array.from({ length: 20_000 }, (_, i) => ({ _id: `e${start + i}`, n: start + i, pad }));
    // The uploads go through the proxy too: request bodies stream to the remote.
    await proxyJson('/datasets/big/entities', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
  }
  let since: number | undefined;
  let total = 0;
  for (;;) {
    const page = await proxyJson<{ _id: string; _updated: number }[]>(`/datasets/big/entities?limit=25000${since !== undefined ? `&since=${since}` : ''}`);
    if (page.length === 0) break;
    total += page.length;
    since = page[page.length - 1]!._updated;
  }
  assert.equal(total, 100_000);

  // One unpaged read of ~50 MB: the host must pass it on, not collect it.
  const pid = local.child.pid!;
  const before = peakRssKb(pid);
  const res = await viaProxy(conn, '/datasets/big/entities');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /json/);
  let bytes = 0;
  let tail = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    tail = (tail + Buffer.from(chunk).toString('latin1')).slice(-1000);
  }
  assert.ok(bytes > 45_000_000, `the whole dataset arrived (${bytes} bytes)`);
  assert.match(tail, /e99999/);
  const growthMb = (peakRssKb(pid) - before) / 1024;
  assert.ok(growthMb < 30, `the local hub's peak memory grew by ${growthMb.toFixed(1)} MB while proxying ${(bytes / 1e6).toFixed(0)} MB`);
});

test('proxy failures answer JSON: unknown connection 404, rejected token 502, remote down 502', async () => {
  const unknown = await viaProxy('no-such-connection', '/pipes');
  assert.equal(unknown.status, 404);
  const unknownBody = (await unknown.json()) as { error: string };
  assert.match(unknownBody.error, /not found/);

  const wrong = await store.add({ kind: 'instance', label: 'Wrong token', url: remote.api, token: 'not-a-valid-token' });
  const rejected = await viaProxy(wrong.id, '/pipes');
  assert.equal(rejected.status, 502);
  assert.match(rejected.headers.get('content-type') ?? '', /json/);
  assert.equal(((await rejected.json()) as { error: string }).error, 'the remote instance rejected the stored token');

  // A new token is checked against the instance before it replaces the stored one.
  const refused = await host<{ error: string }>(`/remote/${wrong.id}/token`, { method: 'PUT', json: { token: 'still-wrong' } });
  assert.equal(refused.status, 403);
  assert.equal(await store.token(wrong.id), 'not-a-valid-token', 'a refused token is not stored');
  const renewed = await fetch(`${local.url}/desktop/remote/${wrong.id}/token`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${local.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ token: remote.token }),
  });
  assert.equal(renewed.status, 204);
  assert.equal((await viaProxy(wrong.id, '/pipes')).status, 200, 'the renewed connection works');

  const down = await store.add({ kind: 'instance', label: 'Gone', url: `http://127.0.0.1:${await freePort()}/api`, token: 'whatever' });
  const unreachable = await viaProxy(down.id, '/pipes');
  assert.equal(unreachable.status, 502);
  const body = (await unreachable.json()) as { error: string; detail: string };
  assert.match(body.error, /Gone cannot be reached/);
  assert.match(body.detail, /connection refused/);

  const escape = await viaProxy(conn, '/%2e%2e/%2e%2e/desktop/remote');
  assert.ok(escape.status === 404 || escape.status === 502, `a path climbing out of the API is refused (${escape.status})`);
  await escape.text();
});

type Item = { kind: string; id: string; status: string; local: string | null; remote: string | null; localHash: string | null; remoteHash: string | null; removes?: string[] };
type Diff = { items: Item[] };

/** What the UI sends for an item it showed: the hashes of both sides as compared. */
function choice(d: Diff, kind: string, id: string, confirmDelete?: boolean): Record<string, unknown> {
  const i = d.items.find((x) => x.kind === kind && x.id === id);
  assert.ok(i, `${kind} ${id} is in the comparison`);
  return { kind, id, remoteHash: i.remoteHash, localHash: i.localHash, ...(confirmDelete !== undefined ? { confirmDelete } : {}) };
}

test('download, local change, diff shows exactly that pipe, upload puts it on the remote', async () => {
  const folder = join(tempDir('datahub-sync-'), 'project');
  const down = await host<{ written: string[]; env: number; secrets: number }>(`/remote/${conn}/sync/download`, { method: 'POST', json: { folder } });
  assert.equal(down.status, 200, JSON.stringify(down.body));
  assert.ok(down.body.written.includes('pipes/greet.conf.json'), `written: ${down.body.written.join(', ')}`);
  const pipeFile = join(folder, 'node', 'pipes', 'greet.conf.json');
  assert.ok(existsSync(pipeFile));
  assert.ok(existsSync(join(folder, 'node', 'systems', 'crm.conf.json')));
  const remoteEnv = JSON.parse(readFileSync(join(folder, 'node', 'remote-env.json'), 'utf8')) as { env: Record<string, string>; secrets: { node: string[] } };
  assert.equal(remoteEnv.env['region'], 'north');
  assert.deepEqual(remoteEnv.secrets.node, ['crm-password']);
  assert.doesNotMatch(readFileSync(join(folder, 'node', 'remote-env.json'), 'utf8'), /hunter2/, 'secret values are never downloaded');

  const clean = await host<Diff>(`/remote/${conn}/sync/diff?folder=${encodeURIComponent(folder)}`);
  assert.equal(clean.status, 200, JSON.stringify(clean.body));
  assert.deepEqual(clean.body.items.filter((i) => i.status !== 'same'), [], 'right after a download nothing differs');

  const pipe = JSON.parse(readFileSync(pipeFile, 'utf8')) as Record<string, unknown>;
  pipe['description'] = 'changed on the laptop';
  writeFileSync(pipeFile, JSON.stringify(pipe, null, 2));
  const changed = await host<Diff>(`/remote/${conn}/sync/diff?folder=${encodeURIComponent(folder)}`);
  const differing = changed.body.items.filter((i) => i.status !== 'same');
  assert.deepEqual(differing.map((i) => [i.kind, i.id, i.status]), [['pipe', 'greet', 'changed']]);
  assert.match(differing[0]!.local!, /changed on the laptop/);
  assert.doesNotMatch(differing[0]!.remote!, /changed on the laptop/);

  const up = await host<{ results: { id: string; ok: boolean; action: string }[] }>(`/remote/${conn}/sync/upload`, {
    method: 'POST',
    json: { folder, items: [choice(changed.body, 'pipe', 'greet')] },
  });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.deepEqual(up.body.results.map((r) => [r.id, r.action, r.ok]), [['greet', 'update', true]]);
  const onRemote = await remote.json<Record<string, unknown>>('/pipes/greet/config');
  assert.equal(onRemote['description'], 'changed on the laptop');
  const after = await host<Diff>(`/remote/${conn}/sync/diff?folder=${encodeURIComponent(folder)}`);
  assert.deepEqual(after.body.items.filter((i) => i.status !== 'same'), []);

  // A new local pipe and a locally deleted system: only what is chosen is sent.
  writeFileSync(join(folder, 'node', 'pipes', 'extra.conf.json'), JSON.stringify({ _id: 'extra', type: 'pipe', source: { type: 'dataset', dataset: 'people' } }));
  rmSync(join(folder, 'node', 'systems', 'crm.conf.json'));
  const two = await host<Diff>(`/remote/${conn}/sync/diff?folder=${encodeURIComponent(folder)}`);
  assert.deepEqual(two.body.items.filter((i) => i.status !== 'same').map((i) => [i.kind, i.id, i.status]), [
    ['system', 'crm', 'removed'],
    ['pipe', 'extra', 'added'],
  ]);
  const created = await host<{ results: { id: string; ok: boolean; action: string }[] }>(`/remote/${conn}/sync/upload`, {
    method: 'POST',
    json: { folder, items: [choice(two.body, 'pipe', 'extra')] },
  });
  assert.deepEqual(created.body.results.map((r) => [r.id, r.action, r.ok]), [['extra', 'create', true]]);
  assert.equal((await remote.json<{ _id: string }>('/pipes/extra/config'))._id, 'extra');
  assert.equal((await remote.fetch('/systems/crm')).status, 200, 'the system that was not chosen is still on the remote');

  // A download with prune makes the folder equal to the remote again.
  writeFileSync(join(folder, 'node', 'pipes', 'scratch.conf.json'), JSON.stringify({ _id: 'scratch', type: 'pipe', source: { type: 'dataset', dataset: 'people' } }));
  const pruned = await host<{ written: string[]; removed: string[] }>(`/remote/${conn}/sync/download`, { method: 'POST', json: { folder, prune: true } });
  assert.deepEqual(pruned.body.removed, ['pipes/scratch.conf.json']);
  assert.deepEqual(pruned.body.written, ['systems/crm.conf.json']);
  const synced = await host<Diff>(`/remote/${conn}/sync/diff?folder=${encodeURIComponent(folder)}`);
  assert.deepEqual(synced.body.items.filter((i) => i.status !== 'same'), []);

  const relative = await host<{ error: string }>(`/remote/${conn}/sync/diff?folder=relative/path`);
  assert.equal(relative.status, 400);
  assert.match(relative.body.error, /absolute/);
  removeDir(join(folder, '..'));
});

test('an upload is refused, writing nothing, when the remote changed since the comparison', async () => {
  const folder = join(tempDir('datahub-sync-'), 'project');
  await host(`/remote/${conn}/sync/download`, { method: 'POST', json: { folder } });
  for (const id of ['greet', 'extra']) {
    const file = join(folder, 'node', 'pipes', `${id}.conf.json`);
    const pipe = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    pipe['description'] = `mine: ${id}`;
    writeFileSync(file, JSON.stringify(pipe, null, 2));
  }
  const compared = await host<Diff>(`/remote/${conn}/sync/diff?folder=${encodeURIComponent(folder)}`);
  assert.deepEqual(compared.body.items.filter((i) => i.status !== 'same').map((i) => i.id), ['extra', 'greet']);

  // A colleague changes greet on the remote after the comparison.
  const theirs = await remote.json<Record<string, unknown>>('/pipes/greet/config');
  await remote.json('/pipes/greet/config', { method: 'PUT', json: { ...theirs, description: 'theirs' } });

  const refused = await host<{ error: string; detail: string }>(`/remote/${conn}/sync/upload`, {
    method: 'POST',
    json: { folder, items: [choice(compared.body, 'pipe', 'extra'), choice(compared.body, 'pipe', 'greet')] },
  });
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.equal(refused.body.error, 'pipe greet changed on the remote since you compared; compare again');
  assert.equal((await remote.json<Record<string, unknown>>('/pipes/greet/config'))['description'], 'theirs', "the colleague's change survives");
  assert.equal((await remote.json<Record<string, unknown>>('/pipes/extra/config'))['description'], undefined, 'the batch wrote nothing, not even the unchanged item');

  // The local file changing after the comparison is refused the same way.
  const again = await host<Diff>(`/remote/${conn}/sync/diff?folder=${encodeURIComponent(folder)}`);
  const extraFile = join(folder, 'node', 'pipes', 'extra.conf.json');
  writeFileSync(extraFile, JSON.stringify({ ...(JSON.parse(readFileSync(extraFile, 'utf8')) as object), description: 'edited after comparing' }));
  const stale = await host<{ error: string }>(`/remote/${conn}/sync/upload`, { method: 'POST', json: { folder, items: [choice(again.body, 'pipe', 'extra')] } });
  assert.equal(stale.status, 409);
  assert.equal(stale.body.error, 'the local file of pipe extra changed since you compared; compare again');

  // Compared afresh, the same upload goes through.
  const fresh = await host<Diff>(`/remote/${conn}/sync/diff?folder=${encodeURIComponent(folder)}`);
  const ok = await host<{ results: { id: string; ok: boolean }[] }>(`/remote/${conn}/sync/upload`, {
    method: 'POST',
    json: { folder, items: [choice(fresh.body, 'pipe', 'extra'), choice(fresh.body, 'pipe', 'greet')] },
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.deepEqual(ok.body.results.map((r) => [r.id, r.ok]), [['extra', true], ['greet', true]]);
  assert.equal((await remote.json<Record<string, unknown>>('/pipes/greet/config'))['description'], 'mine: greet');

  const twice = await host(`/remote/${conn}/sync/upload`, { method: 'POST', json: { folder, items: [choice(fresh.body, 'pipe', 'extra'), choice(fresh.body, 'pipe', 'extra')] } });
  assert.equal(twice.status, 400);
  const noHash = await host(`/remote/${conn}/sync/upload`, { method: 'POST', json: { folder, items: [{ kind: 'pipe', id: 'extra' }] } });
  assert.equal(noHash.status, 400, 'an upload must name the versions it compared');
  removeDir(join(folder, '..'));
});

test('a deletion on the remote (a pipe, the node metadata) needs its own confirmation', async () => {
  const folder = join(tempDir('datahub-sync-'), 'project');
  await remote.json('/metadata', { method: 'PUT', json: { _id: 'node', type: 'metadata', task_manager: { disable_pump_scheduler: true } } });
  await host(`/remote/${conn}/sync/download`, { method: 'POST', json: { folder } });
  rmSync(join(folder, 'node', 'pipes', 'extra.conf.json'));
  rmSync(join(folder, 'node', 'node-metadata.conf.json'));
  const compared = await host<Diff>(`/remote/${conn}/sync/diff?folder=${encodeURIComponent(folder)}`);
  assert.deepEqual(compared.body.items.filter((i) => i.status !== 'same').map((i) => [i.kind, i.id, i.status]), [
    ['metadata', 'node', 'removed'],
    ['pipe', 'extra', 'removed'],
  ]);

  const unconfirmed = await host<{ error: string }>(`/remote/${conn}/sync/upload`, {
    method: 'POST',
    json: { folder, items: [choice(compared.body, 'pipe', 'extra'), choice(compared.body, 'metadata', 'node')] },
  });
  assert.equal(unconfirmed.status, 400);
  assert.equal(unconfirmed.body.error, 'uploading pipe extra and the node metadata deletes on the remote and needs confirmation');
  assert.equal((await remote.fetch('/pipes/extra')).status, 200, 'nothing was deleted');

  const done = await host<{ results: { id: string; action: string; ok: boolean }[] }>(`/remote/${conn}/sync/upload`, {
    method: 'POST',
    json: { folder, items: [choice(compared.body, 'pipe', 'extra', true), choice(compared.body, 'metadata', 'node', true)] },
  });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.deepEqual(done.body.results.map((r) => [r.id, r.action, r.ok]), [['extra', 'delete', true], ['node', 'delete', true]]);
  const gone = await remote.fetch('/pipes/extra');
  assert.equal(gone.status, 404, 'the pipe is deleted on the remote');
  await gone.text();
  const meta = await remote.json<Record<string, unknown>>('/metadata');
  assert.notDeepEqual(meta['task_manager'], { disable_pump_scheduler: true }, 'the remote metadata is gone');
  removeDir(join(folder, '..'));
});

test('env variables are compared and uploaded (deleting needs confirmation); secret values never travel', async () => {
  const folder = join(tempDir('datahub-sync-'), 'project');
  await remote.json('/env', { method: 'PUT', json: { region: 'north', tier: 'gold', retired: 'yes' } });
  await host(`/remote/${conn}/sync/download`, { method: 'POST', json: { folder } });
  const envFile = join(folder, 'node', 'remote-env.json');
  const saved = JSON.parse(readFileSync(envFile, 'utf8')) as { env: Record<string, string>; secrets: unknown };
  const clean = await host<Diff>(`/remote/${conn}/sync/diff?folder=${encodeURIComponent(folder)}`);
  assert.equal(clean.body.items.find((i) => i.kind === 'env')?.status, 'same');

  writeFileSync(envFile, JSON.stringify({ ...saved, env: { region: 'south', tier: 'gold', added: 'new' } }, null, 2));
  const compared = await host<Diff>(`/remote/${conn}/sync/diff?folder=${encodeURIComponent(folder)}`);
  const env = compared.body.items.find((i) => i.kind === 'env');
  assert.ok(env);
  assert.equal(env.status, 'changed');
  assert.deepEqual(env.removes, ['retired']);
  assert.match(env.local!, /"region": "south"/);
  assert.match(env.remote!, /"region": "north"/);

  const unconfirmed = await host(`/remote/${conn}/sync/upload`, { method: 'POST', json: { folder, items: [choice(compared.body, 'env', 'env')] } });
  assert.equal(unconfirmed.status, 400, 'deleting a variable needs confirmation');
  assert.equal((await remote.json<Record<string, string>>('/env'))['region'], 'north');

  const up = await host<{ results: { ok: boolean; message: string }[] }>(`/remote/${conn}/sync/upload`, { method: 'POST', json: { folder, items: [choice(compared.body, 'env', 'env', true)] } });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.deepEqual(up.body.results.map((r) => r.ok), [true]);
  assert.match(up.body.results[0]!.message, /set 2, deleted 1/);
  assert.deepEqual(await remote.json<Record<string, string>>('/env'), { added: 'new', region: 'south', tier: 'gold' });
  assert.deepEqual(await remote.json<string[]>('/secrets'), ['crm-password'], 'secrets are untouched');
  removeDir(join(folder, '..'));
});

test('no proxy or sync answer ever contains a token', () => {
  assert.ok(seen.length > 10);
  for (const text of seen) {
    assert.ok(!text.includes(remote.token), 'the remote token leaked into an answer');
    assert.ok(!text.includes(local.token), 'the local token leaked into an answer');
    assert.ok(!text.includes('hunter2'), 'a secret value leaked into an answer');
  }
});

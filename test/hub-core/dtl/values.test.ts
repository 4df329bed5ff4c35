// Values are stored as sent or refused with a clear 4xx: never changed without notice.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir, tempDir, type HubProcess } from '../../helpers/hub-process.js';

let hub: HubProcess;
let workspace: string;

before(async () => {
  workspace = tempDir('datahub-values-ws-');
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

async function expectJsonError(res: Response, status: number, what: string): Promise<{ error: string; detail: string | null }> {
  const text = await res.text();
  assert.equal(res.status, status, `${what}: expected ${status}, got ${res.status}: ${text.slice(0, 300)}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${what}: the error is JSON`);
  const body = JSON.parse(text) as { error: string; detail: string | null };
  assert.equal(typeof body.error, 'string');
  assert.ok('detail' in body, `${what}: {error, detail}`);
  return body;
}

const postText = (path: string, body: string, headers: Record<string, string> = {}): Promise<Response> =>
  hub.fetch(path, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

test('an _id with a lone surrogate is refused (it could not be stored or found again)', async () => {
  const err = await expectJsonError(await postText('/datasets/v/entities', '[{"_id": "a\\ud800b"}]'), 400, 'lone surrogate');
  assert.match(err.detail ?? '', /_id/);
  assert.equal((await hub.fetch('/datasets/v')).status, 404, 'nothing written');
});

test('numbers a JSON double cannot hold are refused, not rounded or turned into null', async () => {
  for (const n of ['12345678901234567890', '-9007199254740993', '1e400', '-1e400', '1e-400']) {
    const err = await expectJsonError(await postText('/datasets/n/entities', `[{"_id": "a", "v": ${n}}]`), 400, n);
    assert.ok((err.detail ?? '').includes(n), `the detail names ${n}: ${err.detail}`);
  }
  assert.equal((await hub.fetch('/datasets/n')).status, 404, 'nothing written');
  // Numbers that fit are stored as sent.
  await hub.json('/datasets/n/entities', { method: 'POST', body: '[{"_id": "ok", "v": 9007199254740991, "f": 0.1, "e": 1e300}]', headers: { 'content-type': 'application/json' } });
  const [stored] = await hub.json<{ v: number; f: number; e: number }[]>('/datasets/n/entities');
  assert.deepEqual([stored!.v, stored!.f, stored!.e], [9007199254740991, 0.1, 1e300]);
});

test('PUT /secrets with a non-string value is a 400 (not stored as a string)', async () => {
  const err = await expectJsonError(await hub.fetch('/secrets', { method: 'PUT', json: { S: 5 } }), 400, 'number secret');
  assert.match(err.detail ?? '', /S/);
  assert.deepEqual(await hub.json('/secrets'), [], 'nothing stored');
});

test('update-last-seen beyond the largest safe integer is a 400', async () => {
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'ls', type: 'pipe', source: { type: 'dataset', dataset: 'n' }, sink: { type: 'dataset', dataset: 'ls-out' } }] });
  const res = await hub.fetch('/pipes/ls/pump', {
    method: 'POST',
    body: new URLSearchParams({ operation: 'update-last-seen', 'last-seen': '99999999999999999999' }),
  });
  const err = await expectJsonError(res, 400, 'huge last-seen');
  assert.match(err.detail ?? '', /99999999999999999999|offset/);
});

test('a gzip-encoded body is decompressed; an unknown encoding is a 415', async () => {
  const body = gzipSync(Buffer.from('[{"_id": "z", "v": "zipped"}]'));
  const res = await hub.fetch('/datasets/gz/entities', { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
  assert.equal(res.status, 200, await res.text());
  const stored = await hub.json<{ _id: string; v: string }[]>('/datasets/gz/entities');
  assert.deepEqual(stored.map((e) => [e._id, e.v]), [['z', 'zipped']]);
  await expectJsonError(await postText('/datasets/gz2/entities', '[]', { 'content-encoding': 'zstd-nope' }), 415, 'unknown encoding');
  await expectJsonError(await postText('/datasets/gz2/entities', 'not gzip at all', { 'content-encoding': 'gzip' }), 400, 'a body that is not gzip');
});

test('bad paths answer JSON errors: bad UTF-8 (400) and an over-long id (414)', async () => {
  await expectJsonError(await hub.fetch('/pipes/%ff'), 400, 'bad UTF-8 in the path');
  await expectJsonError(await hub.fetch(`/pipes/${'a'.repeat(3000)}`), 414, 'an over-long path parameter');
});

test('a pipe id too long for a file name in a workspace is a 400, nothing stored', async () => {
  const id = 'p' + 'a'.repeat(300);
  const res = await hub.fetch('/pipes', { method: 'POST', json: [{ _id: id, type: 'pipe', source: { type: 'dataset', dataset: 'x' } }] });
  const err = await expectJsonError(res, 400, 'long id');
  assert.match(err.detail ?? '', /255/);
  assert.equal((await hub.fetch(`/pipes/${id}`)).status, 404);
  assert.ok(!existsSync(join(workspace, 'node', 'pipes', `${id}.conf.json`)));
});

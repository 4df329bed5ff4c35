// Values are stored as sent or refused with a clear 4xx: never changed without notice.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir, tempDir, type HubProcess } from '../../helpers/hub-process.js';
import { runPump } from '../../helpers/api.js';

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
  for (const n of ['1e400', '-1e400', '1e-400']) {
    const err = await expectJsonError(await postText('/datasets/n/entities', `[{"_id": "a", "v": ${n}}]`), 400, n);
    assert.ok((err.detail ?? '').includes(n), `the detail names ${n}: ${err.detail}`);
  }
  assert.equal((await hub.fetch('/datasets/n')).status, 404, 'nothing written');
  // Numbers that fit are stored as sent.
  await hub.json('/datasets/n/entities', { method: 'POST', body: '[{"_id": "ok", "v": 9007199254740991, "f": 0.1, "e": 1e300}]', headers: { 'content-type': 'application/json' } });
  const [stored] = await hub.json<{ v: number; f: number; e: number }[]>('/datasets/n/entities');
  assert.deepEqual([stored!.v, stored!.f, stored!.e], [9007199254740991, 0.1, 1e300]);
});

// hub/documentation/data-management/entity-data-model.rst: "Integer: An integer value. The range of this data type is
// unlimited, i.e. it can store any positive or negative integer value." So an integer beyond ±2^53 is kept to the
// last digit and given back as the plain JSON integer it was sent as (not rounded, not a string, not a decimal).
test('integers of any size are stored exactly and read back as the same plain JSON integers', async () => {
  const sent = '{"_id":"big","d":{"x":99999999999999999999},"list":[18446744073709551616,1],"neg":-9007199254740993,"v":12345678901234567890123}';
  await hub.json('/datasets/bigint/entities', { method: 'POST', body: `[${sent}]`, headers: { 'content-type': 'application/json' } });
  const text = await (await hub.fetch('/datasets/bigint/entities')).text();
  for (const part of ['"v":12345678901234567890123', '"neg":-9007199254740993', '"list":[18446744073709551616,1]', '"d":{"x":99999999999999999999}']) {
    assert.ok(text.includes(part), `${part} in ${text}`);
  }
  const one = await (await hub.fetch('/datasets/bigint/entities/big')).text();
  assert.ok(one.includes('"v":12345678901234567890123'), one);
  // The body as sent, byte for byte, inside the stored entity (its keys were sent in sorted order).
  assert.ok(text.includes(sent.slice('{"_id":"big",'.length, -1)), text);
});

// The same integers through a pipe: the DTL reads them exactly and computes on them as integers
// (hub/dtl/dtl-functions-math.rst: "+" gives VALUE1 + VALUE2; integers are unlimited, entity-data-model.rst).
test('a pipe reads, compares and computes on big integers exactly and writes plain integers', async () => {
  await hub.json('/datasets/bigsrc/entities', {
    method: 'POST',
    body: '[{"_id":"a","v":12345678901234567890123,"w":12345678901234567890123,"small":7}]',
    headers: { 'content-type': 'application/json' },
  });
  const rules = [
    ['copy', '*'],
    ['add', 'plus1', ['+', '_S.v', 1]],
    ['add', 'times2', ['*', '_S.v', 2]],
    ['add', 'same', ['eq', '_S.v', '_S.w']],
    ['add', 'bigger', ['gt', '_S.v', '_S.small']],
    ['add', 'sorted', ['sorted', ['list', '_S.v', '_S.small', -1]]],
    ['add', 'text', ['string', '_S.v']],
  ];
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'bigpipe', type: 'pipe', source: { type: 'dataset', dataset: 'bigsrc' }, transform: { type: 'dtl', rules: { default: rules } } }] });
  await runPump(hub, 'bigpipe');
  const text = await (await hub.fetch('/datasets/bigpipe/entities')).text();
  for (const part of [
    '"v":12345678901234567890123',
    '"plus1":12345678901234567890124',
    '"times2":24691357802469135780246',
    '"same":true',
    '"bigger":true',
    '"sorted":[-1,7,12345678901234567890123]',
    '"text":"12345678901234567890123"',
  ]) {
    assert.ok(text.includes(part), `${part} in ${text}`);
  }
});

test('a preview gives big integers as plain integers: sample entities sent with it are read exactly, hash128 as documented', async () => {
  // hub/dtl/dtl-functions-misc.rst: ["hash128", "murmur3", "abc"] returns 79267961763742113019008347020647561319.
  const config = {
    _id: 'bigpreview',
    type: 'pipe',
    source: { type: 'dataset', dataset: 'bigsrc' },
    transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'hash', ['hash128', 'murmur3', 'abc']], ['add', 'less1', ['-', '_S.v', 1]]] } },
  };
  await hub.json('/pipes', { method: 'POST', json: [config] });
  const res = await hub.fetch('/pipes/bigpreview/preview', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"entities": [{"_id": "p", "v": 100000000000000000000}]}',
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  for (const part of ['"hash":79267961763742113019008347020647561319', '"less1":99999999999999999999', '"v":100000000000000000000']) {
    assert.ok(text.includes(part), `${part} in ${text.slice(0, 2000)}`);
  }
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

// JSON Push bodies larger than the body limit are read as they arrive and written all or nothing at the end.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { useHub } from '../../helpers/hub-process.js';
import { expectError } from '../../helpers/api.js';

// A body limit of 4 KB and a push limit of 3 MB: every body below is far over the body limit.
const hub = useHub({ args: ['--body-limit', '4096', '--push-limit', String(3 * 1024 * 1024)] });

interface PushReply {
  received: number;
  written: number;
  unchanged: number;
}

async function receiverPipe(id: string, extra: Record<string, unknown> = {}): Promise<void> {
  await hub.json('/pipes', { method: 'POST', json: [{ _id: id, type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: id }, ...extra }] });
}

function post(pipe: string, body: string | Uint8Array, headers: Record<string, string> = {}, query = ''): Promise<Response> {
  return hub.fetch(`/receivers/${pipe}/entities${query}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

async function postOk(pipe: string, body: string | Uint8Array, headers: Record<string, string> = {}, query = ''): Promise<PushReply> {
  const res = await post(pipe, body, headers, query);
  const text = await res.text();
  assert.equal(res.status, 200, `push to ${pipe}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as PushReply;
}

/** n entities with ids `<prefix>0 ...`, each with a value that tells them apart and a string with JSON's hard characters. */
function entities(n: number, prefix = 'e'): { _id: string; n: number; text: string; tags: string[] }[] {
  return Array.from({ length: n }, (_, i) => ({ _id: `${prefix}${i}`, n: i, text: `line "${i}"\n\\ ] } , [ {`, tags: ['a', String(i % 7)] }));
}

async function count(dataset: string): Promise<number> {
  const res = await hub.fetch(`/datasets/${dataset}`);
  if (res.status === 404) return 0;
  const info = (await res.json()) as { count: number };
  return info.count;
}

describe('streamed JSON Push', () => {
  test('a body far larger than the body limit is accepted and every entity is written as sent', async () => {
    await receiverPipe('big');
    const sent = entities(20_000);
    const body = JSON.stringify(sent, null, 1);
    assert.ok(body.length > 1_000_000, 'the body is over 1 MB, 250 times the body limit');
    const reply = await postOk('big', body);
    assert.equal(reply.received, 20_000);
    assert.equal(reply.written, 20_000);
    assert.equal(await count('big'), 20_000);
    const stored = await hub.json<{ _id: string; n: number; text: string; tags: string[] }[]>('/datasets/big/entities?since=19990&history=false');
    const last = stored.find((e) => e._id === 'e19999');
    assert.deepEqual(last && { n: last.n, text: last.text, tags: last.tags }, { n: 19999, text: 'line "19999"\n\\ ] } , [ {', tags: ['a', String(19999 % 7)] });
    // The same body again writes nothing: the unchanged entities are recognised.
    const again = await postOk('big', body);
    assert.deepEqual([again.received, again.written, again.unchanged], [20_000, 0, 20_000]);
    // Nothing is left behind in the data folder once the push is over.
    assert.deepEqual(readdirSync(join(hub.dataDir, 'push-spool')), []);
  });

  test('a body whose end is malformed or holds a bad entity answers 400 in words and writes nothing', async () => {
    await receiverPipe('bad');
    const good = JSON.stringify(entities(10_000));
    const cutOff = good.slice(0, -30);
    let e = await expectError(await post('bad', cutOff), 400, 'a body cut off before its end');
    assert.match(`${e.error} ${String(e.detail)}`, /malformed JSON.*(cut off|closed)/s);
    const badLast = good.slice(0, -1) + ',{"_id": "last", "v": }]';
    e = await expectError(await post('bad', badLast), 400, 'a malformed last entity');
    assert.match(`${e.error} ${String(e.detail)}`, /malformed JSON.*#10000/s);
    const noId = good.slice(0, -1) + ',{"v": 1}]';
    e = await expectError(await post('bad', noId), 400, 'a last entity without _id');
    assert.match(String(e.detail), /entity #10000 has no _id/);
    const trailing = good + ' x';
    e = await expectError(await post('bad', trailing), 400, 'text after the array');
    assert.match(String(e.detail), /after the array/);
    assert.equal(await count('bad'), 0, 'none of the 10,000 good entities before the bad end was written');
    assert.deepEqual(readdirSync(join(hub.dataDir, 'push-spool')), []);
  });

  test('a gzip-encoded large body and a JSON lines body are streamed too', async () => {
    await receiverPipe('zipped');
    const zipped = gzipSync(Buffer.from(JSON.stringify(entities(15_000, 'z'))));
    const reply = await postOk('zipped', zipped, { 'content-encoding': 'gzip' });
    assert.deepEqual([reply.received, reply.written], [15_000, 15_000]);
    await receiverPipe('lines');
    const lines = entities(12_000, 'l').map((x) => JSON.stringify(x)).join('\n') + '\n';
    const r2 = await postOk('lines', lines, { 'content-type': 'application/x-ndjson' });
    assert.deepEqual([r2.received, r2.written], [12_000, 12_000]);
    assert.equal(await count('lines'), 12_000);
    const e = await expectError(await post('lines', '{"_id": "a"}\n[1, 2]\n', { 'content-type': 'application/x-ndjson' }), 400, 'a JSON line that is not an object');
    assert.match(String(e.detail), /each line must be one JSON object/);
  });

  test('a body over the push limit answers 413; a small body within the body limit goes the usual way', async () => {
    await receiverPipe('limit');
    const tooBig = JSON.stringify(entities(40_000, 'x'));
    assert.ok(tooBig.length > 3 * 1024 * 1024);
    const e = await expectError(await post('limit', tooBig), 413, 'a body over the push limit');
    assert.match(String(e.detail), /push-limit/);
    assert.equal(await count('limit'), 0);
    const small = await postOk('limit', JSON.stringify([{ _id: 's', v: 1 }]));
    assert.deepEqual([small.received, small.written], [1, 1]);
  });

  test('a batch that names an entity twice is written in order: the second version counts against the first', async () => {
    await receiverPipe('twice');
    await postOk('twice', JSON.stringify([{ _id: 'd', v: 1 }]));
    // 20 entities (large enough for the batched lookup): "d" changed at #2 and changed back at #15.
    const batch = entities(20, 'f').map((e) => ({ _id: e._id, v: 0 })) as { _id: string; v: number }[];
    batch[2] = { _id: 'd', v: 2 };
    batch[15] = { _id: 'd', v: 1 };
    const reply = await postOk('twice', JSON.stringify(batch));
    assert.equal(reply.written, 20, 'both versions of "d" are written, with the 18 new entities');
    const d = await hub.json<{ v: number; _previous: number | null }[]>('/datasets/twice/entities?history=true');
    // Compaction keeps the last two versions: the batch's two, in its order.
    assert.deepEqual(d.filter((e) => (e as unknown as { _id: string })._id === 'd').map((e) => e.v), [2, 1]);
  });

  test('a streamed push that trips the circuit breaker in a later part writes none of its parts and leaves them all pending', async () => {
    await receiverPipe('guarded', { sink: { type: 'dataset', dataset: 'guarded', circuit_breaker_threshold_count: 15_000 } });
    // 25,000 new entities: the first 10,000 stay under the threshold, the next part takes the run past it.
    const e = await expectError(await post('guarded', JSON.stringify(entities(25_000, 'g'))), 409, 'a push of 25,000 changes with a threshold of 15,000');
    assert.match(e.error, /circuit breaker/);
    const info = await hub.json<{ count: number; 'circuit-breaker': { tripped: boolean; 'pending-count': number } }>('/datasets/guarded');
    assert.equal(info.count, 0, 'not even the first part was written');
    assert.deepEqual([info['circuit-breaker'].tripped, info['circuit-breaker']['pending-count']], [true, 25_000]);
  });

  test('a streamed push goes through the pipe transform and keeps full-sync semantics', async () => {
    await receiverPipe('shaped', { transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'tag', ['concat', '_S._id', '!']]] } } });
    await postOk('shaped', JSON.stringify(entities(8_000, 's')));
    const stored = await hub.json<{ _id: string; tag: string; n?: number }[]>('/datasets/shaped/entities?history=false&since=7990');
    const one = stored.find((x) => x._id === 's7999');
    assert.equal(one?.tag, 's7999!');
    assert.equal(one?.n, undefined, 'only what the transform copied or added is stored');
    // A full sync of one large request deletes what it did not send.
    const half = JSON.stringify(entities(8_000, 's').slice(0, 4_000));
    await postOk('shaped', half, {}, '?is_full=true');
    assert.equal(await count('shaped'), 4_000);
  });
});

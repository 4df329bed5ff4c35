// A large JSON Push array is cut in two between two entities and parsed by two workers at once
// (main/server/entity-array-split.ts, entity-parser-pool.ts). Whatever the body holds, the result is the one a
// single parse gives: the same entities in the same order, and an error that names the entity as the body numbers it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { splitEntityArray } from '../../../main/server/entity-array-split.js';
import { useHub } from '../../helpers/hub-process.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const parseHalves = (halves: [Uint8Array, Uint8Array] | undefined): unknown[] | undefined => {
  if (halves === undefined) return undefined;
  try {
    const dec = new TextDecoder();
    return [...(JSON.parse(dec.decode(halves[0])) as unknown[]), ...(JSON.parse(dec.decode(halves[1])) as unknown[])];
  } catch {
    return undefined;
  }
};

test('the halves of an array hold its entities in order, whatever whitespace or BOM surrounds them', () => {
  const list = Array.from({ length: 9 }, (_, i) => ({ _id: `e${i}`, nested: { deep: [{ a: i }, { b: i }] } }));
  for (const text of [JSON.stringify(list), JSON.stringify(list, null, 2), `\ufeff \n${JSON.stringify(list, null, '\t')}\n`]) {
    assert.deepEqual(parseHalves(splitEntityArray(bytes(text))), list, text.slice(0, 40));
  }
  assert.equal(splitEntityArray(bytes('{"_id":"one"}')), undefined, 'one entity object is not cut');
  assert.equal(splitEntityArray(bytes('[{"_id":"a"}]')), undefined, 'no second entity to cut before');
});

test('a "},{" inside a string or a nested list is never taken for the cut', () => {
  const inString = [{ _id: 'a', pad: 'x'.repeat(40) }, { _id: 'b', text: 'ends },{ here', more: '\\"},{' }, { _id: 'c' }, { _id: 'd' }];
  assert.deepEqual(parseHalves(splitEntityArray(bytes(JSON.stringify(inString)))), inString);
  const inList = [{ _id: 'a', pad: 'x'.repeat(30) }, { _id: 'b', list: [{ x: 1 }, { y: [{ z: 2 }, { w: 3 }] }] }, { _id: 'c' }, { _id: 'd' }];
  assert.deepEqual(parseHalves(splitEntityArray(bytes(JSON.stringify(inList)))), inList);
  // Not an array of objects past the middle, or broken off: not cut (the body is parsed whole).
  assert.equal(splitEntityArray(bytes('[{"_id":"a"}, 5, 6, 7, 8, 9]')), undefined);
  assert.equal(splitEntityArray(bytes('[{"_id":"a"},{"_id":"b","open":[{"x":1},{"y":2}')), undefined);
});

test('strings full of quotes, backslashes and brackets never move the cut: random entities, many seeds', () => {
  // A small generator of its own (deterministic): strings drawn from the characters that matter to the scan.
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const alphabet = ['"', '\\', '}', '{', ',', '[', ']', 'a', ' ', 'ø', '😀'];
  const text = (): string => Array.from({ length: next(12) }, () => alphabet[next(alphabet.length)]!).join('');
  let cut = 0;
  for (let round = 0; round < 300; round++) {
    const list = Array.from({ length: 4 + next(10) }, (_, i) => ({ _id: `e${i}${text()}`, s: text(), nested: { [text()]: [text(), { t: text() }] } }));
    const body = JSON.stringify(list);
    const halves = splitEntityArray(bytes(body));
    // Not cut only when no entity of the array ends past the middle with another one after it.
    const ends = list.map((_, i) => Buffer.byteLength(JSON.stringify(list.slice(0, i + 1))) - 1).slice(0, -1);
    const middle = Buffer.byteLength(body) >> 1;
    if (halves === undefined) assert.ok(ends.every((end) => end <= middle), body);
    else {
      cut++;
      assert.deepEqual(parseHalves(halves), list, body);
      assert.equal(halves[0].length - 1, ends.find((end) => end > middle), 'cut after the first entity that ends past the middle');
    }
  }
  assert.ok(cut > 150, `most bodies are cut (${cut} of 300)`);
  // Runs of backslashes right before a quote: an even run ends the string, an odd one escapes the quote.
  const runs = [{ _id: 'a', s: 'x\\\\' }, { _id: 'b', s: '\\"},{"' }, { _id: 'c', s: '\\\\\\"' }, { _id: 'd' }];
  assert.deepEqual(parseHalves(splitEntityArray(bytes(JSON.stringify(runs)))), runs);
});

describe('a large push parsed in two halves', () => {
  const hub = useHub();

  test('writes every entity in the order sent, and a bad entity in the second half is named by its place in the body', async () => {
    await hub.json('/pipes', { method: 'POST', json: [{ _id: 'big', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'big' } }] });
    // Strings full of "},{" and brackets: any cut among them must not change what is stored.
    const sent = Array.from({ length: 12_000 }, (_, i) => ({ _id: `e${i}`, n: i, text: `"},{" ] } , [ { ${i}`, list: [{ a: i }, { b: `},{${i}` }] }));
    const body = JSON.stringify(sent);
    assert.ok(body.length > 1024 * 1024, 'over 1 MB: parsed in halves');
    const post = (text: string): Promise<Response> =>
      hub.fetch('/receivers/big/entities', { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
    const ok = await post(body);
    const reply = (await ok.json()) as { received: number; written: number };
    assert.equal(ok.status, 200, JSON.stringify(reply));
    assert.deepEqual([reply.received, reply.written], [12_000, 12_000]);
    const stored = await hub.json<{ _id: string; _updated: number; n: number; text: string; list: unknown }[]>('/datasets/big/entities?history=false');
    assert.equal(stored.length, 12_000);
    assert.deepEqual(stored.map((e) => e._id), sent.map((e) => e._id), 'stored in the order sent');
    assert.deepEqual(stored.map((e) => [e.n, e.text, e.list]), sent.map((e) => [e.n, e.text, e.list]));

    // Entity #9000 (in the second half) has no _id: 400 naming it, nothing written.
    const bad = sent.map((e, i) => (i === 9000 ? { n: -1 } : { ...e, n: e.n + 1 }));
    const res = await post(JSON.stringify(bad));
    assert.equal(res.status, 400);
    const err = (await res.json()) as { message: string; detail?: string };
    assert.match(`${err.message} ${err.detail ?? ''}`, /entity #9000 has no _id/);
    const after = await hub.json<{ n: number }>('/datasets/big/entities/e1');
    assert.equal(after.n, 1, 'the rejected body wrote nothing');
  });
});

// Entities cross to a pipe worker that runs only a transform, and back, as JSON text
// (hub-core/pipes/workers/entity-text.ts): what arrives must be what the hub's thread would have had, so that a sink
// writes the same text. A float literal a transform kept as written (1.0, a raw JSON value) stays one, an integer
// beyond ±2^53 stays exact, and plain numbers stay numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { floatLiteralText, type JsonObject } from '../../../hub-core/base/index.js';
import { entitiesFromText, entitiesToText } from '../../../hub-core/pipes/index.js';

const raw = (text: string): JsonObject[string] => (JSON as unknown as { rawJSON(t: string): JsonObject[string] }).rawJSON(text);

test('entities come back as they went: raw float literals, big integers and plain numbers', () => {
  const entities: JsonObject[] = [
    { _id: 'a', whole: raw('1.0'), neg: raw('-2.50e1'), nested: { list: [raw('3.00'), 0.1, 7] } },
    { _id: 'b', big: 12345678901234567890n, huge: 1e21, small: 1e-7, text: '1.0 and 12345678901234567890' },
  ];
  const back = entitiesFromText(entitiesToText(entities));
  assert.equal(JSON.stringify(back), JSON.stringify(entities), 'the same JSON text');
  assert.equal(floatLiteralText(back[0]!['whole']), '1.0');
  assert.equal(floatLiteralText(back[0]!['neg']), '-2.50e1');
  assert.equal(floatLiteralText((back[0]!['nested'] as { list: unknown[] }).list[0]), '3.00');
  assert.equal(typeof back[1]!['big'], 'bigint');
  assert.equal(back[1]!['big'], 12345678901234567890n);
  assert.equal(back[1]!['huge'], 1e21, 'a number JSON writes with an exponent stays a number');
  assert.equal(back[1]!['small'], 1e-7);
  assert.equal(back[1]!['text'], '1.0 and 12345678901234567890');
});

test('plain entities take the plain parse and come back equal', () => {
  const entities: JsonObject[] = [{ _id: 'x', n: 3, f: 2.5, s: 'é\u2028', list: [null, true, { k: [] }] }];
  assert.deepEqual(entitiesFromText(entitiesToText(entities)), entities);
});

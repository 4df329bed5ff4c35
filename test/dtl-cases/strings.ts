// Table cases of the DTL strings functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const STRINGS: ExpressionTable = {
  string: [
    { expr: ['string', 1], result: '1' }, // docs
    { expr: ['string', 'hello'], result: 'hello' }, // docs
    {
      expr: ['string', ['list', 'abc', ['list', 1, 2, 3], { b: 2, a: 1 }, '~rhttp://www.bouvet.no/', 124.4, 12345]],
      result: ['abc', '[1, 2, 3]', '{"a": 1, "b": 2}', 'http://www.bouvet.no/', '124.4', '12345'],
    }, // docs
    { expr: ['string', null], result: null },
    { expr: ['string', ['list', null, true]], result: ['true'] },
    { expr: ['string', '~:ns:id'], result: 'ns:id' },
    { expr: ['string', '~f1.50'], result: '1.50' },
    { expr: ['string', '~t2015-07-28T09:46:00.12345Z'], result: '2015-07-28T09:46:00.12345Z' },
    { expr: ['string', ['datetime-parse', '%Y', '2001']], result: '2001-01-01T00:00:00Z' },
    { expr: ['string'], error: /exactly 1 argument/ },
  ],
  concat: [
    { expr: ['concat', ['list', 'a', 'b', 'c']], result: 'abc' }, // docs
    { expr: ['concat', '_S.tags'], source: { tags: ['x', 'y'] }, result: 'xy' }, // docs
    { expr: ['concat', 'Hello ', '_S.name', '!'], source: { name: 'John' }, result: 'Hello John!' }, // docs
    { expr: ['concat', 'a', ['list', 'b', 'c'], 'd', 123, ['list', '!']], result: 'abcd!' }, // docs
    { expr: ['concat', 123, 3.14], result: '' }, // docs
    { expr: ['concat', ['list', '_S.firstname', ' ', '_S.lastname']], source: { firstname: 'A', lastname: 'B' }, result: 'A B' }, // docs
    { expr: ['concat', null], result: '' },
    { expr: ['concat', ['list', ['list', 'nested'], 'b']], result: 'b' },
    { expr: ['concat', '~:ns:id', 'x'], result: 'x' },
    { expr: ['concat'], error: /at least 1 argument/ },
  ],
  split: [
    { expr: ['split', '-', 'a-b-c'], result: ['a', 'b', 'c'] }, // docs
    { expr: ['split', '-', ['list', 'a-b', 'c-d', 'e']], result: ['a', 'b', 'c', 'd', 'e'] }, // docs
    { expr: ['split', '-', '_S.uuid'], source: { uuid: '1-2' }, result: ['1', '2'] }, // docs
    { expr: ['split', '  two  words\n'], result: ['two', 'words'] },
    { expr: ['split', ',', null], result: [] },
    { expr: ['split', ',', 123], result: [] },
    { expr: ['split', '-', ['list', 'a-', 5]], result: ['a', ''] },
    { expr: ['split', ', ', 'a, b,c'], result: ['a', 'b,c'] },
    { expr: ['split', '', 'abc'], error: /separator must not be empty/ },
    { expr: ['split', 1, 'abc'], error: /SEPARATOR of "split" must be a literal string/ },
  ],
  lower: [
    { expr: ['lower', ['list', 'A', 'B', 'C']], result: ['a', 'b', 'c'] }, // docs
    { expr: ['lower', '_S.name'], source: { name: 'ÆØÅ Ann' }, result: 'æøå ann' }, // docs
    { expr: ['lower', null], result: null },
    { expr: ['lower', 123], result: null },
    { expr: ['lower', ['list', 'A', 1, null, '~:X']], result: ['a'] },
    { expr: ['lower'], error: /exactly 1 argument/ },
  ],
  upper: [
    { expr: ['upper', ['list', 'a', 'b', 'c']], result: ['A', 'B', 'C'] }, // docs
    { expr: ['upper', '_S.name'], source: { name: 'Ann' }, result: 'ANN' }, // docs
    { expr: ['upper', null], result: null },
    { expr: ['upper', true], result: null },
    { expr: ['upper', ['list', 'a', { b: 1 }]], result: ['A'] },
    { expr: ['upper', 'a', 'b'], error: /exactly 1 argument, not 2/ },
  ],
  replace: [
    { expr: ['replace', 'http://', 'https://', 'http://www.sesam.io/'], result: 'https://www.sesam.io/' }, // docs
    { expr: ['replace', ':', '.', '_S.date'], source: { date: '10:15:00' }, result: '10.15.00' }, // docs
    { expr: ['replace', 'a', 'b', null], result: null },
    { expr: ['replace', 'a', 'b', ['list', 'aa', 1, 'ba']], result: ['bb', 'bb'] },
    { expr: ['replace', 'a', '$&$&', 'abc'], result: '$&$&bc' },
    { expr: ['replace', '.', '', 'a.b.c'], result: 'abc' },
    { expr: ['replace', 'a', 'b', 1], result: null },
    { expr: ['replace', ['list', 'a'], 'b', 'c'], error: /OLD_STRING of "replace" must be a literal string/ },
  ],
  matches: [
    { expr: ['matches', 'a*p*a', ['list', 'alpha', 'alpaca']], result: true }, // docs
    { expr: ['matches', '*_sport', '_S.tags'], source: { tags: ['ski_sport', 'golf_sport'] }, result: true }, // docs
    { expr: ['matches', '*_sport', '_S.tags'], source: { tags: ['ski_sport', 'chess'] }, result: false },
    { expr: ['matches', 'a?c', 'abc'], result: true },
    { expr: ['matches', 'a.c', 'abc'], result: false },
    { expr: ['matches', 'a.c', 'a.c'], result: true },
    { expr: ['matches', '*', null], result: false },
    { expr: ['matches', '*', ['list']], result: false },
    { expr: ['matches', '*', ['list', 'x', 1]], result: false },
    { expr: ['matches', '_S.p', 'abc'], source: { p: ['a*', 'z*'] }, result: true },
    { expr: ['matches', 'x*'], error: /exactly 2 arguments/ },
  ],
};

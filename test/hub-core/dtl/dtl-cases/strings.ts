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
    { expr: ['split', '', 'abc'], result: ['a', 'b', 'c'] }, // docs
    { expr: ['split', '', ['list', 'ab', 'cd', 'e']], result: ['a', 'b', 'c', 'd', 'e'] }, // docs
    { expr: ['split', '', 'æ😀'], result: ['æ', '😀'] },
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
    { expr: ['replace', { Hello: 'HELLO', world: 'WORLD' }, 'Hello world!'], result: 'HELLO WORLD!' }, // docs
    { expr: ['replace', ['dict', 'a', 'A', 'b', 'B'], 'abc'], result: 'ABc' }, // docs
    { expr: ['replace', '_S.map', ['list', 'ab', 7, 'ba']], source: { map: { a: 'x' } }, result: ['xb', 'bx'] },
    { expr: ['replace', '_S.map', 'abc'], source: { map: 'a' }, result: null },
    { expr: ['replace', { a: 'b', b: 'c' }, 'ab'], result: 'cc' },
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
  join: [
    { expr: ['join', '-', ['list', 'a', 'b', 123, 'c']], result: 'a-b-c' }, // docs
    { expr: ['join', '-', '_S.tags'], source: { tags: ['a', 'b'] }, result: 'a-b' }, // docs
    { expr: ['join', ', ', 'single'], result: 'single' },
    { expr: ['join', '', ['list', 'a', 'b']], result: 'ab' },
    { expr: ['join', '-', null], result: '' },
    { expr: ['join', '-', ['list', '~:ns:x', 'y', null, ['list', 'z']]], result: 'y' },
    { expr: ['join', 1, 'a'], error: /SEPARATOR of "join" must be a literal string/ },
    { expr: ['join', '-'], error: /exactly 2 arguments/ },
  ],
  length: [
    { expr: ['length', ['list', '', 'a', 'bb', 'ccc']], result: [0, 1, 2, 3] }, // docs
    { expr: ['length', '_S.name'], source: { name: 'John' }, result: 4 }, // docs
    { expr: ['length', 'æøå'], result: 3 },
    { expr: ['length', ['list', '😀a', 5, ['list', 'x']]], result: [2] },
    { expr: ['length', '~rhttp://x'], result: null },
    { expr: ['length', 123], result: null },
    { expr: ['length', null], result: null },
  ],
  strip: [
    { expr: ['strip', ['list', ' ab ', 'cd ', 'ef']], result: ['ab', 'cd', 'ef'] }, // docs
    { expr: ['strip', '  abc'], result: 'abc' }, // docs
    { expr: ['strip', '_S.name'], source: { name: '  John \n' }, result: 'John' }, // docs
    { expr: ['strip', 'xy', ['list', '123xyx', 'xy456yx']], result: ['123', '456'] }, // docs
    { expr: ['strip', '\u00a0\tx y\u3000'], result: 'x y' },
    { expr: ['strip', '', ' a '], result: ' a ' },
    { expr: ['strip', '😀', '😀a😀'], result: 'a' },
    { expr: ['strip', ['list', 5, null, ' x']], result: ['x'] },
    { expr: ['strip', null], result: null },
    { expr: ['strip', 5], result: null },
    { expr: ['strip', ['list', 'x'], 'a'], error: /CHARACTERS of "strip" must be a literal string/ },
  ],
  lstrip: [
    { expr: ['lstrip', ['list', ' ab ', 'cd ', 'ef']], result: ['ab ', 'cd ', 'ef'] }, // docs
    { expr: ['lstrip', '  abc'], result: 'abc' }, // docs
    { expr: ['lstrip', 'xy', ['list', '123xyx', 'xy456yx']], result: ['123xyx', '456yx'] }, // docs
    { expr: ['lstrip', '0', '000120'], result: '120' },
    { expr: ['lstrip', null], result: null },
    { expr: ['lstrip', ['list', 1, ' a']], result: ['a'] },
  ],
  rstrip: [
    { expr: ['rstrip', ['list', ' ab ', 'cd ', 'ef']], result: [' ab', 'cd', 'ef'] }, // docs
    { expr: ['rstrip', '  abc'], result: '  abc' }, // docs
    { expr: ['rstrip', 'xy', ['list', '123xyx', 'xy456yx']], result: ['123', 'xy456'] }, // docs
    { expr: ['rstrip', 'x😀', 'ab😀x😀'], result: 'ab' },
    { expr: ['rstrip', null], result: null },
    { expr: ['rstrip', true], result: null },
  ],
  ljust: [
    { expr: ['ljust', 10, '0', '123'], result: '1230000000' }, // docs
    { expr: ['ljust', 5, ' ', ['list', 'abc', 'def', 'ghijklm']], result: ['abc  ', 'def  ', 'ghijklm'] }, // docs
    { expr: ['ljust', 3, '-', 'é'], result: 'é--' },
    { expr: ['ljust', '_S.w', '_S.c', 'x'], source: { w: 3, c: '.' }, result: 'x..' },
    { expr: ['ljust', -1, '-', 'x'], result: 'x' },
    { expr: ['ljust', 4, '-', ['list', 1, 'ab', null]], result: ['ab--'] },
    { expr: ['ljust', 5, 'ab', 'x'], result: null },
    { expr: ['ljust', '_S.w', '*', 'x'], source: { w: 'a' }, result: null },
    { expr: ['ljust', 2, '-', null], result: null },
    { expr: ['ljust', 1.5, '-', 'x'], error: /WIDTH of "ljust" must be an integer/ },
  ],
  rjust: [
    { expr: ['rjust', 10, '0', '123'], result: '0000000123' }, // docs
    { expr: ['rjust', 5, ' ', ['list', 'abc', 'def', 'ghijklm']], result: ['  abc', '  def', 'ghijklm'] }, // docs
    { expr: ['rjust', 4, '😀', 'ab'], result: '😀😀ab' },
    { expr: ['rjust', 3, '0', ['list', '7', 7]], result: ['007'] },
    { expr: ['rjust', 3, '', 'x'], result: null },
    { expr: ['rjust', 3, 0, 'x'], result: null },
    { expr: ['rjust', 3, '0', null], result: null },
    { expr: ['rjust', 3, '0'], error: /exactly 3 arguments/ },
  ],
  substring: [
    { expr: ['substring', 2, 4, 'abcdef'], result: 'cd' }, // docs
    { expr: ['substring', 2, 'abcdef'], result: 'cdef' }, // docs
    { expr: ['substring', -3, -1, 'abcdef'], result: 'de' }, // docs
    { expr: ['substring', 0, 100, 'abc'], result: 'abc' },
    { expr: ['substring', 5, 'abc'], result: '' },
    { expr: ['substring', 2, 1, 'abc'], result: '' },
    { expr: ['substring', -2, 'abc'], result: 'bc' },
    { expr: ['substring', -10, 1, 'abc'], result: 'a' },
    { expr: ['substring', 1, 2, '😀😁😂'], result: '😁' },
    { expr: ['substring', 1, ['list', 'abc', 5, 'de']], result: ['bc', 'e'] },
    { expr: ['substring', '_S.i', 'abc'], source: { i: 'x' }, result: null },
    { expr: ['substring', 1, null], result: null },
    { expr: ['substring', 'a', 'abc'], error: /START_INDEX of "substring" must be an integer/ },
  ],
  'is-string': [
    { expr: ['is-string', 'foo:bar'], result: true }, // docs
    { expr: ['is-string', 1], result: false }, // docs
    { expr: ['is-string', ['list', 'foo:bar', 12345]], result: true }, // docs
    { expr: ['is-string', ['list', 1, 'foo:bar']], result: false }, // docs
    { expr: ['is-string', '~rhttp://x'], result: false },
    { expr: ['is-string', ['list']], result: false },
    { expr: ['is-string', null], result: false },
  ],
};

// Table cases of the DTL lists functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const LISTS: ExpressionTable = {
  list: [
    { expr: ['list'], result: [] }, // docs
    { expr: ['list', 'a', 'b', 'c'], result: ['a', 'b', 'c'] }, // docs
    { expr: ['list', 'a', ['list', 'b'], 'c'], result: ['a', ['b'], 'c'] }, // docs
    { expr: ['list', null, '_S.x', '_S.tags'], source: { x: 1, tags: [2, 3] }, result: [null, 1, [2, 3]] },
    { expr: ['list', ['datetime-parse', '%Y', '2020'], 1, 2, 3], result: ['~t2020-01-01T00:00:00Z', 1, 2, 3] },
    { expr: ['list', ['nope']], error: /unknown function "nope"/ },
  ],
  first: [
    { expr: ['first', ['list', 'a', 'b', 'c']], result: 'a' }, // docs
    { expr: ['first', '_S.tags'], source: { tags: ['x', 'y'] }, result: 'x' }, // docs
    { expr: ['first', 123], result: 123 }, // docs
    { expr: ['first', null], result: null },
    { expr: ['first', ['list']], result: null },
    { expr: ['first', ['list', ['list', 1, 2], 3]], result: [1, 2] },
    { expr: ['first'], error: /exactly 1 argument/ },
  ],
  last: [
    { expr: ['last', ['list', 'a', 'b', 'c']], result: 'c' }, // docs
    { expr: ['last', '_S.tags'], source: { tags: ['x', 'y'] }, result: 'y' }, // docs
    { expr: ['last', 'x'], result: 'x' },
    { expr: ['last', null], result: null },
    { expr: ['last', ['list']], result: null },
    { expr: ['last', 1, 2], error: /exactly 1 argument, not 2/ },
  ],
  count: [
    { expr: ['count', ['list', 2, 4, 6]], result: 3 }, // docs
    { expr: ['count', null], result: 0 }, // docs
    { expr: ['count', 123], result: 1 }, // docs
    { expr: ['count', '_S.orders'], source: { orders: [{}, {}] }, result: 2 }, // docs
    { expr: ['count', ['list', null]], result: 1 },
    { expr: ['count', { a: 1, b: 2 }], result: 1 },
    { expr: ['count'], error: /exactly 1 argument/ },
  ],
  'is-empty': [
    { expr: ['is-empty', '_S.hobbies'], source: { hobbies: [] }, result: true }, // docs
    { expr: ['is-empty', '_S.hobbies'], source: { hobbies: ['x'] }, result: false },
    { expr: ['is-empty', null], result: true },
    { expr: ['is-empty', ['list', null]], result: false },
    { expr: ['is-empty', ''], result: false },
    { expr: ['is-empty', {}], result: false },
    { expr: ['is-empty'], error: /exactly 1 argument/ },
  ],
  'is-not-empty': [
    { expr: ['is-not-empty', '_S.hobbies'], source: { hobbies: ['chess'] }, result: true }, // docs
    { expr: ['is-not-empty', '_S.hobbies'], source: {}, result: false },
    { expr: ['is-not-empty', null], result: false },
    { expr: ['is-not-empty', ['list']], result: false },
    { expr: ['is-not-empty', 0], result: true },
    { expr: ['is-not-empty', 1, 2], error: /exactly 1 argument/ },
  ],
  in: [
    { expr: ['in', 'a', ['list', 'a', 'b', 'c']], result: true }, // docs
    { expr: ['in', 'd', ['list', 'a', 'b', 'c']], result: false }, // docs
    { expr: ['in', ['list', 10], 10], result: true }, // docs
    { expr: ['in', ['list'], 10], result: false }, // docs
    { expr: ['in', null, ['list', null]], result: false }, // docs
    { expr: ['in', ['list', null], ['list', 1, null, 2]], result: true }, // docs
    { expr: ['in', ['list', 'a', 'c'], ['list', 'a', 'b', 'c']], result: true }, // docs
    { expr: ['in', ['list', 'a', 'c', 'd'], ['list', 'a', 'b', 'c']], result: false }, // docs
    { expr: ['in', 1, null], result: false },
    { expr: ['in', '~f1.0', ['list', 2, 1]], result: true },
    { expr: ['in', { a: 1 }, ['list', { a: 1 }]], result: true },
    { expr: ['in', '_S.x', '_S.many'], source: { x: [5, 60], many: Array.from({ length: 100 }, (_, i) => i) }, result: true },
    { expr: ['in', '_S.x', '_S.many'], source: { x: [5, 600], many: Array.from({ length: 100 }, (_, i) => i) }, result: false },
    { expr: ['in', 'a'], error: /exactly 2 arguments/ },
  ],
  map: [
    { expr: ['map', ['lower', '_.'], ['list', 'A', 'B', 'C']], result: ['a', 'b', 'c'] }, // docs
    { expr: ['map', ['first', '_.'], ['list', ['list', 'A', 'A'], ['list', 'B', 'C']]], result: ['A', 'B'] },
    { expr: ['map', ['upper', '_.name'], '_S.people'], source: { people: [{ name: 'x' }, { name: 'y' }] }, result: ['X', 'Y'] },
    { expr: ['map', '_.', null], result: [] },
    { expr: ['map', ['list', '_.', '_.'], 'x'], result: [['x', 'x']] },
    { expr: ['map', ['upper', '_.'], ['list', 1, 'a']], result: [null, 'A'] },
    { expr: ['map', ['lower', '_.']], error: /exactly 2 arguments, not 1/ },
  ],
  filter: [
    { expr: ['filter', ['gt', '_.age', 42], ['list', { age: 30 }, { age: 50 }, { age: 40 }]], result: [{ age: 50 }] }, // docs
    { expr: ['filter', ['gt', '_.amount', 100], '_S.orders'], source: { orders: [{ amount: 200 }, { amount: 5 }] }, result: [{ amount: 200 }] }, // docs
    { expr: ['filter', '_.', ['list', 1, null, false, 2, ['list']]], result: [1, 2] },
    { expr: ['filter', true, null], result: [] },
    { expr: ['filter', true, 'x'], result: ['x'] },
    { expr: ['filter', ['eq', '_.', 'a']], error: /exactly 2 arguments, not 1/ },
  ],
  combine: [
    { expr: ['combine', null], result: [] }, // docs
    { expr: ['combine', 1], result: [1] }, // docs
    { expr: ['combine', 1, 4], result: [1, 4] }, // docs
    { expr: ['combine', 1, ['list', 2, 3]], result: [1, 2, 3] }, // docs
    { expr: ['combine', 1, ['list', 2, 3, ['list', 4]]], result: [1, 2, 3, [4]] }, // docs
    { expr: ['combine', ['list', 1, 2], ['list', 3, 4], 5], result: [1, 2, 3, 4, 5] }, // docs
    { expr: ['combine', '_S.a', '_S.missing', '_S.b'], source: { a: [1], b: 'x' }, result: [1, 'x'] },
    { expr: ['combine', ['list', null, 1], { k: 1 }, '~f1.5'], result: [null, 1, { k: 1 }, '~f1.5'] },
    { expr: ['combine', ['list'], ['list']], result: [] },
    { expr: ['combine'], error: /at least 1 argument, not 0/ },
  ],
  flatten: [
    { expr: ['flatten', ['list', 1, 2, ['list', 3, 4]]], result: [1, 2, 3, 4] }, // docs
    { expr: ['flatten', ['list', ['list', 1, 2], ['list', 3, ['list', 4], 5]]], result: [1, 2, 3, [4], 5] }, // docs
    { expr: ['flatten', ['list', '_S.sisters', '_S.brothers']], source: { sisters: ['Ann', 'Eve'], brothers: 'Bob' }, result: ['Ann', 'Eve', 'Bob'] }, // docs
    { expr: ['flatten', ['list', '_S.sisters', '_S.brothers']], source: { brothers: ['Bob'] }, result: ['Bob'] },
    { expr: ['flatten', null], result: [] },
    { expr: ['flatten', 'x'], result: ['x'] },
    { expr: ['flatten', ['list', null, ['list', null], { a: [1] }]], result: [null, { a: [1] }] },
    { expr: ['flatten', ['list', ['list', ['datetime-parse', '%Y', '2020']], '~f1.5']], result: ['~t2020-01-01T00:00:00Z', '~f1.5'] },
    { expr: ['flatten'], error: /exactly 1 argument, not 0/ },
  ],
  distinct: [
    { expr: ['distinct', ['list', 4, 2, 5, 4, 3]], result: [4, 2, 5, 3] }, // docs
    { expr: ['distinct', '_S.tags'], source: { tags: ['a', 'b', 'a', 'c', 'b'] }, result: ['a', 'b', 'c'] }, // docs
    {
      expr: ['distinct', '_.ean', '_S.orders.line_item'],
      source: { orders: [{ line_item: [{ ean: 1, q: 1 }, { ean: 2, q: 1 }] }, { line_item: [{ ean: 1, q: 5 }] }] },
      result: [{ ean: 1, q: 1 }, { ean: 2, q: 1 }],
    }, // docs
    { expr: ['map', ['distinct', '_.'], ['list', ['list', 'A', 'A'], ['list', 'B', 'C']]], result: [['A'], ['B', 'C']] }, // docs (map)
    { expr: ['distinct', ['list', 1, 1.0, '~f1.00', 2, '2']], result: [1, 2, '2'] },
    { expr: ['distinct', ['list', { a: 1, b: 2 }, { b: 2, a: 1 }, ['list', 1], ['list', '~f1.0']]], result: [{ a: 1, b: 2 }, [1]] },
    { expr: ['distinct', ['list', null, null, false, ['list']]], result: [null, false, []] },
    { expr: ['distinct', null], result: [] },
    { expr: ['distinct', 'x'], result: ['x'] },
    { expr: ['distinct', ['upper', '_.'], ['list', 'a', 'A', 1, 2, 'b']], result: ['a', 1, 'b'] },
    { expr: ['distinct', '_.', '_.', 'x'], error: /1 to 2 arguments, not 3/ },
  ],
  enumerate: [
    { expr: ['enumerate', 'a'], result: { key: 0, value: 'a' } }, // docs
    { expr: ['enumerate', 1, 'a'], result: { key: 1, value: 'a' } }, // docs
    { expr: ['enumerate', ['list', 17, 32, 21]], result: [{ key: 0, value: 17 }, { key: 1, value: 32 }, { key: 2, value: 21 }] }, // docs
    { expr: ['enumerate', 2, ['list', 17, 32, 21]], result: [{ key: 2, value: 17 }, { key: 3, value: 32 }, { key: 4, value: 21 }] }, // docs
    { expr: ['enumerate', null], result: null },
    { expr: ['enumerate', ['list']], result: [] },
    { expr: ['enumerate', -1, ['list', 'a', null]], result: [{ key: -1, value: 'a' }, { key: 0, value: null }] },
    { expr: ['enumerate', '_S.start', 'x'], source: { start: 5 }, result: { key: 5, value: 'x' } },
    { expr: ['enumerate', '_S.start', 'x'], source: { start: 'five' }, result: null },
    { expr: ['enumerate', 1.5, 'x'], error: /START of "enumerate" must be an integer/ },
    { expr: ['enumerate', 'one', 'x'], error: /START of "enumerate" must be an integer or an integer expression/ },
  ],
  group: [
    {
      expr: ['group', ['first', '_.'], ['nth', 1, '_.'], ['list', ['list', 'Adresse1', 'A'], ['list', 'Adresse2', 'B'], ['list', 'Adresse2', 'C']]],
      result: [['Adresse1', ['A']], ['Adresse2', ['B', 'C']]],
    }, // docs
    { expr: ['group', ['upper', '_.'], ['lower', '_.'], 'Hello'], result: [['HELLO', ['hello']]] }, // docs
    {
      expr: ['dict', ['group', ['first', '_.'], ['nth', 1, '_.'], ['list', ['list', 'Adresse1', 'A'], ['list', 'Adresse2', 'B'], ['list', 'Adresse2', 'C']]]],
      result: { Adresse1: ['A'], Adresse2: ['B', 'C'] },
    }, // docs
    { expr: ['group', '_.k', '_.v', ['list', { k: 1, v: 'a' }, { k: '~f1.0', v: 'b' }, { k: 2, v: 'c' }]], result: [[1, ['a', 'b']], [2, ['c']]] },
    { expr: ['group', '_.k', '_.', ['list', { v: 1 }, { k: 'x' }, { v: 2 }]], result: [[null, [{ v: 1 }, { v: 2 }]], ['x', [{ k: 'x' }]]] },
    { expr: ['group', '_.', '_.', null], result: [] },
    { expr: ['group', '_.', '_.', ['list', ['list', 1], ['list', 1]]], result: [[[1], [[1], [1]]]] },
    { expr: ['group', '_.', 'x'], error: /exactly 3 arguments, not 2/ },
  ],
  'group-by': [
    { expr: ['group-by', ['upper', '_.'], ['list', 'a', 'b']], result: { '"A"': ['a'], '"B"': ['b'] } }, // docs
    { expr: ['group-by', ['upper', '_.'], ['string', '_.'], ['list', 'a', 'b']], result: { A: ['a'], B: ['b'] } }, // docs
    // docs, with a number property standing in for ["length", "_."] (string length belongs to another family)
    { expr: ['group-by', '_.len', '_S.words'], source: { words: [{ w: 'phi', len: 3 }, { w: 'alpha', len: 5 }, { w: 'rho', len: 3 }] }, result: { '3': [{ w: 'phi', len: 3 }, { w: 'rho', len: 3 }], '5': [{ w: 'alpha', len: 5 }] } },
    {
      expr: ['group-by', '_.gender', '_S.people'],
      source: { people: [{ n: 'a', gender: 'f' }, { n: 'b', gender: 'm' }, { n: 'c', gender: 'f' }] },
      result: { '"f"': [{ n: 'a', gender: 'f' }, { n: 'c', gender: 'f' }], '"m"': [{ n: 'b', gender: 'm' }] },
    }, // docs
    { expr: ['group-by', ['list', 1, 'a', 1, true]], result: { '1': [1, 1], '"a"': ['a'], true: [true] } },
    { expr: ['group-by', '_.d', ['list', { d: '~f1.50' }, { d: 1.5 }, { d: '~t2020-01-01T00:00:00Z' }]], result: { '"~f1.50"': [{ d: '~f1.50' }, { d: 1.5 }], '"~t2020-01-01T00:00:00Z"': [{ d: '~t2020-01-01T00:00:00Z' }] } },
    { expr: ['group-by', '_.k', ['list', { k: { b: 1, a: [1, 'x'] } }, {}]], result: { '{"a": [1, "x"], "b": 1}': [{ k: { b: 1, a: [1, 'x'] } }], null: [{}] } },
    { expr: ['group-by', '_.', ['integer', '_.'], ['list', '1', 1, 'x']], result: { '1': ['1', 1], null: ['x'] } },
    { expr: ['group-by', '_.', null], result: {} },
    { expr: ['group-by', '_.', '_.', '_.', 'x'], error: /1 to 3 arguments, not 4/ },
  ],
  insert: [
    { expr: ['insert', 1, 2, 3], result: [2, 3] }, // docs
    { expr: ['insert', 1, ['list', 1, 2], ['list', 3, 4]], result: [1, [3, 4], 2] }, // docs
    { expr: ['insert', -2, ['list', 1, 2, 3], 4], result: [1, 4, 2, 3] }, // docs
    { expr: ['insert', 10, ['list', 1], 2], result: [1, 2] },
    { expr: ['insert', -10, ['list', 1], 2], result: [2, 1] },
    { expr: ['insert', 0, null, 'x'], result: ['x'] },
    { expr: ['insert', 0, ['list'], null], result: [null] },
    { expr: ['insert', '_S.i', ['list', 1, 3], 2], source: { i: '~f1' }, result: [1, 2, 3] },
    { expr: ['insert', '_S.i', ['list', 1, 3], 2], source: { i: 'x' }, result: null },
    { expr: ['insert', 'a', ['list'], 1], error: /INDEX of "insert" must be an integer/ },
    { expr: ['insert', 0, ['list']], error: /exactly 3 arguments, not 2/ },
  ],
  'is-list': [
    { expr: ['is-list', ['list', 'foo:bar']], result: true }, // docs
    { expr: ['is-list', 'foo:bar'], result: false }, // docs
    { expr: ['is-list', ['list', '~rfoo:bar', 12345]], result: true }, // docs (a tagged URI for ["uri", ...])
    { expr: ['is-list', ['dict', '1', 2]], result: false }, // docs
    { expr: ['is-list', null], result: false },
    { expr: ['is-list', ['list']], result: true },
    { expr: ['is-list', '_S.tags'], source: { tags: [] }, result: true },
    { expr: ['is-list', '_S.tags'], source: {}, result: false },
    { expr: ['is-list', '~f1.5'], result: false },
    { expr: ['is-list'], error: /exactly 1 argument, not 0/ },
  ],
  'map-dict': [
    // docs, with ["sum", ["list", 1, "_."]] standing in for ["plus", 1, "_."] (plus belongs to another family)
    { expr: ['map-dict', ['upper', '_.'], ['sum', ['list', 1, '_.']], { A: 1, B: 2 }], result: { A: 2, B: 3 } },
    // docs, with ["matches", "???*", "_."] standing in for ["gt", ["length", "_."], 2]
    {
      expr: ['map-dict', ['if', ['matches', '???*', '_.'], ['concat', 'x:', '_.']], '_.', ['list', { abc: 1, ab: 2, abcd: 3 }, { def: 4 }, { gh: 5 }]],
      result: [{ 'x:abc': 1, 'x:abcd': 3 }, { 'x:def': 4 }],
    },
    { expr: ['map-dict', ['integer', '_.'], '_.', { '1': 'a' }], result: null },
    { expr: ['map-dict', ['datetime-parse', '%Y', '_.'], '_.', { '2020': 1, x: 2 }], result: null },
    { expr: ['map-dict', '_.', '_.', ['list', 1, { a: 1 }, null, 'x', {}]], result: [{ a: 1 }] },
    { expr: ['map-dict', '_.', '_.missing', { a: 1 }], result: { a: null } },
    { expr: ['map-dict', ['lower', '_.'], '_.', { A: 1, a: 2 }], result: { a: 2 } },
    { expr: ['map-dict', '_.', '_.', null], result: null },
    { expr: ['map-dict', '_.', '_.', '_S.'], source: { _id: 'x', n: ['~f1.5'] }, result: { _id: 'x', n: ['~f1.5'] } },
    { expr: ['map-dict', '_.', { a: 1 }], error: /exactly 3 arguments, not 2/ },
  ],
  'map-values': [
    { expr: ['map-values', ['lower', '_.'], { key1: 'A', key2: 'B' }], result: ['a', 'b'] }, // docs
    { expr: ['map-values', ['lower', '_.'], ['list', { key1: 'A', key2: 'B' }, 100, { key1: 'B', key2: 'A', key3: 'C' }]], result: ['a', 'b', 'b', 'a', 'c'] }, // docs
    { expr: ['map-values', '_.', null], result: [] },
    { expr: ['map-values', '_.', ['list', 1, 'x', ['list', { a: 1 }]]], result: [] },
    { expr: ['map-values', '_.', { a: [1, 2], b: null }], result: [[1, 2], null] },
    { expr: ['map-values', ['upper', '_.'], '_S.addresses'], source: { addresses: [{ city: 'oslo', zip: 1 }, { city: 'bergen' }] }, result: ['OSLO', null, 'BERGEN'] },
    { expr: ['map-values', ['upper', '_.'], { n: 1 }], result: [null] },
    { expr: ['map-values', '_.'], error: /exactly 2 arguments, not 1/ },
  ],
  max: [
    { expr: ['max', ['list', 4, 2, 5, 3]], result: 5 }, // docs
    { expr: ['max', ['list', 'b', 2, 'a', 3]], result: 'b' }, // docs
    { expr: ['max', ['list', { x: 1 }, 'b', 2, 'a']], result: { x: 1 } }, // docs
    { expr: ['max', '_.amount', '_S.orders'], source: { orders: [{ id: 1, amount: 5 }, { id: 2, amount: 50 }, { id: 3, amount: 7 }] }, result: { id: 2, amount: 50 } }, // docs
    { expr: ['max', null], result: null },
    { expr: ['max', ['list']], result: null },
    { expr: ['max', 7], result: 7 },
    { expr: ['max', ['list', 1, '~f2.5', 2]], result: '~f2.5' },
    { expr: ['max', ['list', '~t2021-01-01T00:00:00Z', ['datetime-parse', '%Y', '2020']]], result: '~t2021-01-01T00:00:00Z' },
    { expr: ['max', '_.a', ['list', { a: 1, n: 1 }, { a: '~f1.0', n: 2 }]], result: { a: 1, n: 1 } },
    { expr: ['max', ['list', null, 1, false]], result: 1 },
    { expr: ['max', '_.', '_.', 'x'], error: /1 to 2 arguments, not 3/ },
  ],
  min: [
    { expr: ['min', ['list', 4, 2, 5, 3]], result: 2 }, // docs
    { expr: ['min', ['list', 'b', 2, 'a', 3]], result: 2 }, // docs
    { expr: ['min', ['list', { x: 1 }, 'b', 'a']], result: 'a' }, // docs
    { expr: ['min', ['list', 'B', 'b', 'A', 'a']], result: 'A' }, // docs
    { expr: ['min', '_.amount', '_S.orders'], source: { orders: [{ id: 1, amount: 5 }, { id: 2, amount: 50 }, { id: 3, amount: 7 }] }, result: { id: 1, amount: 5 } }, // docs
    { expr: ['min', null], result: null },
    { expr: ['min', ['list']], result: null },
    { expr: ['min', 'x'], result: 'x' },
    { expr: ['min', ['list', '~f0.50', 1, 0.75]], result: '~f0.50' },
    { expr: ['min', ['list', 3, null, true]], result: null },
    { expr: ['min', ['list', 'b', ['list', 'a'], { a: 1 }]], result: 'b' },
    { expr: ['min'], error: /1 to 2 arguments, not 0/ },
  ],
  nth: [
    { expr: ['nth', 1, ['list', 'a', 'b', 'c']], result: 'b' }, // docs
    { expr: ['nth', 5, ['list', 'a', 'b', 'c']], result: null }, // docs
    { expr: ['nth', 1, '_S.tags'], source: { tags: ['x', 'y', 'z'] }, result: 'y' }, // docs
    { expr: ['nth', 0, 'x'], result: 'x' },
    { expr: ['nth', 1, 'x'], result: null },
    { expr: ['nth', -1, ['list', 'a', 'b']], result: 'b' },
    { expr: ['nth', -3, ['list', 'a', 'b']], result: null },
    { expr: ['nth', 0, null], result: null },
    { expr: ['nth', '_S.i', ['list', 'a', 'b', 'c']], source: { i: '~f2' }, result: 'c' },
    { expr: ['nth', '_S.i', ['list', 'a', 'b', 'c']], source: { i: 'x' }, result: null },
    { expr: ['nth', '_S.i', ['list', 'a', 'b', 'c']], source: {}, result: null },
    { expr: ['nth', 1.5, ['list']], error: /INDEX of "nth" must be an integer/ },
  ],
  range: [
    { expr: ['range', 0, 4], result: [0, 1, 2, 3] }, // docs
    { expr: ['range', 4, 0, -1], result: [4, 3, 2, 1] }, // docs
    { expr: ['range', 0, 10, 3], result: [0, 3, 6, 9] },
    { expr: ['range', -2, 2], result: [-2, -1, 0, 1] },
    { expr: ['range', 5, 5], result: [] },
    { expr: ['range', 5, 0], result: [] },
    { expr: ['range', 0, '_S.n'], source: { n: '~f3' }, result: [0, 1, 2] },
    { expr: ['range', 0, '_S.n'], source: { n: 'x' }, result: null },
    { expr: ['range', 0, 4, 0], error: /STEP of "range" must not be 0/ },
    { expr: ['range', 0, 4, '_S.s'], source: { s: 0 }, error: /range: STEP must not be 0/ },
    { expr: ['range', 0, 100_000_000], error: /more than the limit/ },
    { expr: ['range', 0], error: /2 to 3 arguments, not 1/ },
    { expr: ['range', 0, 'ten'], error: /STOP of "range" must be an integer/ },
  ],
  reversed: [
    { expr: ['reversed', ['list', 1, 3, 2]], result: [2, 3, 1] }, // docs
    { expr: ['reversed', ['sorted', '_S.tags']], source: { tags: ['b', 'c', 'a'] }, result: ['c', 'b', 'a'] }, // docs
    { expr: ['reversed', null], result: null },
    { expr: ['reversed', 'abc'], result: 'abc' },
    { expr: ['reversed', ['list']], result: [] },
    { expr: ['reversed', ['list', ['list', 1, 2], 3]], result: [3, [1, 2]] },
    { expr: ['reversed', '_S.tags'], source: { tags: ['a', 'b'] }, result: ['b', 'a'] },
    { expr: ['reversed'], error: /exactly 1 argument, not 0/ },
  ],
  slice: [
    { expr: ['slice', 2, -2, 2, ['list', 0, 1, 2, 3, 4, 5, 6]], result: [2, 4] }, // docs
    { expr: ['slice', 2, ['list', 0, 1, 2, 3, 4, 5, 6]], result: [2, 3, 4, 5, 6] }, // docs
    { expr: ['slice', 1, 3, ['list', 'a', 'b', 'c', 'd']], result: ['b', 'c'] },
    { expr: ['slice', -2, ['list', 1, 2, 3]], result: [2, 3] },
    { expr: ['slice', 0, 100, ['list', 1]], result: [1] },
    { expr: ['slice', 5, ['list', 1]], result: [] },
    { expr: ['slice', 3, 0, -1, ['list', 0, 1, 2, 3, 4]], result: [3, 2, 1] },
    { expr: ['slice', -1, '_S.end', -1, ['list', 1, 2, 3]], source: {}, result: [3, 2, 1] },
    { expr: ['slice', 0, null], result: [] },
    { expr: ['slice', 0, 'x'], result: ['x'] },
    { expr: ['slice', '_S.s', ['list', 1, 2]], source: { s: 'a' }, result: null },
    { expr: ['slice', 0, 4, 0, ['list', 1]], error: /STRIDE of "slice" must not be 0/ },
    { expr: ['slice', 0, 4, '_S.z', ['list', 1]], source: { z: 0 }, error: /slice: STRIDE must not be 0/ },
    { expr: ['slice', ['list', 1]], error: /2 to 4 arguments, not 1/ },
  ],
  sorted: [
    { expr: ['sorted', ['list', 4, 2, 5, 4, 3]], result: [2, 3, 4, 4, 5] }, // docs
    { expr: ['sorted', ['list', 'b', 2, { x: 1 }, 'a', 4]], result: [2, 4, 'a', 'b', { x: 1 }] }, // docs
    { expr: ['sorted', ['list', { x: 1 }, { x: 'abc' }, { x: 2 }]], result: [{ x: 1 }, { x: 2 }, { x: 'abc' }] }, // docs
    { expr: ['sorted', '_.age', ['list', { age: 30 }, { age: 50 }, { age: 20 }]], result: [{ age: 20 }, { age: 30 }, { age: 50 }] }, // docs
    { expr: ['sorted', '_S.tags'], source: { tags: ['b', 'c', 'a'] }, result: ['a', 'b', 'c'] }, // docs
    { expr: ['sorted', null], result: null },
    { expr: ['sorted', 'x'], result: 'x' },
    { expr: ['sorted', '_.k', ['list', { k: 2, n: 1 }, { k: 1, n: 2 }, { k: 2, n: 3 }]], result: [{ k: 1, n: 2 }, { k: 2, n: 1 }, { k: 2, n: 3 }] },
    { expr: ['sorted', ['list', '~f1.5', 1, 2, '~f0.5']], result: ['~f0.5', 1, '~f1.5', 2] },
    { expr: ['sorted', ['list', '~t2021-01-01', '~t2020-06-01T00:00:00Z', null, true]], result: [null, true, '~t2020-06-01T00:00:00Z', '~t2021-01-01'] },
    { expr: ['sorted', ['list', 'b', 'B', 'a']], result: ['B', 'a', 'b'] },
    { expr: ['sorted', '_.', '_.', ['list']], error: /1 to 2 arguments, not 3/ },
  ],
  'sorted-descending': [
    { expr: ['sorted-descending', ['list', 4, 2, 5, 4, 3]], result: [5, 4, 4, 3, 2] }, // docs
    { expr: ['sorted-descending', ['list', 'b', 2, { x: 1 }, 'a', 4]], result: [{ x: 1 }, 'b', 'a', 4, 2] }, // docs
    { expr: ['sorted-descending', ['list', { x: 1 }, { x: 'abc' }, { x: 2 }]], result: [{ x: 'abc' }, { x: 2 }, { x: 1 }] }, // docs
    { expr: ['sorted-descending', '_.age', ['list', { age: 30 }, { age: 50 }, { age: 20 }]], result: [{ age: 50 }, { age: 30 }, { age: 20 }] }, // docs
    { expr: ['sorted-descending', '_S.tags'], source: { tags: ['b', 'c', 'a'] }, result: ['c', 'b', 'a'] }, // docs
    { expr: ['sorted-descending', null], result: null },
    { expr: ['sorted-descending', 3], result: 3 },
    { expr: ['sorted-descending', '_.k', ['list', { k: 1, n: 1 }, { k: 2, n: 2 }, { k: 1, n: 3 }]], result: [{ k: 2, n: 2 }, { k: 1, n: 1 }, { k: 1, n: 3 }] },
    { expr: ['sorted-descending', ['list', '~f1.5', 1, 2, '~f0.5', 'x']], result: ['x', 2, '~f1.5', 1, '~f0.5'] },
    { expr: ['sorted-descending'], error: /1 to 2 arguments, not 0/ },
  ],
  sum: [
    { expr: ['sum', ['list', 2, 4, 6]], result: 12 }, // docs
    { expr: ['sum', '_S.amounts'], source: { amounts: [10, 20.5, 1] }, result: 31.5 }, // docs
    { expr: ['sum', null], result: 0 },
    { expr: ['sum', ['list']], result: 0 },
    { expr: ['sum', 5], result: 5 },
    { expr: ['sum', ['list', 1, '2', true, null, { a: 1 }, ['list', 3], '~t2020-01-01']], result: 1 },
    { expr: ['sum', ['list', '~f0.1', '~f0.2']], result: '~f0.3' },
    { expr: ['sum', ['list', 0.1, 0.2]], result: 0.30000000000000004 },
    { expr: ['sum', ['list', '~f1.50', 0.25, 1]], result: '~f2.75' },
    { expr: ['sum', ['list', '~f1.50', '~f1.5']], result: '~f3.00' },
    { expr: ['sum', ['list', '~f-1.25', 1]], result: '~f-0.25' },
    { expr: ['sum', ['list', 9007199254740991, 1, -1]], result: 9007199254740991 },
    { expr: ['sum', '_S.lines.price'], source: { lines: [{ price: '~f19.99' }, { price: '~f0.01' }, {}] }, result: '~f20.00' },
    { expr: ['sum', 1, 2], error: /exactly 1 argument, not 2/ },
  ],
};

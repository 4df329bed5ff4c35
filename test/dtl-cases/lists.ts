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
};

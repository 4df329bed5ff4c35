// Table cases of the DTL sets functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const SETS: ExpressionTable = {
  union: [
    { expr: ['union', ['list', 'A', 'B'], ['list', 'B', 'C']], result: ['A', 'B', 'C'] }, // docs
    { expr: ['union', 'A', ['list', 'B', 'C']], result: ['A', 'B', 'C'] }, // docs
    { expr: ['union', ['list', 'a', 'a'], 'a'], result: ['a'] },
    { expr: ['union', ['list', 'B', 'C', 'B', 'D', 'A'], ['list', 'A', 'F', 'F', 'B', 'E', 'B', 'C']], result: ['B', 'C', 'D', 'A', 'F', 'E'] }, // docs
    { expr: ['union', null, null], result: [] },
    { expr: ['union', null, 'x'], result: ['x'] },
    { expr: ['union', ['list', 1], ['list', '~f1.0', 2]], result: [1, 2] },
    { expr: ['union', ['list', null], ['list', null, 1]], result: [null, 1] },
    { expr: ['union', ['list', { a: 1, b: 2 }], ['list', { b: 2, a: 1 }, ['list', 1]]], result: [{ a: 1, b: 2 }, [1]] },
    { expr: ['union', '_S.a', '_S.b'], source: { a: ['~:x:1'], b: ['~:x:1', '~:x:2'] }, result: ['~:x:1', '~:x:2'] },
    { expr: ['union', 'a'], error: /exactly 2 arguments, not 1/ },
  ],
  intersection: [
    { expr: ['intersection', ['list', 'A', 'B'], ['list', 'B', 'C']], result: ['B'] }, // docs
    { expr: ['intersection', 'B', ['list', 'B', 'C']], result: ['B'] }, // docs
    { expr: ['intersection', 'A', ['list', 'B', 'C']], result: [] }, // docs
    { expr: ['intersection', ['list', 'B', 'C', 'B', 'D', 'A'], ['list', 'A', 'F', 'F', 'B', 'E', 'B', 'C']], result: ['B', 'C', 'B', 'A'] }, // docs: repeats kept
    { expr: ['intersection', ['list', 1, 2, 2, 3], ['list', 3, 2]], result: [2, 2, 3] },
    { expr: ['intersection', null, ['list', 1]], result: [] },
    { expr: ['intersection', ['list', 1], null], result: [] },
    { expr: ['intersection', ['list', '~f2.0', 'x'], 2], result: ['~f2.0'] },
    { expr: ['intersection', ['list', ['list', 1], 1], ['list', ['list', 1]]], result: [[1]] },
    { expr: ['intersection', ['list', 1, '1'], '1'], result: ['1'] },
    { expr: ['is-not-empty', ['intersection', ['list', '~:hubspot:Person', '~:sesam:Person'], '_S.rdf:type']], source: { 'rdf:type': ['~:sesam:Person'] }, result: true }, // docs (a real configuration)
    { expr: ['intersection', 'a', 'b', 'c'], error: /exactly 2 arguments, not 3/ },
  ],
  difference: [
    { expr: ['difference', ['list', 'A', 'B'], ['list', 'B']], result: ['A'] }, // docs
    { expr: ['difference', 'A', ['list', 'B', 'C']], result: ['A'] }, // docs
    { expr: ['difference', ['list', 'A', 'B', 'C', 'D'], ['list', 'A', 'B', 'E']], result: ['C', 'D'] }, // docs
    { expr: ['difference', ['list', 'D', 'A', 'D', 'E', 'B'], ['list', 'A', 'F', 'F', 'B', 'C']], result: ['D', 'D', 'E'] }, // docs: repeats kept
    { expr: ['difference', ['list', 'a', 'a', 'b'], null], result: ['a', 'a', 'b'] },
    { expr: ['difference', null, 'a'], result: [] },
    { expr: ['difference', ['list', 1, 2], ['list', '~f1']], result: [2] },
    { expr: ['difference', ['list', 'a', 'A'], 'a'], result: ['A'] },
    { expr: ['difference', ['list', null, 1], ['list', 1]], result: [null] },
    { expr: ['difference', ['list', { a: 1 }, { a: 2 }], { a: 1 }], result: [{ a: 2 }] },
    { expr: ['difference'], error: /exactly 2 arguments, not 0/ },
  ],
  intersects: [
    { expr: ['intersects', ['list', 'A', 'B'], ['list', 'B', 'C']], result: true }, // docs
    { expr: ['intersects', 'B', ['list', 'B', 'C']], result: true }, // docs
    { expr: ['intersects', 'A', ['list', 'B', 'C']], result: false }, // docs
    { expr: ['intersects', null, ['list', 'B']], result: false },
    { expr: ['intersects', ['list'], ['list']], result: false },
    { expr: ['intersects', ['list', null], ['list', null]], result: true },
    { expr: ['intersects', '_S.type', ['list', '~:foo:Bar']], source: { type: ['~:foo:Baz', '~:foo:Bar'] }, result: true },
    { expr: ['intersects', ['datetime-parse', '%Y', '2020'], '~t2020-01-01T00:00:00Z'], result: true },
    { expr: ['intersects', 1, '1'], result: false },
    { expr: ['intersects', ['list', 1, 2, 3, 4, 5], '~f5.00'], result: true },
    { expr: ['intersects', 'a'], error: /exactly 2 arguments, not 1/ },
  ],
};

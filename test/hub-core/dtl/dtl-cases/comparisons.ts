// Table cases of the DTL comparisons functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const COMPARISONS: ExpressionTable = {
  eq: [
    { expr: ['eq', '_S.age', 42], source: { age: 42 }, result: true }, // docs
    { expr: ['eq', '_S.age', 42], source: { age: [42] }, result: true },
    { expr: ['eq', 1, 1.0], result: true },
    { expr: ['eq', 'a', 'b'], result: false },
    { expr: ['eq', null, null], result: true },
    { expr: ['eq', '_S.missing', null], result: true },
    { expr: ['eq', null, ['list']], result: false },
    { expr: ['eq', ['list', 1, 2], ['list', 1, 2]], result: true },
    { expr: ['eq', ['list', 1, 2], ['list', 2, 1]], result: false },
    { expr: ['eq', { a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }], result: true },
    { expr: ['eq', '~f1.0', 1], result: true },
    { expr: ['eq', '~t2024-01-01T00:00:00Z', '~t2024-01-01T00:00:00.000Z'], result: true },
    { expr: ['eq', '1', 1], result: false },
    { expr: ['eq', true, 1], result: false },
    { expr: ['eq', 1], error: /"eq" takes exactly 2 arguments, not 1/ },
  ],
  neq: [
    { expr: ['neq', '_S.age', 42], source: { age: 42 }, result: false }, // docs
    { expr: ['neq', '_S.age', 42], source: { age: 41 }, result: true },
    { expr: ['neq', null, null], result: false },
    { expr: ['neq', ['list'], null], result: true },
    { expr: ['neq', ['list', 'a'], 'a'], result: false },
    { expr: ['neq', 'a', 'A'], result: true },
    { expr: ['neq', 1, 2, 3], error: /exactly 2 arguments, not 3/ },
  ],
  gt: [
    { expr: ['gt', '_S.age', 42], source: { age: 43 }, result: true }, // docs
    { expr: ['gt', '_S.age', 42], source: { age: 42 }, result: false },
    { expr: ['gt', null, 1], result: false },
    { expr: ['gt', 1, null], result: false },
    { expr: ['gt', ['list', 3, 0], 2], result: true },
    { expr: ['gt', ['list'], 0], result: false },
    { expr: ['gt', 'b', 'a'], result: true },
    { expr: ['gt', 'abc', 5], result: false },
    { expr: ['gt', 5, 'abc'], result: false },
    { expr: ['gt', '~t2024-01-02T00:00:00Z', '~t2024-01-01T00:00:00Z'], result: true },
    { expr: ['gt', '~f1.5', 1], result: true },
    { expr: ['gt', 1], error: /exactly 2 arguments/ },
  ],
  gte: [
    { expr: ['gte', '_S.age', 42], source: { age: 42 }, result: true }, // docs
    { expr: ['gte', 41, 42], result: false },
    { expr: ['gte', null, null], result: false },
    { expr: ['gte', ['list', 5], ['list', 5, 9]], result: true },
    { expr: ['gte', '~f2.00', 2], result: true },
    { expr: ['gte', true, 1], result: false },
    { expr: ['gte'], error: /exactly 2 arguments, not 0/ },
  ],
  lt: [
    { expr: ['lt', '_S.age', 42], source: { age: 41 }, result: true }, // docs
    { expr: ['lt', 42, 42], result: false },
    { expr: ['lt', null, 42], result: false },
    { expr: ['lt', ['list', 1, 100], 2], result: true },
    { expr: ['lt', 'A', 'a'], result: true },
    { expr: ['lt', '~t2020-01-01T00:00:00Z', '~t2021-01-01T00:00:00Z'], result: true },
    { expr: ['lt', 'a', ['list', 1]], result: false },
    { expr: ['lt', 1, 2, 3], error: /exactly 2 arguments/ },
  ],
  lte: [
    { expr: ['lte', '_S.age', 42], source: { age: 42 }, result: true }, // docs
    { expr: ['lte', 43, 42], result: false },
    { expr: ['lte', 1, null], result: false },
    { expr: ['lte', ['list', 2, 9], ['list', 2]], result: true },
    { expr: ['lte', false, true], result: true },
    { expr: ['lte', '2', 3], result: false },
    { expr: ['lte', 1], error: /exactly 2 arguments/ },
  ],
};

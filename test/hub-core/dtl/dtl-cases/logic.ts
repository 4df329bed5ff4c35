// Table cases of the DTL logic functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const LOGIC: ExpressionTable = {
  and: [
    { expr: ['and', ['gt', '_S.age', 26], ['eq', '_S.gender', 'male']], source: { age: 30, gender: 'male' }, result: true }, // docs
    { expr: ['and', ['gt', '_S.age', 26], ['eq', '_S.gender', 'male']], source: { age: 20, gender: 'male' }, result: false },
    { expr: ['and', true, 1, 'x'], result: true },
    { expr: ['and', true, null], result: false },
    { expr: ['and', ['list'], true], result: false },
    { expr: ['and', ['list', false], true, true], result: true },
    { expr: ['and'], error: /"and" takes at least 1 argument/ },
  ],
  or: [
    { expr: ['or', ['eq', '_S.category', 'A'], ['eq', '_S.category', 'B']], source: { category: 'B' }, result: true }, // docs
    { expr: ['or', ['eq', '_S.category', 'A'], ['eq', '_S.category', 'B']], source: { category: 'C' }, result: false },
    { expr: ['or', false, null, 'x'], result: true },
    { expr: ['or', null], result: false },
    { expr: ['or', ['list'], ['list', 0]], result: true },
    { expr: ['or'], error: /at least 1 argument/ },
  ],
  not: [
    { expr: ['not', ['or', ['eq', '_S.category', 'A'], ['eq', '_S.category', 'B']]], source: { category: 'C' }, result: true }, // docs
    { expr: ['not', null], result: true },
    { expr: ['not', 1], result: false },
    { expr: ['not', ['list']], result: true },
    { expr: ['not', true, false], result: true },
    { expr: ['not', true, 1], result: false },
    { expr: ['not'], error: /at least 1 argument/ },
  ],
  all: [
    { expr: ['all', ['list', 1, 2, 3]], result: true }, // docs
    { expr: ['all', ['gt', '_.', 2], ['list', 4, 5, 6]], result: true }, // docs
    { expr: ['all', ['lt', '_.', 2], ['list', 1, 3, 5]], result: false }, // docs
    { expr: ['all', null], result: true },
    { expr: ['all', ['list', 1, null]], result: false },
    { expr: ['all', 5], result: true },
    { expr: ['all', ['gt', '_.amount', 10], '_S.orders'], source: { orders: [{ amount: 11 }, { amount: 12 }] }, result: true },
    { expr: ['all', 'f', 1, 2], error: /"all" takes 1 to 2 arguments, not 3/ },
  ],
  any: [
    { expr: ['any', ['list', 1, 2, 3]], result: true }, // docs
    { expr: ['any', ['gt', '_.', 5], ['list', 4, 6, 8]], result: true }, // docs
    { expr: ['any', ['lt', '_.', 2], ['list', 6, 7, 8]], result: false }, // docs
    { expr: ['any', null], result: false },
    { expr: ['any', ['list', null, false, ['list']]], result: false },
    { expr: ['any', 'x'], result: true },
    { expr: ['any'], error: /takes 1 to 2 arguments, not 0/ },
  ],
};

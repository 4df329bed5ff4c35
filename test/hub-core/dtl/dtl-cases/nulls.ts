// Table cases of the DTL nulls functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const NULLS: ExpressionTable = {
  coalesce: [
    { expr: ['coalesce', '_S.tags'], source: { tags: [null, 'a', 'b'] }, result: 'a' }, // docs
    { expr: ['coalesce', ['gt', '_.expenses', 1000], '_S.hobbies'], source: { hobbies: [{ expenses: 10 }, { expenses: 2000 }] }, result: { expenses: 2000 } }, // docs
    { expr: ['coalesce', null], result: null },
    { expr: ['coalesce', 5], result: 5 },
    { expr: ['coalesce', ['list', null, null]], result: null },
    { expr: ['coalesce', ['list', null, ['list', null, 1]]], result: [null, 1] },
    { expr: ['coalesce', ['gt', '_.', 10], ['list', 1, 'x', 2]], result: null },
    { expr: ['coalesce', 'f', 'g', 'h'], error: /takes 1 to 2 arguments, not 3/ },
  ],
  'coalesce-args': [
    { expr: ['coalesce-args', '_S.nickname', '_S.name', 'anonymous'], source: { name: 'Ann' }, result: 'Ann' },
    { expr: ['coalesce-args', '_S.nickname', '_S.name', 'anonymous'], source: {}, result: 'anonymous' },
    { expr: ['coalesce-args', null, ['list'], ['list', null, 2], 'x'], result: [] }, // only null is passed over (hub/dtl/dtl-functions-nulls.rst)
    { expr: ['coalesce-args', null, ['list', null, 2], 'x'], result: [null, 2] }, // a list is not null, whatever it holds
    { expr: ['coalesce-args', null], result: null },
    { expr: ['coalesce-args', 0, 1], result: 0 },
    { expr: ['coalesce-args', ['list', 1, null], 2], result: [1, null] },
    { expr: ['coalesce-args'], error: /at least 1 argument/ },
  ],
  'if-null': [
    { expr: ['if-null', null, 2], result: 2 }, // docs
    { expr: ['if-null', 1, 2], result: 1 }, // docs
    { expr: ['if-null', ['list', null], 2], result: 2 }, // docs
    { expr: ['if-null', ['list', null, 123], 2], result: 2 }, // docs
    { expr: ['if-null', ['list', 1, '12345'], 2], result: [1, '12345'] }, // docs
    { expr: ['if-null', ['list'], 'fallback'], result: 'fallback' },
    { expr: ['if-null', false, 'fallback'], result: false },
    { expr: ['if-null', 1], error: /exactly 2 arguments/ },
  ],
  'is-null': [
    { expr: ['is-null', null], result: true }, // docs
    { expr: ['is-null', 1], result: false }, // docs
    { expr: ['is-null', ['list']], result: true }, // docs
    { expr: ['is-null', ['list', null]], result: true }, // docs
    { expr: ['is-null', ['list', null, 123]], result: true }, // docs
    { expr: ['is-null', ['list', 1, '12345']], result: false }, // docs
    { expr: ['is-null', '_S.missing'], result: true },
    { expr: ['is-null', ''], result: false },
    { expr: ['is-null', 1, 2], error: /exactly 1 argument, not 2/ },
  ],
  'is-not-null': [
    { expr: ['is-not-null', null], result: false }, // docs
    { expr: ['is-not-null', 1], result: true }, // docs
    { expr: ['is-not-null', ['list']], result: false }, // docs
    { expr: ['is-not-null', ['list', null]], result: false }, // docs
    { expr: ['is-not-null', ['list', null, 123]], result: false }, // docs
    { expr: ['is-not-null', ['list', 1, '12345']], result: true }, // docs
    { expr: ['is-not-null', { a: null }], result: true },
    { expr: ['is-not-null'], error: /exactly 1 argument, not 0/ },
  ],
};

// Table cases of the DTL dictionaries functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const DICTIONARIES: ExpressionTable = {
  dict: [
    { expr: ['dict'], result: {} }, // docs
    { expr: ['dict', ['list', ['list', 'A', 1], ['list', 'B', 2], ['list', 'C', 3]]], result: { A: 1, B: 2, C: 3 } }, // docs
    { expr: ['dict', ['list', 'X', 123, ['list', 'A', 1]]], result: { A: 1 } }, // docs
    { expr: ['dict', 'a', ['upper', 'a'], ['lower', 'B'], 'B'], result: { a: 'A', b: 'B' } }, // docs
    { expr: ['dict', null], result: {} },
    { expr: ['dict', ['list', ['list', 'k', 1], ['list', 'k', 2]]], result: { k: 2 } },
    { expr: ['dict', '_S.d'], source: { d: { x: 1 } }, result: { x: 1 } },
    { expr: ['dict', 1, 'one', 'two', 2], result: { two: 2 } },
    { expr: ['dict', 'k', ['datetime-parse', '%Y', '2001']], result: { k: '~t2001-01-01T00:00:00Z' } },
    { expr: ['dict', 'a', 1, 'b'], error: /"dict": takes no argument, one list/ },
  ],
  apply: [
    {
      expr: ['apply', 'order', '_S.orders'],
      source: { orders: [{ id: 1, amount: 10 }, { id: 2, amount: 20 }] },
      rules: { order: [['copy', 'amount']] },
      result: [{ amount: 10 }, { amount: 20 }],
    },
    { expr: ['apply', 'order', '_S.order'], source: { order: { amount: 5 } }, rules: { order: [['copy', 'amount']] }, result: { amount: 5 } },
    { expr: ['apply', 'order', null], rules: { order: [['copy', 'amount']] }, result: null },
    { expr: ['apply', 'order', ['list', { a: 1 }, null, { a: 2 }]], rules: { order: [['filter', ['eq', '_S.a', 2]], ['copy', '*']] }, result: [{ a: 2 }] },
    { expr: ['apply', 'v', ['list', 'x', 5]], rules: { v: [['add', 'value', '_S.']] }, result: [{ value: 'x' }, { value: 5 }] },
    { expr: ['apply', 'missing', '_S.x'], rules: { order: [] }, error: /\$\[1\]: unknown rule set "missing"; the transform defines "order"/ },
    { expr: ['apply', ['concat', 'a'], '_S.x'], error: /RULE_ID of "apply" must be the name of a rule set/ },
  ],
};

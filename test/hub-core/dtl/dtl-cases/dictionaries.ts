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
  keys: [
    { expr: ['keys', ['list', { A: 1, B: 2 }, { A: 1, C: 3 }]], result: ['A', 'B', 'A', 'C'] }, // docs
    { expr: ['keys', ['list', 'X', 123, { A: 1 }]], result: ['A'] }, // docs
    { expr: ['keys', { b: 1, a: 2 }], result: ['b', 'a'] },
    { expr: ['keys', '_S.'], source: { _id: '1', x: 1 }, result: ['_id', 'x'] },
    { expr: ['keys', null], result: [] },
    { expr: ['keys', 'abc'], result: [] },
    { expr: ['keys', {}], result: [] },
    { expr: ['keys'], error: /"keys" takes exactly 1 argument, not 0/ },
  ],
  values: [
    { expr: ['values', ['list', { A: 1, B: 2 }, { A: 1, C: 3 }]], result: [1, 2, 1, 3] }, // docs
    { expr: ['values', ['list', 'X', 123, { A: 1 }]], result: [1] }, // docs
    { expr: ['values', { a: null, b: [1, 2], c: { d: 1 } }], result: [null, [1, 2], { d: 1 }] },
    { expr: ['values', { t: '~t2020-01-01T00:00:00Z' }], result: ['~t2020-01-01T00:00:00Z'] },
    { expr: ['values', null], result: [] },
    { expr: ['values', 5], result: [] },
  ],
  items: [
    { expr: ['items', ['list', { A: 1, B: 2 }, { C: 3 }]], result: [['A', 1], ['B', 2], ['C', 3]] }, // docs
    { expr: ['items', ['list', 'X', 123, { A: 1 }]], result: [['A', 1]] }, // docs
    { expr: ['items', { a: [1] }], result: [['a', [1]]] },
    { expr: ['dict', ['items', { a: 1, b: 2 }]], result: { a: 1, b: 2 } },
    { expr: ['is-list', ['items', ['dict', '1', 2]]], result: true }, // docs
    { expr: ['items', null], result: [] },
    { expr: ['items', ['list', 1, 'x']], result: [] },
  ],
  'key-values': [
    {
      expr: ['key-values', ['list', { A: 1, B: 2 }, 123, { C: 3, A: 1 }]],
      result: [
        { key: 'A', value: 1 },
        { key: 'B', value: 2 },
        { key: 'C', value: 3 },
        { key: 'A', value: 1 },
      ],
    }, // docs
    { expr: ['key-values', { hello: 'world' }], result: { key: 'hello', value: 'world' } }, // docs
    { expr: ['key-values', { a: 1, b: 2 }], result: [{ key: 'a', value: 1 }, { key: 'b', value: 2 }] },
    { expr: ['key-values', ['list', { a: 1 }]], result: [{ key: 'a', value: 1 }] },
    { expr: ['key-values', {}], result: [] },
    { expr: ['key-values', null], result: [] },
    { expr: ['key-values', 'x'], result: [] },
  ],
  'has-key': [
    { expr: ['has-key', 'a', { a: 1 }], result: true }, // docs
    { expr: ['has-key', 'b', { a: 1 }], result: false }, // docs
    { expr: ['has-key', 'a', ['list', { a: 1 }, 123]], result: true }, // docs
    { expr: ['has-key', 'b', ['list', { a: 1 }, { b: 1 }]], result: false }, // docs
    { expr: ['has-key', 'a', ['list', 123, { a: 1 }]], result: null }, // docs
    { expr: ['has-key', 'a', { a: null }], result: true },
    { expr: ['has-key', 'constructor', { a: 1 }], result: false },
    { expr: ['has-key', '_S.k', '_S.d'], source: { k: 'x', d: { x: 0 } }, result: true },
    { expr: ['has-key', 1, { 1: 1 }], result: null },
    { expr: ['has-key', 'a', null], result: null },
    { expr: ['has-key', 'a', 'abc'], result: null },
  ],
  'is-dict': [
    { expr: ['is-dict', '_S.'], source: { _id: '1' }, result: true }, // docs
    { expr: ['is-dict', ['list', { a: 1 }, 123]], result: true }, // docs
    { expr: ['is-dict', ['list', 123, { a: 1 }]], result: false }, // docs
    { expr: ['is-dict', 'abc'], result: false }, // docs
    { expr: ['is-dict', {}], result: true },
    { expr: ['is-dict', null], result: false },
    { expr: ['is-dict', ['list']], result: false },
    { expr: ['is-dict', '~:a:b'], result: false },
  ],
  path: [
    { expr: ['path', 'age', ['list', { age: 23 }, { age: 24 }]], result: [23, 24] }, // docs
    {
      expr: ['path', ['list', 'order_lines', 'item_name'], '_S.orders'],
      source: { orders: [{ order_lines: [{ item_name: 'a' }, { item_name: 'b' }] }, { order_lines: { item_name: 'c' } }] },
      result: ['a', 'b', 'c'],
    }, // docs
    { expr: ['path', 'age', { age: 24 }], result: 24 }, // docs
    { expr: ['path', 'foo', { bar: 123 }], result: null }, // docs
    { expr: ['path', ['list', 'a', 'b'], ['list', { a: { b: 1 } }, { a: [{ b: 2 }, { b: 3 }] }]], result: [1, 2, 3] }, // docs
    // Without namespaced identifiers, names are matched exactly.
    { expr: ['path', 'a', { a: 1, 'foo:a': 2, 'bar:a': [3, 4] }], result: 1 },
    { expr: ['path', 'bar:a', { a: 1, 'foo:a': 2, 'bar:a': [3, 4] }], result: [3, 4] },
    { expr: ['path', 'a.b', { 'a.b': 1, a: { b: 2 } }], result: 1 },
    { expr: ['path', '_S.p', { x: { y: 5 } }], source: { p: ['x', 'y'] }, result: 5 },
    { expr: ['path', ['list', '_S.p'], { x: 7 }], source: { p: 'x' }, result: 7 },
    { expr: ['path', ['list', 'a', 1], { a: 1 }], result: null },
    { expr: ['path', ['list'], { a: 1 }], result: { a: 1 } },
    { expr: ['path', 'a', null], result: null },
    { expr: ['path', 'a', ['list', { a: null }, { a: [1, null] }, 5, { b: 1 }]], result: [1] },
    { expr: ['path', 'a'], error: /"path" takes exactly 2 arguments, not 1/ },
  ],
  'apply-ns': [
    { expr: ['apply-ns', 'myns', { _id: '123', foo: 1, $bar: { baz: 2 } }], result: { _id: 'myns:123', 'myns:foo': 1, $bar: { baz: 2 } } }, // docs
    {
      expr: [
        'apply-ns',
        { property_namespace: 'myns', identity_namespace: 'myns', skip_underscore: false, skip_dollar: false, recursive: true },
        { _id: '123', foo: 1, $bar: { baz: 2 } },
      ],
      result: { 'myns:_id': 'myns:123', 'myns:foo': 1, 'myns:$bar': { 'myns:baz': 2 } },
    }, // docs
    {
      expr: [
        'apply-ns',
        { property_namespace: 'myns', identity_namespace: null, skip_underscore: false, skip_dollar: false, recursive: false },
        { _id: '123', 'myns:foo': 1, $bar: { baz: 2 } },
      ],
      result: { 'myns:_id': '123', 'myns:foo': 1, 'myns:$bar': { baz: 2 } },
    }, // docs
    { expr: ['apply-ns', 'n', { a: { b: [{ c: 1 }, 2] }, _ts: 5 }], result: { 'n:a': { 'n:b': [{ 'n:c': 1 }, 2] }, _ts: 5 } },
    { expr: ['apply-ns', { property_namespace: 'n', recursive: false }, { a: { b: 1 }, _id: 'x' }], result: { 'n:a': { b: 1 }, _id: 'x' } },
    { expr: ['apply-ns', 'n', ['list', { a: 1 }, 5, null]], result: [{ 'n:a': 1 }, 5, null] },
    { expr: ['apply-ns', 'n', '_S.'], source: { _id: 'e1', name: 'x' }, result: { _id: 'n:e1', 'n:name': 'x' } },
    { expr: ['apply-ns', 'n', null], result: null },
    { expr: ['apply-ns', 'n', 'abc'], result: 'abc' },
    { expr: ['apply-ns', { prop_namespace: 'n' }, {}], error: /unknown apply-ns option "prop_namespace"/ },
    { expr: ['apply-ns', { recursive: 'yes' }, {}], error: /apply-ns option "recursive" must be true or false/ },
    { expr: ['apply-ns', 5, {}], error: /must be a namespace \(a literal string\) or a literal dict/ },
  ],
  'strip-ns': [
    { expr: ['strip-ns', { 'myns:foo': 1, 'other:bar': { 'x:baz': 2 }, _id: 'myns:1' }], result: { foo: 1, bar: { baz: 2 }, _id: 'myns:1' } },
    { expr: ['strip-ns', ['apply-ns', 'n', { _id: '1', a: 1, $b: 2 }]], result: { _id: 'n:1', a: 1, $b: 2 } },
    { expr: ['strip-ns', ['list', { 'a:x': 1 }, 5]], result: [{ x: 1 }, 5] },
    { expr: ['strip-ns', { 'a:x:y': [{ 'b:z': 1 }] }], result: { 'x:y': [{ z: 1 }] } },
    { expr: ['strip-ns', { 'a:x': 1, 'b:x': 2 }], result: { x: 2 } },
    { expr: ['strip-ns', '~:a:b'], result: '~:a:b' },
    { expr: ['strip-ns', null], result: null },
  ],
};

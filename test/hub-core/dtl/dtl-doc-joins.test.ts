// The examples of the service's pages on joins that need datasets (datanav/docs: the "How joins work" and "Path
// expressions and hops" sections of the DTL reference, hub/dtl/dtl-functions-hops.rst, apply-hops on the
// nested-transformations page) and the namespace-aware `path` examples (dtl-functions-misc.rst, with
// `"namespaces": {"identity": "foo", "property": "bar"}`). The table cases (test/dtl-cases/) run without datasets, so
// these run here against an in-memory lookup. Where a page gives data, it is the page's; where it describes the
// result in words, the data is the smallest that shows it and the expected value follows the words.
//
// Where the pages are not usable as written:
// - hops, the subsets example: the two "where" expressions have no comma between them (not JSON); written with one.
// - lookup-entity: "code-table" and "foo" are given without data; the entity is one we made with that id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, JsonValue } from '../../../hub-core/base/index.js';
import { MemoryLookup } from '../../../hub-core/dtl/index.js';
import { compileExpression } from '../../../hub-core/dtl/index.js';
import { compileTransform } from '../../../hub-core/dtl/index.js';
import { encode } from '../../../hub-core/dtl/index.js';

/** Evaluate one expression with `source` as _S against `datasets`; gives its JSON form. */
function evaluate(expr: JsonValue, datasets: Record<string, JsonObject[]>, source: JsonObject = { _id: 's' }, rules?: JsonObject): JsonValue {
  const compiled = compileExpression(expr, rules ? { rules } : {});
  assert.deepEqual(compiled.errors.filter((e) => e.level === 'error'), [], 'compiles without errors');
  return encode(compiled.evaluate({ source, lookup: new MemoryLookup(datasets) }));
}
const ids = (v: JsonValue): JsonValue => (Array.isArray(v) ? v.map((e) => (e !== null && typeof e === 'object' && !Array.isArray(e) ? (e['_id'] ?? null) : e)) : v);

// "How joins work": the page's two entities.
const A: JsonObject = { _id: 'A', value: 1, values: [1, 2, 4, 5] };
const B: JsonObject = { _id: 'B', value: 1, values: [1, 3, 4, 6] };

test('joins.rst: the four kinds of join succeed when any value overlaps (1 and 4), between two dataset aliases', () => {
  const datasets = { As: [A], Bs: [B] };
  const via = (join: JsonValue): JsonValue => ids(evaluate(['hops', { datasets: ['As a', 'Bs b'], where: [['eq', '_S.a', 'a._id'], join], return: 'b' }], datasets, { _id: 's', a: 'A' }));
  assert.deepEqual(via(['eq', 'a.value', 'b.value']), ['B'], 'one-to-one');
  assert.deepEqual(via(['eq', 'a.value', 'b.values']), ['B'], 'one-to-many');
  assert.deepEqual(via(['eq', 'a.values', 'b.value']), ['B'], 'many-to-one');
  assert.deepEqual(via(['eq', 'a.values', 'b.values']), ['B'], 'many-to-many');
});

test('joins.rst: a join with a functional expression works the same way: value + 2 = 3 is shared with b.values', () => {
  const datasets = { As: [A], Bs: [B] };
  const via = (join: JsonValue): JsonValue => ids(evaluate(['hops', { datasets: ['As a', 'Bs b'], where: [['eq', '_S.a', 'a._id'], join], return: 'b' }], datasets, { _id: 's', a: 'A' }));
  assert.deepEqual(via(['eq', ['+', 'a.value', 2], 'b.values']), ['B']);
  assert.deepEqual(via(['eq', ['+', 'a.value', 4], 'b.values']), [], '5 is not among B\'s values');
  // From the source entity too: the same rule with _S in place of an alias.
  assert.deepEqual(ids(evaluate(['hops', { datasets: ['Bs b'], where: ['eq', ['+', '_S.value', 2], 'b.values'] }], datasets, A)), ['B']);
});

test('joins.rst: null values and deleted entities are not traversed', () => {
  const datasets = { Bs: [B, { _id: 'B2', values: [1], _deleted: true }, { _id: 'B3', value: null, values: [null] }] };
  assert.deepEqual(ids(evaluate(['hops', { datasets: ['Bs b'], where: ['eq', '_S.values', 'b.values'] }], datasets, A)), ['B']);
  assert.deepEqual(ids(evaluate(['hops', { datasets: ['Bs b'], where: ['eq', '_S.none', 'b.value'] }], datasets, { _id: 's', none: null })), []);
});

test('paths.rst: hops joins the source with its orders on _S._id = o.cust_id and filters them by o.type (only eq between two datasets joins)', () => {
  const orders = [
    { _id: 'o1', cust_id: 'c1', type: 'BILLING' },
    { _id: 'o2', cust_id: 'c1', type: 'SHIPPING' },
    { _id: 'o3', cust_id: 'c2', type: 'BILLING' },
  ];
  const expr = ['hops', { datasets: ['orders o'], where: [['eq', '_S._id', 'o.cust_id'], ['eq', 'o.type', 'BILLING']] }];
  assert.deepEqual(ids(evaluate(expr, { orders }, { _id: 'c1' })), ['o1']);
});

test('hops: the subsets example finds the products a customer bought in one web shop', () => {
  const orders = [
    { _id: 'o1', customer_id: 'c1', webshop_id: 'myshop', lines: [{ product_id: 'P1' }, { product_id: 'P2' }] },
    { _id: 'o2', customer_id: 'c1', webshop_id: 'othershop', lines: [{ product_id: 'P3' }] },
    { _id: 'o3', customer_id: 'c2', webshop_id: 'myshop', lines: [{ product_id: 'P3' }] },
  ];
  const product = [
    { _id: 'p1', product_id: 'P1' },
    { _id: 'p2', product_id: 'P2' },
    { _id: 'p3', product_id: 'P3' },
  ];
  const expr = [
    'hops',
    {
      datasets: ['orders o', 'product p'],
      where: [['eq', '_S._id', 'o.customer_id'], ['eq', 'o.lines.product_id', 'p.product_id']],
      subsets: { o: ['eq', '_S.webshop_id', 'myshop'] },
    },
  ];
  assert.deepEqual(ids(evaluate(expr, { orders, product }, { _id: 'c1' })), ['p1', 'p2'], 'not P3, bought in another shop');
});

test('hops: the result order follows the _id of the entities found, whatever order the keys come in', () => {
  const people = [
    { _id: 'b', team: 't' },
    { _id: 'c', team: 't' },
    { _id: 'a', team: 't' },
  ];
  assert.deepEqual(ids(evaluate(['hops', { datasets: ['people p'], where: ['eq', '_S._id', 'p.team'] }], { people }, { _id: 't' })), ['a', 'b', 'c']);
});

test('lookup-entity: the entity with that _id in the dataset, or null when there is none', () => {
  const table = { 'code-table': [{ _id: 'foo', label: 'Foo' }, { _id: 'bar', label: 'Bar' }] };
  assert.deepEqual(evaluate(['lookup-entity', 'code-table', 'foo'], table), { _id: 'foo', label: 'Foo' });
  assert.deepEqual(evaluate(['lookup-entity', 'code-table', 'baz'], table), null);
});

test('apply-hops: the orders the hops finds, each transformed by the order rule', () => {
  const orders: JsonObject[] = [
    { _id: 'o1', cust_id: 'c1', amount: 10, secret: 'x' },
    { _id: 'o2', cust_id: 'c2', amount: 20 },
    { _id: 'o3', cust_id: 'c1', amount: 30 },
  ];
  const rules = { order: [['copy', ['list', '_id', 'amount']], ['add', 'doubled', ['*', '_S.amount', 2]]] };
  const v = evaluate(['apply-hops', 'order', { datasets: ['orders o'], where: ['eq', '_S._id', 'o.cust_id'] }], { orders }, { _id: 'c1' }, rules);
  assert.deepEqual(v, [
    { _id: 'o1', amount: 10, doubled: 20 },
    { _id: 'o3', amount: 30, doubled: 60 },
  ]);
});

test('apply: calling apply on a rule that contains hops or apply-hops is not allowed', () => {
  const hopsRule = { default: [['add', 'x', ['apply', 'order', '_S.orders']]], order: [['add', 'c', ['hops', { datasets: ['customers c'], where: ['eq', '_S.cust', 'c._id'] }]]] };
  const t = compileTransform({ type: 'dtl', rules: hopsRule });
  assert.equal(t.ok, false, 'refused');
  assert.match(JSON.stringify(t.errors), /apply-hops/);
  const nested = { default: [['add', 'x', ['apply', 'order', '_S.orders']]], order: [['add', 'c', ['apply-hops', 'line', { datasets: ['lines l'], where: ['eq', '_S._id', 'l.order'] }]]], line: [['copy', '*']] };
  assert.equal(compileTransform({ type: 'dtl', rules: nested }).ok, false, 'apply-hops inside the applied rule too');
  const fine = { default: [['add', 'x', ['apply', 'order', '_S.orders']]], order: [['copy', '*']] };
  assert.equal(compileTransform({ type: 'dtl', rules: fine }).ok, true, 'a rule without joins may be applied');
});

test('path with namespaced identifiers on (identity foo, property bar): qualified, unqualified (all namespaces), "::" and ":"', () => {
  const settings = { enabled: true, identityNamespace: 'foo', propertyNamespace: 'bar', pipeId: 'p' } as const;
  const value = { a: 1, 'foo:a': 2, 'bar:a': [3, 4] };
  const path = (name: string): JsonValue => {
    const t = compileTransform({ type: 'dtl', rules: { default: [['add', '::out', ['path', name, value]]] } }, { namespaces: settings });
    assert.ok(t.ok, JSON.stringify(t.errors));
    return t.run({ _id: 'x' }).entities[0]?.['out'] ?? null;
  };
  assert.deepEqual(path('foo:a'), 2);
  assert.deepEqual(path('a'), [1, 2, 3, 4]);
  assert.deepEqual(path('::a'), 1);
  assert.deepEqual(path(':a'), [3, 4]);
});

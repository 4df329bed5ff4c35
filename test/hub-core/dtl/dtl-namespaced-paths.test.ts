// Unqualified property references with namespaced identifiers on: path strings (`_S.x`, `_T.x`, nested), the `path`
// function, joins in hops, and `ni` with a computed NAMESPACE. Every expected value below is worked out by hand from
// the service's documentation (datanav/docs), cited per test:
//   - hub/dtl/namespaces.rst: "Function arguments that reference unqualified properties, i.e. properties with only the
//     identifier part, will in general match that property in all namespaces."
//   - hub/dtl/dtl-functions-dictionaries.rst, `path`: "If namespaced identifiers are enabled and the path element is
//     not a fully qualified namespaced identifier then all properties with the path element as its identifier part
//     will be part of the result. In practice the result is the union of all those properties." Its examples, with
//     identity namespace "foo" and property namespace "bar", on {"a": 1, "foo:a": 2, "bar:a": [3, 4]}: "foo:a" gives 2,
//     "a" gives [1, 2, 3, 4], "::a" gives 1 and ":a" gives [3, 4].
//   - hub/dtl/paths.rst: a property path string is the `path` function: "_S.foo.'john.doe''s'.bar" "is equivalent to
//     ["path", ["list", "foo", "john.doe's", "bar"], "_S."]". So `_S.x`, `_T.x`, `_P._S.x` follow the rule above.
// Our reading where the docs say "union": the values of every matching property, in the entity's property order, list
// values spliced in (the example's [1, 2, 3, 4]), duplicates kept; when exactly one property matches, its value as
// it is (`path` "may be a single value or a list of values"; ["path", "age", {"age": 24}] "Returns 24").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTransform } from '../../../hub-core/dtl/index.js';
import { MemoryLookup } from '../../../hub-core/dtl/index.js';
import type { JsonObject } from '../../../hub-core/base/index.js';

const rules = (...steps: unknown[]): unknown => ({ type: 'dtl', rules: { default: steps } });
const DOC = { enabled: true, identityNamespace: 'foo', propertyNamespace: 'bar', pipeId: 'p' } as const;
const DOC_ENTITY = { a: 1, 'foo:a': 2, 'bar:a': [3, 4] };

/** The value an expression gives on a source entity (written to "::out", the name as it is). */
function value(source: JsonObject, expression: unknown, lookup?: MemoryLookup): unknown {
  const t = compileTransform(rules(['add', '::out', expression]), { namespaces: DOC, ...(lookup ? { lookup } : {}) });
  assert.ok(t.ok, JSON.stringify(t.errors));
  const [out] = t.run({ _id: 'x', ...source }).entities;
  return out?.['out'] ?? null;
}

test('path strings are the path function (paths.rst): the documented path examples, written as "_S.<element>"', () => {
  assert.equal(value(DOC_ENTITY, '_S.foo:a'), 2, '"foo:a" is fully qualified');
  assert.deepEqual(value(DOC_ENTITY, '_S.a'), [1, 2, 3, 4], '"a": the union of a, foo:a and bar:a');
  assert.equal(value(DOC_ENTITY, '_S.::a'), 1, '"::a" is the unqualified a only');
  assert.deepEqual(value(DOC_ENTITY, '_S.:a'), [3, 4], '":a" is a in the property namespace bar');
  // The path function itself, with a list of elements (the doc's ["list", "order_lines", "item_name"] form).
  assert.deepEqual(value(DOC_ENTITY, ['path', 'a', '_S.']), [1, 2, 3, 4]);
  assert.deepEqual(value({ 'crm:a': { 'crm:b': 1, 'erp:b': 2 } }, ['path', ['list', 'a', 'b'], '_S.']), [1, 2]);
});

test('an unqualified _S.x finds the property the source namespaced; one match is that value, not a list', () => {
  // The inbound pipe of issue 31: the source added its namespace to order_no (add_namespaces).
  const t = compileTransform(rules(['add', '_id', ['string', '_S.order_no']], ['add', 'no', '_S.order_no']), { namespaces: DOC });
  assert.ok(t.ok, JSON.stringify(t.errors));
  const { entities } = t.run({ _id: 'shop:x', 'shop:order_no': 17 });
  // add writes "_id" with the identity namespace foo (dtl-functions-transforms.rst, add) and "no" in bar.
  assert.deepEqual(entities, [{ _id: 'foo:17', 'bar:no': 17 }]);
});

test('nested paths, _T and the null tests match in every namespace too', () => {
  assert.equal(value({ 'shop:address': { 'shop:zip': '0150' } }, '_S.address.zip'), '0150');
  assert.deepEqual(value({ 'shop:lines': [{ 'shop:sku': 'a' }, { 'shop:sku': 'b' }] }, '_S.lines.sku'), ['a', 'b']);
  assert.equal(value({ 'shop:n': 3 }, ['is-null', '_S.n']), false);
  assert.equal(value({ 'shop:n': 3 }, ['is-empty', '_S.n']), false);
  assert.equal(value({ 'shop:n': 3 }, ['is-null', '_S.m']), true);
  // _T.x after ["add", "x", 1]: add wrote bar:x, and the unqualified _T.x reads it.
  const t = compileTransform(rules(['add', 'x', 1], ['add', 'y', ['+', '_T.x', 1]]), { namespaces: DOC });
  assert.deepEqual(t.run({ _id: 'x' }).entities, [{ _id: 'x', 'bar:x': 1, 'bar:y': 2 }]);
});

test('with namespaced identifiers off, _S.x is exactly the property x', () => {
  const t = compileTransform(rules(['add', 'out', '_S.a']), { namespaces: { ...DOC, enabled: false } });
  assert.deepEqual(t.run({ _id: 'x', 'foo:a': 2 }).entities, [{ _id: 'x', out: null }]);
});

test('hops: a join on unqualified names matches the namespaced properties of the joined dataset (["eq", "_S.$ids", "o.customer_id"])', () => {
  const lookup = new MemoryLookup({
    orders: [
      { _id: 'orders:1', 'orders:customer_id': '~:crm:7', 'orders:total': 10 },
      { _id: 'orders:2', 'orders:customer_id': '~:crm:8', 'orders:total': 20 },
      { _id: 'orders:3', 'shop:customer_id': '~:crm:7', 'orders:total': 30 },
    ],
  });
  const hops = (where: unknown, ret: unknown): unknown => ['hops', { datasets: ['orders o'], where, return: ret }];
  assert.deepEqual(value({ $ids: ['~:crm:7'] }, hops(['eq', '_S.$ids', 'o.customer_id'], 'o.total'), lookup), [10, 30]);
  // The source side unqualified as well, and an apply-hops style join on a nested value.
  assert.deepEqual(value({ 'p:cust': '~:crm:8' }, hops(['eq', '_S.cust', 'o.customer_id'], 'o.total'), lookup), [20]);
  // A qualified name on the dataset side is that property only.
  assert.deepEqual(value({ $ids: ['~:crm:7'] }, hops(['eq', '_S.$ids', 'o.orders:customer_id'], 'o.total'), lookup), [10]);
});

test('ni with a NAMESPACE computed by an expression is evaluated per entity', () => {
  // ["ni", "foo", "bar"] is "~:foo:bar" (dtl-functions-namespaced-identifiers.rst); here "foo" comes from an expression.
  const t = compileTransform(rules(['add', 'ref', ['ni', ['concat', 'fhir-', ['lower', '_S.kind']], '_S.id']]));
  assert.ok(t.ok, JSON.stringify(t.errors));
  assert.deepEqual(t.run({ _id: '1', kind: 'Patient', id: '42' }).entities, [{ _id: '1', ref: '~:fhir-patient:42' }]);
  assert.deepEqual(t.run({ _id: '2', kind: 'Device', id: ['a', 'b'] }).entities, [{ _id: '2', ref: ['~:fhir-device:a', '~:fhir-device:b'] }]);
  // Our reading where the docs are silent: a NAMESPACE that evaluates to no string gives null, as a "_S.type" one does.
  const none = compileTransform(rules(['add', 'ref', ['ni', ['lower', '_S.kind'], '_S.id']]));
  assert.deepEqual(none.run({ _id: '3', id: '42' }).entities, [{ _id: '3', ref: null }]);
  // make-ni (dtl-functions-transforms.rst: ["make-ni", "soccer", "referee", "ref"] gives "ref": "~:soccer:john.doe"),
  // with the namespace computed per entity.
  const make = compileTransform(rules(['make-ni', ['concat', 'sport-', '_S.kind'], 'referee', 'ref']));
  assert.ok(make.ok, JSON.stringify(make.errors));
  assert.deepEqual(make.run({ _id: '4', kind: 'soccer', referee: 'john.doe' }).entities, [{ _id: '4', ref: '~:sport-soccer:john.doe' }]);
});

test('a missing or list _id with namespaced identifiers on says that namespaces are why', () => {
  // A qualified reference to a namespace the property does not have: "_S.crm:order_no" names only that property.
  const wrong = compileTransform(rules(['add', '_id', ['string', '_S.crm:order_no']]), { namespaces: DOC });
  assert.throws(() => wrong.run({ _id: 'shop:x', 'shop:order_no': 17 }), /no string "_id".*namespaced \("shop:order_no"\)/s);
  // An unqualified reference that two namespaces hold gives a list (the path function's union).
  const several = compileTransform(rules(['add', '_id', '_S.no']), { namespaces: DOC });
  assert.throws(() => several.run({ _id: 'x', 'crm:no': 'a', 'erp:no': 'b' }), /"_id" is a list \(\["foo:a","foo:b"\]|"_id" is a list/);
  const off = compileTransform(rules(['add', '_id', '_S.no']));
  assert.throws(() => off.run({ _id: 'x' }), (e: Error) => /no string "_id"/.test(e.message) && !/namespace/.test(e.message));
});

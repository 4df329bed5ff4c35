// Namespaced identifiers through compileTransform, the way the pipe runtime uses them: the namespace-aware functions
// with the documented examples (add, add-if, default, copy, remove, rename, make-ni; hub/dtl/dtl-functions-transforms.rst
// with `"namespaces": {"identity": "foo", "property": "bar"}`), and is-changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTransform } from '../../../hub-core/dtl/index.js';
import type { JsonObject } from '../../../hub-core/base/index.js';

const rules = (...steps: unknown[]): unknown => ({ type: 'dtl', rules: { default: steps } });
const DOC = { enabled: true, identityNamespace: 'foo', propertyNamespace: 'bar', pipeId: 'p' } as const;

/** The target the steps make of a source entity, with the documentation's namespaces (the target's _id dropped). */
function target(source: JsonObject, ...steps: unknown[]): JsonObject {
  const t = compileTransform(rules(...steps), { namespaces: DOC });
  assert.ok(t.ok, JSON.stringify(t.errors));
  const [out] = t.run({ _id: 'x', ...source }).entities;
  const { _id: _ignored, ...rest } = out as JsonObject;
  return rest;
}

test('add, add-if and default prefix an unqualified name with the property namespace; "::" and ":" are the escapes', () => {
  assert.deepEqual(target({}, ['add', 'age', 26]), { 'bar:age': 26 });
  assert.deepEqual(target({}, ['add', 'person:age', 26]), { 'person:age': 26 });
  assert.deepEqual(target({}, ['add', '::age', 26]), { age: 26 });
  assert.deepEqual(target({}, ['add', ':age', 26]), { 'bar:age': 26 });
  assert.deepEqual(target({}, ['add', ['concat', 'x-', 'k'], 1]), { 'bar:x-k': 1 }, 'a computed name too');
  assert.deepEqual(target({}, ['default', 'age', 26]), { 'bar:age': 26 });
  assert.deepEqual(target({}, ['add', 'bar:age', 1], ['default', 'age', 26]), { 'bar:age': 1 }, 'default sees the namespaced name');
  assert.deepEqual(target({}, ['default', 'person:age', 26]), { 'person:age': 26 });
  assert.deepEqual(target({}, ['add-if', 'foo', 123]), { 'bar:foo': 123 });
  assert.deepEqual(target({}, ['add-if', 'foo', null]), {});
  assert.deepEqual(target({}, ['add', 'rdf:type', ['ni', 'acme', 'x']]), { 'rdf:type': '~:acme:x' });
});

test('an _id written by add gets the identity namespace; the service\'s own "_" and "$" names stay as they are', () => {
  const t = compileTransform(rules(['add', '_id', '42'], ['add', '_deleted', false], ['add', '$ids', ['list', ['ni', 'crm', '1']]]), { namespaces: DOC });
  assert.deepEqual(t.run({ _id: 'x' }).entities, [{ _id: 'foo:42', _deleted: false, $ids: ['~:crm:1'] }]);
  const qualified = compileTransform(rules(['add', '_id', 'crm:42']), { namespaces: DOC });
  assert.equal(qualified.run({ _id: 'x' }).entities[0]?.['_id'], 'crm:42', 'a qualified id is kept');
  const escaped = compileTransform(rules(['add', '_id', '::42']), { namespaces: DOC });
  assert.equal(escaped.run({ _id: 'x' }).entities[0]?.['_id'], '42');
});

test('copy: an unqualified pattern matches the name in every namespace; the last colon splits a pattern; "ns:*" copies a namespace', () => {
  const source = { age: 36, 'x:age': 36, 'xyz:age': 36 };
  assert.deepEqual(target(source, ['copy', 'age']), { age: 36, 'x:age': 36, 'xyz:age': 36 });
  assert.deepEqual(target(source, ['copy', 'x*:*e', '*y*:*e']), { 'x:age': 36 });
  assert.deepEqual(target({ 'crm:a': 1, 'crm:b': 2, 'erp:a': 3 }, ['copy', 'crm:*']), { 'crm:a': 1, 'crm:b': 2 });
  assert.deepEqual(target({ 'crm:a': 1, b: 2 }, ['copy', '*', 'a']), { b: 2 }, 'an exclude pattern is namespace aware too');
  assert.deepEqual(target({ 'crm:a': 1, a: 2 }, ['copy', '::a']), { a: 2 }, '"::a" is exactly "a"');
});

test('remove: "age" removes it in every namespace, "x*:age" in the namespaces starting with x, "x:age" only that one', () => {
  const all = ['copy', '*'];
  const source = { age: 36, 'x:age': 36, 'y:age': 36 };
  assert.deepEqual(target(source, all, ['remove', 'age']), {});
  assert.deepEqual(target(source, all, ['remove', 'x*:age']), { age: 36, 'y:age': 36 });
  assert.deepEqual(target(source, all, ['remove', 'x:age']), { age: 36, 'y:age': 36 });
});

test('rename keeps each namespace for an unqualified new name and collects the values into a qualified one', () => {
  const source = { a: 1, 'x:a': 2, 'xyz:a': 3 };
  assert.deepEqual(target(source, ['rename', 'a', 'b']), { b: 1, 'x:b': 2, 'xyz:b': 3 });
  assert.deepEqual(target(source, ['rename', 'a', 'z:b']), { 'z:b': [1, 2, 3] });
  assert.deepEqual(target(source, ['rename', 'x:a', 'x:b']), { 'x:b': 2 });
});

test('make-ni reads the property in every namespace and keeps each one\'s namespace', () => {
  const source = { referee: 'john.doe', 'x:referee': 'john.c.doe' };
  assert.deepEqual(target(source, ['make-ni', 'soccer', 'referee']), { 'referee-ni': '~:soccer:john.doe', 'x:referee-ni': '~:soccer:john.c.doe' });
  assert.deepEqual(target(source, ['make-ni', 'soccer', 'referee', 'ref']), { ref: '~:soccer:john.doe', 'x:ref': '~:soccer:john.c.doe' });
  assert.deepEqual(target(source, ['make-ni', 'soccer', 'x:referee']), { 'x:referee-ni': '~:soccer:john.c.doe' });
  assert.deepEqual(target(source, ['make-ni', 'soccer', 'x:referee', 'y:ref']), { 'y:ref': '~:soccer:john.c.doe' });
});

test('a transform never adds $ids, namespaced identifiers on or off', () => {
  const on = compileTransform(rules(['copy', '_id'], ['add', 'ref', ['ni', 'person', '_S.pid']]), { namespaces: DOC });
  assert.deepEqual(on.run({ _id: 'crm:42', pid: '7' }).entities, [{ _id: 'crm:42', 'bar:ref': '~:person:7' }]);
  const off = compileTransform(rules(['copy', '*']));
  assert.deepEqual(off.run({ _id: 'a', x: 1 }).entities, [{ _id: 'a', x: 1 }]);
});

test('with namespaced identifiers off, names are written and matched as they are', () => {
  const t = compileTransform(rules(['copy', 'age'], ['add', 'n', 1]), { namespaces: { ...DOC, enabled: false } });
  assert.deepEqual(t.run({ _id: 'a', age: 3, 'x:age': 4 }).entities, [{ _id: 'a', age: 3, n: 1 }]);
});

test('namespaced paths: an unqualified path name matches the namespaced property when namespaces are on', () => {
  const settings = { enabled: true, identityNamespace: 'p', propertyNamespace: 'p', pipeId: 'p' } as const;
  const t = compileTransform(rules(['add', '::out', ['path', 'name', '_S.']]), { namespaces: settings });
  assert.ok(t.ok, JSON.stringify(t.errors));
  const [out] = t.run({ _id: 'p:1', 'p:name': 'Ada' }).entities;
  assert.equal(out?.['out'], 'Ada');
});

test('is-changed compares with the previous version the runner supplies', () => {
  const previous = new Map([['1', { _id: '1', x: 1 }]]);
  const t = compileTransform(rules(['copy', '_id'], ['add', 'changed', ['is-changed', '_.x']]), {
    previousVersion: (e) => previous.get(String(e['_id'])),
  });
  assert.equal(t.run({ _id: '1', x: 1 }).entities[0]?.['changed'], false);
  assert.equal(t.run({ _id: '1', x: 2 }).entities[0]?.['changed'], true);
});

// Namespaced identifiers and is-changed through compileTransform, the way the pipe runner uses them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTransform } from '../hub-core/dtl/transform.js';

const rules = (...steps: unknown[]): unknown => ({ type: 'dtl', rules: { default: steps } });

test('with namespaced identifiers on, outputs list their identities in $ids', () => {
  const t = compileTransform(rules(['copy', '_id'], ['add', 'ref', ['ni', 'person', '_S.pid']]), {
    namespaces: { enabled: true, identityNamespace: 'crm', propertyNamespace: 'crm', pipeId: 'crm' },
  });
  assert.ok(t.ok, JSON.stringify(t.errors));
  const [out] = t.run({ _id: 'crm:42', pid: '7' }).entities;
  assert.deepEqual(out, { _id: 'crm:42', ref: '~:person:7', $ids: ['~:crm:42'] });
});

test('with namespaced identifiers off, no $ids are added', () => {
  const t = compileTransform(rules(['copy', '*']));
  assert.deepEqual(t.run({ _id: 'a', x: 1 }).entities, [{ _id: 'a', x: 1 }]);
});

test('namespaced paths: an unqualified path name matches the namespaced property when namespaces are on', () => {
  const settings = { enabled: true, identityNamespace: 'p', propertyNamespace: 'p', pipeId: 'p' } as const;
  const t = compileTransform(rules(['add', 'out', ['path', 'name', '_S.']]), { namespaces: settings });
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

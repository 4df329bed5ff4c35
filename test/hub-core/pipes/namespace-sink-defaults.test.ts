// Which sinks remove namespaces by default, as the service documents it (hub/features/namespaces.rst, remove_namespaces:
// "The following sinks has a default value of true: csv_endpoint, elasticsearch, mail, rest, sms, solr, kafka, sql,
// http_endpoint, and json"); every other sink keeps them, and remove_namespaces on the pipe or sink decides over it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { removesNamespaces } from '../../../hub-core/pipes/index.js';

const DOCUMENTED = ['csv_endpoint', 'elasticsearch', 'mail', 'rest', 'sms', 'solr', 'kafka', 'sql', 'http_endpoint', 'json'];

test('the documented sinks remove namespaces by default; dataset, xml_endpoint and null keep them', () => {
  for (const type of DOCUMENTED) assert.equal(removesNamespaces({ sink: { type } }, true), true, type);
  for (const type of ['dataset', 'xml_endpoint', 'null']) assert.equal(removesNamespaces({ sink: { type } }, true), false, type);
  assert.equal(removesNamespaces({}, true), false, 'no sink: the dataset sink');
  for (const type of DOCUMENTED) assert.equal(removesNamespaces({ sink: { type } }, false), false, `${type} without namespaced identifiers`);
});

test('remove_namespaces on the sink or the pipe overrides the default', () => {
  assert.equal(removesNamespaces({ sink: { type: 'json', remove_namespaces: false } }, true), false);
  assert.equal(removesNamespaces({ sink: { type: 'xml_endpoint', remove_namespaces: true } }, true), true);
  assert.equal(removesNamespaces({ remove_namespaces: true, sink: { type: 'dataset' } }, true), true);
});

test('names that collide once namespaces are removed: the property that comes last in the entity is kept (our reading; the docs are silent)', async () => {
  const { removeNamespaces } = await import('../../../hub-core/pipes/index.js');
  assert.deepEqual(removeNamespaces({ _id: 'crm:1', 'crm:name': 'Ann', 'erp:name': 'Anne', 'erp:age': 3 }), { _id: '1', name: 'Anne', age: 3 });
  assert.deepEqual(removeNamespaces({ _id: 'crm:1', 'erp:name': 'Anne', 'crm:name': 'Ann' }), { _id: '1', name: 'Ann' });
});

// A pipe worker's batch crosses to the hub's thread packed (hub-core/pipes/workers/packed-batch.ts): what the writer
// unpacks must be exactly what the worker prepared — ids and bodies with any characters, deletes, and every
// dependency of every entity in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareEntity } from '../../../hub-core/base/index.js';
import { packEntities, unpackEntities } from '../../../hub-core/pipes/index.js';
import { DependencyPacker, unpackDependencies, type EntityDependencies, type PackedDependencies } from '../../../hub-core/pipes/index.js';

/** What the hops record for these entities, as the packer gets them. */
function packDependencies(batch: readonly EntityDependencies[]): PackedDependencies {
  const packer = new DependencyPacker();
  for (const { eid, deps } of batch) {
    packer.entity(eid);
    for (const d of deps) packer.add(d.dataset, d.path, d.key);
  }
  return packer.finish();
}

test('prepared entities come out as they went in, whatever their ids and bodies hold', () => {
  const entities = [
    { _id: 'plain', n: 1 },
    { _id: 'ünïcødé 🚀', text: 'emoji 🧪 and astral 𝔘 characters', nested: { list: [1, 'two', null] } },
    { _id: 'gone', _deleted: true },
    { _id: 'x'.repeat(5000), big: 'y'.repeat(100_000) },
    { _id: '' + 'a\u0000b', quote: '"\\' },
  ];
  const prepared = entities.map((e, i) => prepareEntity(e, i));
  const packed = packEntities(prepared);
  assert.deepEqual(unpackEntities(structuredClone(packed)), prepared);
  assert.deepEqual(unpackEntities(packEntities([])), []);
});

test('dependencies come out per entity and in order, none and many alike', () => {
  const batch: EntityDependencies[] = [
    { eid: 'p1', deps: [{ dataset: 'cities', path: '["_id"]', key: '"c1"' }] },
    { eid: 'p2', deps: [] },
    {
      eid: 'p3 🚀',
      deps: [
        { dataset: 'cities', path: '["code"]', key: '"OSL"' },
        { dataset: 'regions', path: '["_id"]', key: '"r-ø"' },
        { dataset: 'cities', path: '["_id"]', key: '"c3"' },
      ],
    },
    { eid: 'p1', deps: [{ dataset: 'regions', path: '["_id"]', key: '"r2"' }] },
  ];
  const packed = packDependencies(batch);
  assert.equal(packed.trackers.length, 3, 'each (dataset, path) is named once');
  assert.deepEqual(unpackDependencies(structuredClone(packed)), batch);
  assert.deepEqual(unpackDependencies(packDependencies([])), []);
});

// The two renderings of a dataset's entities (JavaScript per row, SQLite per page) must give the same JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Hub } from '../../../hub-core/hub.js';
import type { ReadOptions } from '../../../hub-core/storage/index.js';
import { removeDir, tempDir } from '../../helpers/hub-process.js';

/** Run `body` on an in-process hub over a temp data folder, then close the hub and remove the folder. */
function withHub(body: (hub: Hub) => void): void {
  const dir = tempDir();
  const hub = new Hub(dir);
  try {
    body(hub);
  } finally {
    hub.close();
    removeDir(dir);
  }
}

test('readJsonText gives exactly the texts of readJson, for every read option', () =>
  withHub((hub) => {
    const ds = hub.datasets.open('tricky');
    const ids = ['plain', 'quote"d', 'back\\slash', 'tab\tnew\nline', 'ctl\u0001', 'æøå', '😀 emoji', 'slash/colon:x', ''.padEnd(300, 'long')];
    ds.write(ids.map((id, i) => ({ _id: id, n: i, nested: { b: [1, null, 'x'], a: 'ü' } })));
    ds.write([{ _id: 'empty' }, { _id: 'plain', n: 99 }, { _id: 'æøå', _deleted: true }]);
    ds.write(Array.from({ length: 4500 }, (_, i) => ({ _id: `bulk${i}`, i })));
    const variants: ReadOptions[] = [
      {},
      { history: false },
      { deleted: false },
      { history: false, deleted: false },
      { reverse: true },
      { reverse: true, history: false, deleted: false },
      { since: 3, limit: 5 },
      { since: 4000, limit: 2500 },
      { reverse: true, since: 10, limit: 3 },
      { limit: 0 },
    ];
    for (const options of variants) {
      const viaJs = [...ds.readJson(options)].flat().join(',');
      const viaSql = [...ds.readJsonText(options)].join(',');
      assert.equal(viaSql, viaJs, `options ${JSON.stringify(options)}`);
      if (viaJs !== '') JSON.parse(`[${viaSql}]`);
    }
  }));

test('readEntities gives the entities of readJson, key order included, for every read option (pipes read sources so)', () =>
  withHub((hub) => {
    const ds = hub.datasets.open('shapes');
    ds.ensureIndex('_S.kind');
    const odd = JSON.parse('{"_id":"proto","__proto__":{"polluted":true},"10":"ten","2":"two","b":1,"a":[{"z":1,"y":2}],"kind":"x"}') as Record<string, unknown>;
    ds.write([odd, { _id: 'empty' }, { _id: 'plain', kind: 'x', n: 1.5, s: 'æ"\\' }, { _id: 'gone', kind: 'y' }]);
    ds.write([{ _id: 'plain', kind: 'y', n: 2 }, { _id: 'gone', _deleted: true }]);
    ds.write(Array.from({ length: 2500 }, (_, i) => ({ _id: `bulk${i}`, kind: i % 2 === 0 ? 'x' : 'y', i })));
    const variants: ReadOptions[] = [
      {},
      { history: false },
      { history: false, deleted: false },
      { reverse: true, limit: 7 },
      { since: 2, limit: 2100 },
      { subset: ['eq', '_S.kind', 'x'] },
      { subset: ['eq', '_S.kind', 'x'], deleted: false, since: 1 },
    ];
    for (const options of variants) {
      const expected = [...ds.readJson(options)].flat().map((j) => JSON.stringify(JSON.parse(j)));
      const got = [...ds.readEntities(options)].flat();
      assert.deepEqual(got.map((e) => JSON.stringify(e)), expected, `options ${JSON.stringify(options)}`);
    }
    const proto = ds.readEntities({ history: false }).next().value!.find((e) => e['_id'] === 'proto')!;
    assert.equal(Object.getPrototypeOf(proto), Object.prototype, 'a "__proto__" key stays an ordinary property');
    assert.deepEqual(proto['__proto__'], { polluted: true });
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  }));

test('a large batch of new entities (written in multi-row inserts) with a new id twice: two versions, the second follows the first', () =>
  withHub((hub) => {
    const ds = hub.datasets.open('fresh');
    ds.write([{ _id: 'old', v: 0 }]);
    // 130 new ids; "twice" new in the middle and again two rows later (still unwritten rows of the same insert)
    // with another value; "old" changed in between.
    const batch: Record<string, unknown>[] = Array.from({ length: 130 }, (_, i) => ({ _id: `n${i}`, i }));
    batch.splice(60, 0, { _id: 'twice', v: 1 }, { _id: 'old', v: 1 }, { _id: 'twice', v: 2 });
    ds.write(batch);
    const log = ds.read({});
    assert.equal(log.length, 1 + 133);
    assert.deepEqual(log.map((e) => e._updated), Array.from({ length: 134 }, (_, i) => i), 'offsets in write order');
    const versions = log.filter((e) => e._id === 'twice');
    assert.deepEqual(versions.map((e) => [e._updated, e._previous, e['v']]), [[61, null, 1], [63, 61, 2]]);
    assert.equal(ds.read({ history: false }).filter((e) => e._id === 'twice').length, 1, 'the first version is superseded');
    assert.deepEqual(ds.get('twice'), versions[1]);
    assert.equal(ds.get('old')?.['v'], 1);
    assert.equal(ds.get('old')?._previous, 0);
    assert.equal(ds.get('n129')?.['i'], 129);
    assert.deepEqual([...ds.readEntities({ history: false })].flat().length, 132, 'latest versions: old, twice, n0-n129');
    assert.equal(ds.row().live_count, 132);
    // The same batch again changes nothing.
    ds.write(batch.filter((e) => !(e['_id'] === 'twice' && e['v'] === 1)));
    assert.equal(ds.row().max_updated, 133);
  }));

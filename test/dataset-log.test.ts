// The two renderings of a dataset's entities (JavaScript per row, SQLite per page) must give the same JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Hub } from '../hub-core/hub.js';
import type { ReadOptions } from '../hub-core/dataset-log.js';
import { removeDir, tempDir } from './helpers/hub-process.js';

test('readJsonText gives exactly the texts of readJson, for every read option', () => {
  const dir = tempDir();
  const hub = new Hub(dir);
  try {
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
  } finally {
    hub.close();
    removeDir(dir);
  }
});

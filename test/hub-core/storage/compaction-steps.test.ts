// Whole-log compaction walks the log in steps of bounded size (one transaction each, the event loop free between
// them): a long stretch of entities written once, with nothing to remove, is read over several steps, never in one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Hub } from '../../../hub-core/hub.js';
import { WHOLE_STEP_OFFSETS } from '../../../hub-core/storage/index.js';
import { removeDir, tempDir } from '../../helpers/hub-process.js';

test('a whole-log pass reads a long stretch of single versions in bounded steps and still compacts what follows', () => {
  const dir = tempDir('datahub-compaction-steps-');
  const hub = new Hub(dir);
  try {
    // A dataset no pipe writes: whole-log compaction looks after it, keeping two versions of every entity.
    const ds = hub.datasets.open('long');
    const once = WHOLE_STEP_OFFSETS + 10;
    for (let i = 0; i < once; i += 10_000) ds.write(Array.from({ length: Math.min(10_000, once - i) }, (_, k) => ({ _id: `e${i + k}` })));
    for (let v = 1; v <= 3; v++) ds.write([{ _id: 'changing', v }]);
    const end = ds.row().max_updated;
    assert.equal(end, once + 2);
    assert.equal(ds.info()['stored-versions'], once + 3);

    const first = ds.compactWholeStep(-1, end, 500);
    assert.deepEqual(first, { next: WHOLE_STEP_OFFSETS - 1, removed: 0, heldOff: 0 }, 'the first step stops after WHOLE_STEP_OFFSETS offsets');
    const second = ds.compactWholeStep(first.next!, end, 500);
    assert.deepEqual(second, { next: undefined, removed: 1, heldOff: 0 }, 'the oldest of the three versions of "changing" goes');
    assert.equal(ds.info()['stored-versions'], once + 2);
    assert.deepEqual(ds.read({ history: true }).filter((e) => e._id === 'changing').map((e) => e['v']), [2, 3]);
  } finally {
    hub.close();
    removeDir(dir);
  }
});

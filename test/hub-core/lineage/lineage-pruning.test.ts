// A pump run records, per written batch, which source entity made which output (issue 36). Compaction removes old
// versions of the sink dataset (features/compaction-feature.rst: keep_versions, default 2); the records of versions
// no longer stored are emptied after a run, so they do not grow with every run, while the lineage of what is stored
// still answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Hub } from '../../../hub-core/hub.js';
import { entityLineage } from '../../../hub-core/lineage/index.js';
import { removeDir, tempDir } from '../../helpers/hub-process.js';

const pipe = (round: number, keepVersions: number): object => ({
  _id: 'people',
  type: 'pipe',
  source: { type: 'embedded', entities: [{ _id: 'a', n: round }, { _id: 'b', n: round }] },
  compaction: { keep_versions: keepVersions },
  pump: { mode: 'manual' },
});

async function runRounds(keepVersions: number, rounds: number, check: (hub: Hub) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const hub = new Hub(dir);
  try {
    hub.pumps.runner.lineagePruneMs = 0;
    hub.startPumps();
    for (let round = 1; round <= rounds; round++) {
      hub.pipes.save(hub.pipes.validate([pipe(round, keepVersions)], false));
      hub.pumps.runner.start('people', 'incremental', 'manual');
      const end = Date.now() + 20_000;
      while (Date.now() < end && hub.pumps.runner.isRunning('people')) await new Promise((r) => setTimeout(r, 5));
      assert.equal(hub.pumps.state.get('people').lastRun?.status, 'completed');
    }
    await check(hub);
  } finally {
    await hub.stopPumps();
    hub.close();
    removeDir(dir);
  }
}

test('keep_versions 1: after five runs that each changed both entities, only the last run\'s records remain', async () => {
  await runRounds(1, 5, async (hub) => {
    assert.equal(hub.datasets.get('people')?.storedVersions(), 2, 'compaction kept the latest version of a and b');
    assert.equal(hub.pumps.state.lineage.liveBatches('people'), 1, 'the four earlier batches wrote versions no longer stored');
    const up = await entityLineage(hub, { dataset: 'people', entity: 'a', direction: 'up' });
    assert.equal(up.steps.length, 1);
    assert.equal(up.steps[0]?.why?.run, hub.pumps.state.get('people').lastRun?.run_id, 'the stored version still names the run that made it');
  });
});

test('keep_versions 2: the records of the two stored versions stay', async () => {
  await runRounds(2, 4, async (hub) => {
    assert.equal(hub.datasets.get('people')?.storedVersions(), 4);
    assert.equal(hub.pumps.state.lineage.liveBatches('people'), 2);
  });
});

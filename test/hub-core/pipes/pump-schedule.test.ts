// The pump schedule on a clock the test moves: runs come when they are due, and "nothing runs" is checked over minutes
// of schedule time without waiting for them. An in-process Hub on a temp data dir (the real scheduler and runner).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hub } from '../../../hub-core/hub.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { removeDir, tempDir } from '../../helpers/hub-process.js';

const PIPE = { _id: 'tick', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 't' }] }, pump: { schedule_interval: 60 } };

async function withHub(fn: (hub: Hub, clock: ManualClock, dir: string) => Promise<void>, prepare?: (dir: string) => void): Promise<void> {
  const dir = tempDir();
  prepare?.(dir);
  const clock = new ManualClock();
  const hub = new Hub(dir, { clock });
  try {
    hub.pipes.save(hub.pipes.validate([PIPE], false));
    hub.startPumps();
    await fn(hub, clock, dir);
  } finally {
    await hub.stopPumps();
    hub.close();
    removeDir(dir);
  }
}

/** The runs the pump has finished, after the one in progress (if any) ends (a run in a pipe worker takes wall time). */
async function runsAfterSettling(hub: Hub, id: string): Promise<number> {
  await new Promise((r) => setImmediate(r));
  const end = Date.now() + 20_000;
  while (Date.now() < end && hub.pumps.runner.isRunning(id)) await new Promise((r) => setTimeout(r, 5));
  return hub.pumps.state.get(id).runs;
}

test('a scheduled pump runs when its interval has passed, not before', async () => {
  await withHub(async (hub, clock) => {
    assert.equal(hub.pumps.scheduler.nextRun('tick')?.getTime(), clock.now() + 60_000);
    clock.advance(59_000);
    assert.equal(hub.pumps.runner.isRunning('tick'), false, 'not due yet');
    clock.advance(1_000);
    assert.equal(hub.pumps.runner.isRunning('tick'), true, 'due after 60 s');
    assert.equal(await runsAfterSettling(hub, 'tick'), 1);
    assert.equal(hub.pumps.state.get('tick').lastRun?.trigger, 'schedule');
  });
});

test('a disabled pump is not run by the schedule for ten minutes; enabled, it runs again', async () => {
  await withHub(async (hub, clock) => {
    await hub.pumps.operate('tick', 'disable', {});
    assert.equal(hub.pumps.scheduler.nextRun('tick'), undefined);
    clock.advance(10 * 60_000);
    assert.equal(await runsAfterSettling(hub, 'tick'), 0);
    await hub.pumps.operate('tick', 'enable', {});
    clock.advance(60_000);
    assert.equal(await runsAfterSettling(hub, 'tick'), 1);
  });
});

test('the node metadata switches the whole scheduler off, and back on', async () => {
  await withHub(async (hub, clock) => {
    hub.setMetadata({ task_manager: { disable_pump_scheduler: true } });
    await new Promise((r) => setImmediate(r));
    assert.equal(hub.pumps.scheduler.isDisabled(), true);
    clock.advance(10 * 60_000);
    assert.equal(await runsAfterSettling(hub, 'tick'), 0);
    hub.deleteMetadata();
    await new Promise((r) => setImmediate(r));
    clock.advance(60_000);
    assert.equal(await runsAfterSettling(hub, 'tick'), 1);
  });
});

test('startup_options.json with disable_pump_scheduler: no scheduled or startup run, a manual start still works', async () => {
  await withHub(
    async (hub, clock) => {
      assert.equal(hub.pumps.scheduler.nextRun('tick'), undefined);
      clock.advance(10 * 60_000);
      assert.equal(await runsAfterSettling(hub, 'tick'), 0);
      await hub.pumps.operate('tick', 'start', {});
      assert.equal(await runsAfterSettling(hub, 'tick'), 1);
      assert.equal(hub.pumps.state.get('tick').lastRun?.trigger, 'manual');
    },
    (dir) => writeFileSync(join(dir, 'startup_options.json'), JSON.stringify({ task_manager: { disable_pump_scheduler: true } })),
  );
});

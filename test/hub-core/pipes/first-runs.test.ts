// Counts and state that must not go stale: a pump-written dataset is "populated" once a run has read its source to the
// end, and at startup a pipe's first scheduled (or run_at_startup) run waits for the pipes that feed it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Hub } from '../../../hub-core/hub.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { removeDir, tempDir, useHub } from '../../helpers/hub-process.js';
import { runPump } from '../../helpers/api.js';

describe('populated datasets', () => {
  const hub = useHub();

  test('a dataset a pump wrote is populated once a run completed', async () => {
    await hub.json('/pipes', { method: 'POST', json: [{ _id: 'filled', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }, { _id: 'b' }] }, pump: { mode: 'manual' } }] });
    await runPump(hub, 'filled');
    const info = await hub.json<{ populated: boolean; count: number }>('/datasets/filled');
    assert.equal(info.count, 2);
    assert.equal(info.populated, true);
    const listed = (await hub.json<{ _id: string; populated: boolean }[]>('/datasets')).find((d) => d._id === 'filled');
    assert.equal(listed?.populated, true, 'the list the Datasets view shows says so too');
    assert.equal((await hub.fetch('/datasets/filled/entities?populated=true')).status, 200, 'readers waiting for a populated dataset get it');
  });
});

// "a-report" sorts before "z-source" and both are due at the same moment: without ordering, the report ran first and
// found an empty source.
const SOURCE = { _id: 'z-source', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'x', n: 1 }, { _id: 'y', n: 2 }] } };
const REPORT = { _id: 'a-report', type: 'pipe', source: { type: 'dataset', dataset: 'z-source' } };

async function withHub(pipes: object[], fn: (hub: Hub, clock: ManualClock) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const clock = new ManualClock();
  const hub = new Hub(dir, { clock });
  try {
    hub.pipes.save(hub.pipes.validate(pipes, false));
    hub.startPumps();
    await fn(hub, clock);
  } finally {
    await hub.stopPumps();
    hub.close();
    removeDir(dir);
  }
}

/** Wait (up to 20 s) for the runs to end: a run in a pipe worker takes wall time, not only turns of the event loop. */
async function settle(hub: Hub, ...ids: string[]): Promise<void> {
  const end = Date.now() + 20_000;
  while (Date.now() < end && ids.some((id) => hub.pumps.runner.isRunning(id))) await new Promise((r) => setTimeout(r, 5));
}

const count = (hub: Hub, name: string): number => (hub.datasets.get(name)?.row().live_count ?? 0);

describe('first runs at startup follow the flow', () => {
  test('scheduled first runs: the pipe reading a dataset runs after the pipe writing it', async () => {
    const every30 = { pump: { schedule_interval: 30 } };
    await withHub([{ ...REPORT, ...every30 }, { ...SOURCE, ...every30 }], async (hub, clock) => {
      clock.advance(30_000);
      assert.equal(hub.pumps.runner.isRunning('z-source'), true, 'the source runs when due');
      assert.equal(hub.pumps.state.get('a-report').runs, 0, 'the report waits for it');
      assert.equal(hub.pumps.runner.isRunning('a-report'), false);
      await settle(hub, 'z-source');
      clock.advance(1_000);
      await settle(hub, 'a-report');
      assert.equal(hub.pumps.state.get('a-report').runs, 1);
      assert.equal(count(hub, 'a-report'), 2, 'its first run found the source filled');
    });
  });

  test('run_at_startup: the downstream pipe starts once its upstream run ended', async () => {
    const atStartup = { pump: { schedule_interval: 3600, run_at_startup: true } };
    await withHub([{ ...REPORT, ...atStartup }, { ...SOURCE, ...atStartup }], async (hub, clock) => {
      assert.equal(hub.pumps.runner.isRunning('z-source'), true);
      assert.equal(hub.pumps.runner.isRunning('a-report'), false, 'the report waits');
      await settle(hub, 'z-source');
      clock.advance(1_000);
      await settle(hub, 'a-report');
      assert.equal(count(hub, 'a-report'), 2);
    });
  });

  test('a pipe whose upstream first run is far away (a daily cron) does not wait for it', async () => {
    await withHub([{ ...REPORT, pump: { schedule_interval: 30 } }, { ...SOURCE, pump: { cron_expression: '0 3 * * *' } }], async (hub, clock) => {
      clock.advance(30_000);
      assert.equal(hub.pumps.runner.isRunning('a-report'), true);
      await settle(hub, 'a-report');
    });
  });
});

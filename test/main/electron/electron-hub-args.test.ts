// The desktop shell starts its hub with the arguments of `hubServeArgs` (main/electron/hub-process.ts). Started here
// with exactly those arguments on the real CLI, a workspace opens as `serve --workspace` opens it: the scheduler paused,
// a run_at_startup pipe held back until the scheduler is resumed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir, tempDir, type HubProcess } from '../../helpers/hub-process.js';
import { hubEnv, hubServeArgs } from '../../../main/electron/app-args.js';

const workspace = tempDir('datahub-shell-args-');
const dataDir = tempDir('datahub-shell-data-');
let hub: HubProcess | undefined;

after(async () => {
  await hub?.stop();
  removeDir(dataDir);
  removeDir(workspace);
});

interface Pump {
  runs: number;
  'next-run': string | null;
}
interface Scheduler {
  paused: boolean;
  disabled: boolean;
  scheduled: number;
}

test('the shell opens a workspace with the scheduler paused, as serve --workspace does; resumed, the held-back run starts', async () => {
  mkdirSync(join(workspace, 'node', 'pipes'), { recursive: true });
  const tick = { _id: 'tick', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] }, pump: { schedule_interval: 3600, run_at_startup: true } };
  writeFileSync(join(workspace, 'node', 'pipes', 'tick.conf.json'), JSON.stringify(tick, null, 2));

  const args = hubServeArgs(dataDir, 0, workspace);
  assert.deepEqual(args.slice(0, 5), ['serve', '--data', dataDir, '--port', '0'], 'what the test helper passes first');
  assert.deepEqual(args.slice(args.indexOf('--scheduler'), args.indexOf('--scheduler') + 2), ['--scheduler', 'off']);
  // With the environment the app gives its hub (its malloc settings).
  hub = await startHub({ dataDir, args: args.slice(5), env: hubEnv(process.env) });

  const scheduler = async (init: RequestInit = {}): Promise<Scheduler> => {
    const res = await fetch(`${hub!.url}/desktop/scheduler`, { ...init, headers: { authorization: `Bearer ${hub!.token}`, 'content-type': 'application/json' } });
    assert.equal(res.status, 200);
    return (await res.json()) as Scheduler;
  };
  assert.deepEqual(await scheduler(), { paused: true, disabled: false, scheduled: 0 });
  const before = await hub.json<Pump>('/pipes/tick/pump');
  assert.equal(before.runs, 0, 'run_at_startup is held back');
  assert.equal(before['next-run'], null, 'nothing armed');

  assert.equal((await scheduler({ method: 'PUT', body: JSON.stringify({ paused: false }) })).paused, false);
  let runs = 0;
  for (let i = 0; i < 200 && runs < 1; i++) {
    await new Promise((done) => setTimeout(done, 100));
    runs = (await hub.json<Pump>('/pipes/tick/pump')).runs;
  }
  assert.equal(runs, 1, 'resumed, the run held back at startup ran');
});

// Stop ends a runaway run in a pipe worker within seconds (issue 32, point 1): a run stops after its current batch,
// but a worker inside one long evaluation reads no messages, so the stop never came. Now a stop that has waited
// a grace period (2 s) terminates the worker; the run ends "stopped", the hub answers /api/health throughout, and
// the next run gets a fresh worker. A run started with the CPU profiler (profiler=true) runs in a worker too: the
// profiler samples the worker that transforms, besides the hub's thread, each written as a profile of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { useHub } from '../../helpers/hub-process.js';
import { pumpOperation, runPump, sleep, waitFor } from '../../helpers/api.js';
import { stopRunawayInWorker, whileHealthPolled } from '../../helpers/runaway.js';

type Json = Record<string, unknown>;

const hub = useHub({ env: { DATAHUB_PIPE_WORKERS: '2' } });
/** A hub whose bound on one entity is 2 s (DATAHUB_ENTITY_TIME_LIMIT_MS, docs/cli.md). */
const bounded = useHub({ env: { DATAHUB_PIPE_WORKERS: '2', DATAHUB_ENTITY_TIME_LIMIT_MS: '2000' } });

/** Far more than the 10 s the hub allows one entity: only the stop can end it early. */
const SPIN = ['add', 'n', ['count', ['map', ['sum', ['range', 0, 100000]], ['range', 0, 100000]]]];
const ENTITIES = Array.from({ length: 20 }, (_, i) => ({ _id: `e${i}` }));


test('stop ends a run whose worker is inside a long evaluation, and the next run gets a fresh worker', async (t) => {
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      { _id: 'spin', type: 'pipe', source: { type: 'embedded', entities: ENTITIES }, transform: { type: 'dtl', rules: { default: [['copy', '_id'], SPIN] } }, pump: { mode: 'manual' } },
      { _id: 'fair', type: 'pipe', source: { type: 'embedded', entities: ENTITIES }, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'ok', true]] } }, pump: { mode: 'manual' } },
    ],
  });
  await stopRunawayInWorker(hub, 'spin', t, 'the run is in a worker');

  // A fresh worker carries the next run.
  const fair = await runPump<{ status: string }>(hub, 'fair', 'start', 30_000);
  assert.equal(fair.status, 'completed');
  assert.equal((await hub.json<Json[]>('/datasets/fair/entities')).length, 20);
});

test('a profiled runaway run is in a worker too: stop ends it within seconds while /api/health answers', async (t) => {
  await stopRunawayInWorker(hub, 'spin', t, 'the profiled run is in a worker', { profiler: 'true' });
  const end = (await hub.json<Json[]>('/pipes/spin/log?reverse=true&limit=1'))[0]!;
  assert.equal(end['status'], 'stopped');
  // The worker was terminated to end the run, so its profile is lost; the hub thread's is written.
  assert.deepEqual((end['profile_files'] as string[]).map((f) => f.slice(f.lastIndexOf('.'))), ['.cpuprofile', '.calltree']);
});

test('a profiled run in a worker writes the hub thread\'s profile and the worker\'s, which holds the transform\'s calls', async () => {
  const many = Array.from({ length: 3000 }, (_, i) => ({ _id: `m${i}`, words: `alpha beta gamma ${i}` }));
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'busy', type: 'pipe', source: { type: 'embedded', entities: many }, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'parts', ['map', ['upper', '_.'], ['split', ' ', '_S.words']]]] } }, pump: { mode: 'manual' } }],
  });
  await pumpOperation(hub, 'busy', 'start', { profiler: 'true' });
  await waitFor('the profiled run to end', async () => ((await hub.json<Json>('/pipes/busy/pump'))['is-running'] ? undefined : true), 30_000);
  const end = (await hub.json<Json[]>('/pipes/busy/log?reverse=true&limit=1'))[0]!;
  assert.equal(end['event_type'], 'pump-completed');
  const files = end['profile_files'] as string[];
  assert.deepEqual(files.map((f) => basename(f).replace(/^busy-\d{8}T\d{6}\.\d{3}Z/, '')), ['.cpuprofile', '.calltree', '-worker1.cpuprofile', '-worker1.calltree']);
  const worker = JSON.parse(readFileSync(files[2]!, 'utf8')) as { nodes: { callFrame: { url: string } }[]; samples: number[] };
  assert.ok(worker.samples.length > 0, 'the worker\'s profile has samples');
  assert.ok(worker.nodes.some((n) => n.callFrame.url.includes('/hub-core/dtl/')), 'the worker ran the DTL: its profile shows the evaluator');
  assert.match(readFileSync(files[3]!, 'utf8'), /^# callgrind format\n/);
  assert.equal((await hub.json<Json[]>('/datasets/busy/entities')).length, 3000);
});

test('disable during a runaway scheduled run: the schedule stops and the run ends failed by the entity bound within seconds', async () => {
  // Scheduling and running are independent (instance-api spec §3: disable forbids automatic runs, a manual start
  // still works), so disable does not stop the run: the bound on one entity (2 s on this hub) ends it, in words.
  await bounded.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'spin-scheduled', type: 'pipe', source: { type: 'embedded', entities: ENTITIES }, transform: { type: 'dtl', rules: { default: [['copy', '_id'], SPIN] } }, pump: { schedule_interval: 1 } }],
  });
  await waitFor('the scheduled run to start', async () => ((await bounded.json<Json>('/pipes/spin-scheduled/pump'))['is-running'] ? true : undefined), 15_000);
  const { slowest, ms } = await whileHealthPolled(bounded, async () => {
    await pumpOperation(bounded, 'spin-scheduled', 'disable');
    await waitFor('the run to end', async () => ((await bounded.json<Json>('/pipes/spin-scheduled/pump'))['is-running'] ? undefined : true), 15_000);
  });
  assert.ok(ms < 8000, `the run ended ${ms.toFixed(0)} ms after disable (the bound is 2 s per entity)`);
  assert.ok(slowest < 1000, `the hub answered /api/health throughout (slowest ${slowest.toFixed(0)} ms)`);
  const info = await bounded.json<{ runs: number; 'is-disabled': boolean; 'last-run': { status: string; reason_why_stopped: string } }>('/pipes/spin-scheduled/pump');
  assert.equal(info['is-disabled'], true);
  assert.equal(info['last-run'].status, 'failed');
  assert.match(info['last-run'].reason_why_stopped, /one entity took more than 2 s/);
  await sleep(2500);
  assert.equal((await bounded.json<{ runs: number }>('/pipes/spin-scheduled/pump')).runs, info.runs, 'the schedule (every second) starts no run while disabled');
});

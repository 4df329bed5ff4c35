// Stop ends a runaway run in a pipe worker within seconds (issue 32, point 1): a run stops after its current batch,
// but a worker inside one long evaluation reads no messages, so the stop never came. Now a stop that has waited
// a grace period (2 s) terminates the worker; the run ends "stopped", the hub answers /api/health throughout, and
// the next run gets a fresh worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from './helpers/hub-process.js';
import { pumpOperation, runPump, sleep, waitFor } from './helpers/api.js';

type Json = Record<string, unknown>;

const hub = useHub({ env: { DATAHUB_PIPE_WORKERS: '2' } });

/** Far more than the 10 s the hub allows one entity: only the stop can end it early. */
const SPIN = ['add', 'n', ['count', ['map', ['sum', ['range', 0, 100000]], ['range', 0, 100000]]]];
const ENTITIES = Array.from({ length: 20 }, (_, i) => ({ _id: `e${i}` }));

interface PumpInfo {
  runs: number;
  'is-running': boolean;
  'last-run': { status: string; reason_why_stopped: string | null } | null;
}

test('stop ends a run whose worker is inside a long evaluation, and the next run gets a fresh worker', async (t) => {
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      { _id: 'spin', type: 'pipe', source: { type: 'embedded', entities: ENTITIES }, transform: { type: 'dtl', rules: { default: [['copy', '_id'], SPIN] } }, pump: { mode: 'manual' } },
      { _id: 'fair', type: 'pipe', source: { type: 'embedded', entities: ENTITIES }, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'ok', true]] } }, pump: { mode: 'manual' } },
    ],
  });
  await pumpOperation(hub, 'spin', 'start');
  await waitFor('the run to start', async () => ((await hub.json<PumpInfo>('/pipes/spin/pump'))['is-running'] ? true : undefined), 10_000);
  await sleep(1000);
  const workers = (await hub.json<Json>('/status'))['pipe_workers'] as Json;
  assert.equal(workers['running'], 1, 'the run is in a worker');

  let slowest = 0;
  let done = false;
  const poller = (async () => {
    while (!done) {
      const t = performance.now();
      assert.equal((await hub.fetch('/health', { signal: AbortSignal.timeout(5000) })).status, 200);
      slowest = Math.max(slowest, performance.now() - t);
      await sleep(50);
    }
  })();
  const t0 = performance.now();
  try {
    await pumpOperation(hub, 'spin', 'stop');
  } finally {
    done = true;
    await poller;
  }
  const stopMs = performance.now() - t0;
  t.diagnostic(`stop took ${stopMs.toFixed(0)} ms; slowest /api/health ${slowest.toFixed(0)} ms`);
  assert.ok(stopMs < 8000, `the stop took ${stopMs.toFixed(0)} ms (one entity alone may take 10 s)`);
  const info = await hub.json<PumpInfo>('/pipes/spin/pump');
  assert.equal(info['is-running'], false);
  assert.equal(info['last-run']?.status, 'stopped');
  assert.ok(slowest < 1000, `the hub answered /api/health throughout (slowest ${slowest.toFixed(0)} ms)`);

  // A fresh worker carries the next run.
  const fair = await runPump<{ status: string }>(hub, 'fair', 'start', 30_000);
  assert.equal(fair.status, 'completed');
  assert.equal((await hub.json<Json[]>('/datasets/fair/entities')).length, 20);
});

// Stop ends a runaway run in a pipe worker within seconds (issue 32, point 1): a run stops after its current batch,
// but a worker inside one long evaluation reads no messages, so the stop never came. Now a stop that has waited
// a grace period (2 s) terminates the worker; the run ends "stopped", the hub answers /api/health throughout, and
// the next run gets a fresh worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { runPump } from '../../helpers/api.js';
import { stopRunawayInWorker } from '../../helpers/runaway.js';

type Json = Record<string, unknown>;

const hub = useHub({ env: { DATAHUB_PIPE_WORKERS: '2' } });

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

// A pipe whose transform reads its own sink dataset sees, in each batch, what the batches before it in the same run
// wrote (issue 32, point 1): on the hub's thread as in a pipe worker. In a worker the hub's thread sends a batch only
// after the one before is committed, and the worker sees the sink as committed before each batch (a snapshot of it
// read earlier in the run is read again). Before, such a pipe stayed on the hub's thread (when its hops named the sink
// without an alias), or ran in a worker that transformed batches ahead of the writes and missed them ("chain c").
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { pumpOperation, runPump, waitFor } from '../../helpers/api.js';
import { stopRunawayInWorker } from '../../helpers/runaway.js';

type Json = Record<string, unknown>;

const N = 3300;
/** Three batches, each of more lookups than a run makes before it reads a joined dataset whole (1000). */
const BATCH = 1100;
const id = (i: number): string => `e${String(i).padStart(4, '0')}`;
/** e0001 … e3300, each naming the one before it; the last one pauses, so that the run can be seen running. */
const ENTITIES = Array.from({ length: N }, (_, k) => ({ _id: id(k + 1), prev: id(k), ...(k + 1 === N ? { pause: true } : {}) }));
const PREV_SEEN = ['add', 'prev_seen', ['is-not-empty', ['hops', { datasets: ['chain c'], where: ['eq', '_S.prev', 'c._id'] }]]];
const PAUSE = ['if', ['eq', '_S.pause', true], [['sleep!', 1], ['sleep!', 1]]];
const SPIN = ['add', 'n', ['count', ['map', ['sum', ['range', 0, 100000]], ['range', 0, 100000]]]];

for (const workers of ['1', '2']) {
  describe(`a pipe that reads its own sink, ${workers === '1' ? 'on the hub\'s thread' : 'in a pipe worker'}`, () => {
    const hub = useHub({ env: { DATAHUB_PIPE_WORKERS: workers } });
    const runningInWorkers = async (): Promise<unknown> => ((await hub.json<Json>('/status'))['pipe_workers'] as Json)['running'];

    test('each batch sees what the batches before it wrote in the same run', async () => {
      const _note =
        'datanav/docs hub/dtl/dtl-functions-hops.rst (hops finds the entities of a dataset where the condition holds) and ' +
        'hub/documentation/service-configuration/pipes (batch_size: a batch is written before the next is processed). ' +
        'First run, batches of 1100 into an empty sink: e_i finds e_(i-1) only when e_(i-1) was in an earlier batch, so only ' +
        'e1101 and e2201 (i-1 = 1100, 2200). Second run: all 3300 are in the sink, so everyone but e0001 finds its predecessor.';
      assert.ok(_note);
      await hub.json('/pipes', {
        method: 'POST',
        json: [{ _id: 'chain', type: 'pipe', batch_size: BATCH, source: { type: 'embedded', entities: ENTITIES }, transform: { type: 'dtl', rules: { default: [['copy', '*'], PREV_SEEN, PAUSE] } }, pump: { mode: 'manual' } }],
      });
      for (const round of [1, 2]) {
        await pumpOperation(hub, 'chain', 'start');
        let inWorker = false;
        await waitFor(
          'the run to end',
          async () => {
            if ((await runningInWorkers()) === 1) inWorker = true;
            return (await hub.json<Json>('/pipes/chain/pump'))['is-running'] ? undefined : true;
          },
          60_000,
        );
        const run = (await hub.json<{ 'last-run': { status: string; processed: number; reason_why_stopped: string | null } }>('/pipes/chain/pump'))['last-run'];
        assert.equal(run.status, 'completed', run.reason_why_stopped ?? '');
        assert.equal(run.processed, N, `round ${round}: ${JSON.stringify(run)}`);
        assert.equal(inWorker, workers === '2', workers === '2' ? 'the run was seen in a pipe worker' : 'one worker: the hub\'s thread');
        const out = await hub.json<Json[]>('/datasets/chain/entities?history=false');
        assert.equal(out.length, N);
        const seen = out.filter((e) => e['prev_seen'] === true).map((e) => e['_id'] as string).sort();
        if (round === 1) assert.deepEqual(seen, ['e1101', 'e2201'], 'first run: only the first of each later batch finds its predecessor');
        else assert.deepEqual(seen, ENTITIES.slice(1).map((e) => e._id), 'second run: every entity but the first finds its predecessor');
      }
    });

    if (workers === '2') {
      test('a runaway pipe that reads its own sink runs in a worker, and stop ends it while /api/health answers', async (t) => {
        await hub.json('/pipes', {
          method: 'POST',
          json: [{ _id: 'chain-spin', type: 'pipe', batch_size: 2, source: { type: 'embedded', entities: ENTITIES.slice(0, 6) }, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'prev_seen', ['is-not-empty', ['hops', { datasets: ['chain-spin c'], where: ['eq', '_S.prev', 'c._id'] }]]], SPIN] } }, pump: { mode: 'manual' } }],
        });
        await stopRunawayInWorker(hub, 'chain-spin', t, 'the run of a pipe that reads its own sink is in a worker');
        // The next run starts afresh in a new worker and is stopped again (the worker was replaced).
        await stopRunawayInWorker(hub, 'chain-spin', t, 'the next run is in a fresh worker');
        assert.equal((await runPump<{ status: string }>(hub, 'chain', 'start', 60_000)).status, 'completed', 'other pipes run on');
      });
    }
  });
}

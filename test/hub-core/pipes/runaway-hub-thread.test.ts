// What runs on the hub's own thread cannot hold it (issue 32.1). Previews, traces and the runs of pipes that stay on
// that thread (all of them with one pipe worker, profiled runs) have a deadline inside: no transform keeps the thread
// that answers the API busy for more than 12 s without a pause (dtl/work-limit.ts), a wildcard match counts its steps
// towards the 10 s per entity, "sleep!" is a checkpoint, and a run there lets the API answer between entities and
// stops there. Before, a preview of 40 entities that each sleep 1 s held the hub 40 s, a wildcard pattern taken from
// the data ("*" and 100,000 "a" and "b*") against a long text held it for minutes, and a stop waited for the batch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpus, loadavg } from 'node:os';
import { useHub } from '../../helpers/hub-process.js';
import { whileHealthPolled } from '../../helpers/runaway.js';
import { pumpOperation, sleep, waitFor } from '../../helpers/api.js';

type Json = Record<string, unknown>;

// Runaways end at a 2 s bound per entity here, so the hold bound is 4 s (the defaults, 10 s and 12 s, are the same
// code with other numbers; runaway-transform.test.ts runs into the 10 s one). One pipe worker: every run is on the
// hub's thread (previews still go to their own workers).
const hub = useHub({ env: { DATAHUB_ENTITY_TIME_LIMIT_MS: '2000', DATAHUB_PIPE_WORKERS: '1' } });

const polled = <T>(work: () => Promise<T>): Promise<{ result: T; slowest: number; ms: number }> => whileHealthPolled(hub, work);

async function preview(rules: unknown[], entities: Json[]): Promise<{ status: number; body: Json }> {
  const res = await hub.fetch('/dtl/preview', { method: 'POST', json: { transform: { type: 'dtl', rules: { default: rules } }, entities }, signal: AbortSignal.timeout(300_000) });
  return { status: res.status, body: (await res.json()) as Json };
}

test('a wildcard pattern from the data ("*", 100,000 "a", "b*") against a long text stops in words within the bound', async (t) => {
  // Linear in the text and in the pattern, the match is still their product: 10^11 steps for this text.
  const pattern = `*${'a'.repeat(100_000)}b*`;
  const rules = [['add', 'hit', ['matches', '_S.p', '_S.s']]];
  const { result, ms } = await polled(() => preview(rules, [{ _id: 'x', p: pattern, s: 'a'.repeat(1_000_000) }]));
  t.diagnostic(`answered ${result.status} after ${ms.toFixed(0)} ms`);
  assert.equal(result.status, 422, JSON.stringify(result.body));
  assert.match(String(result.body['error']), /takes too long|holds the hub too long/);
  assert.ok(ms < 40_000, `the preview ended after ${ms.toFixed(0)} ms`);
  // The same pattern against texts it can be told on quickly is answered right away, and right.
  const short = await preview(rules, [{ _id: 'y', p: pattern, s: 'aaab' }, { _id: 'z', p: pattern, s: `x${'a'.repeat(100_000)}bc` }]);
  assert.equal(short.status, 200, JSON.stringify(short.body));
  const results = short.body['results'] as { entities: Json[] }[];
  assert.deepEqual(results.map((r) => r.entities[0]!['hit']), [false, true]);
});

test('a preview whose entities each pause 1 s ends after the hold bound (4 s here), not after 40 s', async (t) => {
  const entities = Array.from({ length: 40 }, (_, i) => ({ _id: `e${i}` }));
  const { result, ms } = await polled(() => preview([['copy', '*'], ['sleep!', 1]], entities));
  t.diagnostic(`answered ${result.status} after ${ms.toFixed(0)} ms`);
  assert.equal(result.status, 422, JSON.stringify(result.body));
  assert.match(String(result.body['error']), /holds the hub too long/);
  assert.match(String(result.body['detail']), /more than 4 s/);
  assert.ok(ms < 25_000, `the preview ended after ${ms.toFixed(0)} ms, not after 40 s`);
  assert.equal((await hub.fetch('/health')).status, 200);
});

test('a run on the hub\'s thread lets /api/health answer between entities, and a stop ends it within its batch', async (t) => {
  // With one pipe worker the run is on the hub's thread (a transform keyed by a secret too); 20 entities of 1 s each
  // are one batch of 20 s.
  const entities = Array.from({ length: 20 }, (_, i) => ({ _id: `e${i}` }));
  await hub.json('/secrets', { method: 'POST', json: { 'slow-key': 'a-long-passphrase-1234' } });
  const rules = [['copy', '*'], ['add', 'sealed', ['encrypt', '$SECRET(slow-key)', 'x']], ['sleep!', 1]];
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'slow-null', type: 'pipe', source: { type: 'embedded', entities }, transform: { type: 'dtl', rules: { default: rules } }, sink: { type: 'null' }, pump: { mode: 'manual' } }],
  });
  const { slowest, ms } = await polled(async () => {
    await pumpOperation(hub, 'slow-null', 'start');
    await waitFor('the run to start', async () => ((await hub.json<Json>('/pipes/slow-null/pump'))['is-running'] ? true : undefined), 10_000);
    await sleep(3000);
    const workers = (await hub.json<Json>('/status'))['pipe_workers'] as Json;
    assert.equal(workers['running'], 0, 'the run is on the hub\'s thread');
    const t0 = performance.now();
    await pumpOperation(hub, 'slow-null', 'stop');
    return performance.now() - t0;
  }).then((r) => ({ ...r, ms: r.result }));
  const bound = loadavg()[0]! < cpus().length ? 1600 : 3000;
  t.diagnostic(`stop took ${ms.toFixed(0)} ms; slowest /api/health ${slowest.toFixed(0)} ms (bound ${bound} ms)`);
  const info = await hub.json<{ 'is-running': boolean; 'last-run': { status: string } }>('/pipes/slow-null/pump');
  assert.equal(info['is-running'], false);
  assert.equal(info['last-run'].status, 'stopped');
  assert.ok(ms < 3000, `the stop took ${ms.toFixed(0)} ms (the batch alone takes 20 s)`);
  assert.ok(slowest < bound, `the slowest /api/health answer took ${slowest.toFixed(0)} ms (one entity pauses 1 s; the batch 20 s)`);
});

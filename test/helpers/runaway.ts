// Starting a runaway run in a pipe worker and stopping it while /api/health is polled: shared by the runaway tests.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { HubProcess } from './hub-process.js';
import { pumpOperation, sleep, waitFor } from './api.js';

interface PumpInfo {
  'is-running': boolean;
  'last-run': { status: string } | null;
}

/**
 * Start `pipe` (a transform that runs far past the hub's limits), check that its run is in a worker, stop it, and
 * check that the stop ended it within seconds with the hub answering /api/health throughout.
 */
export async function stopRunawayInWorker(hub: HubProcess, pipe: string, t: TestContext, what = 'the run is in a worker', start: Record<string, string> = {}): Promise<void> {
  await pumpOperation(hub, pipe, 'start', start);
  await waitFor('the run to start', async () => ((await hub.json<PumpInfo>(`/pipes/${pipe}/pump`))['is-running'] ? true : undefined), 10_000);
  // A worker may take a few seconds to start on a loaded machine.
  const running = async (): Promise<unknown> => ((await hub.json<Record<string, unknown>>('/status'))['pipe_workers'] as Record<string, unknown>)['running'];
  await waitFor('the run to reach a worker', async () => ((await running()) === 1 ? true : undefined), 10_000).catch(() => undefined);
  await sleep(500);
  assert.equal(await running(), 1, what);

  let slowest = 0;
  let done = false;
  const poller = (async () => {
    while (!done) {
      const t0 = performance.now();
      assert.equal((await hub.fetch('/health', { signal: AbortSignal.timeout(5000) })).status, 200);
      slowest = Math.max(slowest, performance.now() - t0);
      await sleep(50);
    }
  })();
  const t0 = performance.now();
  try {
    await pumpOperation(hub, pipe, 'stop');
  } finally {
    done = true;
    await poller;
  }
  const stopMs = performance.now() - t0;
  t.diagnostic(`stop took ${stopMs.toFixed(0)} ms; slowest /api/health ${slowest.toFixed(0)} ms`);
  assert.ok(stopMs < 8000, `the stop took ${stopMs.toFixed(0)} ms (one entity alone may take 10 s)`);
  const info = await hub.json<PumpInfo>(`/pipes/${pipe}/pump`);
  assert.equal(info['is-running'], false);
  assert.equal(info['last-run']?.status, 'stopped');
  assert.ok(slowest < 1000, `the hub answered /api/health throughout (slowest ${slowest.toFixed(0)} ms)`);
}

/**
 * Poll /api/health every 50 ms while `work` runs (each poll must answer 200): the work's result, the slowest answer
 * and the time the work took (ms).
 */
export async function whileHealthPolled<T>(hub: HubProcess, work: () => Promise<T>): Promise<{ result: T; slowest: number; ms: number }> {
  let done = false;
  let slowest = 0;
  const poller = (async () => {
    while (!done) {
      const t0 = performance.now();
      const res = await hub.fetch('/health', { signal: AbortSignal.timeout(120_000) });
      await res.arrayBuffer();
      assert.equal(res.status, 200);
      slowest = Math.max(slowest, performance.now() - t0);
      await sleep(50);
    }
  })();
  const t0 = performance.now();
  let result: T;
  let ms: number;
  try {
    result = await work();
    ms = performance.now() - t0;
  } finally {
    done = true;
    // The poll in flight when the work ends counts too (it may be the one the work held).
    await poller;
  }
  return { result, slowest, ms };
}

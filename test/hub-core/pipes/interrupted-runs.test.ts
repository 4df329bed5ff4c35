// A run that never ended because the hub was killed leaves a trace: a pump-failed event and the last run, both saying
// it was interrupted.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';

interface PumpInfo {
  'is-running': boolean;
  runs: number;
  'last-run': { status: string; reason_why_stopped: string | null; run_type: string } | null;
}

const hubs: HubProcess[] = [];

after(async () => {
  for (const h of hubs) await h.stop();
  if (hubs[0]) removeDir(hubs[0].dataDir);
});

test('a run killed with the hub is recorded as failed (interrupted) at the next start', async () => {
  const first = await startHub();
  hubs.push(first);
  for (let b = 0; b < 10; b++) {
    const batch = Array.from({ length: 20_000 }, (_, i) => ({ _id: `e${b * 20_000 + i}`, n: i, text: 'x'.repeat(100) }));
    await first.json('/datasets/src/entities', { method: 'POST', json: batch });
  }
  const rules = { default: [['copy', '*'], ['add', 'k', ['concat', '_S.text', '-', ['string', '_S.n']]]] };
  await first.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'long', type: 'pipe', source: { type: 'dataset', dataset: 'src' }, sink: { type: 'dataset', dataset: 'out' }, transform: { type: 'dtl', rules }, pump: { mode: 'manual' } }],
  });
  const res = await first.fetch('/pipes/long/pump', { method: 'POST', body: new URLSearchParams({ operation: 'start' }) });
  assert.equal(res.status, 200, await res.text());
  // Wait until the run is under way, then kill the hub.
  for (let i = 0; i < 400; i++) {
    const info = await first.json<PumpInfo>('/pipes/long/pump');
    if (info['is-running']) break;
    assert.equal(info.runs, 0, 'the run is still going when the hub is killed (make the source larger)');
    await sleep(10);
  }
  await first.kill9();

  const second = await startHub({ dataDir: first.dataDir });
  hubs.push(second);
  const info = await second.json<PumpInfo>('/pipes/long/pump');
  assert.equal(info['is-running'], false);
  assert.ok(info['last-run'], 'the interrupted run is the last run');
  assert.equal(info['last-run'].status, 'failed');
  assert.match(info['last-run'].reason_why_stopped ?? '', /interrupted/);
  const log = await second.json<{ event_type: string; status?: string; reason_why_stopped?: string; pump_instance?: string }[]>('/pipes/long/log?reverse=true');
  const failed = log.find((e) => e.event_type === 'pump-failed');
  assert.ok(failed, `a pump-failed event: ${JSON.stringify(log.map((e) => e.event_type))}`);
  assert.match(failed.reason_why_stopped ?? '', /interrupted/);
  const started = log.find((e) => e.event_type === 'pump-started');
  assert.ok(started, 'the manual run had logged pump-started');
  assert.equal(failed.pump_instance, started.pump_instance, 'the failure names the run that never ended');
});

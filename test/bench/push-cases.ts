// The hub's push cases: ingest and re-post in passes against their baselines, and one streamed JSON Push body far over
// the in-memory limit (BENCH_ONLY=ingest runs these alone).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchEntity } from './bench-data.js';
import { BenchError, client, startHub, type Hub } from './bench-hub.js';
import { fmtInt } from './bench-format.js';
import { readCpuSeconds, readRssKB, RssSampler, RSS_INTERVAL_MS } from './hub-stats.js';
import { judgePushes, passRatios, runPushPasses, type PushPass } from './push-passes.js';

const now = (): number => performance.now();

interface StreamedPush {
  entities: number;
  bodyMB: number;
  seconds: number;
  rate: number;
  rssBeforeMB: number;
  rssPeakMB: number;
  hubCpuSeconds: number;
}

/**
 * One JSON Push body of `entities.length * times` entities (ids suffixed per round), generated while it is sent, far
 * over the in-memory limit: the hub streams it. The hub's RSS is sampled throughout; its growth should not follow the
 * body's size.
 */
export async function streamedPush(hub: Hub, pipe: string, entities: readonly BenchEntity[], times: number): Promise<StreamedPush> {
  const pid = hub.child.pid!;
  await new Promise((r) => setTimeout(r, 2 * RSS_INTERVAL_MS));
  const before = readRssKB(pid) ?? 0;
  const sampler = new RssSampler(pid);
  const cpu0 = readCpuSeconds(pid);
  let bytes = 0;
  let round = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (round >= times) {
        controller.enqueue(Buffer.from(']'));
        controller.close();
        return;
      }
      const r = round++;
      for (let i = 0; i < entities.length; i += 1000) {
        const part = entities.slice(i, i + 1000).map((e) => JSON.stringify({ ...e, _id: `${e._id}-${r}` }));
        const chunk = Buffer.from((r === 0 && i === 0 ? '[' : ',') + part.join(','));
        bytes += chunk.length;
        controller.enqueue(chunk);
      }
    },
  });
  const t0 = now();
  const res = await fetch(`${hub.api}/receivers/${pipe}/entities`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' },
    body,
    duplex: 'half',
  } as RequestInit);
  const text = await res.text();
  const seconds = (now() - t0) / 1000;
  const samples = await sampler.stop();
  if (!res.ok) throw new BenchError(`streamed push -> HTTP ${res.status}: ${text.slice(0, 500)}`);
  const reply = JSON.parse(text) as { written?: number };
  const n = entities.length * times;
  if (reply.written !== n) throw new BenchError(`streamed push: wrote ${reply.written}, expected ${n}`);
  return {
    entities: n,
    bodyMB: bytes / 1024 / 1024,
    seconds,
    rate: n / seconds,
    rssBeforeMB: before / 1024,
    rssPeakMB: Math.max(before, ...samples.map((x) => x.kB)) / 1024,
    hubCpuSeconds: readCpuSeconds(pid) - cpu0,
  };
}

export const streamedLine = (s: StreamedPush): string =>
  `streamed push of one ${s.bodyMB.toFixed(0)} MB body (${fmtInt(s.entities)} entities): ${s.seconds.toFixed(2)} s, ${fmtInt(s.rate)} entities/s, ` +
  `hub RSS ${s.rssBeforeMB.toFixed(0)} MB before, peak ${s.rssPeakMB.toFixed(0)} MB (+${(s.rssPeakMB - s.rssBeforeMB).toFixed(0)} MB), hub ${s.hubCpuSeconds.toFixed(2)} CPU s`;

/** How many ingest/re-post passes (each with its own baseline); one at large counts, where a pass takes long. */
export function pushPassCount(count: number): number {
  const n = Number(process.env['BENCH_PUSH_PASSES']);
  return Number.isInteger(n) && n >= 1 ? n : count <= 200_000 ? 3 : 1;
}

export function logPushPasses(passes: readonly PushPass[]): void {
  passes.forEach((p, i) => {
    console.log(`pass ${i + 1}: baseline ${fmtInt(p.baseline.rate)} entities/s, ${p.baseline.cpuSeconds.toFixed(2)} CPU s`);
    for (const [label, runs] of [['ingest', p.ingests], ['re-post', p.reposts]] as const) {
      for (const r of runs) {
        console.log(`  ${label} (${r.mode}) into ${r.dataset}: ${r.seconds.toFixed(2)} s, ${fmtInt(r.rate)} entities/s, ${r.ratio.toFixed(2)}x its baseline, written ${fmtInt(r.written)}, hub ${r.hubCpuSeconds.toFixed(2)} CPU s`);
      }
    }
  });
}

/** BENCH_ONLY=ingest: ingest and re-post (both modes, in passes) against their baselines, with the hub's CPU seconds; no results file. */
export async function ingestPart(
  entities: readonly BenchEntity[],
  bodies: readonly Uint8Array[],
  count: number,
  dirs: string[],
  problems: string[],
  setHub: (h: Hub | undefined) => void,
): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'datahub-bench-hub-'));
  dirs.push(dataDir);
  const hub = await startHub(dataDir);
  setHub(hub);
  const passes = await runPushPasses(hub, hub.child.pid!, entities, bodies, pushPassCount(count), problems);
  logPushPasses(passes);
  for (const [label, kind] of [['ingest', 'ingests'], ['re-post', 'reposts']] as const) {
    for (const j of judgePushes(passes, kind)) console.log(`${label} (${j.mode}): median ${j.median.ratio.toFixed(2)}x (passes ${passRatios(j)})`);
  }
  if (process.env['BENCH_STREAM'] !== '0') {
    // BENCH_STREAM_TIMES: the bodies' sizes in multiples of BENCH_ENTITIES (default 1,4).
    const sizes = (process.env['BENCH_STREAM_TIMES'] ?? '1,4').split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
    for (const times of sizes) {
      const id = `stream${times}`;
      await client(hub).json('POST', '/pipes', JSON.stringify([{ _id: id, type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: id } }]));
      console.log(streamedLine(await streamedPush(hub, id, entities, times)));
    }
  }
  for (const p of problems) console.error(`- ${p}`);
  return problems.length > 0 ? 1 : 0;
}

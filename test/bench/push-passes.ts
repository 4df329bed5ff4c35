// JSON Push ingest and unchanged re-post, measured in passes. Each pass runs its own raw baseline right before its
// pushes, and each push's ratio is against that baseline: both sides of a ratio share the machine's minute. A mode is
// judged on its median pass, so one slow minute (or the cold first pass of a new hub) neither passes nor fails it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawInsertBaseline, type BaselineResult } from './baseline.js';
import { readCpuSeconds } from './hub-stats.js';
import type { BenchEntity } from './bench-data.js';

export interface PushApi {
  json<T>(method: string, path: string, body?: string | Uint8Array): Promise<T>;
}

interface PushReply {
  received?: number;
  written?: number;
}

export interface PushRun {
  mode: string;
  inFlight: number;
  dataset: string;
  seconds: number;
  rate: number;
  /** Against the baseline of the run's own pass. */
  ratio: number;
  written: number;
  received: number;
  /** CPU seconds the hub process used during the run (less sensitive to other load than wall time). */
  hubCpuSeconds: number;
  monoStart: number;
  monoEnd: number;
}

export interface PushPass {
  baseline: BaselineResult;
  ingests: PushRun[];
  reposts: PushRun[];
}

/** One mode (2 in flight, or sequential) of ingest or re-post over all passes. */
export interface PushJudgement {
  mode: string;
  /** Each pass's ratio, in pass order. */
  ratios: number[];
  /** The run of the median pass (by ratio): the one judged and shown. */
  median: PushRun;
}

const monoMicros = (): number => Number(process.hrtime.bigint() / 1000n);

async function push(api: PushApi, hubPid: number, pipe: string, bodies: readonly Uint8Array[], inFlight: number, entities: number, baselineRate: number): Promise<PushRun> {
  let next = 0;
  let written = 0;
  let received = 0;
  const monoStart = monoMicros();
  const cpu0 = readCpuSeconds(hubPid);
  const t0 = performance.now();
  const lane = async (): Promise<void> => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const r = await api.json<PushReply>('POST', `/receivers/${pipe}/entities`, body);
      if (typeof r?.written !== 'number' || typeof r.received !== 'number') {
        throw new Error(`POST /receivers/${pipe}/entities: no numeric "written"/"received" in the reply ${JSON.stringify(r)}`);
      }
      written += r.written;
      received += r.received;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  const seconds = (performance.now() - t0) / 1000;
  const rate = entities / seconds;
  return {
    mode: inFlight === 1 ? 'sequential' : `${inFlight} in flight`,
    inFlight,
    dataset: pipe,
    seconds,
    rate,
    ratio: rate / baselineRate,
    written,
    received,
    hubCpuSeconds: readCpuSeconds(hubPid) - cpu0,
    monoStart,
    monoEnd: monoMicros(),
  };
}

/**
 * `passes` passes of: a raw baseline, ingest with 2 requests in flight (into "bench", then "bench2", ...) and
 * sequentially ("bench_seq", "bench_seq2", ...), then the same bodies again into the pass's "bench" in both modes.
 * Counts that are off (received, written; a re-post must write nothing) go to `problems`.
 */
export async function runPushPasses(
  api: PushApi,
  hubPid: number,
  entities: readonly BenchEntity[],
  bodies: readonly Uint8Array[],
  passes: number,
  problems: string[],
): Promise<PushPass[]> {
  const count = entities.length;
  const out: PushPass[] = [];
  for (let p = 1; p <= passes; p++) {
    const suffix = p === 1 ? '' : String(p);
    const [two, seq] = [`bench${suffix}`, `bench_seq${suffix}`];
    for (const id of [two, seq]) {
      await api.json('POST', '/pipes', JSON.stringify([{ _id: id, type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: id } }]));
    }
    const dir = mkdtempSync(join(tmpdir(), 'datahub-bench-base-'));
    let baseline: BaselineResult;
    try {
      baseline = rawInsertBaseline(entities, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const ingests = [await push(api, hubPid, two, bodies, 2, count, baseline.rate), await push(api, hubPid, seq, bodies, 1, count, baseline.rate)];
    const reposts = [await push(api, hubPid, two, bodies, 2, count, baseline.rate), await push(api, hubPid, two, bodies, 1, count, baseline.rate)];
    for (const r of ingests) {
      if (r.received !== count || r.written !== count) problems.push(`ingest (${r.mode}, pass ${p}): the hub received ${r.received} and wrote ${r.written} entities, expected ${count}`);
    }
    for (const r of reposts) {
      if (r.received !== count || r.written !== 0) problems.push(`re-post (${r.mode}, pass ${p}): the hub received ${r.received} and wrote ${r.written} entities, expected ${count} and 0`);
    }
    out.push({ baseline, ingests, reposts });
  }
  return out;
}

/** Per mode, the median pass (the lower middle one of an even count); the better mode first. */
export function judgePushes(passes: readonly PushPass[], kind: 'ingests' | 'reposts'): PushJudgement[] {
  const modes = passes[0]![kind].map((r) => r.mode);
  const judged = modes.map((mode, i): PushJudgement => {
    const runs = passes.map((p) => p[kind][i]!);
    const sorted = [...runs].sort((a, b) => a.ratio - b.ratio);
    return { mode, ratios: runs.map((r) => r.ratio), median: sorted[(sorted.length - 1) >> 1]! };
  });
  return judged.sort((a, b) => b.median.ratio - a.median.ratio);
}

/** "0.48x, 0.55x, 0.61x": each pass's ratio, truncated to two decimals. */
export function passRatios(j: PushJudgement): string {
  return j.ratios.map((r) => `${(Math.floor(r * 100) / 100).toFixed(2)}x`).join(', ');
}

// JSON Push ingest and unchanged re-post, measured in passes. Each pass runs its own raw baseline right before its
// pushes, and each push's ratio is against that baseline: both sides of a ratio share the machine's minute. A mode is
// judged on its median pass, so one slow minute (or the cold first pass of a new hub) neither passes nor fails it.
// The pushes go through node:http on kept-alive connections: the client shares the cores with the hub, and fetch
// spent 3-10 times the CPU for the same requests (25-94 ms against 8-15 ms per 50,000 re-posted entities).
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawInsertBaseline, type BaselineResult } from './baseline.js';
import { readCpuSeconds } from './hub-stats.js';
import type { BenchEntity } from './bench-data.js';

/** Where the pushes go: the hub's API base URL and its token. */
export interface PushTarget {
  api: string;
  token: string;
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

/** POST one body; the reply's JSON. */
function post(target: PushTarget, agent: Agent, path: string, body: Uint8Array): Promise<unknown> {
  const url = new URL(target.api + path);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode > 299) reject(new Error(`POST ${path} -> HTTP ${res.statusCode}: ${text.slice(0, 2000)}`));
          else resolve(text === '' ? undefined : JSON.parse(text));
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function push(target: PushTarget, agent: Agent, hubPid: number, pipe: string, bodies: readonly Uint8Array[], inFlight: number, entities: number, baselineRate: number): Promise<PushRun> {
  let next = 0;
  let written = 0;
  let received = 0;
  const monoStart = monoMicros();
  const cpu0 = readCpuSeconds(hubPid);
  const t0 = performance.now();
  const lane = async (): Promise<void> => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const r = (await post(target, agent, `/receivers/${pipe}/entities`, body)) as PushReply | undefined;
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
  target: PushTarget,
  hubPid: number,
  entities: readonly BenchEntity[],
  bodies: readonly Uint8Array[],
  passes: number,
  problems: string[],
): Promise<PushPass[]> {
  const agent = new Agent({ keepAlive: true });
  try {
    const out: PushPass[] = [];
    for (let p = 1; p <= passes; p++) out.push(await runPass({ target, agent, hubPid, entities, bodies, problems }, p));
    return out;
  } finally {
    agent.destroy();
  }
}

interface PassContext {
  target: PushTarget;
  agent: Agent;
  hubPid: number;
  entities: readonly BenchEntity[];
  bodies: readonly Uint8Array[];
  problems: string[];
}

async function runPass(c: PassContext, p: number): Promise<PushPass> {
  const count = c.entities.length;
  const suffix = p === 1 ? '' : String(p);
  const [two, seq] = [`bench${suffix}`, `bench_seq${suffix}`];
  for (const id of [two, seq]) {
    const pipe = [{ _id: id, type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: id } }];
    await post(c.target, c.agent, '/pipes', Buffer.from(JSON.stringify(pipe)));
  }
  const dir = mkdtempSync(join(tmpdir(), 'datahub-bench-base-'));
  let baseline: BaselineResult;
  try {
    baseline = rawInsertBaseline(c.entities, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const run = (pipe: string, inFlight: number): Promise<PushRun> => push(c.target, c.agent, c.hubPid, pipe, c.bodies, inFlight, count, baseline.rate);
  const ingests = [await run(two, 2), await run(seq, 1)];
  const reposts = [await run(two, 2), await run(two, 1)];
  for (const r of ingests) {
    if (r.received !== count || r.written !== count) c.problems.push(`ingest (${r.mode}, pass ${p}): the hub received ${r.received} and wrote ${r.written} entities, expected ${count}`);
  }
  for (const r of reposts) {
    if (r.received !== count || r.written !== 0) c.problems.push(`re-post (${r.mode}, pass ${p}): the hub received ${r.received} and wrote ${r.written} entities, expected ${count} and 0`);
  }
  return { baseline, ingests, reposts };
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

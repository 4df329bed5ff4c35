/*
 * One pump run on the hub's thread against the same run in a pipe worker (issue 32; called from test/bench/bench.ts,
 * also runnable alone: `node out/test/bench/worker-modes-bench.js`, BENCH_ENTITIES source entities, default 50,000).
 *
 * Four pipes, each run alone on two in-process Hubs open side by side, in the same run:
 *   hub's thread   DATAHUB_PIPE_WORKERS=1: every run on the hub's thread (as before workers)
 *   in a worker    DATAHUB_PIPE_WORKERS=2: the run in a pipe worker
 * The pipes: a plain dataset run (dataset source and sink: the whole run in a worker, read ahead), a merge run (the
 * hub's thread reads the merge, the worker transforms each batch), a run keyed by a $SECRET (encrypt/decrypt with a
 * node secret; the worker is handed its value) and a run that reads its own sink (a hops on it: batches one at a
 * time, each after the one before is committed). Each is run once on the hub just started, then, after its pump is
 * reset and its sink deleted, PASSES more times, the fastest counting; the two hubs take turns pass by pass, so that a
 * slow minute of a shared machine falls on both. The ratio is the hub's-thread wall time over the worker's (above 1:
 * the worker is faster), shown with each run's CPU on the hub's thread (what the worker takes off the thread that
 * answers the API). Both hubs' sinks must be identical (the `_hash` of every latest version, in offset order).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Hub } from '../../hub-core/hub.js';
import { resetPump, WORKERS_ENV } from '../../hub-core/pipes/index.js';
import type { JsonObject } from '../../hub-core/base/index.js';
import { generateBenchEntities } from './dtl-bench.js';

const BATCH = 10_000;
/** Measured passes per mode after the first; the fastest counts. */
const PASSES = 3;
const KEY = 'worker-modes-bench-passphrase';

const LABEL = [['copy', '*'], ['add', 'label', ['concat', '_S.name', ' <', '_S.email', '>']], ['add', 'adult', ['gte', '_S.age', 18]], ['add', 'city_lc', ['lower', '_S.city']]];

function pipes(): JsonObject[] {
  const dtl = (rules: unknown[]): JsonObject => ({ type: 'dtl', rules: { default: rules } }) as JsonObject;
  return [
    { _id: 'plain', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, transform: dtl(LABEL), pump: { mode: 'manual' } },
    {
      _id: 'merged',
      type: 'pipe',
      source: { type: 'merge', version: 2, datasets: ['people p', 'scores s'], equality: [['eq', 'p._id', 's.of']] },
      transform: dtl([['copy', '*'], ['add', 'members', ['count', '_S.$ids']]]),
      pump: { mode: 'manual' },
    },
    {
      _id: 'keyed',
      type: 'pipe',
      source: { type: 'dataset', dataset: 'people' },
      transform: dtl([...LABEL, ['add', 'email_again', ['decrypt', '$SECRET(bench-key)', ['encrypt', '$SECRET(bench-key)', '_S.email']]]]),
      pump: { mode: 'manual' },
    },
    {
      _id: 'own',
      type: 'pipe',
      source: { type: 'dataset', dataset: 'people' },
      transform: dtl([...LABEL, ['add', 'written_before', ['is-not-empty', ['hops', { datasets: ['own o'], where: ['eq', '_S._id', 'o._id'] }]]]]),
      pump: { mode: 'manual' },
    },
  ];
}
const CASES = [
  { pipe: 'plain', what: 'plain dataset run' },
  { pipe: 'merged', what: 'merge run' },
  { pipe: 'keyed', what: 'run keyed by a $SECRET' },
  { pipe: 'own', what: 'run reading its own sink' },
] as const;

interface Run {
  seconds: number;
  /** CPU seconds of this thread (the hub's) during the run. */
  mainCpuSeconds: number;
  processed: number;
}

export interface WorkerModesCase {
  pipe: string;
  what: string;
  hubThread: Run;
  worker: Run;
  /** Hub's-thread wall time over the worker's. */
  ratio: number;
}

export interface WorkerModesBenchResult {
  entities: number;
  cases: WorkerModesCase[];
  problems: string[];
}

function threadCpu(): number {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.();
  return usage === undefined ? 0 : (usage.user + usage.system) / 1e6;
}

async function runOnce(hub: Hub, id: string): Promise<Run> {
  const t0 = performance.now();
  const main0 = threadCpu();
  hub.pumps.runner.start(id, 'incremental', 'manual');
  while (hub.pumps.runner.isRunning(id)) await new Promise((r) => setTimeout(r, 2));
  const seconds = (performance.now() - t0) / 1000;
  const mainCpuSeconds = threadCpu() - main0;
  const last = hub.pumps.state.get(id).lastRun;
  if (last?.status !== 'completed') throw new Error(`${id}: the run ended ${last?.status ?? 'without a record'}`);
  return { seconds, mainCpuSeconds, processed: last.processed ?? 0 };
}

function openHub(workers: number, people: readonly JsonObject[]): { hub: Hub; dir: string } {
  const before = process.env[WORKERS_ENV];
  process.env[WORKERS_ENV] = String(workers);
  const dir = mkdtempSync(join(tmpdir(), 'datahub-worker-modes-bench-'));
  const hub = new Hub(dir);
  if (before === undefined) delete process.env[WORKERS_ENV];
  else process.env[WORKERS_ENV] = before;
  const scores = people.map((p, i) => ({ _id: `s${i}`, of: p['_id'], score: i % 100 }));
  for (const [name, entities] of [['people', people], ['scores', scores]] as const) {
    const ds = hub.datasets.open(name);
    for (let i = 0; i < entities.length; i += BATCH) ds.write(entities.slice(i, i + BATCH));
  }
  hub.secrets.set({ 'bench-key': KEY }, false);
  hub.pipes.save(hub.pipes.validate(pipes(), false));
  return { hub, dir };
}

function fingerprint(hub: Hub, name: string): string {
  const hash = createHash('sha1');
  for (const page of hub.datasets.require(name).readJson({ history: false, deleted: true })) for (const text of page) hash.update((JSON.parse(text) as JsonObject)['_hash'] as string);
  return hash.digest('hex');
}

export async function runWorkerModesBench(count: number): Promise<WorkerModesBenchResult> {
  const people = generateBenchEntities(count);
  const problems: string[] = [];
  const modes = [openHub(1, people), openHub(2, people)];
  try {
    const cases: WorkerModesCase[] = [];
    for (const c of CASES) {
      const best: (Run | undefined)[] = [undefined, undefined];
      // The first run of each (workers start and compile during it) is not counted.
      for (const m of modes) await runOnce(m.hub, c.pipe);
      for (let pass = 0; pass < PASSES; pass++) {
        for (const [i, m] of modes.entries()) {
          resetPump(m.hub, c.pipe);
          m.hub.datasets.delete(c.pipe);
          const run = await runOnce(m.hub, c.pipe);
          if (best[i] === undefined || run.seconds < best[i].seconds) best[i] = run;
        }
      }
      const [hubThread, worker] = best as [Run, Run];
      if (hubThread.processed !== worker.processed) problems.push(`worker modes bench: ${c.pipe} processed ${hubThread.processed} on the hub's thread, ${worker.processed} in a worker`);
      if (fingerprint(modes[0]!.hub, c.pipe) !== fingerprint(modes[1]!.hub, c.pipe)) problems.push(`worker modes bench: the sink of ${c.pipe} differs between the modes`);
      cases.push({ ...c, hubThread, worker, ratio: hubThread.seconds / worker.seconds });
    }
    return { entities: count, cases, problems };
  } finally {
    for (const m of modes) {
      await m.hub.stopPumps();
      m.hub.close();
      rmSync(m.dir, { recursive: true, force: true });
    }
  }
}

/** Rows for bench.ts's table: case, entities, seconds, entities/s, vs baseline, target, result. */
export function workerModesBenchRows(r: WorkerModesBenchResult): string[][] {
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  return r.cases.flatMap((c) => [
    [`${c.what}: hub's thread`, fmt(c.hubThread.processed), c.hubThread.seconds.toFixed(2), fmt(c.hubThread.processed / c.hubThread.seconds), `hub thread CPU ${c.hubThread.mainCpuSeconds.toFixed(2)} s`, '-', 'info'],
    [
      `${c.what}: in a worker`,
      fmt(c.worker.processed),
      c.worker.seconds.toFixed(2),
      fmt(c.worker.processed / c.worker.seconds),
      `${c.ratio.toFixed(2)}x the hub's thread; hub thread CPU ${c.worker.mainCpuSeconds.toFixed(2)} s`,
      '-',
      'info',
    ],
  ]);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const raw = process.env['BENCH_ENTITIES'];
  const count = raw === undefined || raw === '' ? 50_000 : Number(raw.replace(/_/g, ''));
  const result = await runWorkerModesBench(count);
  for (const row of workerModesBenchRows(result)) console.log(row.join(' | '));
  console.log(`load average (1 min) ${loadavg()[0]!.toFixed(2)}: wall times on a shared machine are shared with other processes`);
  for (const p of result.problems) console.error(p);
  process.exitCode = result.problems.length > 0 ? 1 : 0;
}

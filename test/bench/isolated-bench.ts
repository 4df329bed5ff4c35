/*
 * Isolated test groups side by side (issue 35.5; called from test/bench/bench.ts, also runnable alone:
 * `node out/test/bench/isolated-bench.js`, BENCH_ISOLATED_ENTITIES entities per group, default 3,000).
 *
 * A generated project of GROUPS groups that share no pipe or dataset, each `g<i>-src` (embedded) -> `g<i>-a` (copy + 3
 * adds) -> `g<i>-b` (copy + 2 adds), every pipe with a test. Its expected files are written first (the run's own
 * --update), then `datahub test`'s isolated runner (main/cli/test-isolated.ts) checks them twice per pass, same run:
 *   one after the other  one worker thread: group after group, in one hub
 *   side by side         as many worker threads as cores (at most GROUPS), a hub each
 * Every hub runs its pipes on its own thread (DATAHUB_PIPE_WORKERS=1) in both modes, so the groups are the only
 * parallelism. The modes take turns for PASSES passes; the fastest of each counts. Every test must pass in both.
 * The ratio is one-after-the-other wall time over side-by-side (target >= 1.5x with 2 or more cores). On a machine whose
 * cores are busy with other sessions the wall times say little: Linux gives each session (autogroup) a fair share of
 * the cores, however many threads it runs. So each worker thread's own CPU time is measured too (starting, loading
 * modules, its hub, its groups): "on idle cores" is the one worker's CPU time one after the other over the busiest
 * worker's side by side, the wall-time ratio the run would have with a core per thread.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { planGroups, runIsolated } from '../../main/cli/test-isolated.js';
import { readTestSpecs } from '../../hub-core/project/index.js';
import { WORKERS_ENV } from '../../hub-core/pipes/index.js';

export const ISOLATED_TARGET_RATIO = 1.5;
const GROUPS = 4;
const PASSES = 3;

export interface IsolatedBenchResult {
  entities: number;
  groups: number;
  cpus: number;
  serialSeconds: number;
  parallelSeconds: number;
  ratio: number;
  /** CPU seconds (all threads) of the fastest passes; their ratio is the speed-up on otherwise idle cores. */
  serialCpu: number;
  parallelCpu: number;
  cpuRatio: number;
  /** CPU time of the one worker one after the other, and of the busiest worker side by side (ms). */
  serialWorkerCpuMs: number;
  parallelWorkerCpuMs: number;
  /** Their ratio: the speed-up with a core per thread. */
  idleRatio: number;
  target: number;
  pass: boolean;
  problems: string[];
}

const dtl = (rules: unknown[]): Record<string, unknown> => ({ type: 'dtl', rules: { default: rules } });

function generate(root: string, perGroup: number): string {
  const node = join(root, 'node');
  mkdirSync(join(node, 'pipes'), { recursive: true });
  mkdirSync(join(node, 'expected'), { recursive: true });
  const put = (file: string, value: unknown): void => writeFileSync(join(node, file), `${JSON.stringify(value)}\n`);
  for (let g = 0; g < GROUPS; g++) {
    const entities = Array.from({ length: perGroup }, (_, i) => ({ _id: `e${i}`, n: i, name: `item ${i} of group ${g}`, tags: ['x', `t${i % 7}`] }));
    const pipes = [
      { _id: `g${g}-src`, type: 'pipe', source: { type: 'embedded', entities } },
      {
        _id: `g${g}-a`,
        type: 'pipe',
        source: { type: 'dataset', dataset: `g${g}-src` },
        transform: dtl([['copy', '*'], ['add', 'a', ['plus', '_S.n', 1]], ['add', 'upper', ['upper', '_S.name']], ['add', 'key', ['concat', '_S.name', '-', ['string', '_S.n']]]]),
      },
      { _id: `g${g}-b`, type: 'pipe', source: { type: 'dataset', dataset: `g${g}-a` }, transform: dtl([['copy', '*'], ['add', 'b', ['plus', '_S.a', 2]], ['add', 'lower', ['lower', '_S.upper']]]) },
    ];
    for (const p of pipes) {
      put(`pipes/${p._id}.conf.json`, p);
      put(`expected/${p._id}.test.json`, {});
    }
  }
  return node;
}

export async function runIsolatedBench(perGroup = Number(process.env['BENCH_ISOLATED_ENTITIES'] ?? 3000)): Promise<IsolatedBenchResult> {
  const root = mkdtempSync(join(tmpdir(), 'datahub-isolated-bench-'));
  const problems: string[] = [];
  const cpus = availableParallelism();
  const before = process.env[WORKERS_ENV];
  process.env[WORKERS_ENV] = '1';
  try {
    const node = generate(root, perGroup);
    const specs = readTestSpecs(node);
    const groups = planGroups(node, specs, undefined);
    if (groups.length !== GROUPS) problems.push(`isolated groups: planned ${groups.length} groups, expected ${GROUPS}`);
    await runIsolated(root, node, groups, { maxRounds: 20, update: true, checks: undefined, parallel: 1 });
    const pass = async (parallel: number): Promise<{ seconds: number; cpu: number; worker: number }> => {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const run = await runIsolated(root, node, groups, { maxRounds: 20, update: false, checks: undefined, parallel });
      const seconds = (performance.now() - t0) / 1000;
      const used = process.cpuUsage(cpu0);
      const cpu = (used.user + used.system) / 1e6;
      const bad = [...run.results.values()].filter((r) => r.status !== 'passed').map((r) => r.spec.name);
      if (run.results.size !== specs.length || bad.length > 0) problems.push(`isolated groups (${parallel} at a time): ${run.results.size} of ${specs.length} tests ran, not passing: ${bad.join(', ') || 'none'}`);
      return { seconds, cpu, worker: Math.max(...run.workerCpuMs) };
    };
    const side = Math.max(2, Math.min(cpus, GROUPS));
    let serial = { seconds: Infinity, cpu: 0, worker: 0 };
    let parallel = { seconds: Infinity, cpu: 0, worker: 0 };
    let serialWorker = Infinity;
    let parallelWorker = Infinity;
    for (let i = 0; i < PASSES; i++) {
      const s = await pass(1);
      if (s.seconds < serial.seconds) serial = s;
      serialWorker = Math.min(serialWorker, s.worker);
      const p = await pass(side);
      if (p.seconds < parallel.seconds) parallel = p;
      parallelWorker = Math.min(parallelWorker, p.worker);
    }
    const ratio = serial.seconds / parallel.seconds;
    // On idle cores the side-by-side wall time would be its CPU time spread over its threads.
    const cpuRatio = serial.cpu / (parallel.cpu / side);
    return {
      entities: perGroup * GROUPS,
      groups: GROUPS,
      cpus,
      serialSeconds: serial.seconds,
      parallelSeconds: parallel.seconds,
      ratio,
      serialCpu: serial.cpu,
      parallelCpu: parallel.cpu,
      cpuRatio,
      serialWorkerCpuMs: serialWorker,
      parallelWorkerCpuMs: parallelWorker,
      idleRatio: serialWorker / parallelWorker,
      target: ISOLATED_TARGET_RATIO,
      pass: cpus < 2 || ratio >= ISOLATED_TARGET_RATIO,
      problems,
    };
  } finally {
    if (before === undefined) delete process.env[WORKERS_ENV];
    else process.env[WORKERS_ENV] = before;
    rmSync(root, { recursive: true, force: true });
  }
}

/** Rows for bench.ts's table: case, entities, seconds, entities/s, vs baseline, target, result. */
export function isolatedBenchRows(r: IsolatedBenchResult): string[][] {
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  const ratio = (x: number): string => `${(Math.floor(x * 100) / 100).toFixed(2)}x`;
  const total = r.entities * 3;
  return [
    [`datahub test, ${r.groups} isolated groups: one after the other`, fmt(total), r.serialSeconds.toFixed(2), fmt(total / r.serialSeconds), '-', '-', 'info'],
    [
      `  side by side (${Math.max(2, Math.min(r.cpus, r.groups))} at a time)`,
      fmt(total),
      r.parallelSeconds.toFixed(2),
      fmt(total / r.parallelSeconds),
      `${ratio(r.ratio)} one after the other; CPU ${r.parallelCpu.toFixed(2)} s vs ${r.serialCpu.toFixed(2)} s, by CPU time ${ratio(r.cpuRatio)}; busiest worker ${r.parallelWorkerCpuMs} ms CPU vs ${r.serialWorkerCpuMs} ms: on idle cores ${ratio(r.idleRatio)}`,
      r.cpus < 2 ? '- (1 core)' : `>= ${r.target}x on ${r.cpus} cores`,
      r.cpus < 2 ? 'info' : r.pass ? 'PASS' : 'MISS',
    ],
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runIsolatedBench();
  for (const row of isolatedBenchRows(result)) console.log(row.join(' | '));
  console.log(`load average (1 min) ${loadavg()[0]!.toFixed(2)} on ${result.cpus} CPUs: above ${result.cpus} the wall times are shared with other sessions; "on idle cores" is the ratio with a core per thread`);
  for (const p of result.problems) console.error(p);
  process.exitCode = result.problems.length > 0 ? 1 : 0;
}

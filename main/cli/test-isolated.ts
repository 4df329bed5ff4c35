// `datahub test` with tests whose pipes share nothing run side by side, each group in a worker thread with a hub of
// its own (test-group-worker.ts): a pipe that fails or keeps changing in one group ends only that group's rounds and
// fails only its tests. Groups come from hub-core/project/test-groups.ts; the largest start first.

import { Worker } from 'node:worker_threads';
import { HubError } from '../../hub-core/base/index.js';
import { effectivePipeConfig, type EffectivePipe } from '../../hub-core/pipes/index.js';
import type { PipeRunSummary } from '../../hub-core/pipes/index.js';
import type { ProjectCheck, TestResult, TestSpec } from '../../hub-core/project/index.js';
import { testClosure, testGroups, type TestGroup } from '../../hub-core/project/index.js';
import { readConfigFiles } from '../../hub-core/config/index.js';
import { pipeWorkerCount, WORKERS_ENV } from '../../hub-core/pipes/index.js';

export interface WorkerSetup {
  dir: string;
  maxRounds: number;
  update: boolean;
}

export type GroupTask = { kind: 'group'; index: number; pipes: string[]; tests: TestSpec[] } | { kind: 'checks'; specs: TestSpec[] } | { kind: 'stop' };

export type GroupAnswer =
  | { kind: 'group'; index: number; rounds: number; converged: boolean; pipes: PipeRunSummary[]; results: TestResult[]; ms: number; /** CPU time of the group's thread. */ cpuMs: number; /** The thread's CPU time so far. */ threadCpuMs: number }
  | { kind: 'checks'; checks: ProjectCheck[]; threadCpuMs: number }
  | { kind: 'failure'; error: string; detail: string | null };

export interface GroupOutcome {
  pipes: PipeRunSummary[];
  tests: string[];
  rounds: number;
  converged: boolean;
  ms: number;
  cpuMs: number;
}

export interface IsolatedRun {
  groups: GroupOutcome[];
  /** Every pipe that ran, group after group. */
  pipes: PipeRunSummary[];
  /** The most rounds a group took. */
  rounds: number;
  /** Every group settled. */
  converged: boolean;
  results: Map<string, TestResult>;
  checks: ProjectCheck[];
  /** Groups run side by side at most. */
  parallel: number;
  /** Each worker thread's CPU time, from its start to its last answer (loading modules and its hub included). */
  workerCpuMs: number[];
  pipeFile(id: string): string | undefined;
}

/** The project's pipes as the run sees them, and the file each is in. */
export function projectPipes(nodeDir: string): { pipes: Map<string, EffectivePipe>; files: Map<string, string> } {
  const pipes = new Map<string, EffectivePipe>();
  const files = new Map<string, string>();
  for (const { entity, file } of readConfigFiles(nodeDir).entities) {
    if (entity.type !== 'pipe') continue;
    pipes.set(entity._id, effectivePipeConfig(entity));
    files.set(entity._id, file);
  }
  return { pipes, files };
}

/** The groups of a run of `specs` (all pipes when `only` is undefined); fewer than two means nothing to isolate. */
export function planGroups(nodeDir: string, specs: readonly TestSpec[], only: readonly string[] | undefined): TestGroup[] {
  return testGroups(projectPipes(nodeDir).pipes, specs, only);
}

/** The pipes a test's result depends on, with what they did in the run. */
export function testPipes(pipes: ReadonlyMap<string, EffectivePipe>, spec: TestSpec, ran: readonly PipeRunSummary[]): PipeRunSummary[] {
  const closure = testClosure(pipes, spec.pipe);
  return ran.filter((p) => closure.has(p.pipe));
}

/** Run the groups, `parallel` at a time (default: as many as there are pipe workers), and collect their outcomes. */
export async function runIsolated(
  dir: string,
  nodeDir: string,
  groups: readonly TestGroup[],
  options: { maxRounds: number; update: boolean; checks: TestSpec[] | undefined; parallel?: number },
): Promise<IsolatedRun> {
  const parallel = Math.max(1, Math.min(groups.length, options.parallel ?? pipeWorkerCount()));
  const order = groups.map((g, index) => ({ g, index })).sort((a, b) => b.g.pipes.length - a.g.pipes.length);
  const answers: Extract<GroupAnswer, { kind: 'group' }>[] = [];
  let checks: ProjectCheck[] = [];
  let checksPending = options.checks !== undefined;
  const setup: WorkerSetup = { dir, maxRounds: options.maxRounds, update: options.update };
  // Side by side, each hub runs its pipes on its own thread: the groups are the parallelism.
  const env = { ...process.env, ...(parallel > 1 ? { [WORKERS_ENV]: '1' } : {}) };
  let next = 0;
  const workers: Worker[] = [];
  const workerCpuMs: number[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let finished = 0;
      const feed = (w: Worker): boolean => {
        const item = order[next];
        if (item !== undefined) {
          next++;
          w.postMessage({ kind: 'group', index: item.index, pipes: item.g.pipes, tests: item.g.tests } satisfies GroupTask);
          return true;
        }
        if (checksPending) {
          checksPending = false;
          w.postMessage({ kind: 'checks', specs: options.checks! } satisfies GroupTask);
          return true;
        }
        return false;
      };
      const idle = (): void => {
        finished++;
        if (finished === workers.length) resolve();
      };
      for (let i = 0; i < parallel; i++) {
        const w = new Worker(new URL('./test-group-worker.js', import.meta.url), { workerData: setup, env });
        workers.push(w);
        w.on('message', (a: GroupAnswer) => {
          if (a.kind === 'failure') return reject(new HubError(400, a.error, a.detail ?? undefined));
          workerCpuMs[i] = a.threadCpuMs;
          if (a.kind === 'group') answers.push(a);
          else checks = a.checks;
          if (!feed(w)) idle();
        });
        w.on('error', reject);
        w.on('exit', (code) => {
          if (code !== 0) reject(new Error(`a test worker stopped with exit code ${code}`));
        });
        if (!feed(w)) idle();
      }
    });
  } finally {
    for (const w of workers) w.postMessage({ kind: 'stop' } satisfies GroupTask);
  }
  answers.sort((a, b) => a.index - b.index);
  const results = new Map<string, TestResult>();
  for (const a of answers) for (const r of a.results) results.set(r.spec.name, r);
  const files = projectPipes(nodeDir).files;
  return {
    groups: answers.map((a) => ({ pipes: a.pipes, tests: groups[a.index]!.tests.map((t) => t.name), rounds: a.rounds, converged: a.converged, ms: a.ms, cpuMs: a.cpuMs })),
    pipes: answers.flatMap((a) => a.pipes),
    rounds: Math.max(0, ...answers.map((a) => a.rounds)),
    converged: answers.every((a) => a.converged),
    results,
    checks,
    parallel,
    workerCpuMs,
    pipeFile: (id) => files.get(id),
  };
}

// Worker-thread entry of `datahub test`'s isolated groups (test-isolated.ts): runs the groups it is handed one at a
// time in a hub of its own (a group's pipes until they settle, then its tests) and answers each with its pipes,
// rounds, test results and the time and CPU time it took. The hub holds only what its groups need: the pipes of
// each group are loaded when the group comes (with the systems they name), so a worker never loads the whole
// project. Groups share no pipe or written dataset, so running them one after another in this hub gives each the
// result it would have alone.
import { parentPort, workerData } from 'node:worker_threads';
import { loadProject, projectRunOptions } from '../../hub-core/project/index.js';
import { projectChecks, runTest, type TestSpec } from '../../hub-core/project/index.js';
import { HubError } from '../../hub-core/base/index.js';
import { publishedOutput } from '../server/published-output.js';
import type { GroupAnswer, GroupTask, WorkerSetup } from './test-isolated.js';

const setup = workerData as WorkerSetup;
const port = parentPort!;

let loaded: ReturnType<typeof loadProject> | undefined;
/** The pipes loaded into the hub so far (all: the project checks needed every pipe). */
let pipesLoaded: Set<string> | 'all' = new Set();

/** Load the given pipes too (every pipe when undefined); the project's load problems are the run's failure. */
function include(pipes: readonly string[] | undefined): void {
  if (pipesLoaded === 'all') return;
  const wanted = pipes === undefined ? undefined : new Set([...pipesLoaded, ...pipes]);
  if (wanted !== undefined && loaded !== undefined && wanted.size === pipesLoaded.size) return;
  if (loaded === undefined) loaded = loadProject(setup.dir, wanted === undefined ? {} : { pipes: wanted });
  else loaded.workspace.load(wanted === undefined ? {} : { pipes: wanted });
  pipesLoaded = wanted ?? 'all';
}

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.threadCpuUsage(since);
  return Math.round((used.user + used.system) / 1000);
};

/** The thread's CPU time since it started: starting, loading modules, every group so far. */
const threadCpuMs = (): number => {
  const used = process.threadCpuUsage();
  return Math.round((used.user + used.system) / 1000);
};

async function runGroup(index: number, pipes: string[], tests: TestSpec[]): Promise<GroupAnswer> {
  const began = performance.now();
  const cpu = process.threadCpuUsage();
  include(pipes);
  const { hub, workspace } = loaded!;
  const run = hub.runAll.start(projectRunOptions(setup.maxRounds, pipes));
  await run.done;
  const published = publishedOutput(hub);
  const results = [];
  for (const spec of tests) {
    const pipe = run.pipes.find((p) => p.pipe === spec.pipe);
    const pipeError = pipe?.status === 'failed' ? pipe.error : null;
    const pipeNotRun = pipe?.status === 'skipped' && pipe.error?.startsWith('not run:') === true ? pipe.error : null;
    results.push(await runTest(hub, workspace.nodeDir, spec, { update: setup.update, pipeError, pipeNotRun, published }));
  }
  return { kind: 'group', index, rounds: run.rounds, converged: run.converged, pipes: run.pipes, results, ms: Math.round(performance.now() - began), cpuMs: cpuMs(cpu), threadCpuMs: threadCpuMs() };
}

function failure(e: unknown, prefix = ''): GroupAnswer {
  return { kind: 'failure', error: `${prefix}${e instanceof Error ? e.message : String(e)}`, detail: e instanceof HubError ? (e.detail ?? null) : null };
}

port.on('message', (task: GroupTask) => {
  if (task.kind === 'stop') {
    loaded?.close();
    port.close();
    return;
  }
  let answer: Promise<GroupAnswer>;
  try {
    if (task.kind === 'checks') {
      include(undefined);
      answer = Promise.resolve({ kind: 'checks', checks: projectChecks(loaded!.hub, task.specs), threadCpuMs: threadCpuMs() });
    } else answer = runGroup(task.index, task.pipes, task.tests);
  } catch (e) {
    // The project cannot be loaded: the run's failure, in the project's words.
    answer = Promise.resolve(failure(e));
  }
  answer.then(
    (a) => port.postMessage(a),
    (e: unknown) => port.postMessage(failure(e, e instanceof HubError ? '' : 'the test run crashed: ')),
  );
});

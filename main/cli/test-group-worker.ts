// Worker-thread entry of `datahub test`'s isolated groups (test-isolated.ts): loads the project into a hub of its own
// once, then runs the groups it is handed one at a time (a group's pipes until they settle, then its tests) and
// answers each with its pipes, rounds and test results. Groups share no pipe or written dataset, so running them one
// after another in this hub gives each the result it would have alone.
import { parentPort, workerData } from 'node:worker_threads';
import { loadProject, projectRunOptions } from '../../hub-core/project/index.js';
import { projectChecks, runTest, type TestSpec } from '../../hub-core/project/index.js';
import { HubError } from '../../hub-core/base/index.js';
import { publishedOutput } from '../server/published-output.js';
import type { GroupAnswer, GroupTask, WorkerSetup } from './test-isolated.js';

const setup = workerData as WorkerSetup;
const port = parentPort!;

let loaded: ReturnType<typeof loadProject> | undefined;
try {
  loaded = loadProject(setup.dir);
} catch (e) {
  port.postMessage({ kind: 'failure', error: e instanceof Error ? e.message : String(e), detail: e instanceof HubError ? (e.detail ?? null) : null } satisfies GroupAnswer);
}

async function runGroup(index: number, pipes: string[], tests: TestSpec[]): Promise<GroupAnswer> {
  const { hub, workspace } = loaded!;
  const began = performance.now();
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
  return { kind: 'group', index, rounds: run.rounds, converged: run.converged, pipes: run.pipes, results, ms: Math.round(performance.now() - began) };
}

port.on('message', (task: GroupTask) => {
  if (task.kind === 'stop') {
    loaded?.close();
    port.close();
    return;
  }
  if (loaded === undefined) return;
  const answer = task.kind === 'checks' ? Promise.resolve<GroupAnswer>({ kind: 'checks', checks: projectChecks(loaded.hub, task.specs) }) : runGroup(task.index, task.pipes, task.tests);
  answer.then(
    (a) => port.postMessage(a),
    (e: unknown) => port.postMessage({ kind: 'failure', error: `the test run crashed: ${e instanceof Error ? e.message : String(e)}`, detail: null } satisfies GroupAnswer),
  );
});

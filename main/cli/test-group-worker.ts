// Worker-thread entry of `datahub test`'s isolated groups (test-isolated.ts): runs the groups it is handed one at a
// time in a test session of its own (hub-core/project/test-session.ts: a group's pipes until they settle, then its
// tests) and answers each with its pipes, rounds, test results and the time and CPU time it took. The session's hub
// holds only what its groups need: the pipes of each group are loaded when the group comes (with the systems they
// name), so a worker never loads the whole project. Groups share no pipe or written dataset, so running them one
// after another in this hub gives each the result it would have alone.
import { parentPort, workerData } from 'node:worker_threads';
import { TestSession, threadCpuMs } from '../../hub-core/project/index.js';
import { HubError } from '../../hub-core/base/index.js';
import { publishedOutput } from '../server/published-output.js';
import type { GroupAnswer, GroupTask, WorkerSetup } from './test-isolated.js';

const setup = workerData as WorkerSetup;
const port = parentPort!;
const session = new TestSession(setup.dir, publishedOutput);

function failure(e: unknown): GroupAnswer {
  const crash = e instanceof HubError ? '' : 'the test run crashed: ';
  return { kind: 'failure', error: `${crash}${e instanceof Error ? e.message : String(e)}`, detail: e instanceof HubError ? (e.detail ?? null) : null };
}

async function perform(task: Exclude<GroupTask, { kind: 'stop' }>): Promise<GroupAnswer> {
  if (task.kind === 'checks') return { kind: 'checks', checks: session.checks(task.specs), threadCpuMs: threadCpuMs() };
  const run = await session.runGroup(task.pipes, task.tests, setup);
  return { kind: 'group', index: task.index, ...run, threadCpuMs: threadCpuMs() };
}

port.on('message', (task: GroupTask) => {
  if (task.kind === 'stop') {
    session.close();
    port.close();
    return;
  }
  perform(task).then(
    (a) => port.postMessage(a),
    (e: unknown) => port.postMessage(failure(e)),
  );
});

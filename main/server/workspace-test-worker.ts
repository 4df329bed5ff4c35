// Worker-thread entry of a workspace test task: one per worker, the answer (or the failure) posted back. Tasks: run
// the tests (`datahub test`, all or some, optionally updating expected files) or add a test to a pipe.
import { parentPort, workerData } from 'node:worker_threads';
import { failureOf, runWorkspaceTests, type WorkspaceTestOptions } from './workspace-test-run.js';
import { addWorkspaceTest, type NewTestRequest } from './workspace-test-add.js';

export type WorkspaceTask = { task: 'run'; dir: string; options: WorkspaceTestOptions } | { task: 'add'; dir: string; request: NewTestRequest };

const work = workerData as WorkspaceTask;

try {
  const report = work.task === 'add' ? await addWorkspaceTest(work.dir, work.request) : await runWorkspaceTests(work.dir, work.options);
  parentPort?.postMessage({ report });
} catch (e) {
  parentPort?.postMessage({ failure: failureOf(e) });
}

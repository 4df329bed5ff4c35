// Worker-thread entry of a workspace test task: one per worker, the answer (or the failure) posted back. Tasks: run
// the tests (`datahub test`, all or some, optionally updating expected files), add a test to a pipe, accept a test's
// output (all, one entity or one property) or ignore a property from now on.
import { parentPort, workerData } from 'node:worker_threads';
import { failureOf, runWorkspaceTests, type WorkspaceTestOptions } from './workspace-test-run.js';
import { addWorkspaceTest, type NewTestRequest } from './workspace-test-add.js';
import { acceptWorkspaceTest, ignoreWorkspaceProperty, type AcceptRequest, type IgnoreRequest } from './workspace-test-accept.js';

export type WorkspaceTask =
  | { task: 'run'; dir: string; options: WorkspaceTestOptions }
  | { task: 'add'; dir: string; request: NewTestRequest }
  | { task: 'accept'; dir: string; request: AcceptRequest }
  | { task: 'ignore'; dir: string; request: IgnoreRequest };

const work = workerData as WorkspaceTask;

async function perform(w: WorkspaceTask): Promise<unknown> {
  switch (w.task) {
    case 'add':
      return addWorkspaceTest(w.dir, w.request);
    case 'accept':
      return acceptWorkspaceTest(w.dir, w.request);
    case 'ignore':
      return ignoreWorkspaceProperty(w.dir, w.request);
    case 'run':
      return runWorkspaceTests(w.dir, w.options);
  }
}

try {
  parentPort?.postMessage({ report: await perform(work) });
} catch (e) {
  parentPort?.postMessage({ failure: failureOf(e) });
}

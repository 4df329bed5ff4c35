// Worker-thread entry of a workspace test run: one run per worker, the report (or the failure) posted back.
import { parentPort, workerData } from 'node:worker_threads';
import { failureOf, runWorkspaceTests } from './workspace-test-run.js';

const { dir, update, maxRounds } = workerData as { dir: string; update: boolean; maxRounds?: number };

try {
  const report = await runWorkspaceTests(dir, { update, ...(maxRounds !== undefined ? { maxRounds } : {}) });
  parentPort?.postMessage({ report });
} catch (e) {
  parentPort?.postMessage({ failure: failureOf(e) });
}

// Worker-thread entry of the "re-run affected tests on save" loop's hub (workspace-test-warm.ts): one TestSession kept
// between saves, as `datahub test --watch` keeps its own. Each message names the tests a save affects; the answer is
// the same report a fresh run gives (the session starts the affected pipes afresh after reading the files again).
import { parentPort, workerData } from 'node:worker_threads';
import { TestSession } from '../../../hub-core/project/index.js';
import { publishedOutput } from '../published-output.js';
import { failureOf, runWorkspaceTests } from './workspace-test-run.js';

export interface WarmRequest {
  id: number;
  names: string[];
}

const { dir } = workerData as { dir: string };
const session = new TestSession(dir, publishedOutput);
let queue: Promise<void> = Promise.resolve();

parentPort?.on('message', (m: WarmRequest) => {
  queue = queue.then(async () => {
    try {
      parentPort?.postMessage({ id: m.id, report: await runWorkspaceTests(dir, { names: m.names }, session) });
    } catch (e) {
      parentPort?.postMessage({ id: m.id, failure: failureOf(e) });
    }
  });
});

// The workspace's test tasks (run, add, accept, ignore), each in a worker thread so a run of several seconds never
// holds up the host's event loop, one at a time: a second while one goes on is a 409. Shared by the test routes and
// the "re-run affected tests on save" loop.
import { Worker } from 'node:worker_threads';
import { HubError } from '../../../hub-core/base/index.js';
import type { WorkspaceTestFailure } from './workspace-test-run.js';
import type { WorkspaceTask } from './workspace-test-worker.js';

/** A run that takes longer than this is stopped (pipes that never settle, say) and answered with a 504. */
export const RUN_LIMIT_MS = 10 * 60_000;

/** Run a test task in a worker thread; resolves with its answer or rejects with a HubError carrying the failure. */
function runInWorker<T>(task: WorkspaceTask): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./workspace-test-worker.js', import.meta.url), { workerData: task });
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(() => {
      finish(() => reject(new HubError(504, 'the test run took too long', `stopped after ${RUN_LIMIT_MS / 60_000} minutes; do the pipes keep changing each other?`)));
      void worker.terminate();
    }, RUN_LIMIT_MS);
    worker.on('message', (msg: { report?: T; failure?: WorkspaceTestFailure }) => {
      if (msg.report) finish(() => resolve(msg.report!));
      else if (msg.failure) {
        const f = msg.failure;
        finish(() => reject(f.status >= 500 ? new Error(`${f.error}: ${f.detail ?? ''}`) : new HubError(f.status, f.error, f.detail ?? undefined)));
      }
    });
    worker.on('error', (err) => finish(() => reject(err)));
    worker.on('exit', (code) => finish(() => reject(new Error(`the test run stopped unexpectedly (exit code ${code})`))));
  });
}

export class WorkspaceTestTasks {
  private busy = false;

  get running(): boolean {
    return this.busy;
  }

  /** One task at a time: a second is a 409. */
  async exclusive<T>(task: WorkspaceTask): Promise<T> {
    return this.alone(() => runInWorker<T>(task));
  }

  /** Any other run of tests (the loop's warm hub), under the same one-at-a-time rule. */
  async alone<T>(run: () => Promise<T>): Promise<T> {
    if (this.busy) throw new HubError(409, 'a test run is already in progress', 'wait for it to finish, then run again');
    this.busy = true;
    try {
      return await run();
    } finally {
      this.busy = false;
    }
  }
}

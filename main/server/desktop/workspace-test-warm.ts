// The loop's warm test hub: a worker thread holding one TestSession for a workspace folder
// (workspace-test-warm-worker.ts), so that a save re-runs its affected tests without starting a hub and loading the
// project again. A change of anything but pipes, expected files and tests starts a new one (as `datahub test --watch`
// does); so does a run past the time limit or a crash.
import { Worker } from 'node:worker_threads';
import { HubError } from '../../../hub-core/base/index.js';
import { WORKERS_ENV } from '../../../hub-core/pipes/index.js';
import type { WorkspaceTestFailure, WorkspaceTestReport } from './workspace-test-run.js';
import type { WarmRequest } from './workspace-test-warm-worker.js';
import { RUN_LIMIT_MS } from './workspace-test-tasks.js';

/** Files whose change the warm hub reads again by itself; any other (systems, settings, env) starts a new hub. */
const WARM_FILES = /^(pipes|expected)\//;

export class WarmTestHub {
  private worker: Worker | undefined;
  private dir: string | undefined;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (r: WorkspaceTestReport) => void; reject: (e: Error) => void }>();

  /** Run these tests of the workspace in `dir`, in the warm hub unless `changed` (relative to node/) asks for a new one. */
  async run(dir: string, names: string[], changed: readonly string[]): Promise<WorkspaceTestReport> {
    if (this.dir !== dir || changed.some((f) => !WARM_FILES.test(f))) this.close();
    const worker = this.worker ?? this.start(dir);
    const id = ++this.seq;
    const request: WarmRequest = { id, names };
    return new Promise<WorkspaceTestReport>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new HubError(504, 'the test run took too long', `stopped after ${RUN_LIMIT_MS / 60_000} minutes; do the pipes keep changing each other?`));
      }, RUN_LIMIT_MS);
      const done = (): void => {
        clearTimeout(timer);
        this.pending.delete(id);
      };
      this.pending.set(id, {
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
      });
      worker.postMessage(request);
    });
  }

  close(): void {
    const w = this.worker;
    this.worker = undefined;
    this.dir = undefined;
    if (w !== undefined) void w.terminate();
  }

  private start(dir: string): Worker {
    // Its pipes run on the session hub's own thread: on test data a hand-over to a pipe worker costs more than the pipe.
    const worker = new Worker(new URL('./workspace-test-warm-worker.js', import.meta.url), { workerData: { dir }, env: { ...process.env, [WORKERS_ENV]: '1' } });
    worker.unref();
    worker.on('message', (msg: { id: number; report?: WorkspaceTestReport; failure?: WorkspaceTestFailure }) => {
      const p = this.pending.get(msg.id);
      if (p === undefined) return;
      if (msg.report !== undefined) p.resolve(msg.report);
      else if (msg.failure !== undefined) {
        const f = msg.failure;
        p.reject(f.status >= 500 ? new Error(`${f.error}: ${f.detail ?? ''}`) : new HubError(f.status, f.error, f.detail ?? undefined));
      }
    });
    const lost = (err: Error): void => {
      if (this.worker === worker) this.fail(err);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the test run stopped unexpectedly (exit code ${code})`)));
    this.worker = worker;
    this.dir = dir;
    return worker;
  }

  /** The hub is lost (or stopped): every run waiting on it fails with `err`, and the next run starts a new one. */
  private fail(err: Error): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    this.close();
    for (const p of waiting) p.reject(err);
  }
}

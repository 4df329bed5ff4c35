// Where the previews' DTL evaluations run: a small pool of worker threads (preview-worker.ts), so that no preview,
// trace, step-through or impact holds the thread that answers the hub's API, and each has a deadline that stops it
// whatever it does (a native call that never reaches the evaluator's own checks included). A job past its deadline,
// or whose client went away, ends by terminating its worker; a fresh one starts right after the answer. A job gets
// the pipe's configuration and only the variable values it needs: the `$ENV`s it names, the namespaces, and the
// secrets the transform takes as the key of encrypt/decrypt. Sources are read on the calling thread (they may reach
// outside with a system's secrets, which never leave it), except a dataset source that an impact's job reads through
// the worker's own read-only connection.

import { Worker } from 'node:worker_threads';
import type { DatasetStore } from '../storage/index.js';
import { DtlLimitError, SERVING_THREAD_HOLD_MS } from '../dtl/index.js';
import { HubError, parseJson } from '../base/index.js';
import { answerIndexRequest, errorFromWorker, outOfWorkerMemory, whenOnline, workerRequest, type PipeRuntime, type PipeRuntimes } from '../pipes/index.js';
import { runPreviewJobAsync, type PreviewJob, type PreviewJobResult } from './preview-jobs.js';
import type { FromPreviewWorker, PreviewTask, PreviewWorkerInit, RuntimeSpec } from './preview-protocol.js';

/** Runs the previews' evaluations: in the pool, or on the calling thread (localEvaluator). */
export interface PreviewEvaluator {
  /** Run `job` on the runtime `run`; `signal`: the client went away (the job is stopped, the promise rejected). */
  evaluate<J extends PreviewJob>(run: PipeRuntime, job: J, signal?: AbortSignal): Promise<PreviewJobResult<J>>;
  /** The workers, for /status (none: the jobs run on the calling thread). */
  status?(): PreviewWorkersStatus;
}

/** The preview workers as /status shows them. */
export interface PreviewWorkersStatus {
  /** Workers the pool may run at once. */
  count: number;
  /** Workers started now (idle or busy). */
  started: number;
  /** Workers running a job now. */
  busy: number;
  /** Jobs waiting for a worker. */
  waiting: number;
  /** Jobs run since the hub started (answered, failed or stopped). */
  jobs: number;
  /** Workers terminated because their job passed its deadline (a fresh one took their place). */
  restarts_after_deadline: number;
  /** Workers terminated because their job's client went away. */
  stopped_client_gone: number;
  deadline_ms: number;
  memory_mb: number;
  nice: number;
  /** Set when workers could not start in this runtime: the jobs run on the hub's thread. */
  unavailable?: boolean;
}

/** On the calling thread, bounded only by the evaluator's own checks (dtl/work-limit.ts): tests and the CLI. */
export const localEvaluator: PreviewEvaluator = {
  evaluate: async (run, job) => runPreviewJobAsync(run, job),
};

/** A job's deadline: a little over the bound the evaluator keeps itself, so that its own words come first. */
export const PREVIEW_DEADLINE_MS = SERVING_THREAD_HOLD_MS + 3000;

/** The deadline: DATAHUB_PREVIEW_DEADLINE_MS (at least 1000) or {@link PREVIEW_DEADLINE_MS}. */
export function previewDeadlineMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env['DATAHUB_PREVIEW_DEADLINE_MS']);
  return Number.isInteger(n) && n >= 1000 ? n : PREVIEW_DEADLINE_MS;
}

export function deadlineError(ms: number): DtlLimitError {
  return new DtlLimitError(
    'the transform takes too long',
    `it ran for more than ${ms / 1000} s and was stopped; look for lists that grow with each other (a "map" or "range" inside another), wildcard patterns against long texts, or slow rules over many entities`,
  );
}

/** A worker's answer: JSON text, a value cloned as it is (see preview-protocol.ts), or why it failed. */
type Answer = { text: string } | { value: unknown } | { error: Error };

interface Slot {
  readonly worker: Worker;
  readonly signal: Int32Array;
  readonly online: Promise<void>;
  /** The job it runs: settle it with its answer, or with why the worker went. */
  job?: { readonly id: number; settle(result: Answer): void };
  /** Taken by a job (from acquire to release). */
  busy: boolean;
  gone: boolean;
}

export class PreviewPool implements PreviewEvaluator {
  private readonly slots: Slot[] = [];
  private readonly waiting: ((slot: Slot) => void)[] = [];
  private nextId = 1;
  private closed = false;
  /** Workers could not start in this runtime: jobs run on the calling thread. */
  private unavailable = false;
  private readonly counts = { jobs: 0, deadline: 0, gone: 0 };

  constructor(
    private readonly dbFile: string,
    private readonly datasets: DatasetStore,
    private readonly runtimes: PipeRuntimes,
    private readonly size = 2,
    private readonly memoryMb = 512,
    private readonly nice = 0,
    readonly deadlineMs = PREVIEW_DEADLINE_MS,
  ) {}

  async evaluate<J extends PreviewJob>(run: PipeRuntime, job: J, signal?: AbortSignal): Promise<PreviewJobResult<J>> {
    if (this.closed || this.unavailable) return runPreviewJobAsync(run, job);
    const request = workerRequest(this.runtimes, run, undefined, 1);
    const spec: RuntimeSpec = { configText: request.configText, env: request.env, secrets: run.keySecrets(), namespaces: request.namespaces, standalone: run.standalone };
    signal?.throwIfAborted();
    const slot = await this.acquire();
    try {
      await slot.online;
    } catch {
      this.unavailable = true;
      this.drop(slot);
      this.release(slot);
      return runPreviewJobAsync(run, job);
    }
    if (slot.gone) {
      this.release(slot);
      return this.evaluate(run, job, signal);
    }
    if (signal?.aborted) {
      // The client went away while the job waited for a worker: nothing to stop.
      this.release(slot);
      throw new HubError(499, 'the client went away', 'the preview was not started');
    }
    this.counts.jobs++;
    const answer = await new Promise<{ text: string } | { value: unknown }>((resolve, reject) => {
      const id = this.nextId++;
      const deadline: { timer?: ReturnType<typeof setTimeout> } = {};
      const onAbort = (): void => {
        this.counts.gone++;
        this.retire(slot);
        settle({ error: new HubError(499, 'the client went away', 'the preview was stopped') });
      };
      const settle = (result: Answer): void => {
        if (slot.job?.id !== id) return;
        slot.job = undefined;
        clearTimeout(deadline.timer);
        signal?.removeEventListener('abort', onAbort);
        if ('error' in result) reject(result.error);
        else resolve(result);
        this.release(slot);
      };
      slot.job = { id, settle };
      signal?.addEventListener('abort', onAbort, { once: true });
      deadline.timer = setTimeout(() => {
        this.counts.deadline++;
        this.retire(slot);
        settle({ error: deadlineError(this.deadlineMs) });
      }, this.deadlineMs);
      slot.worker.ref();
      slot.worker.postMessage({ id, spec, job: JSON.stringify(job) } satisfies PreviewTask);
    });
    return ('text' in answer ? parseJson(answer.text) : answer.value) as PreviewJobResult<J>;
  }

  status(): PreviewWorkersStatus {
    return {
      count: this.size,
      started: this.slots.length,
      busy: this.slots.filter((s) => s.job !== undefined).length,
      waiting: this.waiting.length,
      jobs: this.counts.jobs,
      restarts_after_deadline: this.counts.deadline,
      stopped_client_gone: this.counts.gone,
      deadline_ms: this.deadlineMs,
      memory_mb: this.memoryMb,
      nice: process.platform === 'linux' ? this.nice : 0,
      ...(this.unavailable ? { unavailable: true } : {}),
    };
  }

  /** An idle worker (taken at once); a new one while fewer than `size` run; else the first to be released. */
  private acquire(): Promise<Slot> {
    const idle = this.slots.find((s) => !s.busy);
    const slot = idle ?? (this.slots.length < this.size ? this.spawn() : undefined);
    if (slot) {
      slot.busy = true;
      return Promise.resolve(slot);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** A worker is free again (or gone): the next waiting job takes it (or a fresh one). */
  private release(slot: Slot): void {
    if (!slot.gone) slot.worker.unref();
    const next = this.waiting.shift();
    if (next === undefined) {
      slot.busy = false;
      return;
    }
    if (!slot.gone) return next(slot);
    const fresh = this.spawn();
    fresh.busy = true;
    next(fresh);
  }

  private spawn(): Slot {
    const signal = new SharedArrayBuffer(8);
    const init: PreviewWorkerInit = { dbFile: this.dbFile, signal, nice: this.nice };
    const worker = new Worker(new URL('./preview-worker.js', import.meta.url), { workerData: init, resourceLimits: { maxOldGenerationSizeMb: this.memoryMb } });
    worker.unref();
    const online = whenOnline(worker);
    const slot: Slot = { worker, signal: new Int32Array(signal), online, busy: false, gone: false };
    this.slots.push(slot);
    worker.on('message', (msg: FromPreviewWorker) => {
      if (msg.type === 'ensure-index') answerIndexRequest(this.datasets, slot.signal, msg.dataset, msg.expression);
      else if (slot.job?.id === msg.id) slot.job.settle(msg.type === 'done' ? { text: msg.text } : msg.type === 'done-value' ? { value: msg.value } : { error: errorFromWorker(msg.error) });
    });
    let died: Error | undefined;
    worker.on('error', (e) => (died = outOfWorkerMemory(e, this.memoryMb) ?? new HubError(500, 'the preview worker failed', e.message)));
    worker.on('exit', (code) => {
      const job = slot.job;
      this.drop(slot);
      job?.settle({ error: died ?? new HubError(500, 'the preview worker stopped', `exit code ${code}`) });
    });
    return slot;
  }

  private drop(slot: Slot): void {
    slot.gone = true;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  /**
   * Terminate a worker (its job is then answered) and start its replacement once the answer is on its way: starting a
   * worker takes the hub's thread a few milliseconds, better spent now than in front of the next job.
   */
  private retire(slot: Slot): void {
    if (slot.gone) return;
    this.drop(slot);
    void slot.worker.terminate();
    setImmediate(() => {
      if (!this.closed && !this.unavailable && this.slots.length < this.size) this.spawn();
    });
  }

  close(): void {
    this.closed = true;
    for (const s of [...this.slots]) this.retire(s);
  }
}

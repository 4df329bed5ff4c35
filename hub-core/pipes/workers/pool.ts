// The hub's pipe workers: worker threads (worker.ts) that read a pipe's source and run its transform while the hub's
// thread stays the single writer. Spawned on first use, up to the configured count; a run goes to the worker with
// the fewest runs. A worker that dies (its heap bound reached, a crash) fails the runs it carried, in words, and is
// replaced on the next run; the hub goes on. A run in a worker reads ahead by a few batches: the worker transforms
// the next batches while the hub writes the one before.

import { Worker } from 'node:worker_threads';
import type { DatasetStore } from '../../storage/index.js';
import { HubError } from '../../base/index.js';
import { secretMask, type Mask } from '../../security/index.js';
import { errorFromWorker, maskError, outOfWorkerMemory } from './worker-errors.js';
import { answerIndexRequest } from './worker-datasets.js';
import { unpackEntities } from './packed-batch.js';
import { MIN_RANGES, SplitRun } from './split-run.js';
import type { FromWorker, OpenJob, RemoteBatch, ToWorker, WorkerInit, WorkerRun } from './protocol.js';
import { whenOnline } from './worker-online.js';
import { RemoteTransform } from './remote-transform.js';
import { entitiesFromText } from './entity-text.js';

export type { RemoteBatch, WorkerRun };
export type JobRequest = Omit<OpenJob, 'type' | 'job'>;

export interface PipeWorkersStatus {
  /** Workers the hub may use (0 or 1: pipes run on the hub's own thread). */
  count: number;
  /** Workers started so far. */
  started: number;
  /** Runs in workers now. */
  running: number;
  /** Each worker's heap bound. */
  memory_mb: number;
  /** How far below the hub's thread the workers run, as a nice value (Linux; elsewhere they run at its priority). */
  nice: number;
  /** Why pipes run on the hub's thread although workers are configured (they could not start here). */
  unavailable?: string;
}

/** A job a worker carries: a run it reads and transforms, or the transform stage of one (remote-transform.ts). */
interface Carried {
  deliver(item: RemoteBatch | Error | null): void;
  endSourceMs: number;
}

interface Slot {
  readonly worker: Worker;
  readonly signal: Int32Array;
  readonly jobs: Map<number, Carried>;
  readonly online: Promise<void>;
  /** Runs given this worker that wait for it to come online (they count as its runs already). */
  starting: number;
  /** Why the hub terminated this worker (to end a run that did not stop), for the other runs it carried. */
  retired?: string;
}

/** The runs a worker carries or is about to. */
function load(s: Slot): number {
  return s.jobs.size + s.starting;
}

/** Batches a worker may run ahead of the hub's writes (asked for up front, so it never waits for the hub). */
const AHEAD = 4;

/** One pump run in a worker: its batches in order, then the end (undefined) or the run's failure. */
export class RemoteRun implements WorkerRun {
  private readonly ready: (RemoteBatch | Error | null)[] = [];
  private waiting: (() => void) | undefined;
  /** Batches asked for and not yet answered. */
  private outstanding = 0;
  /** The end or the failure has arrived (or the run was closed): nothing more is asked for or taken. */
  private ended = false;
  /** Time the worker spent reading the source after the last batch (the read that found the end). */
  endSourceMs = 0;

  constructor(
    private readonly id: number,
    private readonly slot: Slot,
    private readonly detach: () => void,
    /** Terminate the worker carrying this run (pool.retire). */
    private readonly kill: (why: string) => void = () => undefined,
  ) {}

  /** The worker carrying the run (runs on the same worker share its thread). */
  get slotOf(): object {
    return this.slot;
  }

  private request(): void {
    while (!this.ended && this.outstanding + this.ready.length < AHEAD) {
      this.outstanding++;
      this.slot.worker.postMessage({ type: 'next', job: this.id } satisfies ToWorker);
    }
  }

  /** A message of the worker for this run (or its failure). */
  deliver(item: RemoteBatch | Error | null): void {
    if (this.ended) return;
    this.outstanding = Math.max(0, this.outstanding - 1);
    if (item === null || item instanceof Error) this.ended = true;
    this.ready.push(item);
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  /** The next batch; undefined at the end of the source; throws the run's failure. */
  async next(): Promise<RemoteBatch | undefined> {
    while (this.ready.length === 0) {
      this.request();
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
    const item = this.ready.shift()!;
    if (item instanceof Error) throw item;
    if (item === null) return undefined;
    this.request();
    return item;
  }

  hasBatch(): boolean {
    const first = this.ready[0];
    return first !== undefined && first !== null && !(first instanceof Error);
  }

  abort(reason: Error): void {
    if (!this.slot.jobs.has(this.id)) return;
    // The hub's thread waits for a batch the worker has not sent: the worker is busy with this run (a long
    // evaluation reads no messages), so only terminating the thread ends it.
    // Otherwise the hub's thread is elsewhere (writing a batch) and stops at its next check, as without abort.
    if (this.waiting === undefined || this.ready.length > 0) return;
    this.close();
    this.ready.push(reason);
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
    this.kill('to end a run that did not stop when asked');
  }

  /** Ends the run in the worker (after the last batch, a stop or a failure). */
  close(): void {
    if (!this.slot.jobs.has(this.id)) return;
    this.ended = true;
    this.detach();
    try {
      this.slot.worker.postMessage({ type: 'close', job: this.id } satisfies ToWorker);
    } catch {
      // The worker is gone already.
    }
  }
}

export class PipeWorkerPool {
  private readonly slots: Slot[] = [];
  /** Per job handed secret values: the mask of those values, for what the hub gets back about its failure. */
  private readonly masks = new WeakMap<Carried, Mask>();
  private nextJob = 1;
  private unavailable: string | undefined;
  private closed = false;
  /** A run may be read in parts (off while a run of all pipes runs several pipes side by side). */
  readInParts = true;
  /** Profiled jobs whose profile has not come back yet, with their worker. */
  private readonly profiling = new Map<number, Slot>();
  private profilesBack: (() => void) | undefined;
  /** Where the profiles of profiled jobs go, in the order they come (set by the pump runner's profiler). */
  onProfile: ((profile: object) => void) | undefined;

  constructor(
    private readonly dbFile: string,
    private readonly datasets: DatasetStore,
    /** Workers to use; below 2 the pool is off and every pipe runs on the hub's thread. */
    readonly count: number,
    private readonly memoryMb: number,
    private readonly nice: number,
  ) {}

  /** Runs may go to workers. */
  get enabled(): boolean {
    return this.count >= 2 && this.unavailable === undefined && !this.closed;
  }

  status(): PipeWorkersStatus {
    let running = 0;
    for (const s of this.slots) running += s.jobs.size;
    return {
      count: this.count,
      started: this.slots.length,
      running,
      memory_mb: this.memoryMb,
      nice: process.platform === 'linux' ? this.nice : 0,
      ...(this.unavailable !== undefined ? { unavailable: this.unavailable } : {}),
    };
  }

  /**
   * Start a run in a worker; undefined when no worker can be had (workers cannot start in this runtime): the caller
   * runs the pipe on its own thread.
   */
  async start(request: JobRequest): Promise<RemoteRun | undefined> {
    return this.open(request, (id, slot, detach, kill) => new RemoteRun(id, slot, detach, kill));
  }

  /**
   * The transform stage of a run whose source or sink stays on this thread (remote-transform.ts); undefined when no
   * worker can be had: the caller transforms on its own thread.
   */
  async startTransform(request: JobRequest, transformOnly: NonNullable<OpenJob['transformOnly']>): Promise<RemoteTransform | undefined> {
    return this.open({ ...request, transformOnly }, (id, slot, detach, kill) => new RemoteTransform(id, slot.worker, detach, kill));
  }

  private async open<T extends Carried>(request: JobRequest, make: (id: number, slot: Slot, detach: () => void, kill: (why: string) => void) => T): Promise<T | undefined> {
    if (!this.enabled) return undefined;
    let slot: Slot | undefined;
    try {
      // Taken at once, so that a run started meanwhile goes to another worker.
      slot = this.pick();
      slot.starting++;
      await slot.online;
    } catch (e) {
      this.unavailable ??= `the pipe workers could not start: ${e instanceof Error ? e.message : String(e)}`;
      return undefined;
    } finally {
      if (slot) slot.starting--;
    }
    if (!this.slots.includes(slot)) return undefined;
    const id = this.nextJob++;
    const run = make(
      id,
      slot,
      () => {
        slot.jobs.delete(id);
        if (slot.jobs.size === 0) slot.worker.unref();
      },
      (why) => this.retire(slot, why),
    );
    slot.jobs.set(id, run);
    if (request.profile === true) this.profiling.set(id, slot);
    const secrets = Object.values(request.secrets ?? {});
    if (secrets.length > 0) this.masks.set(run, secretMask(secrets));
    // A worker with runs keeps the process alive (a one-off `datahub run` waits for it); an idle one does not.
    slot.worker.ref();
    slot.worker.postMessage({ type: 'open', job: id, ...request } satisfies ToWorker);
    return run;
  }

  /**
   * A run read in parts (split-run.ts) by as many workers as the pool has, each taking every n-th range; undefined
   * when another run is in a worker (its cores are taken) or fewer than two workers can be had.
   */
  async startParts(request: JobRequest, ranges: readonly (readonly [number, number])[], snapshot: number): Promise<SplitRun | undefined> {
    if (!this.enabled || !this.readInParts || this.slots.some((s) => load(s) > 0)) return undefined;
    const width = Math.min(this.count, Math.floor(ranges.length / MIN_RANGES));
    if (width < 2) return undefined;
    const shares: RemoteRun[] = [];
    for (let w = 0; w < width; w++) {
      const mine = ranges.filter((_, i) => i % width === w);
      const share = await this.start({ ...request, parts: { ranges: mine, snapshot } });
      if (share === undefined || (w > 0 && share.slotOf === shares[0]!.slotOf)) {
        share?.close();
        for (const s of shares) s.close();
        return undefined;
      }
      shares.push(share);
    }
    return new SplitRun(shares, ranges.length);
  }

  /** The worker with the fewest runs; a new one while fewer than `count` run and every one is busy. */
  private pick(): Slot {
    let best: Slot | undefined;
    for (const s of this.slots) if (best === undefined || load(s) < load(best)) best = s;
    if (best !== undefined && (load(best) === 0 || this.slots.length >= this.count)) return best;
    return this.spawn();
  }

  private spawn(): Slot {
    const signal = new SharedArrayBuffer(8);
    const init: WorkerInit = { dbFile: this.dbFile, signal, nice: this.nice };
    const worker = new Worker(new URL('./worker.js', import.meta.url), {
      workerData: init,
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb },
    });
    worker.unref();
    const online = whenOnline(worker);
    const slot: Slot = { worker, signal: new Int32Array(signal), jobs: new Map(), online, starting: 0 };
    this.slots.push(slot);
    worker.on('message', (msg: FromWorker) => this.onMessage(slot, msg));
    const gone = (error: Error): void => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      for (const run of [...slot.jobs.values()]) run.deliver(this.masked(run, error));
      slot.jobs.clear();
      for (const [job, s] of [...this.profiling]) if (s === slot) this.profileDone(job, undefined);
    };
    worker.on('error', (e) => gone(workerDied(e, this.memoryMb)));
    worker.on('exit', (code) =>
      gone(
        slot.retired !== undefined
          ? new HubError(500, 'the pipe worker running this pipe was stopped', `the hub stopped it ${slot.retired}; run this pipe again`)
          : new HubError(500, 'the pipe worker running this pipe stopped', `exit code ${code}`),
      ),
    );
    return slot;
  }

  /** Terminate a worker (it is taken out of the pool at once; the next run that needs one starts a fresh one). */
  private retire(slot: Slot, why: string): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    slot.retired = why;
    void slot.worker.terminate();
  }

  /**
   * Wait until the profiles of the profiled jobs have come back (sent when a job was closed; a worker that was
   * terminated sends none), at most `timeoutMs`.
   */
  async profilesSettled(timeoutMs = 5000): Promise<void> {
    if (this.profiling.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.profilesBack = resolve;
      timer = setTimeout(resolve, timeoutMs);
    });
    clearTimeout(timer);
    this.profilesBack = undefined;
  }

  private profileDone(job: number, profile: object | undefined): void {
    if (!this.profiling.delete(job)) return;
    if (profile !== undefined) this.onProfile?.(profile);
    if (this.profiling.size === 0) this.profilesBack?.();
  }

  private onMessage(slot: Slot, msg: FromWorker): void {
    if (msg.type === 'ensure-index') {
      answerIndexRequest(this.datasets, slot.signal, msg.dataset, msg.expression);
      return;
    }
    if (msg.type === 'profile') {
      this.profileDone(msg.job, msg.profile);
      return;
    }
    const run = slot.jobs.get(msg.job);
    if (!run) return;
    if (msg.type === 'batch') {
      const { type: _type, job: _job, packed, out, ...rest } = msg;
      run.deliver({ ...rest, prepared: unpackEntities(packed), ...(out !== undefined ? { out: entitiesFromText(out) } : {}) });
    }
    else if (msg.type === 'end') {
      run.endSourceMs = msg.sourceMs;
      run.deliver(null);
    } else run.deliver(this.masked(run, errorFromWorker(msg.error)));
  }

  /** A failure for a job as the hub takes it: masked with the secret values the job was handed (the worker did too). */
  private masked(run: Carried, error: Error): Error {
    const mask = this.masks.get(run);
    return mask === undefined ? error : maskError(error, mask);
  }

  /** Stop the workers (the hub closes); runs still in them fail. */
  close(): void {
    this.closed = true;
    for (const s of this.slots.splice(0)) void s.worker.terminate();
  }
}

/** Why a worker died, in words; running out of its heap is the runaway-transform bound's failure. */
function workerDied(e: Error, memoryMb: number): Error {
  return outOfWorkerMemory(e, memoryMb) ?? new HubError(500, 'the pipe worker running this pipe failed', e.message);
}

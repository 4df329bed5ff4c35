import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { HubError, PreparedEntities } from '../../hub-core/base/index.js';
import { linesOutcome, outcomeToBatch, parseEntityBody, unpackOutcome, type LinesOutcome, type ParseOutcome, type WireOutcome } from './entity-parse.js';
import type { SpoolLines } from '../../hub-core/storage/index.js';
import { splitEntityArray } from './entity-array-split.js';
import { BodyCutter, type CutOptions, type CutOutcome, type CutPart } from './entity-cutter.js';

/** Bodies below this size are parsed on the main thread: a worker round trip would cost more. */
const INLINE_LIMIT = 256 * 1024;
/** Arrays from this size are parsed in two halves by two workers. */
const SPLIT_LIMIT = 512 * 1024;
/** A worker idle this long exits, giving its heap back; the next large body starts one anew. */
const IDLE_EXIT_MS = 10_000;

export interface ParserPoolOptions {
  /** Workers at most (DATAHUB_PARSE_WORKERS, or one less than the cores, 2–4). */
  size?: number;
  /** How long the pool stays idle before its workers exit. */
  idleExitMs?: number;
}

interface Pending {
  resolve: (o: unknown) => void;
  reject: (e: Error) => void;
}

function defaultPoolSize(): number {
  const configured = Number(process.env['DATAHUB_PARSE_WORKERS']);
  if (Number.isInteger(configured) && configured >= 0) return configured;
  // At least two: while the main thread only compares hashes (an unchanged re-post), two requests parse at once.
  return Math.max(2, Math.min(4, availableParallelism() - 1));
}

type Slot = { worker: Worker; busy: number };

/** The cut of one streamed body into parts of whole entities (entity-cutter.ts), in one worker from start to end. */
export interface PoolCutter {
  /** The next bytes of the body (`end`: the last): the parts they complete. Refused bytes throw (4xx). */
  cut(data: Uint8Array, end: boolean): Promise<CutPart[]>;
  /** The body is given up: forget its cut. */
  drop(): void;
}

/** A small pool of worker threads that parse and hash entity batches. */
export class EntityParserPool {
  private readonly workers: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private nextBody = 1;
  /** Cuts in progress: their workers hold their state, so none exits while one is open. */
  private openCuts = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private readonly size: number;
  private readonly idleExitMs: number;

  /** `size` workers at most; they start when a body needs them and exit after a while without work. */
  constructor(options: ParserPoolOptions = {}) {
    this.size = options.size ?? defaultPoolSize();
    this.idleExitMs = options.idleExitMs ?? IDLE_EXIT_MS;
  }

  /** Workers running now (none while idle). */
  get running(): number {
    return this.workers.length;
  }

  private spawn(): void {
    const worker = new Worker(new URL('./entity-parse-worker.js', import.meta.url));
    worker.unref();
    const slot = { worker, busy: 0 };
    worker.on('message', (msg: { id: number; outcome?: WireOutcome; lines?: LinesOutcome; cut?: CutOutcome; crash?: string }) => {
      slot.busy--;
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      // After the delete: this answer may be the last one the pool waited for.
      this.scheduleIdleExit();
      if (!p) return;
      if (msg.outcome) p.resolve(unpackOutcome(msg.outcome));
      else if (msg.lines) p.resolve(msg.lines);
      else if (msg.cut) p.resolve(msg.cut);
      else p.reject(new Error(`entity parser failed: ${msg.crash ?? 'unknown error'}`));
    });
    worker.on('error', (err) => {
      // A crashed worker fails only its own requests; a fresh one takes its place.
      for (const [id, p] of this.pending) {
        p.reject(err);
        this.pending.delete(id);
      }
      const at = this.workers.indexOf(slot);
      if (at >= 0) this.workers.splice(at, 1);
    });
    this.workers.push(slot);
  }

  /** Start the workers a body needs (all of them: a large body is split between two). */
  private ensureWorkers(): void {
    while (this.workers.length < this.size) this.spawn();
  }

  /**
   * When no worker has work left, end them all after IDLE_EXIT_MS: after a burst of large pushes each worker's heap
   * (tens of MB) would otherwise stay resident for as long as the hub runs.
   */
  private scheduleIdleExit(): void {
    if (this.pending.size > 0 || this.openCuts > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.pending.size > 0 || this.openCuts > 0) return;
      const idle = this.workers.splice(0);
      for (const slot of idle) void slot.worker.terminate();
    }, this.idleExitMs);
    this.idleTimer.unref();
  }

  /**
   * `first`: the number of the body's first entity in messages (a part of a large push). A large array is cut in two
   * between two entities and the halves are parsed by two workers at once (a client that sends one request at a time
   * waits for the parse); when a half fails, the body is parsed again whole, so that an error names the entity as
   * the body numbers it.
   */
  async parse(data: Uint8Array, first = 0, split = true): Promise<PreparedEntities> {
    if (data.length < INLINE_LIMIT || this.size === 0 || this.closed) return outcomeToBatch(parseEntityBody(data, first));
    clearTimeout(this.idleTimer);
    this.ensureWorkers();
    const halves = split && this.workers.length >= 2 && data.length >= SPLIT_LIMIT ? splitEntityArray(data) : undefined;
    if (halves !== undefined) {
      const [a, b] = await Promise.all([this.inWorker(halves[0], first), this.inWorker(halves[1], first)]);
      if (a.ok && b.ok) return new PreparedEntities(a.entities.concat(b.entities));
    }
    return outcomeToBatch(await this.inWorker(data, first));
  }

  /**
   * Parse a part of a large push to a pipe without a transform (an array of entities) into spool lines
   * (hub-core/storage/push-spool.ts): the hub's thread gets one buffer to write out instead of an object per entity.
   * `data` is handed to the worker (transferred when it owns its memory): the caller must not use it afterwards.
   */
  /**
   * Start the cut of a streamed body: in the least busy worker, which keeps its state until the last bytes (or drop);
   * on this thread when there are no workers.
   */
  cutter(options: CutOptions): PoolCutter {
    if (this.size === 0 || this.closed) {
      const inline = new BodyCutter(options);
      return { cut: async (data, end) => parts(inline.cut(data, end)), drop: () => undefined };
    }
    clearTimeout(this.idleTimer);
    this.ensureWorkers();
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const body = this.nextBody++;
    this.openCuts++;
    let open = true;
    let sentOptions = false;
    const close = (): void => {
      if (!open) return;
      open = false;
      this.openCuts--;
      this.scheduleIdleExit();
    };
    return {
      cut: async (data, end) => {
        if (!open) throw new Error('this body\'s cut has ended');
        // The worker that holds the cut's state is gone (it crashed): the body cannot be read on.
        if (!this.workers.includes(slot)) {
          close();
          throw new HubError(500, 'the push could not be read', 'the worker reading it ended; send the push again');
        }
        const message = { body, data, end, ...(sentOptions ? {} : { options }) };
        sentOptions = true;
        try {
          const outcome = await this.post<CutOutcome>(slot, { cut: message }, ownsMemory(data) ? [data.buffer as ArrayBuffer] : []);
          if (end || !outcome.ok) close();
          return parts(outcome);
        } catch (e) {
          close();
          throw e;
        }
      },
      drop: () => {
        if (!open) return;
        if (this.workers.includes(slot)) slot.worker.postMessage({ drop: body });
        close();
      },
    };
  }

  async parseLines(data: Buffer, first = 0): Promise<SpoolLines> {
    let outcome: LinesOutcome;
    if (data.length < INLINE_LIMIT || this.size === 0 || this.closed) outcome = linesOutcome(parseEntityBody(data, first));
    else {
      clearTimeout(this.idleTimer);
      outcome = await this.inWorker(data, first, true);
    }
    if (!outcome.ok) throw new HubError(outcome.failure.status, outcome.failure.error, outcome.failure.detail);
    return outcome.lines;
  }

  private inWorker(data: Uint8Array, first: number): Promise<ParseOutcome>;
  private inWorker(data: Uint8Array, first: number, lines: true): Promise<LinesOutcome>;
  private inWorker(data: Uint8Array, first: number, lines?: true): Promise<ParseOutcome | LinesOutcome> {
    this.ensureWorkers();
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.nextId++;
    // A buffer that is all of its memory (a part joined for this call) moves to the worker instead of being copied.
    const own = lines === true && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.buffer instanceof ArrayBuffer;
    return new Promise<ParseOutcome | LinesOutcome>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (o: unknown) => void, reject });
      slot.busy++;
      const message = { id, data, first, ...(lines === true ? { lines } : {}) };
      try {
        slot.worker.postMessage(message, own ? [data.buffer as ArrayBuffer] : []);
      } catch {
        // Memory Node will not let go of (a pooled buffer): copied instead.
        slot.worker.postMessage(message);
      }
    });
  }

  private post<T extends CutOutcome>(slot: Slot, message: object, transfer: ArrayBuffer[]): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (o: unknown) => void, reject });
      slot.busy++;
      slot.worker.postMessage({ id, ...message }, transfer);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
    this.workers.length = 0;
  }
}

/** A buffer that is all of its memory can move to a worker instead of being copied. */
function ownsMemory(data: Uint8Array): boolean {
  return data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.buffer instanceof ArrayBuffer;
}

function parts(outcome: CutOutcome): CutPart[] {
  if (!outcome.ok) throw new HubError(outcome.failure.status, outcome.failure.error, outcome.failure.detail);
  return outcome.parts;
}

// The messages between the hub's thread and a pipe worker (pool.ts ↔ worker.ts). The hub opens a job per pump run
// the worker reads and transforms; the worker answers each `next` with one batch, prepared for the dataset sink
// (hashed and serialized as the dataset would do it), or with the job's end or failure. Index creation is the one
// write a join needs: the worker asks the hub for it and waits (`ensure-index`, answered through `signal`).

import type { JsonObject, PreparedEntity } from '../../base/index.js';
import type { Contributor } from '../lineage-record.js';
import type { PackedEntities } from './packed-batch.js';
import type { PackedDependencies } from '../packed-dependencies.js';
import type { NamespaceSettings } from '../../dtl/index.js';

export interface WorkerInit {
  /** The hub's SQLite file, opened read-only by the worker. */
  readonly dbFile: string;
  /** [state, value]: state 0 while the hub works on a request, 1 answered, 2 failed. */
  readonly signal: SharedArrayBuffer;
  /** How far below the hub's thread the worker runs (a nice value; thread-priority.ts). */
  readonly nice: number;
}

export interface OpenJob {
  readonly type: 'open';
  readonly job: number;
  /** The stored pipe configuration as JSON text (float literals of a transform kept as written). */
  readonly configText: string;
  /** The values of the `$ENV` variables the configuration names. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * The values of the node secrets the transform takes as the key of encrypt/decrypt, by name (no others; in memory
   * only, for this job). What the worker sends back about a failure has them masked.
   */
  readonly secrets?: Readonly<Record<string, string>>;
  /** The node's namespaced-identifier settings for the pipe. */
  readonly namespaces: NamespaceSettings;
  /** The pipe does dependency tracking (its stored runtime would). */
  readonly tracked: boolean;
  /** Record which source entity made each output entity (lineage-record.ts). */
  readonly lineage: boolean;
  readonly since: string | undefined;
  readonly batchSize: number;
  /**
   * A share of a run read in parts (a dataset source; see split-run.ts): these offset ranges (after, up to], each
   * answered as exactly one batch (maybe empty) whose position is the range's end; `since` is not used.
   */
  readonly parts?: { readonly ranges: readonly (readonly [number, number])[]; readonly snapshot: number };
  /**
   * Only the transform: the hub's thread reads the source and sends each batch (`transform`); the worker opens no
   * source. `prepared`: the sink is a dataset (the entities come back prepared), else they come back as JSON text.
   * `refresh`: the transform reads this dataset (the pipe's own sink), which the hub's thread writes between batches:
   * the worker sees it as committed before each batch.
   */
  readonly transformOnly?: { readonly prepared: boolean; readonly refresh?: string };
  /** Sample the worker with the CPU profiler while it carries the job (a run started with profiler=true). */
  readonly profile?: true;
}

/** A batch of source entities for a job that runs only the transform (entity-text.ts). */
export interface TransformBatch {
  readonly type: 'transform';
  readonly job: number;
  readonly entities: string;
  /** The members of each entity a merge source made, by position (lineage-record.ts): they do not travel in JSON. */
  readonly contributors?: readonly (readonly Contributor[] | null)[];
}

export type ToWorker = OpenJob | TransformBatch | { readonly type: 'next'; readonly job: number } | { readonly type: 'close'; readonly job: number };

export interface WorkerBatch {
  readonly type: 'batch';
  readonly job: number;
  /** Source entities read. */
  readonly count: number;
  readonly position: string | undefined;
  /** The last batch of a range of a run read in parts. */
  readonly rangeEnd?: true;
  /** The sink entities, prepared as Dataset.write prepares them (packed-batch.ts). */
  readonly packed: PackedEntities;
  /** What each source entity's hops looked up (dependency tracking; packed-batch.ts). */
  readonly deps: PackedDependencies;
  /** The sink's entities as JSON text, for a job that runs only the transform of a pipe whose sink is not a dataset. */
  readonly out?: string;
  /** Which source entity made each output entity (LineagePacker text), when the job records it. */
  readonly lineage?: string;
  /** Joined datasets the pipe started tracking in this batch, with the offset their changes are read from. */
  readonly tracking: { dataset: string; offset: number }[];
  readonly sourceMs: number;
  readonly transformMs: number;
}

/** An error as it crosses the thread boundary; the hub makes the same error class of it again. */
export interface WorkerError {
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  readonly status?: number;
  readonly detail?: string;
  /** DtlRuntimeError */
  readonly kind?: string;
  readonly elements?: string;
  readonly entityId?: string;
}

export type FromWorker =
  | WorkerBatch
  | { readonly type: 'end'; readonly job: number; readonly sourceMs: number }
  | { readonly type: 'failed'; readonly job: number; readonly error: WorkerError }
  | { readonly type: 'ensure-index'; readonly dataset: string; readonly expression: string }
  /** The CPU profile of a profiled job, sent once the job has ended, failed or was closed (a V8 profile). */
  | { readonly type: 'profile'; readonly job: number; readonly profile: object | undefined };

/** What a pump reads a run in workers through: one worker's run, or a run read in parts (split-run.ts). */
export interface WorkerRun {
  /** The next batch; undefined at the end; throws the run's failure. */
  next(): Promise<RemoteBatch | undefined>;
  /** Whether a batch has arrived already (next() then gives it at once). */
  hasBatch(): boolean;
  close(): void;
  /**
   * End the run now although its worker may be inside a long evaluation that never reads a message (a stop that
   * waited long enough): when the hub's thread is waiting for the worker's next batch, next() throws `reason` and the
   * worker is terminated (a fresh one is started for the next run); otherwise nothing (the run stops at its next check).
   */
  abort(reason: Error): void;
  /** Time the workers spent reading the source after their last batches. */
  readonly endSourceMs: number;
}

/** A worker's batch on the hub's thread, its entities unpacked. */
export type RemoteBatch = Omit<WorkerBatch, 'type' | 'job' | 'packed' | 'out'> & { readonly prepared: PreparedEntity[]; readonly out?: JsonObject[] };

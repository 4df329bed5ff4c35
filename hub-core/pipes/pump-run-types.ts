// A pump run's shapes: its kind and trigger, what it counts, its started event and the batches it writes out.
import type { DatasetStore, Dataset } from '../storage/index.js';
import type { ConfigEntity } from '../config/index.js';
import type { JsonObject, PreparedEntity } from '../base/index.js';
import type { PumpStateStore, PumpState } from './pump-state.js';
import type { PipeRuntimes } from './pipe-runtime.js';
import type { PackedDependencies } from './packed-dependencies.js';
import type { BatchOrigin } from './lineage-store.js';

export type RunKind = 'incremental' | 'rescan';
export type RunTrigger = 'manual' | 'schedule' | 'startup' | 'webhook';

/** A transformed batch for the dataset sink (prepared by a pipe worker, or entities) and the position it moves to. */
export interface OutBatch {
  out: JsonObject[];
  prepared: readonly PreparedEntity[] | undefined;
  deps: PackedDependencies;
  position: ((s: PumpState) => void) | undefined;
  lineage: BatchLineage | undefined;
}

/** A batch's lineage records (LineagePacker text) and how its source entities came to be read. */
export interface BatchLineage {
  text: string;
  origin: BatchOrigin;
}

/** The pipes whose configuration the runner reads; PipeRegistry provides it. */
export interface PumpPipes {
  get(id: string): ConfigEntity | undefined;
  sinkDataset(id: string): Dataset;
}

/** What the parts of a run use of the runner: the pipes, the datasets, the pumps' state and the pipes' runtimes. */
export interface RunHost {
  readonly pipes: PumpPipes;
  readonly datasets: DatasetStore;
  readonly state: PumpStateStore;
  readonly runtimes: PipeRuntimes;
}

export interface ActiveRun {
  readonly id: string;
  readonly kind: RunKind;
  stopRequested: boolean;
  done: Promise<void>;
  /** While the run drains a pipe worker: end it now, terminating the worker if it is busy with the run. */
  abort?: () => void;
  /** Profile the run (the `profiler=true` option of `start`); the profiler is reserved for it. */
  profile?: boolean;
  /** Live counters of the run, for progress while it goes. */
  counters?: Counters;
  startTime?: string;
}

export interface Counters {
  processed: number;
  /** Entities the sink refused in this run (after the retries it made). */
  failed: number;
  writeErrors: number;
  dead: number;
  retriedOk: number;
  retriedFailed: number;
  changes: number;
  succeeded: number;
  deleted: number;
  sourceMs: number;
  transformMs: number;
  sinkMs: number;
  /** The sink recorded its batches in the outbox instead of writing an outside system, or the source could not be read. */
  offline: boolean;
  /** Why the run is offline, in words. */
  offlineReason?: string;
  /** Source entities processed per reason (lineage-store.ts): new, changed, deleted, read, rescan, dependency:<datasets>. */
  reasons: Record<string, number>;
}

export class RunStopped extends Error {}

export interface StartedEvent {
  entity: JsonObject | undefined;
  location: number | null;
  /** Written only when the run turns out not to be a no-op. */
  deferred: boolean;
  /** A no-op run is one that changed nothing (else: one that read nothing). */
  changesOnly: boolean;
}

// The dataset log's shapes: its database row and settings, read and write options, its info, the circuit breaker's error.
import { HubError } from '../base/index.js';
import type { CompactionInfo, CompactionSettings } from './dataset-compaction.js';

export interface DatasetRow {
  num: number;
  name: string;
  generation: string;
  created_ts: number;
  populated: number;
  max_updated: number;
  live_count: number;
  deleted_count: number;
  completeness: number | null;
  cb_tripped: number;
  cb_info: string | null;
  settings: string;
}

export interface CircuitBreakerSettings {
  /** Trip when one run changes more than this many entities. */
  thresholdCount?: number;
  /** Trip when one run changes more than this factor times the dataset's size at the start of the run. */
  thresholdFactor?: number;
}

export interface DatasetSettings {
  circuitBreaker?: CircuitBreakerSettings;
  /** From the `compaction` property of the pipe that writes the dataset; absent when no pipe writes it. */
  compaction?: CompactionSettings;
}

/** The lowest offset up to which the pipes doing dependency tracking on a dataset have seen its changes. */
export type CompactionFloor = () => number;

/** Counts changes across the batches of one run (a pump run or a JSON Push sequence). */
export interface WriteRun {
  changes: number;
  baseCount: number;
}

export interface WriteOptions {
  force?: boolean;
  run?: WriteRun;
  /** Called for every entity id in the batch, written or not (used by full-sync tracking). */
  seen?: (id: string) => void;
}

export interface WriteResult {
  received: number;
  written: number;
  unchanged: number;
  maxUpdated: number;
}

export interface ReadOptions {
  since?: number;
  limit?: number;
  history?: boolean;
  deleted?: boolean;
  reverse?: boolean;
  subset?: unknown;
  uncommitted?: boolean;
  /**
   * A read of the offsets (since, until] only (forward, without a subset): one part of a source read in parts. With
   * `history: false`, `snapshot` (at least `until`) is the offset whose latest versions are read, the same for every
   * part, so that an entity changed in a later part is read there only.
   */
  until?: number;
  snapshot?: number;
  /**
   * Rows per page of readJson (default 2000). Readers that hand entities on one at a time across event-loop turns
   * (CSV, Excel, XML streams) ask for small pages: a page that outlives a few young-generation collections is
   * promoted, and then the old generation grows with the size of the download until a full collection.
   */
  pageSize?: number;
}

export interface IndexInfo {
  id: number;
  expression: string;
  created: string;
}

export interface DatasetInfo {
  _id: string;
  generation: string;
  created: string;
  populated: boolean;
  'max-updated': number | null;
  count: number;
  'deleted-count': number;
  completeness: number | null;
  /** Versions stored in the log (all entities, all versions). */
  'stored-versions': number;
  /** Bytes of the database file this dataset's tables and indexes take (pages in use). */
  'bytes-on-disk': number;
  compaction: CompactionInfo;
  'circuit-breaker': { enabled: boolean; tripped: boolean; 'pending-count': number; info: string | null };
  indexes: IndexInfo[];
}

/** The 409 of a write that tripped a dataset's circuit breaker (the trip itself is committed). */
export class CircuitBreakerTripped extends HubError {
  constructor(message: string, detail: string) {
    super(409, message, detail);
  }
}

// The messages between the hub's thread and a preview worker (preview-pool.ts ↔ preview-worker.ts).

import type { NamespaceSettings } from '../dtl/index.js';
import type { WorkerError } from '../pipes/index.js';

export interface PreviewWorkerInit {
  /** The hub's SQLite file, opened read-only by the worker for each job (hops read the datasets through it). */
  readonly dbFile: string;
  /** [state, value] of an index request (see pipes/workers/worker-datasets.ts). */
  readonly signal: SharedArrayBuffer;
  /** How far below the hub's thread the worker runs (a nice value). */
  readonly nice: number;
}

/** What the worker builds the pipe runtime from: the configuration and just the values it needs. */
export interface RuntimeSpec {
  /** The (draft) pipe configuration as JSON text (float literals of a transform kept as written). */
  readonly configText: string;
  /** The values of the `$ENV` variables the configuration names. */
  readonly env: Readonly<Record<string, string>>;
  /** The node secrets the transform takes as the key of encrypt/decrypt (held in memory only, never logged). */
  readonly secrets: Readonly<Record<string, string>>;
  readonly namespaces: NamespaceSettings;
  readonly standalone: boolean;
}

export interface PreviewTask {
  readonly id: number;
  readonly spec: RuntimeSpec;
  /** The job (preview-jobs.ts) as JSON text. */
  readonly job: string;
}

export type FromPreviewWorker =
  /** The answer as JSON text (read back exactly: big integers, see base/exact-json.ts). */
  | { readonly type: 'done'; readonly id: number; readonly text: string }
  /** An answer of plain strings, numbers and booleans only (a `process` job's prepared entities), as the value itself. */
  | { readonly type: 'done-value'; readonly id: number; readonly value: unknown }
  | { readonly type: 'failed'; readonly id: number; readonly error: WorkerError }
  | { readonly type: 'ensure-index'; readonly dataset: string; readonly expression: string };

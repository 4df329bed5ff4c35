// A sink the pump writes to batch by batch, opened once per run from its type's descriptor (`SinkType.open`). Two
// kinds: a local sink (a dataset, nothing, the outbox of a sink whose target is an outside system) is written inside
// the SQLite transaction that also moves the pump's position, so a batch and its position commit together; a remote
// sink (JSON Push) is written outside it, and its refused entities go to the pump's retries.

import type { EffectivePipe } from '../../config/index.js';
import type { JsonObject, JsonValue } from '../../base/index.js';
import type { ConfigVariables } from '../../config/index.js';
import type { Dataset } from '../../storage/index.js';
import type { OutboxWriter } from '../outbox.js';
import type { PreparedEntity } from '../../base/index.js';

/** What a sink may use of the hub. */
export interface SinkContext {
  /** A system's configuration as stored (variables not yet replaced). */
  system(id: string): JsonObject | undefined;
  vars: ConfigVariables;
}

/** The ids a full run has written (the dataset sink's deletion tracking deletes the others at the run's end). */
export interface SeenIds {
  mark(ids: readonly string[]): void;
  /** A query of the seen ids, for `Dataset.deleteAllExcept`. */
  sql(): { sql: string; params: string[] };
  clear(): void;
}

/** What one pump run gives the sink it opens. */
export interface SinkRun extends SinkContext {
  readonly pipeId: string;
  readonly runId: string;
  /** The run reads its source whole (a full JSON Push sequence; deletion tracking at its end). */
  readonly full: boolean;
  /** The dataset the pipe's sink writes (dataset sinks only). */
  dataset(): Dataset;
  readonly seen: SeenIds;
  /** Where an outbound sink records what it would have sent, when it runs offline (the pipe's outbox). */
  readonly outbox: OutboxWriter;
}

/** A sink write that the target refused or that could not be delivered; the entities may be retried. */
export class SinkWriteError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** Written inside the batch's transaction, with the pump's new position. */
export interface LocalSink {
  readonly local: true;
  /** Write one batch; returns how many entities changed (a dataset sink may throw CircuitBreakerTripped). */
  write(entities: readonly JsonObject[]): number;
  /** The same for entities prepared as Dataset.write prepares them (a pipe worker did it); dataset sinks only. */
  writePrepared?(prepared: readonly PreparedEntity[]): number;
  /** At the end of a full run, right after its last read: what the run did not write goes; returns how many. */
  endFull?(): number;
  /** After the run's last batch (not called when the run failed). */
  finish?(): void;
  /** The batches went to the outbox: the target is an outside system this hub does not write. */
  readonly offline?: boolean;
  /** Why, in words, when the sink knows better than its type. */
  readonly offlineReason?: string;
}

/** Written outside the transaction (over the network). */
export interface RemoteSink {
  readonly local?: false;
  /** Write a batch; throws SinkWriteError when it is not accepted. */
  write(entities: readonly JsonObject[]): Promise<void>;
  /** Close the run's writing; not called when a write of the run failed. */
  finish(): Promise<void>;
  /** Known once written to: the target could not be reached, so the batches went to the outbox. */
  readonly offline?: boolean;
  /** Why, in words. */
  readonly offlineReason?: string;
}

export type Sink = LocalSink | RemoteSink;

/** Open a sink for one pump run. */
export type SinkOpener = (pipe: EffectivePipe, run: SinkRun) => Sink;

/** The string `_id`s of entities. */
export function idsOf(entities: readonly JsonObject[]): string[] {
  const out: string[] = [];
  for (const e of entities) {
    const v: JsonValue | undefined = e['_id'];
    if (typeof v === 'string') out.push(v);
  }
  return out;
}

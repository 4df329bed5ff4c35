import type { DatasetStore } from '../dataset-store.js';
import type { EffectivePipe } from '../effective-pipe.js';
import type { JsonObject } from '../json.js';

/** One batch read from a source; `position` is where the next read continues (incremental sources). */
export interface SourceBatch {
  entities: JsonObject[];
  position?: string;
}

/**
 * What a pump reads. An incremental source continues from the last position it reported (a dataset offset, a
 * JSON Pull `since` token); a full source is read whole every run, and sink entities it no longer gives are deleted.
 */
export interface PumpSource {
  readonly incremental: boolean;
  /** Batches from `since` on (undefined: from the start), at most `batchSize` entities each. */
  batches(since: string | undefined, batchSize: number): AsyncGenerator<SourceBatch, void, undefined>;
  /** The previous version of a source entity, for DTL's is-changed (sources that keep versions). */
  previousVersion?(entity: JsonObject): JsonObject | undefined;
}

/** What a source may use of the hub. */
export interface SourceContext {
  readonly datasets: DatasetStore;
  /** The value of `$ENV(name)` (undefined when unset). */
  env(name: string): string | undefined;
  /** A system's configuration with its variables replaced (undefined when there is no such system). */
  system?(id: string): JsonObject | undefined;
}

export type SourceFactory = (pipe: EffectivePipe, ctx: SourceContext) => PumpSource;

import type { DatasetStore } from '../../storage/index.js';
import type { EffectivePipe } from '../../config/index.js';
import type { JsonObject } from '../../base/index.js';
import type { NamespaceSettings } from '../../dtl/index.js';

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
  /**
   * Batches from `since` on (undefined: from the start), at most `batchSize` entities each; with `part` (sources that
   * can be read in parts, see `parts`), only up to that offset.
   */
  batches(since: string | undefined, batchSize: number, part?: SourcePart): AsyncGenerator<SourceBatch, void, undefined>;
  /** The source can be read in parts by offset, each part on its own (a dataset source without a subset). */
  readonly parts?: boolean;
  /** The previous version of a source entity, for DTL's is-changed (sources that keep versions). */
  previousVersion?(entity: JsonObject): JsonObject | undefined;
}

/** One part of a source read in parts: the offsets up to `until`, the latest versions as of `snapshot`. */
export interface SourcePart {
  readonly until: number;
  readonly snapshot: number;
}

/** What a source may use of the hub. */
export interface SourceContext {
  readonly datasets: DatasetStore;
  /** The value of `$ENV(name)` (undefined when unset). */
  env(name: string): string | undefined;
  /** A system's configuration with its variables replaced (undefined when there is no such system). */
  system?(id: string): JsonObject | undefined;
  /** The pipe's namespaces when namespaced identifiers are on (a merge source's equality rules match as joins do). */
  readonly namespaces?: NamespaceSettings;
}

export type SourceFactory = (pipe: EffectivePipe, ctx: SourceContext) => PumpSource;

// What a source or sink type is, said once per type (hub-core/sources/<type>.ts, hub-core/sinks/<type>.ts): its
// options in the configuration schema, its defaults and checks, whether and how this hub runs it, and which pump
// operations it supports. The schema, the config checks, the pump's operations and the "new pipe" templates are all
// made from these.

import type { JsonObject } from '../base/index.js';
import type { TypeOptions } from '../config/index.js';
import type { SourceFactory } from './sources/source.js';
import type { SinkOpener } from './sinks/sink.js';
import type { Complain } from '../base/index.js';

export type PublishFormat = 'entities' | 'csv' | 'excel' | 'xml';

export type { Complain };

export interface SourceType {
  readonly type: string;
  /** One line for editors and docs. */
  readonly doc: string;
  readonly options: TypeOptions;
  /** How the pump reads it; undefined: kept in configuration, not read by this hub (JSON Push receivers have their own path). */
  readonly read?: SourceFactory;
  /** Entities arrive by JSON Push (`/api/receivers/<pipe>/entities`). */
  readonly receives?: boolean;
  /** The pump `mode` when the configuration sets none (default "scheduled"). */
  readonly defaultMode?: 'scheduled' | 'manual';
  /** Reads a dataset from an offset: the position operations (update-last-seen, ...) and rescans apply. */
  readonly positions?: boolean;
  /** Errors in the source's own options (`$.source.*`). */
  check?(source: JsonObject, err: Complain): void;
  /** A pipe to start from with this source, offered by the "new pipe" dialog. */
  readonly template?: { readonly label: string; readonly needsDataset: boolean; readonly config: JsonObject };
}

export interface SinkType {
  readonly type: string;
  readonly doc: string;
  readonly options: TypeOptions;
  /**
   * How this hub runs it: `open` gives a Sink the pump opens for each run and writes to (`open`), `publish` is served
   * by the publishers; undefined: kept in configuration only.
   */
  readonly runs?: 'open' | 'publish';
  /** Open the sink for one pump run (sinks/sink.ts): a dataset, nothing, the outbox, a JSON Push sequence. */
  readonly open?: SinkOpener;
  /** The formats a publisher with this sink serves. */
  readonly publishes?: readonly PublishFormat[];
  /** With a dataset source, a run can read it whole again (start-rescan, reset-rescan). */
  readonly rescans?: boolean;
  /** Checks beyond the schema, reported with the pipe's config-errors. */
  check?(sink: JsonObject, err: Complain): void;
  /** The sink with its defaults filled in (a dataset sink writes the dataset named after the pipe). */
  defaults?(sink: JsonObject & { type: string }, pipeId: string): JsonObject & { type: string };
}

/** A pipe to start from in the "new pipe" dialog; the values "{pipe}" and "{dataset}" stand for what the user types. */
export interface PipeTemplate {
  /** The source type. */
  readonly id: string;
  readonly label: string;
  /** The template reads a dataset the user names. */
  readonly needsDataset: boolean;
  readonly config: JsonObject;
}

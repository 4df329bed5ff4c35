// A sink the pump writes to batch by batch (the json sink; the endpoint sinks of later work). Dataset and null sinks
// are written by the pump itself, inside the transaction that also moves the pump's position.

import type { EffectivePipe } from '../effective-pipe.js';
import type { JsonObject } from '../json.js';
import type { ConfigVariables } from '../config-variables.js';

/** What a sink may use of the hub. */
export interface SinkContext {
  /** A system's configuration as stored (variables not yet replaced). */
  system(id: string): JsonObject | undefined;
  vars: ConfigVariables;
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

export interface Sink {
  /** Write a batch; throws SinkWriteError when it is not accepted. */
  write(entities: readonly JsonObject[]): Promise<void>;
  /** Close the run's writing; not called when a write of the run failed. */
  finish(): Promise<void>;
}

/** Open a sink for one pump run; `full`: the run reads its source whole. */
export type SinkOpener = (pipe: EffectivePipe, ctx: SinkContext, options: { full: boolean }) => Sink;

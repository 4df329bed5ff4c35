// Sinks whose target is an outside system (a database, a search index, a REST service, a mail server, a message
// broker) run offline here: the pump runs source, transforms and the sink step as for any pipe, and where the real
// write would happen each request is recorded in the pipe's outbox (hub-core/pipes/outbox.ts) with what it would have
// sent, to which target, under which key and operation. Each type says how it batches and what it sends for an
// entity, following its documentation page.

import type { JsonObject, JsonValue } from '../../base/index.js';
import type { OutboxRecord } from '../outbox.js';
import type { LocalSink, SinkContext, SinkOpener } from './sink.js';

export interface OutboundShape {
  /** Entities per request; undefined: one request per pump batch. */
  batchSize?(sink: JsonObject): number | undefined;
  /** Where the requests would go (ids and names only: never a header or a secret). */
  target(sink: JsonObject): JsonObject;
  /** What would be sent for one entity (`context`: the sink's systems, as stored). */
  record(entity: JsonObject, sink: JsonObject, context: SinkContext): OutboxRecord;
}

/** The opener of an outbound sink type: each run records its requests in the outbox. */
export function recordOffline(shape: OutboundShape): SinkOpener {
  return (pipe, run): LocalSink => {
    const sink = pipe.sink;
    const target = shape.target(sink);
    const size = shape.batchSize?.(sink);
    return {
      local: true,
      offline: true,
      write(out) {
        const step = size !== undefined && size >= 1 ? size : Math.max(out.length, 1);
        for (let i = 0; i < out.length; i += step) {
          run.outbox.record(sink.type, { target, records: out.slice(i, i + step).map((e) => shape.record(e, sink, run)) });
        }
        return out.length;
      },
    };
  };
}

/** The entity's own properties: those whose names start with "_" (and "$" with `dollar`) are the hub's. */
export function contentOf(entity: JsonObject, dollar = false): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(entity)) {
    if (k.startsWith('_') || (dollar && k.startsWith('$'))) continue;
    out[k] = v;
  }
  return out;
}

export const isDeleted = (entity: JsonObject): boolean => entity['_deleted'] === true;

/** The sink's option `name` when it is a string. */
export function option(sink: JsonObject, name: string): string | undefined {
  const v = sink[name];
  return typeof v === 'string' ? v : undefined;
}

/** A positive whole number option (batch sizes). */
export function countOption(sink: JsonObject, name: string): number | undefined {
  const v = sink[name];
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : undefined;
}

/** Only the defined values of an object (a target without the options a sink leaves out). */
export function defined(values: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) out[k] = v;
  return out;
}

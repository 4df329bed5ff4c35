// Entities as JSON text between the hub's thread and a pipe worker that runs only a pipe's transform: the source
// entities there, the sink's entities back (when the sink is not a dataset: a dataset sink gets them prepared,
// packed-batch.ts). Structured cloning would lose what JSON text keeps: a number kept as written (JSON.rawJSON, a
// float literal of a transform such as 1.0) would arrive as a plain object. Read back, such a literal becomes that
// raw value again, and integers beyond ±2^53 become bigints (exact-json.ts), so the entities are the ones the hub's
// thread would have had.

import { bigIntegerReviver, type JsonObject } from '../../base/index.js';

interface RawJsonApi {
  rawJSON(text: string): unknown;
}
const RAW = JSON as unknown as Partial<RawJsonApi>;

/** Text that may hold a whole number written with a fraction or an exponent (1.0, 1e3), or a long integer. */
const SPECIAL = /\d\.0|\d[eE]|\d{16}/;

/** A number literal JSON.stringify would not have written for its value was a raw value (1.0); kept as one. */
function reviver(key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number') return value;
  const source = context?.source;
  if (source === undefined || source === String(value)) return value;
  if (Number.isInteger(value) && /[.eE]/.test(source) && RAW.rawJSON !== undefined) return RAW.rawJSON(source);
  return bigIntegerReviver(key, value, context);
}

export function entitiesToText(entities: readonly JsonObject[]): string {
  return JSON.stringify(entities);
}

export function entitiesFromText(text: string): JsonObject[] {
  if (!SPECIAL.test(text)) return JSON.parse(text) as JsonObject[];
  return JSON.parse(text, reviver as (this: unknown, key: string, value: unknown) => unknown) as JsonObject[];
}

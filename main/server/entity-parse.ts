import { isUtf8 } from 'node:buffer';
import sjson from 'secure-json-parse';
import { prepareEntity, EntityError, PreparedEntities, type PreparedEntity } from '../../hub-core/base/index.js';
import { HubError } from '../../hub-core/base/index.js';
import { bigIntegerReviver, hasLongDigitRun, jsonTextProblem, parseJson } from '../../hub-core/base/index.js';
import { loneSurrogateProblem, utf8Problem } from './json-bytes.js';
import { packEntities, unpackEntities, type PackedEntities } from '../../hub-core/pipes/index.js';
import { spoolText, type SpoolLines } from '../../hub-core/storage/index.js';

export interface ParseFailure {
  status: number;
  error: string;
  detail: string;
}

export type ParseOutcome = { ok: true; entities: PreparedEntity[] } | { ok: false; failure: ParseFailure };

/** secure-json-parse scans the text for these keys (also \\u-escaped); text without any of them is parsed plainly. */
function mayHoldUnsafeKeys(text: string): boolean {
  return text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
}

/**
 * Parse a JSON body of entities (an array, or one entity object) and prepare each for storage. `first` numbers the
 * entities in messages (a part of a large push starts at its own place in the body).
 */
export function parseEntityBody(data: Uint8Array, first = 0): ParseOutcome {
  // isUtf8 and toString are native and faster than a fatal TextDecoder.
  if (!isUtf8(data)) return { ok: false, failure: { status: 400, error: 'malformed JSON', detail: utf8Problem(data) ?? 'the body is not valid UTF-8' } };
  let text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a byte order mark
  if (text.trim() === '') return { ok: false, failure: { status: 400, error: 'empty JSON body', detail: 'send a JSON array of entities' } };
  // Property names with an unpaired surrogate could not be stored as text (an _id is checked in prepareEntity).
  const problem = jsonTextProblem(text) ?? loneSurrogateProblem(text, true);
  if (problem) return { ok: false, failure: { status: 400, error: 'malformed JSON', detail: problem } };
  let value: unknown;
  try {
    // Integers beyond ±2^53 are read exactly, as BigInts (exact-json.ts).
    value = mayHoldUnsafeKeys(text)
      ? sjson.parse(text, hasLongDigitRun(text) ? bigIntegerReviver : undefined, { protoAction: 'error', constructorAction: 'error' })
      : parseJson(text);
  } catch (e) {
    return { ok: false, failure: { status: 400, error: 'malformed JSON', detail: e instanceof Error ? e.message : String(e) } };
  }
  const list: unknown[] | undefined = Array.isArray(value) ? value : value !== null && typeof value === 'object' ? [value] : undefined;
  if (!list) {
    return { ok: false, failure: { status: 400, error: 'invalid request', detail: 'the body must be a JSON array of entities (or one entity object)' } };
  }
  try {
    const entities = new Array<PreparedEntity>(list.length);
    for (let i = 0; i < list.length; i++) entities[i] = prepareEntity(list[i], first + i);
    return { ok: true, entities };
  } catch (e) {
    if (e instanceof EntityError) return { ok: false, failure: { status: 400, error: 'invalid entity', detail: e.message } };
    throw e;
  }
}

/** Prepared entities as a worker sends them: packed (hub-core/pipes/workers/packed-batch.ts), not an object each. */
export type WireOutcome = { ok: true; packed: PackedEntities } | { ok: false; failure: ParseFailure };

export function packOutcome(outcome: ParseOutcome): WireOutcome {
  return outcome.ok ? { ok: true, packed: packEntities(outcome.entities) } : outcome;
}

/** Entities as spool lines (a large push to a pipe without a transform): bytes the hub's thread only writes out. */
export type LinesOutcome = { ok: true; lines: SpoolLines } | { ok: false; failure: ParseFailure };

export function linesOutcome(outcome: ParseOutcome): LinesOutcome {
  // TextEncoder's bytes own their ArrayBuffer: it can be transferred rather than copied.
  return outcome.ok ? { ok: true, lines: { bytes: new TextEncoder().encode(spoolText(outcome.entities)), count: outcome.entities.length } } : outcome;
}

export function unpackOutcome(wire: WireOutcome): ParseOutcome {
  return wire.ok ? { ok: true, entities: unpackEntities(wire.packed) } : wire;
}

export function outcomeToBatch(outcome: ParseOutcome): PreparedEntities {
  if (!outcome.ok) throw new HubError(outcome.failure.status, outcome.failure.error, outcome.failure.detail);
  return new PreparedEntities(outcome.entities);
}

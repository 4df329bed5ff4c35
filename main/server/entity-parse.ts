import { isUtf8 } from 'node:buffer';
import sjson from 'secure-json-parse';
import { prepareEntity, EntityError, PreparedEntities, type PreparedEntity } from '../../hub-core/entity.js';
import { HubError } from '../../hub-core/errors.js';
import { jsonTextProblem } from '../../hub-core/json.js';

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
  if (!isUtf8(data)) return { ok: false, failure: { status: 400, error: 'malformed JSON', detail: 'the body is not valid UTF-8' } };
  let text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a byte order mark
  if (text.trim() === '') return { ok: false, failure: { status: 400, error: 'empty JSON body', detail: 'send a JSON array of entities' } };
  const problem = jsonTextProblem(text);
  if (problem) return { ok: false, failure: { status: 400, error: 'malformed JSON', detail: problem } };
  let value: unknown;
  try {
    value = mayHoldUnsafeKeys(text) ? sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }) : JSON.parse(text);
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

/**
 * Prepared entities as a worker sends them: ids and bodies in one string, hashes in another, lengths and deleted flags
 * in typed arrays. Copying four values into a message is much cheaper than 10,000 small objects, on both sides.
 */
export interface PackedEntities {
  text: string;
  /** Per entity: the id's length, then the body's. */
  lengths: Int32Array;
  hashes: string;
  deleted: Uint8Array;
}

export type WireOutcome = { ok: true; packed: PackedEntities } | { ok: false; failure: ParseFailure };

export function packOutcome(outcome: ParseOutcome): WireOutcome {
  if (!outcome.ok) return outcome;
  const e = outcome.entities;
  const lengths = new Int32Array(e.length * 2);
  const deleted = new Uint8Array(e.length);
  let text = '';
  let hashes = '';
  for (let i = 0; i < e.length; i++) {
    const p = e[i]!;
    text += p.id + p.body;
    hashes += p.hash;
    lengths[2 * i] = p.id.length;
    lengths[2 * i + 1] = p.body.length;
    deleted[i] = p.deleted ? 1 : 0;
  }
  return { ok: true, packed: { text, lengths, hashes, deleted } };
}

export function unpackOutcome(wire: WireOutcome): ParseOutcome {
  if (!wire.ok) return wire;
  const { text, lengths, hashes, deleted } = wire.packed;
  const entities = new Array<PreparedEntity>(deleted.length);
  let at = 0;
  for (let i = 0; i < entities.length; i++) {
    const idEnd = at + lengths[2 * i]!;
    const bodyEnd = idEnd + lengths[2 * i + 1]!;
    entities[i] = { id: text.slice(at, idEnd), deleted: deleted[i] === 1, body: text.slice(idEnd, bodyEnd), hash: hashes.slice(32 * i, 32 * i + 32) };
    at = bodyEnd;
  }
  return { ok: true, entities };
}

export function outcomeToBatch(outcome: ParseOutcome): PreparedEntities {
  if (!outcome.ok) throw new HubError(outcome.failure.status, outcome.failure.error, outcome.failure.detail);
  return new PreparedEntities(outcome.entities);
}

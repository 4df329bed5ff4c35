import { createHash, hash as cryptoHash } from 'node:crypto';
import { isJsonObject, type JsonObject } from './json.js';
import { parseJson } from './exact-json.js';

/** An entity as a client sends it: `_id` is required, the rest is free content. */
export interface Entity extends JsonObject {
  _id: string;
}

/** An entity as a dataset stores it. */
export interface StoredEntity extends Entity {
  _updated: number;
  _deleted: boolean;
  _previous: number | null;
  _ts: number;
  _hash: string;
}

/** Properties the dataset maintains itself; a client's values for them are ignored. */
export const MAINTAINED_PROPERTIES: ReadonlySet<string> = new Set(['_updated', '_ts', '_hash', '_previous']);

export class EntityError extends Error {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message);
  }
}

/** What a dataset needs to store one entity: its content body and content hash. */
export interface PreparedEntity {
  id: string;
  deleted: boolean;
  /** Canonical JSON of every property but `_id`, `_deleted` and the maintained ones. */
  body: string;
  hash: string;
}

const md5Hex: (data: string) => string =
  typeof cryptoHash === 'function' ? (data) => cryptoHash('md5', data, 'hex') : (data) => createHash('md5').update(data).digest('hex');

/** The value with every object's keys in sorted order; objects already sorted are reused, not copied. */
function sortedKeys(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      const s = sortedKeys(item);
      if (s !== item) (out ??= v.slice())[i] = s;
    }
    return out ?? v;
  }
  const obj = v as Record<string, unknown>;
  const keys = Object.keys(obj);
  let inOrder = true;
  let childChanged = false;
  for (let i = 0; i < keys.length; i++) {
    if (i > 0 && keys[i - 1]! > keys[i]!) inOrder = false;
    const child = obj[keys[i]!];
    if (child !== null && typeof child === 'object' && sortedKeys(child) !== child) childChanged = true;
  }
  if (inOrder && !childChanged) return obj;
  const out: Record<string, unknown> = {};
  for (const k of inOrder ? keys : keys.sort()) setOwn(out, k, sortedKeys(obj[k]));
  return out;
}

/** Plain assignment, except for "__proto__", which must stay an ordinary property. */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// The entities of a batch mostly share one shape: the previous key list's sorted order is reused when the keys match.
let lastKeys: readonly string[] = [];
let lastSorted: readonly string[] = [];

function sortedKeyList(keys: string[]): readonly string[] {
  if (keys.length === lastKeys.length) {
    let same = true;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] !== lastKeys[i]) {
        same = false;
        break;
      }
    }
    if (same) return lastSorted;
  }
  lastKeys = keys;
  lastSorted = keys.slice().sort();
  return lastSorted;
}

export function prepareEntity(value: unknown, index = 0): PreparedEntity {
  if (!isJsonObject(value)) {
    throw new EntityError(`entity #${index} is not a JSON object`, index);
  }
  const id = value['_id'];
  if (typeof id !== 'string') {
    throw new EntityError(
      id === undefined ? `entity #${index} has no _id` : `entity #${index} has a non-string _id`,
      index,
    );
  }
  if (id.length === 0) throw new EntityError(`entity #${index} has an empty _id`, index);
  if (LONE_SURROGATE.test(id)) {
    throw new EntityError(`entity #${index}: its _id holds an unpaired UTF-16 surrogate (\\ud800-\\udfff), which cannot be stored as text`, index);
  }
  const del = value['_deleted'];
  if (del !== undefined && del !== null && typeof del !== 'boolean') {
    throw new EntityError(`entity #${index} (${id}): _deleted must be a boolean`, index);
  }
  const deleted = del === true;
  const keys = sortedKeyList(Object.keys(value));
  const content: Record<string, unknown> = {};
  for (const k of keys) {
    if (k === '_id' || k === '_deleted' || MAINTAINED_PROPERTIES.has(k)) continue;
    const v = value[k];
    if (v !== undefined) setOwn(content, k, sortedKeys(v));
  }
  // One native stringify over a key-sorted copy: the canonical form, without a hand-written serializer.
  const body = JSON.stringify(content);
  const hash = md5Hex(id + (deleted ? '\u0000D' : '\u0000L') + body);
  return { id, deleted, body, hash };
}

/** Entities already validated and hashed (for example by a parser thread); writers take them as they are. */
export class PreparedEntities {
  constructor(readonly entities: readonly PreparedEntity[]) {}
}

/**
 * The stored entity that `JSON.parse(storedEntityJson(...))` gives, built without parsing its maintained properties:
 * only the body is parsed (for a small entity, those properties are most of its text).
 */
export function storedEntity(
  id: string,
  updated: number,
  deleted: boolean,
  previous: number | null,
  ts: number,
  hash: string,
  body: string,
): JsonObject {
  const e: JsonObject = { _id: id, _updated: updated, _deleted: deleted, _previous: previous, _ts: ts, _hash: hash };
  if (body.length <= 2) return e;
  const content = parseJson(body) as JsonObject;
  for (const k in content) setOwn(e, k, content[k]);
  return e;
}

/** Assemble the stored JSON text of an entity without parsing its body. */
export function storedEntityJson(
  id: string,
  updated: number,
  deleted: boolean,
  previous: number | null,
  ts: number,
  hash: string,
  body: string,
): string {
  const head =
    '{"_id":' +
    JSON.stringify(id) +
    ',"_updated":' +
    updated +
    ',"_deleted":' +
    (deleted ? 'true' : 'false') +
    ',"_previous":' +
    (previous === null ? 'null' : previous) +
    ',"_ts":' +
    ts +
    ',"_hash":"' +
    hash +
    '"';
  return body.length <= 2 ? head + '}' : head + ',' + body.slice(1);
}

export function asEntityObject(json: string): StoredEntity {
  return parseJson(json) as StoredEntity;
}

export function stripInternal(entity: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(entity)) {
    if (!MAINTAINED_PROPERTIES.has(k)) out[k] = v;
  }
  return out;
}

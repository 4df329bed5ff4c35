import { createHash } from 'node:crypto';
import { canonicalJson, isJsonObject, type JsonObject } from './json.js';

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
  const del = value['_deleted'];
  if (del !== undefined && del !== null && typeof del !== 'boolean') {
    throw new EntityError(`entity #${index} (${id}): _deleted must be a boolean`, index);
  }
  const deleted = del === true;
  const keys = Object.keys(value).sort();
  let body = '{';
  let first = true;
  for (const k of keys) {
    if (k === '_id' || k === '_deleted' || MAINTAINED_PROPERTIES.has(k)) continue;
    const v = value[k];
    if (v === undefined) continue;
    if (!first) body += ',';
    first = false;
    body += JSON.stringify(k) + ':' + canonicalJson(v);
  }
  body += '}';
  const hash = createHash('md5')
    .update(id)
    .update(deleted ? '\u0000D' : '\u0000L')
    .update(body)
    .digest('hex');
  return { id, deleted, body, hash };
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
  return JSON.parse(json) as StoredEntity;
}

export function stripInternal(entity: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(entity)) {
    if (!MAINTAINED_PROPERTIES.has(k)) out[k] = v;
  }
  return out;
}

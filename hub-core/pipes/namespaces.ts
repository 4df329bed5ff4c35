// Namespaced identifiers at a pipe's two ends (the service's "namespaces" feature):
//   - before the first transform a source whose default is `add_namespaces: true` (embedded, sql, csv, json,
//     http_endpoint, ldap, kafka; for a conditional source, the alternative it picks) gives `_id` the identity namespace
//     and every property the property namespace (`addNamespaces`);
//   - after the last transform the sinks the service documents remove them again (`removeNamespaces`): from `_id`,
//     from property names and from namespaced-identifier values, so `"rdf:type": "~:acme:x"` leaves as `"type": "~:x"`.
// Both defaults apply only with namespaced identifiers on (the node's `namespaced_identifiers`, or the pipe's own);
// the pipe's `add_namespaces`/`remove_namespaces` (or the source's/sink's) override them.

import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';
import type { NamespaceSettings } from '../dtl/index.js';

/** Source types whose documented `add_namespaces` default is true. */
export const SOURCES_ADDING_NAMESPACES: ReadonlySet<string> = new Set(['embedded', 'sql', 'csv', 'json', 'http_endpoint', 'ldap', 'kafka']);

/**
 * Sink types whose documented `remove_namespaces` default is true (hub/features/namespaces.rst: "The following sinks
 * has a default value of true: csv_endpoint, elasticsearch, mail, rest, sms, solr, kafka, sql, http_endpoint, and
 * json"). Every other sink (dataset, xml_endpoint, null, ...) keeps them unless told.
 */
const SINKS_REMOVING_NAMESPACES: ReadonlySet<string> = new Set(['csv_endpoint', 'elasticsearch', 'mail', 'rest', 'sms', 'solr', 'kafka', 'sql', 'http_endpoint', 'json']);

/** The source a conditional source reads (by its condition, `$ENV(...)` resolved by `env`); the source itself otherwise. */
function effectiveSource(source: JsonObject, condition: (value: string) => string | undefined): JsonObject {
  if (source['type'] !== 'conditional') return source;
  const alternatives = source['alternatives'];
  const raw = source['condition'];
  if (!isJsonObject(alternatives) || typeof raw !== 'string') return source;
  const name = condition(raw);
  const chosen = name === undefined ? undefined : alternatives[name];
  return isJsonObject(chosen) ? effectiveSource(chosen, condition) : source;
}

/**
 * Whether a pipe adds namespaces to its source entities: the pipe's `add_namespaces`, else its (chosen) source's,
 * else the source type's default when namespaced identifiers are on.
 */
export function addsNamespaces(pipe: JsonObject, enabled: boolean, condition: (value: string) => string | undefined): boolean {
  if (typeof pipe['add_namespaces'] === 'boolean') return pipe['add_namespaces'];
  const source = isJsonObject(pipe['source']) ? effectiveSource(pipe['source'], condition) : {};
  if (typeof source['add_namespaces'] === 'boolean') return source['add_namespaces'];
  const type = typeof source['type'] === 'string' ? source['type'] : 'dataset';
  return enabled && SOURCES_ADDING_NAMESPACES.has(type);
}

/** Whether a pipe removes namespaces before its sink: `remove_namespaces` of the pipe or sink, else the sink type's default. */
export function removesNamespaces(pipe: JsonObject, enabled: boolean): boolean {
  if (typeof pipe['remove_namespaces'] === 'boolean') return pipe['remove_namespaces'];
  const sink = isJsonObject(pipe['sink']) ? pipe['sink'] : {};
  if (typeof sink['remove_namespaces'] === 'boolean') return sink['remove_namespaces'];
  const type = typeof sink['type'] === 'string' ? sink['type'] : 'dataset';
  return enabled && SINKS_REMOVING_NAMESPACES.has(type);
}

const setOwn = (o: JsonObject, key: string, value: JsonValue): void => {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
};

function nsValue(v: JsonValue, prefix: string | null, ins: string | null): JsonValue {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map((x) => nsValue(x, prefix, ins));
  return nsDict(v, prefix, ins);
}

function nsDict(d: JsonObject, prefix: string | null, ins: string | null, drop?: ReadonlySet<string>): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(d)) {
    const c = key.charCodeAt(0);
    if (drop !== undefined && c === 95 && drop.has(key)) continue;
    let v = d[key] as JsonValue;
    if (c === 36 /* $ */) {
      out[key] = v;
      continue;
    }
    v = nsValue(v, prefix, ins);
    if (c === 95 /* _ */) {
      // A tagged string ("~:...", "~t...") is a typed value, not a plain id.
      if (key === '_id' && ins !== null && typeof v === 'string' && v.charCodeAt(0) !== 126) v = `${ins}:${v}`;
      if (key === '__proto__') setOwn(out, key, v);
      else out[key] = v;
    } else if (prefix === null) {
      if (key === '__proto__') setOwn(out, key, v);
      else out[key] = v;
    } else {
      const name = prefixed(prefix, key);
      if (name === '__proto__') setOwn(out, name, v);
      else out[name] = v;
    }
  }
  return out;
}

/**
 * Property names of a pipe repeat entity after entity: each prefixed name is made once and reused, so objects get the
 * same (interned) keys and no string is built per property (bounded: a source with ever new names starts over).
 */
const prefixedNames = new Map<string, Map<string, string>>();
const MAX_NAMES = 20_000;

function prefixed(prefix: string, key: string): string {
  let names = prefixedNames.get(prefix);
  if (names === undefined) {
    if (prefixedNames.size > 256) prefixedNames.clear();
    names = new Map();
    prefixedNames.set(prefix, names);
  }
  let name = names.get(key);
  if (name === undefined) {
    name = key.includes(':') ? key : prefix + key;
    if (names.size >= MAX_NAMES) names.clear();
    names.set(key, name);
  }
  return name;
}

/**
 * A source entity as the first transform sees it with `add_namespaces`: what `apply-ns` does with its documented
 * defaults, which "reflect the behaviour of add_namespaces": the string `_id` in the identity namespace, every other
 * property name in the property namespace, recursively (dicts inside values and lists too); names starting with "_"
 * and "$" (and the values of "$" properties) are left as they are, as are names that have a namespace already. The
 * entity given is not changed; top-level properties named in `drop` are left out (the pump drops the hub's bookkeeping
 * in the same pass). The same rules as `applyNamespaces` of the DTL, in one pass built for the pump.
 */
export function addNamespaces(entity: JsonObject, ns: NamespaceSettings, drop?: ReadonlySet<string>): JsonObject {
  const prefix = ns.propertyNamespace === null ? null : `${ns.propertyNamespace}:`;
  const keys = Object.keys(entity);
  const names = shapeNames(keys, prefix, drop);
  if (names === undefined) return nsDict(entity, prefix, ns.identityNamespace, drop);
  // The entity has the shape of the one before: its names are known, and only the values are looked at.
  const out: JsonObject = {};
  const ins = ns.identityNamespace;
  for (let i = 0; i < keys.length; i++) {
    const name = names[i];
    if (name === null) continue;
    const key = keys[i]!;
    let v = entity[key] as JsonValue;
    if (key.charCodeAt(0) !== 36 /* $ */) v = nsValue(v, prefix, ins);
    if (key === '_id' && ins !== null && typeof v === 'string' && v.charCodeAt(0) !== 126) v = `${ins}:${v}`;
    out[name!] = v;
  }
  return out;
}

// The entities of a source mostly share one shape: the top-level names of the last shape are kept, so that an entity
// with the same keys in the same order needs no look-up per property. null: a property that is dropped.
let lastShape: { keys: readonly string[]; prefix: string | null; drop: ReadonlySet<string> | undefined; names: (string | null)[] } | undefined;

/** The output name of each key (null: dropped) when no key needs its own handling ("__proto__"); undefined otherwise. */
function shapeNames(keys: readonly string[], prefix: string | null, drop: ReadonlySet<string> | undefined): readonly (string | null)[] | undefined {
  const last = lastShape;
  if (last !== undefined && last.prefix === prefix && last.drop === drop && last.keys.length === keys.length) {
    let same = true;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] !== last.keys[i]) {
        same = false;
        break;
      }
    }
    if (same) return last.names;
  }
  const names: (string | null)[] = [];
  for (const key of keys) {
    if (key === '__proto__') return undefined;
    const c = key.charCodeAt(0);
    if (drop !== undefined && c === 95 && drop.has(key)) names.push(null);
    else if (c === 36 /* $ */ || c === 95 /* _ */ || prefix === null) names.push(key);
    else {
      const name = prefixed(prefix, key);
      if (name === '__proto__') return undefined;
      names.push(name);
    }
  }
  lastShape = { keys, prefix, drop, names };
  return names;
}

function localPart(text: string): string {
  const i = text.indexOf(':');
  return i < 0 ? text : text.slice(i + 1);
}

function stripValue(v: JsonValue): JsonValue {
  if (typeof v === 'string') return v.startsWith('~:') ? `~:${localPart(v.slice(2))}` : v;
  if (Array.isArray(v)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = v[i] as JsonValue;
      const y = stripValue(x);
      if (y !== x && out === undefined) out = v.slice(0, i);
      if (out !== undefined) out.push(y);
    }
    return out ?? v;
  }
  return isJsonObject(v) ? stripNames(v) : v;
}

function stripNames(d: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(d)) {
    const name = localPart(key);
    const value = stripValue(d[key] as JsonValue);
    if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    else out[name] = value;
  }
  return out;
}

/**
 * An entity as a non-dataset sink receives it (`remove_namespaces`): the namespace taken off the `_id` value
 * ("crm:42" is "42"), off every property name, also in nested dicts and lists ("crm:name" is "name"), and off every
 * namespaced-identifier value ("~:crm:42" is "~:42", an identifier in the global namespace). Where two names become
 * one, the later property wins. Pure: the entity given is not changed.
 */
export function removeNamespaces(entity: JsonObject): JsonObject {
  const out = stripNames(entity);
  const id = entity['_id'];
  if (typeof id === 'string') out['_id'] = localPart(id);
  return out;
}

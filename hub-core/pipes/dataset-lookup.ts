// DTL's access to the hub's datasets (hops, apply-hops, lookup-entity): `DatasetLookup` implements `DtlLookup` over a
// DatasetStore with the same matching rules as `MemoryLookup` (see dtl/lookup.ts), using the datasets' own indexes.
//
// - A join on `_id` reads the entities by id (the latest-version table); any other path uses the dataset index
//   `_S.<path>`, declared on first use with `ensureIndex` (it then shows in the dataset's indexes and is kept up to
//   date by every write, so later writes to the joined dataset are seen at once). The index holds the latest live
//   versions only and no nulls, so deleted entities and null values never match.
// - Index keys are the canonical JSON of the values as stored, while DTL compares decoded values (`lookupKey`): "~f2"
//   equals 2, and "~t2024-01-01T00:00:00Z" equals "~t2024-01-01T00:00:00.000Z". So each key is looked up under the
//   spellings a value of its type is commonly stored with: as given; a number also as a decimal ("~f2") and a decimal
//   also as a number; a datetime with 0, 3, 6 or 9 fraction digits (and a midnight as a date); a UUID in lower and
//   upper case. A namespaced identifier, URI or bytes value has one spelling ("~:ns:x" matches "~:ns:x", and never the
//   plain string "ns:x", just as `eq` says). Every entity found is then checked with `lookupKey`, so a match is
//   always a match by DTL's rules; what can be missed is only a value stored in an unusual spelling (e.g. "~f2.000"
//   for the key 2).
// - A path that cannot be written as an index expression (an element starting with a quote, or holding both a dot
//   and a quote) is answered by reading the dataset's latest versions.
// - A path with an element that matches in every namespace (namespaced identifiers on: "o.customer_id" finds
//   "orders:customer_id", see dtl/paths.ts) has no index expression: the dataset's live entities are read once and
//   indexed in memory by DTL's rules, kept while the dataset's `version` stays the same.
// - A dataset that does not exist has no entities.

import { parseIndexExpression } from '../storage/index.js';
import type { DatasetStore } from '../storage/index.js';
import { LookupSnapshots, type KeptSnapshots } from './lookup-snapshots.js';
import { canonicalJson, type JsonObject, type JsonValue } from '../base/index.js';
import { isNamespacedPath, lookupKeys, traverse, traverseLookupPath, DateTime, keyOf, typedOf, type DtlLookup } from '../dtl/index.js';

/** The index expression of a property path, or undefined when it has no exact one. */
export function indexExpressionOf(path: readonly string[]): string | undefined {
  if (path.length === 0 || isNamespacedPath(path)) return undefined;
  const text = '_S.' + path.map((k) => (k.includes('.') ? `'${k}'` : k)).join('.');
  try {
    const parsed = parseIndexExpression(text).path;
    return parsed.length === path.length && parsed.every((k, i) => k === path[i]) ? text : undefined;
  } catch {
    return undefined;
  }
}

const TILDE = 0x7e;
const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** The ISO text of a datetime with exactly `digits` fraction digits, or undefined when that would lose precision. */
function isoWithDigits(t: DateTime, digits: number): string | undefined {
  const fraction = t.fraction;
  const unit = 10 ** (9 - digits);
  if (fraction % unit !== 0) return undefined;
  const d = new Date(t.epochMs);
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
  const time = `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
  return `~t${date}T${time}${digits === 0 ? '' : '.' + pad(fraction / unit, digits)}Z`;
}

/** The stored spellings a join key is looked up under (see the top of this file). */
export function keySpellings(key: JsonValue): JsonValue[] {
  const out: JsonValue[] = [key];
  if (typeof key === 'number') {
    out.push('~f' + keyOf(key).slice(1));
    return out;
  }
  const t = typeof key === 'string' ? typedOf(key) : null;
  if (t === null) return out;
  switch (t.kind) {
    case 'decimal': {
      const normalized = keyOf(t).slice(1);
      out.push('~f' + normalized);
      const n = Number(normalized);
      if (Number.isFinite(n) && keyOf(n) === keyOf(t)) out.push(n);
      break;
    }
    case 'datetime': {
      const dt = t as DateTime;
      for (const digits of [0, 3, 6, 9]) {
        const s = isoWithDigits(dt, digits);
        if (s !== undefined) out.push(s);
      }
      const midnight = isoWithDigits(dt, 0);
      if (midnight !== undefined && midnight.endsWith('T00:00:00Z')) out.push(midnight.slice(0, -10));
      break;
    }
    case 'uuid': {
      const body = t.text();
      out.push('~u' + body.toLowerCase(), '~u' + body.toUpperCase());
      break;
    }
    default:
      out.push(t.tagged());
  }
  const seen = new Set<string>();
  return out.filter((v) => {
    const k = canonicalJson(v);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function byId(a: JsonObject, b: JsonObject): number {
  const x = a['_id'] as string;
  const y = b['_id'] as string;
  return x < y ? -1 : x > y ? 1 : 0;
}

export class DatasetLookup implements DtlLookup {
  private readonly snapshots: LookupSnapshots;
  private readonly expressions = new Map<string, string | undefined>();
  /** In-memory indexes of namespaced paths, by dataset and path: the dataset version they were built at. */
  private readonly namespaced = new Map<string, { version: string; index: Map<string, JsonObject[]> }>();

  constructor(private readonly store: DatasetStore, inTransaction: () => boolean = () => false, kept?: KeptSnapshots) {
    this.snapshots = new LookupSnapshots(inTransaction, kept);
  }

  /** How many times a joined dataset was read whole to answer lookups from memory. */
  get datasetsReadWhole(): number {
    return this.snapshots.reads;
  }

  private expressionOf(path: readonly string[]): string | undefined {
    const name = path.join('\u0000');
    if (!this.expressions.has(name)) this.expressions.set(name, indexExpressionOf(path));
    return this.expressions.get(name);
  }

  /**
   * The run ahead makes about `count` lookups of each dataset it joins, `after` of them in its first batch (see
   * lookup-snapshots.ts).
   */
  expectLookups(count: number, after: number): void {
    this.snapshots.expected = { count, after };
  }

  /**
   * See `dataset` as committed now: what was read of it whole is dropped when it has changed since. For a pipe
   * worker's run whose own sink the hub's thread writes between batches (its connection makes no `changeCount` move).
   */
  refresh(dataset: string): void {
    const ds = this.store.get(dataset);
    if (ds !== undefined) this.snapshots.refresh(ds);
  }

  /** Forget what was read whole (see lookup-snapshots.ts). */
  clear(): void {
    this.snapshots.clear();
    this.namespaced.clear();
  }

  lookupByIndex(dataset: string, path: readonly string[], keys: readonly JsonValue[]): JsonObject[] {
    const ds = this.store.get(dataset);
    if (ds === undefined) return [];
    const idPath = path.length === 1 && path[0] === '_id';
    const first = keys[0];
    if (idPath && keys.length === 1 && typeof first === 'string' && (first.length < 2 || first.charCodeAt(0) !== TILDE)) {
      // The common join: one plain id. It has one spelling, and the entity found by it matches it.
      const snapshot = this.snapshots.use(ds, path);
      if (snapshot !== undefined) {
        const e = snapshot.entity(first);
        return e === undefined ? [] : [e];
      }
      const e = ds.get(first);
      return e === undefined || e._deleted ? [] : [e];
    }
    const wanted = new Set<string>();
    for (const k of keys) if (k !== null) wanted.add(keyOf(k));
    if (wanted.size === 0) return [];
    if (isNamespacedPath(path)) return this.lookupNamespaced(dataset, path, wanted);
    const matches = (e: JsonObject): boolean => lookupKeys(traverse(e, path)).some((k) => wanted.has(k));
    const found = new Map<string, JsonObject>();
    const add = (e: JsonObject): void => {
      const id = e['_id'] as string;
      if (e['_deleted'] !== true && !found.has(id) && matches(e)) found.set(id, e);
    };
    const expression = idPath ? undefined : this.expressionOf(path);
    if (expression !== undefined) ds.ensureIndex(expression); // declared once; later calls only find it
    const snapshot = idPath || expression !== undefined ? this.snapshots.use(ds, path) : undefined;
    if (snapshot !== undefined) {
      // The same spellings as below, answered from memory.
      const spellings = new Set<string>();
      for (const k of keys) {
        if (k === null) continue;
        for (const s of keySpellings(k)) {
          if (idPath) {
            if (typeof s !== 'string') continue;
            const e = snapshot.entity(s);
            if (e !== undefined) add(e);
          } else {
            const c = canonicalJson(s);
            if (spellings.has(c)) continue;
            spellings.add(c);
            for (const id of snapshot.idsAt(path, c)) if (!found.has(id)) add(snapshot.entity(id)!);
          }
        }
      }
    } else if (idPath) {
      for (const k of keys) {
        if (k === null) continue;
        for (const s of keySpellings(k)) {
          if (typeof s !== 'string') continue;
          const e = ds.get(s);
          if (e !== undefined) add(e);
        }
      }
    } else {
      if (expression === undefined) {
        for (const page of ds.readEntities({ history: false, deleted: false })) for (const e of page) add(e);
      } else {
        const spellings = new Set<string>();
        for (const k of keys) {
          if (k === null) continue;
          for (const s of keySpellings(k)) {
            const c = canonicalJson(s);
            if (spellings.has(c)) continue;
            spellings.add(c);
            for (const page of ds.readEntities({ subset: ['eq', expression, s], deleted: false })) for (const e of page) add(e);
          }
        }
      }
    }
    return found.size <= 1 ? [...found.values()] : [...found.values()].sort(byId);
  }

  /** A lookup on a namespaced path, answered from an in-memory index of the dataset's live entities. */
  private lookupNamespaced(dataset: string, path: readonly string[], wanted: ReadonlySet<string>): JsonObject[] {
    const name = JSON.stringify([dataset, ...path]);
    const version = this.version(dataset);
    let kept = this.namespaced.get(name);
    if (kept === undefined || kept.version !== version) {
      const index = new Map<string, JsonObject[]>();
      for (const e of this.entities(dataset)) {
        for (const k of new Set(lookupKeys(traverseLookupPath(e, path)))) {
          const list = index.get(k);
          if (list === undefined) index.set(k, [e]);
          else list.push(e);
        }
      }
      kept = { version, index };
      this.namespaced.delete(name);
      // Bounded: the indexes of the few paths a run joins on are kept, the oldest dropped first.
      if (this.namespaced.size >= 16) this.namespaced.delete(this.namespaced.keys().next().value as string);
      this.namespaced.set(name, kept);
    }
    const found = new Map<string, JsonObject>();
    for (const k of wanted) for (const e of kept.index.get(k) ?? []) found.set(e['_id'] as string, e);
    return found.size <= 1 ? [...found.values()] : [...found.values()].sort(byId);
  }

  /** Changes with every write to the dataset (its last offset), and when a dataset of that name is made again. */
  version(dataset: string): string {
    const ds = this.store.get(dataset);
    return ds === undefined ? 'none' : `${ds.num}:${ds.row().max_updated}`;
  }

  /** Every live entity of a dataset in `_id` order (joins with a function on the dataset's side scan it). */
  entities(dataset: string): JsonObject[] {
    const ds = this.store.get(dataset);
    if (ds === undefined) return [];
    const out: JsonObject[] = [];
    for (const page of ds.readEntities({ history: false, deleted: false })) for (const e of page) out.push(e);
    return out.filter((e) => e['_deleted'] !== true).sort(byId);
  }

  entity(dataset: string, id: string): JsonObject | undefined {
    const e = this.store.get(dataset)?.get(id);
    return e === undefined || e._deleted ? undefined : e;
  }
}

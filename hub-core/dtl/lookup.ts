// How DTL reaches other datasets (for hops, apply-hops and lookup-entity). The dataset store implements `DtlLookup`;
// `MemoryLookup` is a small in-memory implementation for tests, the CLI and as a reference for the semantics.
//
// Join semantics: an entity matches when any of the values at the indexed path equals any of the keys. Values and
// keys compare by `lookupKey`, the canonical JSON of the decoded value (so 1, 1.0 and "~f1.0" are one key, and two
// spellings of the same instant are one key). Null values are never indexed and deleted entities never match.

import type { JsonObject, JsonValue } from '../base/index.js';
import { traverseLookupPath } from './paths.js';
import { keyOf, type DtlValue } from './values.js';

export interface DtlLookup {
  /**
   * The live (not deleted) entities of `dataset` whose values at `path` (a property path, mapped over lists and
   * flattened) share at least one value with `keys`. Null keys match nothing. Results come in `_id` order. An element
   * starting with ANY_NAMESPACE (paths.ts) matches its name in every namespace (`traverseLookupPath`).
   */
  lookupByIndex(dataset: string, path: readonly string[], keys: readonly JsonValue[]): Iterable<JsonObject>;
  /** The live entity of `dataset` with this `_id`, or undefined. */
  entity(dataset: string, id: string): JsonObject | undefined;
  /**
   * Every live entity of `dataset`, in `_id` order: for joins that no index answers (a function applied to the
   * dataset's side of a join). Optional: without it such a join fails, saying why.
   */
  entities?(dataset: string): Iterable<JsonObject>;
  /**
   * A text that changes whenever the dataset's content does (optional): what is computed from a whole dataset (see
   * `entities`) is kept while it stays the same.
   */
  version?(dataset: string): string;
}

/** The comparison key of a join value: canonical JSON of the decoded value. */
export function lookupKey(value: DtlValue): string {
  return keyOf(value);
}

/** The join keys of a value: each non-null value of a list (one level), or the value itself. */
export function lookupKeys(value: DtlValue): string[] {
  if (value === null) return [];
  if (!Array.isArray(value)) return [keyOf(value)];
  const out: string[] = [];
  for (const v of value) if (v !== null) out.push(keyOf(v));
  return out;
}

/** In-memory datasets; indexes are built on first use of a (dataset, path) pair. */
export class MemoryLookup implements DtlLookup {
  private readonly datasets = new Map<string, JsonObject[]>();
  private readonly indexes = new Map<string, Map<string, JsonObject[]>>();
  private readonly versions = new Map<string, number>();

  constructor(datasets: Record<string, readonly JsonObject[]> = {}) {
    for (const [name, entities] of Object.entries(datasets)) this.setDataset(name, entities);
  }

  /** Replace a dataset's entities (latest version per `_id` wins); drops its indexes. */
  setDataset(name: string, entities: readonly JsonObject[]): void {
    const byId = new Map<string, JsonObject>();
    for (const e of entities) if (typeof e['_id'] === 'string') byId.set(e['_id'], e);
    const live = [...byId.values()].filter((e) => e['_deleted'] !== true);
    live.sort((a, b) => ((a['_id'] as string) < (b['_id'] as string) ? -1 : (a['_id'] as string) > (b['_id'] as string) ? 1 : 0));
    this.datasets.set(name, live);
    this.versions.set(name, (this.versions.get(name) ?? 0) + 1);
    for (const key of [...this.indexes.keys()]) if (key.startsWith(JSON.stringify(name) + '/')) this.indexes.delete(key);
  }

  lookupByIndex(dataset: string, path: readonly string[], keys: readonly JsonValue[]): JsonObject[] {
    const index = this.index(dataset, path);
    const seen = new Set<JsonObject>();
    for (const k of keys) {
      if (k === null) continue;
      for (const e of index.get(keyOf(k)) ?? []) seen.add(e);
    }
    const order = this.datasets.get(dataset) ?? [];
    return seen.size === 0 ? [] : order.filter((e) => seen.has(e));
  }

  entity(dataset: string, id: string): JsonObject | undefined {
    return (this.datasets.get(dataset) ?? []).find((e) => e['_id'] === id);
  }

  entities(dataset: string): readonly JsonObject[] {
    return this.datasets.get(dataset) ?? [];
  }

  version(dataset: string): string {
    return String(this.versions.get(dataset) ?? 0);
  }

  private index(dataset: string, path: readonly string[]): Map<string, JsonObject[]> {
    const name = JSON.stringify(dataset) + '/' + JSON.stringify(path);
    let index = this.indexes.get(name);
    if (index === undefined) {
      index = new Map();
      for (const e of this.datasets.get(dataset) ?? []) {
        for (const k of new Set(lookupKeys(traverseLookupPath(e, path)))) {
          const list = index.get(k);
          if (list === undefined) index.set(k, [e]);
          else list.push(e);
        }
      }
      this.indexes.set(name, index);
    }
    return index;
  }
}

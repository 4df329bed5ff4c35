// Dependency tracking for hops: a pipe with a dataset source remembers, per source entity, which (joined dataset,
// join path, key) its transform looked up. When a joined dataset changes, the source entities that looked up a key
// the change touches (its old or its new value) are processed again by the pipe's next incremental run.
//
// - `TrackingLookup` wraps the run's DtlLookup and records the lookups made between `begin()` and `end()` (one
//   source entity). Keys are stored as `lookupKey`s, so a change matches a dependency by DTL's join rules.
// - A joined dataset's changes are read from the offset the pipe has seen them up to; that offset is set the first
//   time the pipe looks the dataset up (to its end at that moment) and advanced by every dependency phase.
// - The lookup cannot see the hops spec it serves, so `track-dependencies: false` is read from the transform's
//   configuration: a dataset is not tracked when every hops spec that names it says so.

import type { Dataset } from '../storage/index.js';
import type { DependencyPacker } from './packed-dependencies.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';
import { parseJson } from '../base/index.js';
import { lookupKeys, traverseLookupPath, keyOf, type DtlLookup } from '../dtl/index.js';

export class TrackingLookup implements DtlLookup {
  private recording = false;
  /** Where the lookups of the entity being processed go (undefined: they are not kept). */
  private packer: DependencyPacker | undefined;
  private readonly started = new Set<string>();
  /** Join paths as JSON, by the (compiled, long-lived) path array. */
  private readonly pathTexts = new WeakMap<readonly string[], string>();

  constructor(
    private readonly inner: DtlLookup,
    private readonly tracked: (dataset: string) => boolean,
    /** Called before the first tracked lookup of a dataset: fix the offset its changes are seen from. */
    private readonly startTracking: (dataset: string) => void,
  ) {}

  /**
   * Start recording the lookups of one source entity into `packer`, which has opened the entity; undefined: the
   * lookups are not kept (a deleted entity depends on nothing), but a dataset looked up is still tracked from now on.
   */
  begin(packer: DependencyPacker | undefined): void {
    this.recording = true;
    this.packer = packer;
  }

  end(): void {
    this.recording = false;
    this.packer = undefined;
  }

  version(dataset: string): string {
    return this.inner.version?.(dataset) ?? '';
  }

  /** A whole-dataset read (a join no index answers) is not recorded as a dependency. */
  entities(dataset: string): Iterable<JsonObject> {
    return this.inner.entities?.(dataset) ?? [];
  }

  lookupByIndex(dataset: string, path: readonly string[], keys: readonly JsonValue[]): Iterable<JsonObject> {
    if (this.recording && this.tracked(dataset)) {
      if (!this.started.has(dataset)) {
        this.startTracking(dataset);
        this.started.add(dataset);
      }
      let p = this.pathTexts.get(path);
      if (p === undefined) {
        p = JSON.stringify(path);
        this.pathTexts.set(path, p);
      }
      const packer = this.packer;
      if (packer !== undefined) for (const k of keys) if (k !== null) packer.add(dataset, p, keyOf(k));
    }
    return this.inner.lookupByIndex(dataset, path, keys);
  }

  entity(dataset: string, id: string): JsonObject | undefined {
    return this.inner.entity(dataset, id);
  }
}

/**
 * Whether a transform configuration has hops at all, and whether they track a dataset: not for datasets that every
 * hops spec naming them marks with `"track-dependencies": false`.
 */
export function trackedDatasets(transform: JsonValue | undefined): {
  hops: boolean;
  tracked: (dataset: string) => boolean;
  /** Whether some hops spec names the dataset. */
  named: (dataset: string) => boolean;
} {
  const on = new Set<string>();
  const off = new Set<string>();
  let hops = false;
  const visit = (node: JsonValue | undefined): void => {
    if (Array.isArray(node)) {
      if (node[0] === 'hops' || node[0] === 'apply-hops') {
        hops = true;
        for (const spec of node.slice(1)) {
          if (!isJsonObject(spec) || !Array.isArray(spec['datasets'])) continue;
          const target = spec['track-dependencies'] === false ? off : on;
          for (const d of spec['datasets']) if (typeof d === 'string') target.add(d.trim().split(/\s+/)[0] ?? '');
        }
      }
      for (const child of node) visit(child);
    } else if (isJsonObject(node)) {
      for (const child of Object.values(node)) visit(child);
    }
  };
  visit(transform);
  return { hops, tracked: (dataset) => on.has(dataset) || !off.has(dataset), named: (dataset) => on.has(dataset) || off.has(dataset) };
}

/**
 * The keys the changes of `ds` after offset `since` (up to its end now) have on each of `paths` (JSON lists): the
 * keys of every version written since, and of the version each of them replaced, so an old key counts as well. With
 * `owners`, per "<path>\\u0000<key>" the ids (a few) of the changed entities that hold the key.
 */
export function changedKeys(ds: Dataset, since: number, paths: readonly string[], owners?: Map<string, string[]>): Map<string, Set<string>> {
  const parsed = paths.map((p) => ({ p, keys: JSON.parse(p) as string[], found: new Set<string>() }));
  const add = (e: JsonObject): void => {
    for (const x of parsed) {
      for (const k of lookupKeys(traverseLookupPath(e, x.keys))) {
        x.found.add(k);
        const id = e['_id'];
        if (owners && typeof id === 'string') {
          const at = `${x.p}\u0000${k}`;
          const list = owners.get(at) ?? [];
          if (list.length < 4 && !list.includes(id)) list.push(id);
          owners.set(at, list);
        }
      }
    }
  };
  for (const page of ds.readJson({ since, history: true, deleted: true })) {
    for (const json of page) {
      const e = parseJson(json) as JsonObject;
      add(e);
      const prev = e['_previous'];
      const id = e['_id'];
      if (typeof prev === 'number' && typeof id === 'string') {
        const before = ds.getAt(id, prev);
        if (before !== undefined) add(before);
      }
    }
  }
  return new Map(parsed.map((x) => [x.p, x.found]));
}

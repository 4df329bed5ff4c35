// What a batch's source entities looked up, in one packed form from where the hops record it to where the
// dependency store writes it: one string of entity ids and keys, their lengths and (dataset, path) numbers.
//
// - A tracked run records tens of thousands of lookups per batch. Recorded straight into this form, they make no
//   object per lookup or per entity; a pipe worker sends the batch to the hub's thread as a few long strings (far
//   cheaper to copy between threads than many small objects); and the writer inserts a first run's rows from it
//   directly (DependencyStore.replace).
// - `unpackDependencies` gives the per-entity objects back, for writes that must compare with what is stored.

export interface Dependency {
  readonly dataset: string;
  /** The join path as JSON (a list of property names). */
  readonly path: string;
  /** The key's `lookupKey`. */
  readonly key: string;
}

/** What one source entity looked up (a deleted entity: nothing). */
export interface EntityDependencies {
  readonly eid: string;
  readonly deps: readonly Dependency[];
}

export interface PackedDependencies {
  /** Per entity: its id, then the key of each of its dependencies. */
  readonly text: string;
  /** Per entity: [id length, dependency count, then per dependency: tracker number, key length]. */
  readonly numbers: Uint32Array<ArrayBuffer>;
  /** The (dataset, path) pairs the tracker numbers stand for. */
  readonly trackers: readonly (readonly [dataset: string, path: string])[];
}

/** Records a batch's dependencies, entity by entity, in the packed form. */
export class DependencyPacker {
  private readonly parts: string[] = [];
  private readonly numbers: number[] = [];
  private readonly trackers: [string, string][] = [];
  private readonly numberOf = new Map<string, Map<string, number>>();
  /** Where the open entity's dependency count is in `numbers` (-1: none open). */
  private countAt = -1;

  /** The next entity's dependencies follow (none: the entity still says it has none). */
  entity(eid: string): void {
    this.parts.push(eid);
    this.numbers.push(eid.length, 0);
    this.countAt = this.numbers.length - 1;
  }

  /** A dependency of the entity opened last (a key may come twice; the store keeps it once). */
  add(dataset: string, path: string, key: string): void {
    let paths = this.numberOf.get(dataset);
    if (paths === undefined) this.numberOf.set(dataset, (paths = new Map()));
    let n = paths.get(path);
    if (n === undefined) {
      n = this.trackers.push([dataset, path]) - 1;
      paths.set(path, n);
    }
    this.parts.push(key);
    this.numbers.push(n, key.length);
    this.numbers[this.countAt]!++;
  }

  finish(): PackedDependencies {
    return { text: this.parts.join(''), numbers: Uint32Array.from(this.numbers), trackers: this.trackers };
  }
}

export function unpackDependencies(packed: PackedDependencies): EntityDependencies[] {
  const { text, numbers, trackers } = packed;
  const out: EntityDependencies[] = [];
  let at = 0;
  let n = 0;
  while (n < numbers.length) {
    const eid = text.slice(at, (at += numbers[n++]!));
    const count = numbers[n++]!;
    const deps: Dependency[] = new Array<Dependency>(count);
    for (let i = 0; i < count; i++) {
      const [dataset, path] = trackers[numbers[n++]!]!;
      deps[i] = { dataset, path, key: text.slice(at, (at += numbers[n++]!)) };
    }
    out.push({ eid, deps });
  }
  return out;
}

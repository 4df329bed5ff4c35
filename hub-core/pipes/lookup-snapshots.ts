// Joins at the speed of a lookup: when a run looks a dataset up many times, its live latest versions are read once
// into memory (one sequential read instead of a statement per key), and later lookups are map lookups.
//
// - A dataset is read whole only after enough lookups since its last change (at least MIN_LOOKUPS, and a sixteenth of
//   its live entities: reading a row whole costs a fraction of a lookup by key, so reading them all costs no more
//   than those lookups did), so a small incremental run still uses the indexed statements. A run that says ahead
//   that it makes at least that many lookups (`expected`: one part of a run read in parts knows its width) has the
//   dataset read after the lookups of its first batch: that batch reaches the writer, which has nothing else to do
//   yet, without waiting for the read.
// - A snapshot is valid while the dataset's `changeCount` stays the same; any write in this process moves it on (a
//   write that was rolled back too, which only costs a reload). It is never read inside a transaction, whose
//   uncommitted writes could still be rolled back.
// - Memory is bounded: datasets of more than MAX_ENTITIES live entities are never read whole, all snapshots together
//   hold at most MAX_CHARS characters of entity text, and they are dropped after IDLE_MS without use.
// - A snapshot holds each entity's stored properties in columns, and a lookup parses only the body (`storedEntity`).
//   An entity looked up a second time is kept parsed, and that object answers every later lookup of it (looked-up
//   entities are never modified, as with MemoryLookup), while the parsed ones of all snapshots together come from at
//   most MAX_PARSED_CHARS characters of text; past that, each lookup parses its own copy. An entity looked up once is
//   not kept: a join on unique keys would only give the collector tens of thousands of objects to trace.
// - Per join path, the keys are the same as the dataset index's (`indexKeys`: the canonical JSON of each value at the
//   path, nulls left out), so a lookup through a snapshot finds exactly what the index would have found.

import type { Dataset, DatasetRow, LiveRow } from '../storage/index.js';
import { storedEntity } from '../base/index.js';
import { indexKeys } from '../storage/index.js';
import type { JsonObject } from '../base/index.js';

const MIN_LOOKUPS = 1000;
const MAX_ENTITIES = 500_000;
const MAX_CHARS = 96 * 1024 * 1024;
const IDLE_MS = 30_000;
const MAX_PARSED_CHARS = 24 * 1024 * 1024;
/** What an entity costs besides its id, hash and body, counted in characters (its offsets and the map's entry). */
const ENTRY_OVERHEAD = 64;

/** Properties the log keeps outside the entity body: the dataset index never sees them. */
const LOG_PROPERTIES = new Set(['_updated', '_deleted', '_previous', '_ts', '_hash']);

/** Characters of entity text that may still be kept parsed (shared by the snapshots of one LookupSnapshots). */
interface ParseBudget {
  left: number;
}

export class Snapshot {
  /** Each live latest version's slot in the columns below, by id. */
  private readonly slots = new Map<string, number>();
  // One column per stored property: few objects per entity, little for the collector to trace while a run holds it.
  private readonly seqs: number[] = [];
  private readonly prevs: (number | null)[] = [];
  private readonly stamps: number[] = [];
  private readonly hashes: string[] = [];
  private readonly bodies: string[] = [];
  chars = 0;
  /** Characters of the entities kept parsed. */
  parsedChars = 0;
  private readonly parsed = new Map<string, JsonObject>();
  /** Ids looked up once so far: an entity is kept parsed from its second lookup on (a join of unique keys keeps none). */
  private readonly once = new Set<string>();
  private readonly byPath = new Map<string, Map<string, string[]>>();

  constructor(private readonly budget: ParseBudget = { left: MAX_PARSED_CHARS }) {}

  add(row: LiveRow): void {
    this.slots.set(row[1], this.seqs.length);
    this.seqs.push(row[0]);
    this.prevs.push(row[2]);
    this.stamps.push(row[3]);
    this.hashes.push(row[4]);
    this.bodies.push(row[5]);
  }

  private make(id: string, slot: number): JsonObject {
    return storedEntity(id, this.seqs[slot]!, false, this.prevs[slot]!, this.stamps[slot]!, this.hashes[slot]!, this.bodies[slot]!);
  }

  /** A live entity (shared: callers must not modify it), or undefined. */
  entity(id: string): JsonObject | undefined {
    const done = this.parsed.get(id);
    if (done !== undefined) return done;
    const slot = this.slots.get(id);
    if (slot === undefined) return undefined;
    const e = this.make(id, slot);
    const size = this.bodies[slot]!.length + ENTRY_OVERHEAD;
    if (!this.once.has(id)) this.once.add(id);
    else if (this.budget.left >= size) {
      this.once.delete(id);
      this.budget.left -= size;
      this.parsedChars += size;
      this.parsed.set(id, e);
    }
    return e;
  }

  /** The ids of the entities holding the index key `key` (canonical JSON) at `path`. */
  idsAt(path: readonly string[], key: string): readonly string[] {
    const name = JSON.stringify(path);
    let index = this.byPath.get(name);
    if (index === undefined) {
      index = new Map();
      for (const [id, slot] of this.slots) {
        for (const k of indexKeys(this.make(id, slot), path)) {
          const ids = index.get(k);
          if (ids === undefined) index.set(k, [id]);
          else ids.push(id);
        }
      }
      this.byPath.set(name, index);
    }
    return index.get(key) ?? [];
  }
}

/** What a snapshot read in an earlier run is valid for: the dataset's generation, last offset and counts. */
export function snapshotVersion(row: DatasetRow): string {
  return `${row.generation}:${row.max_updated}:${row.live_count}:${row.deleted_count}`;
}

/**
 * Snapshots kept from one run to the next by a pipe worker, whose runs each read through a connection of their own
 * (so `changeCount` says nothing there): one is taken again while `snapshotVersion` is the same, so re-running a pipe
 * after an edit does not read its joined datasets again. Any write moves the last offset; compaction that removes
 * latest versions moves the counts; a dataset made anew has a new generation. At most MAX_CHARS are kept, each for
 * IDLE_MS after its last use.
 */
export class KeptSnapshots {
  private readonly kept = new Map<string, { version: string; snapshot: Snapshot; used: number }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** How many times a kept snapshot answered a run (tests check that it happens). */
  hits = 0;

  get(name: string, version: string): Snapshot | undefined {
    const k = this.kept.get(name);
    if (k === undefined) return undefined;
    if (k.version !== version) {
      this.kept.delete(name);
      return undefined;
    }
    k.used = Date.now();
    this.hits++;
    return k.snapshot;
  }

  put(name: string, version: string, snapshot: Snapshot): void {
    this.kept.set(name, { version, snapshot, used: Date.now() });
    let chars = 0;
    for (const k of this.kept.values()) chars += k.snapshot.chars;
    // Over the bound, the least recently used go first (never the one just put).
    for (const [other, k] of [...this.kept].sort((a, b) => a[1].used - b[1].used)) {
      if (chars <= MAX_CHARS || other === name) continue;
      this.kept.delete(other);
      chars -= k.snapshot.chars;
    }
    if (this.timer === undefined) {
      this.timer = setInterval(() => {
        const now = Date.now();
        for (const [other, k] of this.kept) if (now - k.used >= IDLE_MS) this.kept.delete(other);
        if (this.kept.size === 0) {
          clearInterval(this.timer);
          this.timer = undefined;
        }
      }, IDLE_MS);
      this.timer.unref();
    }
  }
}

interface Entry {
  /** The dataset's snapshotVersion when the entry was made (with `kept`). */
  version: string | undefined;
  /** The snapshot was kept from an earlier run: its parsed entities count against that run's budget. */
  again: boolean;
  changes: number;
  lookups: number;
  threshold: number;
  snapshot: Snapshot | undefined;
  /** Too large to hold (until it changes). */
  tooBig: boolean;
  used: number;
}

export class LookupSnapshots {
  private readonly entries = new Map<Dataset, Entry>();
  private chars = 0;
  private readonly parseBudget: ParseBudget = { left: MAX_PARSED_CHARS };
  /** How many times a dataset was read whole (tests check that it happens). */
  reads = 0;
  /** About how many lookups of each joined dataset the run ahead makes (0: unknown), and after how many to read it. */
  expected = { count: 0, after: 0 };
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly inTransaction: () => boolean,
    /** Snapshots of earlier runs to take again (a pipe worker's). */
    private readonly kept?: KeptSnapshots,
  ) {}

  /** The snapshot to answer a lookup of `ds` from, or undefined to use the dataset's statements. */
  use(ds: Dataset, path: readonly string[]): Snapshot | undefined {
    if (path.length > 0 && LOG_PROPERTIES.has(path[0]!)) return undefined;
    let entry = this.entries.get(ds);
    if (entry !== undefined && entry.changes !== ds.changeCount) {
      this.drop(ds, entry);
      entry = undefined;
    }
    if (entry === undefined) {
      const row = ds.row();
      const live = row.live_count;
      const threshold = Math.max(MIN_LOOKUPS, Math.ceil(live / 16));
      // A run known to make that many lookups reads the dataset early: most lookups by key before it would be wasted.
      const early = this.expected.count >= threshold ? Math.min(threshold, this.expected.after + 1) : threshold;
      const version = this.kept === undefined ? undefined : snapshotVersion(row);
      entry = { version, again: false, changes: ds.changeCount, lookups: 0, threshold: early, snapshot: undefined, tooBig: live > MAX_ENTITIES, used: Date.now() };
      this.entries.set(ds, entry);
      const again = version === undefined ? undefined : this.kept!.get(ds.name, version);
      if (again !== undefined) {
        entry.snapshot = again;
        entry.again = true;
        this.chars += again.chars;
        this.schedule();
      }
    }
    entry.used = Date.now();
    if (entry.snapshot !== undefined) return entry.snapshot;
    if (entry.tooBig || ++entry.lookups < entry.threshold || this.inTransaction()) return undefined;
    entry.snapshot = this.load(ds, entry);
    if (entry.snapshot !== undefined) this.schedule();
    return entry.snapshot;
  }

  /**
   * Drop what was read of `ds` unless it is as it was read: the dataset's snapshotVersion is the one recorded (only
   * with kept snapshots, a pipe worker's; without, whatever was read is dropped).
   */
  refresh(ds: Dataset): void {
    const entry = this.entries.get(ds);
    if (entry === undefined || (entry.version !== undefined && entry.version === snapshotVersion(ds.row()))) return;
    this.drop(ds, entry);
  }

  /** Drop every snapshot (the hub closes, or the datasets were replaced). */
  clear(): void {
    this.entries.clear();
    this.chars = 0;
    this.parseBudget.left = MAX_PARSED_CHARS;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private load(ds: Dataset, entry: Entry): Snapshot | undefined {
    // The version the read starts from (it sees that or later): a write since the entry was made is not missed.
    if (entry.version !== undefined) entry.version = snapshotVersion(ds.row());
    // Make room: snapshots of other datasets go first.
    for (const [other, e] of this.entries) if (other !== ds && e.snapshot !== undefined && this.chars > MAX_CHARS / 2) this.drop(other, e, true);
    const budget = MAX_CHARS - this.chars;
    const snapshot = new Snapshot(this.parseBudget);
    let fits = true;
    ds.visitLive((row) => {
      snapshot.chars += row[1].length + row[4].length + row[5].length + ENTRY_OVERHEAD;
      if (snapshot.chars > budget) {
        fits = false;
        return false;
      }
      snapshot.add(row);
      return true;
    });
    if (!fits) {
      entry.tooBig = true;
      return undefined;
    }
    this.chars += snapshot.chars;
    this.reads++;
    if (entry.version !== undefined) this.kept?.put(ds.name, entry.version, snapshot);
    return snapshot;
  }

  private drop(ds: Dataset, entry: Entry, keepEntry = false): void {
    if (entry.snapshot !== undefined) {
      this.chars -= entry.snapshot.chars;
      if (!entry.again) this.parseBudget.left += entry.snapshot.parsedChars;
    }
    entry.snapshot = undefined;
    if (!keepEntry) this.entries.delete(ds);
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const now = Date.now();
      for (const [ds, e] of this.entries) if (now - e.used >= IDLE_MS) this.drop(ds, e);
      if (this.chars > 0) this.schedule();
    }, IDLE_MS);
    this.timer.unref();
  }
}

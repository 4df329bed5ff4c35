// What dependency tracking knows: for each pipe, the (joined dataset, join path, key) each source entity looked up.
//
// - A (pipe, dataset, path) is a tracker with a small number (pump_dep_trackers). A dependency is one narrow row
//   (tracker, key, eid) of a WITHOUT ROWID table ordered for the dependency phase's question (which entities looked
//   this key up), with an index by entity for replacing what an entity depends on.
// - A batch is written as a difference: the rows its entities have are read (one statement per tracker of the pipe),
//   and only rows that appear or go are written. An entity that looks up the same keys as before (a re-run, the
//   dependency phase, a change that leaves its join keys alone) writes nothing.
// - Trackers are read per batch, never cached: a batch rolled back takes its new trackers with it.
// - Data folders of older versions kept one wide row per dependency (pump_dependencies); they are moved over on open.

import type { Db } from '../storage/index.js';
import { unpackDependencies, type EntityDependencies, type PackedDependencies } from './packed-dependencies.js';

/** Rows per multi-row insert. */
const CHUNK = 100;
/** Entities a run that began without rows remembers; past that, its batches read what the store has, as others do. */
const FRESH_MAX = 1_000_000;

interface TrackerRow {
  num: number;
  dataset: string;
  path: string;
}

/** A pipe's trackers as one batch uses them. */
interface PipeTrackers {
  /** The tracker of (dataset, path), made when new. */
  numberOf: (dataset: string, path: string) => number;
  /** Every tracker number known so far. */
  nums: () => Iterable<number>;
  /** Whether the pipe had any tracker when the batch began (without one, it has no rows). */
  any: boolean;
}

export class DependencyStore {
  private readonly stmts;
  /**
   * Per pipe whose run began when the pipe had no rows at all: the entities that run has given rows. Only they can
   * have rows, so a batch reads the store's rows for them alone (a first run, or one after a reset, reads nothing).
   * An id remembered for a batch that was rolled back only costs a read.
   */
  private readonly fresh = new Map<string, Set<string>>();

  constructor(db: Db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS pump_dep_trackers (
        num INTEGER PRIMARY KEY, pipe TEXT NOT NULL, dataset TEXT NOT NULL, path TEXT NOT NULL, UNIQUE (pipe, dataset, path));
      CREATE TABLE IF NOT EXISTS pump_deps (
        tracker INTEGER NOT NULL, key TEXT NOT NULL, eid TEXT NOT NULL, PRIMARY KEY (tracker, key, eid)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS pump_deps_eid ON pump_deps (tracker, eid);
    `);
    migrateWideRows(db);
    this.stmts = {
      trackers: db.prepare('SELECT num, dataset, path FROM pump_dep_trackers WHERE pipe = ?'),
      addTracker: db.prepare('INSERT INTO pump_dep_trackers (pipe, dataset, path) VALUES (?, ?, ?)'),
      current: db.prepare('SELECT key, eid FROM pump_deps WHERE tracker = ? AND eid IN (SELECT value FROM json_each(?))').raw(),
      insert: db.prepare('INSERT OR IGNORE INTO pump_deps (tracker, key, eid) VALUES (?, ?, ?)'),
      insertChunk: db.prepare(`INSERT OR IGNORE INTO pump_deps (tracker, key, eid) VALUES ${Array<string>(CHUNK).fill('(?, ?, ?)').join(', ')}`),
      remove: db.prepare('DELETE FROM pump_deps WHERE tracker = ? AND key = ? AND eid = ?'),
      paths: db
        .prepare('SELECT path FROM pump_dep_trackers t WHERE pipe = ? AND dataset = ? AND EXISTS (SELECT 1 FROM pump_deps WHERE tracker = t.num)')
        .pluck(),
      dependents: db
        .prepare('SELECT d.eid FROM pump_dep_trackers t JOIN pump_deps d ON d.tracker = t.num WHERE t.pipe = ? AND t.dataset = ? AND t.path = ? AND d.key = ?')
        .pluck(),
      anyRow: db.prepare('SELECT 1 FROM pump_dep_trackers t WHERE pipe = ? AND EXISTS (SELECT 1 FROM pump_deps WHERE tracker = t.num)').pluck(),
      clearRows: db.prepare('DELETE FROM pump_deps WHERE tracker IN (SELECT num FROM pump_dep_trackers WHERE pipe = ?)'),
      clearTrackers: db.prepare('DELETE FROM pump_dep_trackers WHERE pipe = ?'),
    };
  }

  /** A run of the pipe begins (see `fresh`); `endRun` when it is over. */
  beginRun(pipe: string): void {
    if (this.stmts.anyRow.get(pipe) === undefined) this.fresh.set(pipe, new Set());
    else this.fresh.delete(pipe);
  }

  endRun(pipe: string): void {
    this.fresh.delete(pipe);
  }

  /**
   * Make what each entity of the batch depends on what the batch says (an entity listed without dependencies:
   * nothing). Call inside a transaction. An entity listed twice takes its last entry.
   */
  replace(pipe: string, packed: PackedDependencies): void {
    if (packed.numbers.length === 0) return;
    const trackers = this.trackers(pipe);
    if (this.insertFresh(pipe, packed, trackers.numberOf)) return;
    this.compareAndWrite(pipe, unpackDependencies(packed), trackers);
  }

  /** The pipe's tracker numbers by (dataset, path), made on first use. */
  private trackers(pipe: string): PipeTrackers {
    const byDataset = new Map<string, Map<string, number>>();
    let any = false;
    for (const t of this.stmts.trackers.all(pipe) as TrackerRow[]) {
      let paths = byDataset.get(t.dataset);
      if (paths === undefined) byDataset.set(t.dataset, (paths = new Map()));
      paths.set(t.path, t.num);
      any = true;
    }
    const numberOf = (dataset: string, path: string): number => {
      let paths = byDataset.get(dataset);
      if (paths === undefined) byDataset.set(dataset, (paths = new Map()));
      let num = paths.get(path);
      if (num === undefined) {
        num = Number(this.stmts.addTracker.run(pipe, dataset, path).lastInsertRowid);
        paths.set(path, num);
      }
      return num;
    };
    const nums = function* (): Iterable<number> {
      for (const paths of byDataset.values()) yield* paths.values();
    };
    return { numberOf, nums, any };
  }

  /**
   * A batch of a run that began without rows (see `fresh`), none of whose entities has rows yet or is listed twice:
   * its rows go in straight from the packed form, with nothing to read or compare. False: the batch needs comparing
   * (the ids this looked at are remembered already, which only costs that comparison a read).
   */
  private insertFresh(pipe: string, packed: PackedDependencies, numberOf: (dataset: string, path: string) => number): boolean {
    const fresh = this.fresh.get(pipe);
    if (fresh === undefined) return false;
    const { text, numbers } = packed;
    const nums = packed.trackers.map(([dataset, path]) => numberOf(dataset, path));
    const added: (number | string)[] = [];
    for (let n = 0, at = 0; n < numbers.length; ) {
      const eid = text.slice(at, (at += numbers[n]!));
      if (fresh.has(eid)) return false;
      const count = numbers[n + 1]!;
      if (count > 0) fresh.add(eid);
      n += 2;
      for (let i = 0; i < count; i++, n += 2) added.push(nums[numbers[n]!]!, text.slice(at, (at += numbers[n + 1]!)), eid);
    }
    if (fresh.size > FRESH_MAX) this.fresh.delete(pipe);
    this.insertRows(added);
    return true;
  }

  /** Read the rows the batch's entities have, and write only the rows that appear or go. */
  private compareAndWrite(pipe: string, batch: readonly EntityDependencies[], trackers: PipeTrackers): void {
    const trackerOf = trackers.numberOf;
    // What the batch says, per entity: its (tracker, key) pairs without repeats.
    const next = new Map<string, [number, string][]>();
    for (const { eid, deps } of batch) {
      if (deps.length <= 1) {
        const d = deps[0];
        next.set(eid, d === undefined ? [] : [[trackerOf(d.dataset, d.path), d.key]]);
        continue;
      }
      const seen = new Set<string>();
      const pairs: [number, string][] = [];
      for (const d of deps) {
        const num = trackerOf(d.dataset, d.path);
        const pair = `${num}\u0000${d.key}`;
        if (seen.has(pair)) continue;
        seen.add(pair);
        pairs.push([num, d.key]);
      }
      next.set(eid, pairs);
    }

    // What the store has for these entities now (nothing before the pipe's first tracker).
    const before = new Map<string, Set<string>>();
    const fresh = this.fresh.get(pipe);
    const asked = fresh === undefined ? [...next.keys()] : [...next.keys()].filter((eid) => fresh.has(eid));
    if (trackers.any && asked.length > 0) {
      const eids = JSON.stringify(asked);
      for (const num of trackers.nums()) {
        for (const [key, eid] of this.stmts.current.all(num, eids) as [string, string][]) {
          let set = before.get(eid);
          if (set === undefined) before.set(eid, (set = new Set()));
          set.add(`${num}\u0000${key}`);
        }
      }
    }

    const added: (number | string)[] = [];
    for (const [eid, pairs] of next) {
      const had = before.get(eid);
      if (had === undefined) {
        for (const [num, key] of pairs) added.push(num, key, eid);
        continue;
      }
      const now = new Set<string>();
      for (const [num, key] of pairs) {
        const pair = `${num}\u0000${key}`;
        now.add(pair);
        if (!had.has(pair)) added.push(num, key, eid);
      }
      for (const pair of had) {
        if (now.has(pair)) continue;
        const cut = pair.indexOf('\u0000');
        this.stmts.remove.run(Number(pair.slice(0, cut)), pair.slice(cut + 1), eid);
      }
    }
    if (fresh !== undefined) {
      for (const [eid, pairs] of next) if (pairs.length > 0) fresh.add(eid);
      if (fresh.size > FRESH_MAX) this.fresh.delete(pipe);
    }
    this.insertRows(added);
  }

  /** Insert rows given flat, three values a row (tracker, key, eid). */
  private insertRows(added: readonly (number | string)[]): void {
    const chunk = CHUNK * 3;
    let i = 0;
    for (; i + chunk <= added.length; i += chunk) this.stmts.insertChunk.run(added.slice(i, i + chunk));
    for (; i < added.length; i += 3) this.stmts.insert.run(added[i], added[i + 1], added[i + 2]);
  }

  /** The join paths (JSON lists) on which the pipe's entities depend on `dataset`. */
  paths(pipe: string, dataset: string): string[] {
    return this.stmts.paths.all(pipe, dataset) as string[];
  }

  /** The source entities that looked up `key` on `path` of `dataset`. */
  dependents(pipe: string, dataset: string, path: string, key: string): string[] {
    return this.stmts.dependents.all(pipe, dataset, path, key) as string[];
  }

  /** Forget what the pipe's entities depend on. */
  clear(pipe: string): void {
    this.fresh.delete(pipe);
    this.stmts.clearRows.run(pipe);
    this.stmts.clearTrackers.run(pipe);
  }
}

/** Move the wide rows of older versions (pump_dependencies: pipe, dataset, path, key, eid) to the trackers' rows. */
function migrateWideRows(db: Db): void {
  const wide = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pump_dependencies'").get();
  if (wide === undefined) return;
  db.transaction(() => {
    db.exec(`
      INSERT OR IGNORE INTO pump_dep_trackers (pipe, dataset, path) SELECT DISTINCT pipe, dataset, path FROM pump_dependencies;
      INSERT OR IGNORE INTO pump_deps (tracker, key, eid)
        SELECT t.num, d.key, d.eid FROM pump_dependencies d JOIN pump_dep_trackers t ON t.pipe = d.pipe AND t.dataset = d.dataset AND t.path = d.path;
      DROP TABLE pump_dependencies;
    `);
  })();
}

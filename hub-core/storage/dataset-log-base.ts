// A dataset log's foundation: its tables and statements, its row and settings, its indexes and its size on disk.
import type { Db } from './database.js';
import { notFound } from '../base/index.js';
import { parseJson } from '../base/index.js';
import { indexKeys, parseIndexExpression, parseSubset } from './dataset-index.js';
import { backgroundFromVersions, type DiskUsageCounter } from './disk-usage.js';
import { UNPIPED_COMPACTION, type CompactionSettings } from './dataset-compaction.js';
import { prepareStatements, type DatasetStatements, type DatasetTables } from './dataset-log-statements.js';
import type { DatasetRow, DatasetSettings, IndexInfo } from './dataset-log-types.js';

/** The lowest offset up to which the pipes doing dependency tracking on a dataset have seen its changes. */
export type CompactionFloor = () => number;

/**
 * A large write under way (dataset-log-staging.ts), written in several transactions: its log rows lie after `end`, the
 * dataset's end (max_updated) that readers see until it is published. Readers of the latest versions look past them.
 */
export interface StagedState {
  /** The dataset's end when the write began: what readers see until it is published. */
  readonly end: number;
  /** The last offset, live and deleted counts, and versions written so far (published at the end). */
  max: number;
  live: number;
  dead: number;
  written: number;
  /** Pairs (new offset, replaced offset) of the entities the write replaced: their chains are compacted once published. */
  replaced: number[];
  /** Offsets (visible versions) whose index rows go when the write is published: their entities moved on. */
  unindex: number[];
  /** Published: readers see it all; what remains is compaction (or the write was taken back). */
  published: boolean;
}

/** The parts of a dataset that its reading, writing and compaction share (Dataset in dataset-log.ts is the whole). */
export class DatasetBase {
  readonly num: number;
  readonly name: string;
  readonly tables: DatasetTables;
  protected readonly stmts: DatasetStatements;
  protected indexCache: { idx: number; path: string[]; expression: string }[] | undefined;
  protected changes = 0;
  protected bytesCache: { versions: number; changes: number; at: number; bytes: number } | undefined;
  /** A background count of bytesOnDisk under way (large datasets). */
  protected counting = false;
  /** A large write under way (dataset-log-staging.ts); no other write may run meanwhile. */
  protected staged: StagedState | undefined;

  constructor(
    protected readonly db: Db,
    row: DatasetRow,
    protected readonly compactionFloor: CompactionFloor = () => Number.POSITIVE_INFINITY,
    protected readonly usage?: DiskUsageCounter,
  ) {
    this.num = row.num;
    this.name = row.name;
    this.tables = { log: `d${row.num}_log`, latest: `d${row.num}_latest`, idx: `d${row.num}_idx`, pending: `d${row.num}_pending` };
    this.stmts = prepareStatements(db, this.tables, row.num);
    // Datasets written before versions were counted are counted once.
    if (this.stmts.versions.get() === undefined) {
      const n = db.prepare(`SELECT count(*) FROM ${this.tables.log}`).pluck().get() as number;
      db.prepare('INSERT OR IGNORE INTO dataset_versions (dataset, versions) VALUES (?, ?)').run(row.num, n);
    }
  }

  static createTables(db: Db, num: number): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS d${num}_log (
        seq INTEGER PRIMARY KEY, eid TEXT NOT NULL, deleted INTEGER NOT NULL,
        superseded INTEGER NOT NULL DEFAULT 0, prev INTEGER, ts INTEGER NOT NULL,
        hash TEXT NOT NULL, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS d${num}_latest (
        eid TEXT PRIMARY KEY, seq INTEGER NOT NULL, hash TEXT NOT NULL, deleted INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS d${num}_idx (
        idx INTEGER NOT NULL, key TEXT NOT NULL, seq INTEGER NOT NULL, gone INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (idx, key, seq)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS d${num}_idx_seq ON d${num}_idx (seq);
      CREATE TABLE IF NOT EXISTS d${num}_pending (
        pos INTEGER PRIMARY KEY, eid TEXT NOT NULL, deleted INTEGER NOT NULL, hash TEXT NOT NULL,
        body TEXT NOT NULL, force INTEGER NOT NULL);
    `);
  }

  static dropTables(db: Db, num: number): void {
    db.exec(`DROP TABLE IF EXISTS d${num}_log; DROP TABLE IF EXISTS d${num}_latest;
             DROP TABLE IF EXISTS d${num}_idx; DROP TABLE IF EXISTS d${num}_pending;`);
  }

  /** Whether a large write is under way (written in parts, not all visible yet, or its old versions being compacted). */
  get staging(): boolean {
    return this.staged !== undefined;
  }

  /** The end readers see while a large write's rows lie after it (undefined: none is under way, all is visible). */
  protected hiddenAfter(): number | undefined {
    const s = this.staged;
    return s !== undefined && !s.published ? s.end : undefined;
  }

  row(): DatasetRow {
    const row = this.stmts.row.get() as DatasetRow | undefined;
    if (!row) throw notFound(`dataset ${JSON.stringify(this.name)}`, 'it was deleted');
    return row;
  }

  settings(): DatasetSettings {
    return JSON.parse(this.row().settings) as DatasetSettings;
  }

  setSettings(settings: DatasetSettings): void {
    this.db.prepare('UPDATE datasets SET settings = ? WHERE num = ?').run(JSON.stringify(settings), this.num);
  }

  protected compactionSettings(settings: DatasetSettings): CompactionSettings {
    // Settings stored before the time and growth thresholds existed get their defaults.
    return { ...UNPIPED_COMPACTION, ...(settings.compaction ?? {}) };
  }

  /** The compaction settings in effect (a pipe's `compaction` property, or the defaults of a dataset no pipe writes). */
  compaction(): CompactionSettings {
    return this.compactionSettings(this.settings());
  }

  /**
   * Counts the writes that changed something in this process (a write rolled back afterwards counts too): a cache of
   * the latest versions read while it had one value is valid while it keeps it. One hub process owns the database.
   */
  get changeCount(): number {
    return this.changes;
  }

  /**
   * Bytes of the pages this dataset's tables and indexes use in the database file (counted at most every 5 s). A
   * dataset of more than backgroundFromVersions() versions is counted in a worker thread (disk-usage.ts): until that
   * count is in, the answer is the last count, or the database's used pages shared out by stored versions, scaled to
   * the versions stored now.
   */
  bytesOnDisk(): number {
    const versions = (this.stmts.versions.get() as { versions: number } | undefined)?.versions ?? 0;
    const c = this.bytesCache;
    const fresh = c !== undefined && c.versions === versions && c.changes === this.changes && Date.now() - c.at < 5000;
    if (fresh) return c.bytes;
    if (this.usage === undefined || versions <= backgroundFromVersions()) {
      const bytes = this.stmts.bytes.get() as number;
      this.bytesCache = { versions, changes: this.changes, at: Date.now(), bytes };
      return bytes;
    }
    if (!this.counting) {
      this.counting = true;
      const asked = { versions, changes: this.changes };
      void this.usage
        .count([this.tables.log, this.tables.latest, this.tables.idx, `${this.tables.idx}_seq`, this.tables.pending])
        .then((bytes) => {
          if (bytes !== undefined) this.bytesCache = { ...asked, at: Date.now(), bytes };
        })
        .finally(() => (this.counting = false));
    }
    if (c !== undefined) return Math.round((c.bytes * versions) / Math.max(1, c.versions));
    const used = (this.stmts.usedBytes.get() as number) * (versions / Math.max(1, this.stmts.allVersions.get() as number));
    return Math.round(used);
  }

  setPopulated(populated: boolean): void {
    this.stmts.setPopulated.run(populated ? 1 : 0);
  }

  setCompleteness(micros: number | null): void {
    this.db.prepare('UPDATE datasets SET completeness = ? WHERE num = ?').run(micros, this.num);
  }

  protected indexes(): { idx: number; path: string[]; expression: string }[] {
    if (!this.indexCache) {
      const rows = this.stmts.indexList.all() as { idx: number; expression: string }[];
      this.indexCache = rows.map((r) => ({ idx: r.idx, path: parseIndexExpression(r.expression).path, expression: r.expression }));
    }
    return this.indexCache;
  }

  listIndexes(): IndexInfo[] {
    return (this.stmts.indexList.all() as { idx: number; expression: string; created_ts: number }[]).map((r) => ({
      id: r.idx,
      expression: r.expression,
      created: new Date(Math.floor(r.created_ts / 1000)).toISOString(),
    }));
  }

  /** Declare an index and build it over the current latest versions. Returns its integer id. */
  ensureIndex(expression: string): number {
    const parsed = parseIndexExpression(expression);
    const known = this.indexes().find((ix) => ix.expression === expression);
    if (known) return known.idx;
    const existing = (this.stmts.indexList.all() as { idx: number; expression: string }[]).find((r) => r.expression === expression);
    if (existing) return existing.idx;
    return this.db.transaction(() => {
      const next = (this.db.prepare('SELECT coalesce(max(idx), 0) + 1 AS n FROM dataset_indexes WHERE dataset = ?').get(this.num) as { n: number }).n;
      this.db.prepare('INSERT INTO dataset_indexes (dataset, idx, expression, created_ts) VALUES (?, ?, ?, ?)').run(this.num, next, expression, Date.now() * 1000);
      this.indexCache = undefined;
      const it = this.db
        .prepare(`SELECT b.seq, b.eid, b.body FROM ${this.tables.latest} l JOIN ${this.tables.log} b ON b.seq = l.seq WHERE l.deleted = 0`)
        .raw()
        .iterate() as IterableIterator<[number, string, string]>;
      const rows: [number, string, string][] = [...it];
      for (const [seq, eid, body] of rows) this.addIndexRows([{ idx: next, path: parsed.path }], seq, body, eid);
      return next;
    })();
  }

  dropIndex(idx: number): void {
    const res = this.db.prepare('DELETE FROM dataset_indexes WHERE dataset = ? AND idx = ?').run(this.num, idx);
    if (res.changes === 0) throw notFound(`index ${idx} of dataset ${JSON.stringify(this.name)}`);
    this.db.prepare(`DELETE FROM ${this.tables.idx} WHERE idx = ?`).run(idx);
    this.indexCache = undefined;
  }

  protected subsetIndex(subset: unknown): { idx: number; key: string } {
    const q = parseSubset(subset);
    const ix = (this.stmts.indexList.all() as { idx: number; expression: string }[]).find((r) => r.expression === q.expression);
    if (!ix) {
      throw notFound(`subset ${q.expression}`, `dataset ${JSON.stringify(this.name)} has no index ${q.expression}; declare it in the sink's "indexes"`);
    }
    return { idx: ix.idx, key: q.key };
  }

  protected addIndexRows(indexes: { idx: number; path: string[] }[], seq: number, body: string, id: string): void {
    const entity = parseJson(body) as Record<string, unknown>;
    entity['_id'] = id;
    for (const ix of indexes) {
      for (const key of indexKeys(entity, ix.path)) this.stmts.idxInsert.run(ix.idx, key, seq, 0);
    }
  }

  /**
   * Move an entity's subset memberships from its previous version to the new one. A subset the entity
   * leaves (or was deleted from) keeps a "gone" row at the new offset, so incremental subset readers see
   * the entity leave as a deletion instead of losing track of it.
   */
  protected moveIndexRows(
    indexes: { idx: number; path: string[] }[],
    prevSeq: number | undefined,
    seq: number,
    body: string | undefined,
    id: string,
    staged?: StagedState,
  ): void {
    const s = this.stmts;
    const current = new Set<string>();
    if (body !== undefined) {
      const entity = parseJson(body) as Record<string, unknown>;
      entity['_id'] = id;
      for (const ix of indexes) for (const key of indexKeys(entity, ix.path)) current.add(`${ix.idx}\u0000${key}`);
    }
    if (prevSeq !== undefined) {
      for (const [idx, key] of s.idxAtSeq.all(prevSeq) as [number, string][]) {
        const k = `${idx}\u0000${key}`;
        if (!current.has(k)) s.idxInsert.run(idx, key, seq, 1);
      }
      // A version readers still see keeps its index rows until the large write replacing it is published.
      if (staged !== undefined && prevSeq <= staged.end) staged.unindex.push(prevSeq);
      else s.idxDeleteSeq.run(prevSeq);
    }
    for (const k of current) {
      const sep = k.indexOf('\u0000');
      s.idxInsert.run(Number(k.slice(0, sep)), k.slice(sep + 1), seq, 0);
    }
  }
}

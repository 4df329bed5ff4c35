import type { Db } from './database.js';
import type { JsonObject } from '../base/index.js';
import type Database from 'better-sqlite3';
import { prepareEntity, storedEntity, storedEntityJson, EntityError, type PreparedEntity, type StoredEntity } from '../base/index.js';
import { HubError, conflict, notFound } from '../base/index.js';
import { indexKeys, parseIndexExpression, parseSubset } from './dataset-index.js';
import { backgroundFromVersions, type DiskUsageCounter } from './disk-usage.js';
import { ageCutoff, compactChain, compactsWhole, expiresByAge, UNPIPED_COMPACTION, type CompactionInfo, type CompactionSettings } from './dataset-compaction.js';

export interface DatasetRow {
  num: number;
  name: string;
  generation: string;
  created_ts: number;
  populated: number;
  max_updated: number;
  live_count: number;
  deleted_count: number;
  completeness: number | null;
  cb_tripped: number;
  cb_info: string | null;
  settings: string;
}

export interface CircuitBreakerSettings {
  /** Trip when one run changes more than this many entities. */
  thresholdCount?: number;
  /** Trip when one run changes more than this factor times the dataset's size at the start of the run. */
  thresholdFactor?: number;
}

export interface DatasetSettings {
  circuitBreaker?: CircuitBreakerSettings;
  /** From the `compaction` property of the pipe that writes the dataset; absent when no pipe writes it. */
  compaction?: CompactionSettings;
}

/** The lowest offset up to which the pipes doing dependency tracking on a dataset have seen its changes. */
export type CompactionFloor = () => number;

/** Counts changes across the batches of one run (a pump run or a JSON Push sequence). */
export interface WriteRun {
  changes: number;
  baseCount: number;
}

export interface WriteOptions {
  force?: boolean;
  run?: WriteRun;
  /** Called for every entity id in the batch, written or not (used by full-sync tracking). */
  seen?: (id: string) => void;
}

export interface WriteResult {
  received: number;
  written: number;
  unchanged: number;
  maxUpdated: number;
}

export interface ReadOptions {
  since?: number;
  limit?: number;
  history?: boolean;
  deleted?: boolean;
  reverse?: boolean;
  subset?: unknown;
  uncommitted?: boolean;
  /**
   * A read of the offsets (since, until] only (forward, without a subset): one part of a source read in parts. With
   * `history: false`, `snapshot` (at least `until`) is the offset whose latest versions are read, the same for every
   * part, so that an entity changed in a later part is read there only.
   */
  until?: number;
  snapshot?: number;
  /**
   * Rows per page of readJson (default 2000). Readers that hand entities on one at a time across event-loop turns
   * (CSV, Excel, XML streams) ask for small pages: a page that outlives a few young-generation collections is
   * promoted, and then the old generation grows with the size of the download until a full collection.
   */
  pageSize?: number;
}

/** The @end and @snap of a forward or reverse read: the dataset's end, or one part's bounds (ReadOptions.until). */
function partBounds(options: ReadOptions, end: number): { end: number; snap: number } {
  if (options.until === undefined) return { end, snap: end };
  const until = Math.min(end, options.until);
  return { end: until, snap: Math.max(until, Math.min(end, options.snapshot ?? until)) };
}

export interface IndexInfo {
  id: number;
  expression: string;
  created: string;
}

export interface DatasetInfo {
  _id: string;
  generation: string;
  created: string;
  populated: boolean;
  'max-updated': number | null;
  count: number;
  'deleted-count': number;
  completeness: number | null;
  /** Versions stored in the log (all entities, all versions). */
  'stored-versions': number;
  /** Bytes of the database file this dataset's tables and indexes take (pages in use). */
  'bytes-on-disk': number;
  compaction: CompactionInfo;
  'circuit-breaker': { enabled: boolean; tripped: boolean; 'pending-count': number; info: string | null };
  indexes: IndexInfo[];
}

/** The 409 of a write that tripped a dataset's circuit breaker (the trip itself is committed). */
export class CircuitBreakerTripped extends HubError {
  constructor(message: string, detail: string) {
    super(409, message, detail);
  }
}

type RawRow = [number, string, number, number | null, number, string, string];
/** An uncommitted entity: position, id, deleted, hash, body. */
type PendingRow = [number, string, number, string, string];
/** A log row: offset, id, deleted (0/1), previous offset, timestamp, hash, body. */
export type LogRow = Readonly<RawRow>;
/** A live latest version as `visitLive` reads it: offset, id, previous offset, ts, hash, body. */
export type LiveRow = readonly [number, string, number | null, number, string, string];

const DEFAULT_PAGE = 2000;
/** The most offsets one step of whole-log compaction reads. */
export const WHOLE_STEP_OFFSETS = 50_000;
const LIVE_PAGE = 5000;
/** From this many entities on, a write reads the batch's latest versions in one statement. */
const BATCH_LATEST = 16;
/** Rows per multi-row insert of new entities (see writeInTransaction). */
const NEW_ROWS_CHUNK = 50;
const SURROGATE = /[\uD800-\uDFFF]/;
const TEXT_PAGE = 2000;
/** keep_versions 0: versions a sink write looks at for removal by age. */
const SINK_EXPIRE_ROWS = 2000;

interface ExpireResult {
  next: number | undefined;
  removed: number;
  heldOff: number;
  /** Latest versions removed: live ones and deletions. */
  live: number;
  dead: number;
}

/** SQL that renders a log row as the stored entity's JSON text (the same text as storedEntityJson). */
const ROW_JSON_SQL = `'{"_id":' || json_quote(eid) || ',"_updated":' || seq || ',"_deleted":' || iif(deleted, 'true', 'false')
  || ',"_previous":' || ifnull(prev, 'null') || ',"_ts":' || ts || ',"_hash":"' || hash || '"'
  || iif(length(body) <= 2, '}', ',' || substr(body, 2))`;

/** One dataset: an append-only log of entity versions plus a table of the latest version per `_id`. */
export class Dataset {
  readonly num: number;
  readonly name: string;
  readonly tables: { log: string; latest: string; idx: string; pending: string };
  private readonly stmts: ReturnType<typeof prepareStatements>;
  private indexCache: { idx: number; path: string[]; expression: string }[] | undefined;
  private changes = 0;
  private bytesCache: { versions: number; changes: number; at: number; bytes: number } | undefined;
  /** A background count of bytesOnDisk under way (large datasets). */
  private counting = false;

  constructor(
    private readonly db: Db,
    row: DatasetRow,
    private readonly compactionFloor: CompactionFloor = () => Number.POSITIVE_INFINITY,
    private readonly usage?: DiskUsageCounter,
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

  info(): DatasetInfo {
    const row = this.row();
    const settings = JSON.parse(row.settings) as DatasetSettings;
    const pending = (this.stmts.pendingCount.get() as { n: number }).n;
    const versions = this.stmts.versions.get() as { versions: number; removed: number; compacted_ts: number | null } | undefined;
    const compaction = this.compactionSettings(settings);
    return {
      _id: row.name,
      generation: row.generation,
      created: new Date(Math.floor(row.created_ts / 1000)).toISOString(),
      populated: row.populated === 1,
      'max-updated': row.max_updated < 0 ? null : row.max_updated,
      count: row.live_count,
      'deleted-count': row.deleted_count,
      completeness: row.completeness,
      'stored-versions': versions?.versions ?? 0,
      'bytes-on-disk': this.bytesOnDisk(),
      compaction: {
        'keep-versions': compaction.keepVersions,
        sink: compaction.sink,
        automatic: compaction.automatic,
        'time-threshold-hours': compaction.timeThresholdHours,
        'growth-threshold': compaction.growthThreshold,
        'whole-log': compactsWhole(compaction),
        due: this.wholeCompactionDue(),
        'last-run': versions?.compacted_ts ? new Date(Math.floor(versions.compacted_ts / 1000)).toISOString() : null,
        'removed-versions': versions?.removed ?? 0,
      },
      'circuit-breaker': {
        enabled: settings.circuitBreaker !== undefined,
        tripped: row.cb_tripped === 1,
        'pending-count': pending,
        info: row.cb_info,
      },
      indexes: this.listIndexes(),
    };
  }

  private compactionSettings(settings: DatasetSettings): CompactionSettings {
    // Settings stored before the time and growth thresholds existed get their defaults.
    return { ...UNPIPED_COMPACTION, ...(settings.compaction ?? {}) };
  }

  /** The compaction settings in effect (a pipe's `compaction` property, or the defaults of a dataset no pipe writes). */
  compaction(): CompactionSettings {
    return this.compactionSettings(this.settings());
  }

  /**
   * Whether whole-log compaction is due: it looks after this dataset, and the offsets have grown by the growth
   * threshold since the last pass that left nothing behind (any growth, or anything left behind, with 1.0).
   */
  wholeCompactionDue(nowMs = Date.now()): boolean {
    const c = this.compaction();
    if (!compactsWhole(c)) return false;
    if (expiresByAge(c)) {
      // Versions age without any write: due while the oldest one is old enough to go.
      const oldest = this.stmts.oldestTs.get() as number | undefined;
      return oldest !== undefined && oldest < ageCutoff(c, nowMs);
    }
    const end = this.row().max_updated;
    const until = this.compactedUntil();
    if (end <= until) return false;
    return end + 1 >= c.growthThreshold * (until + 1);
  }

  /** The offset up to which every entity has been compacted by whole-log compaction (-1: never). */
  compactedUntil(): number {
    return (this.stmts.compactedUntil.get() as number | null | undefined) ?? -1;
  }

  /**
   * One step of whole-log compaction, in one transaction: the entities whose latest version lies after `cursor` (and
   * at or before `end`, the pass's snapshot), at most `limit` of them and within WHOLE_STEP_OFFSETS offsets. Returns where the next step starts (undefined
   * when the pass is over), the versions removed and those left behind (by the dependency-tracking floor or the age).
   */
  compactWholeStep(cursor: number, end: number, limit: number, nowMs = Date.now()): { next: number | undefined; removed: number; heldOff: number } {
    return this.db.transaction(() => {
      const c = this.compaction();
      const floor = this.compactionFloor();
      const cutoff = ageCutoff(c, nowMs);
      // A step reads a bounded range of offsets, matched or not: a long stretch of entities written once (nothing to
      // remove) would otherwise be read whole in one step, holding up every reader and writer meanwhile.
      const upTo = Math.min(end, cursor + WHOLE_STEP_OFFSETS);
      const rows = this.stmts.wholePage.all(cursor, upTo, limit) as [number, number][];
      let removed = 0;
      let heldOff = 0;
      for (const [seq, prev] of rows) {
        const r = compactChain(this.chain, seq, prev, c.keepVersions, floor, cutoff);
        removed += r.removed;
        heldOff += r.heldOff;
      }
      if (removed > 0) this.stmts.countVersions.run(-removed, removed, nowMs * 1000);
      const next = rows.length === limit ? rows[rows.length - 1]![0] : upTo < end ? upTo : undefined;
      return { next, removed, heldOff };
    })();
  }

  /** Whether compaction removes versions by age alone (keep_versions 0 with a time threshold). */
  expiresByAge(): boolean {
    return expiresByAge(this.compaction());
  }

  /** One step of a whole-log pass with keep_versions 0, in one transaction (see expireStep). */
  expireWholeStep(cursor: number, limit: number, nowMs = Date.now()): { next: number | undefined; removed: number; heldOff: number } {
    return this.db.transaction(() => {
      const row = this.row();
      const r = this.expireStep(cursor, ageCutoff(this.compaction(), nowMs), this.compactionFloor(), limit);
      if (r.removed > 0) {
        this.changes++;
        this.stmts.updateCounts.run(row.max_updated, row.live_count - r.live, row.deleted_count - r.dead);
        this.stmts.countVersions.run(-r.removed, r.removed, nowMs * 1000);
      }
      return { next: r.next, removed: r.removed, heldOff: r.heldOff };
    })();
  }

  /** The versions stored now (after a keep_versions 0 pass, each one left is one its age or the floor holds off). */
  storedVersions(): number {
    return (this.stmts.versions.get() as { versions: number } | undefined)?.versions ?? 0;
  }

  /**
   * keep_versions 0: remove the versions written before `cutoff`, the start of the log, from after offset `cursor`,
   * looking at no more than `limit` of them. A latest version goes with its entity (latest row, index rows); it stays
   * while it lies after `floor`, and a replaced version while the version that replaced it does. The caller updates the
   * counts. `next` is where to go on, undefined once a young version (or the end of the log) was reached.
   */
  private expireStep(cursor: number, cutoff: number, floor: number, limit: number): ExpireResult {
    const s = this.stmts;
    const out: ExpireResult = { next: undefined, removed: 0, heldOff: 0, live: 0, dead: 0 };
    const rows = s.agedPage.all(cursor, limit) as [number, string, number, number, number][];
    for (const [seq, eid, deleted, superseded, ts] of rows) {
      if (ts >= cutoff) {
        out.next = undefined;
        return out;
      }
      out.next = seq;
      if (superseded === 0) {
        if (seq > floor) {
          out.heldOff++;
          continue;
        }
        s.deleteLatestAt.run(eid, seq);
        s.idxDeleteSeq.run(seq);
        if (deleted === 1) out.dead++;
        else out.live++;
      } else if (superseded > floor) {
        out.heldOff++;
        continue;
      }
      s.deleteLog.run(seq);
      out.removed++;
    }
    if (rows.length < limit) out.next = undefined;
    return out;
  }

  /** A whole-log pass that started at `end` is over: when it left nothing behind, the next one starts there. */
  finishWholeCompaction(end: number, complete: boolean, nowMs = Date.now()): void {
    if (complete) this.stmts.setCompactedUntil.run(end);
    this.db.prepare(`UPDATE dataset_versions SET compacted_ts = ? WHERE dataset = ${this.num}`).run(nowMs * 1000);
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

  /** Validate every entity first, then write the batch in one transaction: all or nothing. */
  write(values: readonly unknown[], options: WriteOptions = {}): WriteResult {
    const prepared: PreparedEntity[] = new Array<PreparedEntity>(values.length);
    for (let i = 0; i < values.length; i++) prepared[i] = prepareEntity(values[i], i);
    return this.writePrepared(prepared, options);
  }

  /**
   * Write a batch in one transaction. When the batch trips the circuit breaker, nothing of it reaches the log, but the
   * tripped state and the batch (as uncommitted entities) are committed before the 409 is thrown: they must survive the
   * failed write so that they can be inspected, committed or rolled back. When this runs inside a caller's transaction,
   * the caller must commit before rethrowing the {@link CircuitBreakerTripped} error, or the trip is lost.
   */
  writePrepared(prepared: readonly PreparedEntity[], options: WriteOptions = {}): WriteResult {
    let tripped: CircuitBreakerTripped | undefined;
    const result = this.db.transaction((): WriteResult | undefined => {
      try {
        return this.writeInTransaction(prepared, options);
      } catch (e) {
        if (!(e instanceof CircuitBreakerTripped)) throw e;
        const s = this.stmts;
        for (const p of prepared) s.insertPending.run(p.id, p.deleted ? 1 : 0, p.hash, p.body, options.force === true ? 1 : 0);
        s.trip.run(e.detail ?? null);
        tripped = e;
        return undefined;
      }
    })();
    if (tripped) throw tripped;
    return result!;
  }

  /**
   * Leave entities with the tripped circuit breaker, as uncommitted entities, and record the trip: what writePrepared
   * does for one batch, for a push written in several (whose earlier batches were taken back).
   */
  holdTripped(batches: Iterable<readonly PreparedEntity[]>, force: boolean, info: string): void {
    const s = this.stmts;
    for (const batch of batches) for (const p of batch) s.insertPending.run(p.id, p.deleted ? 1 : 0, p.hash, p.body, force ? 1 : 0);
    s.trip.run(info);
  }

  private writeInTransaction(prepared: readonly PreparedEntity[], options: WriteOptions): WriteResult {
    const row = this.row();
    if (row.cb_tripped === 1) {
      throw conflict(
        `the circuit breaker of dataset ${JSON.stringify(this.name)} is tripped`,
        'commit or roll back its uncommitted entities (POST operation commit-circuit-breaker / rollback-circuit-breaker) before writing',
      );
    }
    const s = this.stmts;
    const force = options.force === true;
    const seen = options.seen;
    const settings = JSON.parse(row.settings) as DatasetSettings;
    const breaker = settings.circuitBreaker;
    if (breaker && options.run) {
      // Decide on the whole batch before writing any of it.
      const changed = new Map<string, string>();
      for (const p of prepared) {
        const latest = changed.get(p.id) ?? (s.latestHash.get(p.id) as string | undefined);
        if (force || latest !== p.hash) changed.set(p.id, p.hash);
      }
      const limit = Math.max(
        breaker.thresholdCount ?? 0,
        breaker.thresholdFactor !== undefined ? Math.ceil(breaker.thresholdFactor * options.run.baseCount) : 0,
      );
      if (options.run.changes + changed.size > limit) {
        // Nothing is written here; writePrepared records the batch as pending and the trip, then throws.
        const info = `tripped at ${new Date().toISOString()}: a run changed ${options.run.changes + changed.size} entities, more than the limit ${limit}`;
        throw new CircuitBreakerTripped(`the circuit breaker of dataset ${JSON.stringify(this.name)} tripped`, info);
      }
      options.run.changes += changed.size;
    }
    let max = row.max_updated;
    let live = row.live_count;
    let dead = row.deleted_count;
    let written = 0;
    const ts = Date.now() * 1000;
    const indexes = this.indexes();
    const compaction = this.compactionSettings(settings);
    const cutoff = ageCutoff(compaction, Math.floor(ts / 1000));
    let floor: number | undefined;
    let removed = 0;
    // The latest hashes of a large batch's ids come in one statement, in the batch's order; a small batch asks per
    // entity. Only an entity whose hash differs is looked up further (its offset and deleted flag). Entities this batch
    // wrote already are compared with what it wrote (an id twice in one batch).
    const hashes = prepared.length >= BATCH_LATEST ? this.latestHashes(prepared) : undefined;
    const wrote = hashes !== undefined ? new Map<string, [number, string, number]>() : undefined;
    // In a large batch, the log and latest rows of new entities go in multi-row inserts (one statement call per row
    // costs about as much as writing the row). They are written before anything could read them: when an id comes
    // again in the batch, and at its end.
    const newLog: (string | number | null)[] = [];
    const newLatest: (string | number)[] = [];
    const flushNew = (): void => {
      let i = 0;
      for (; i + NEW_ROWS_CHUNK * 7 <= newLog.length; i += NEW_ROWS_CHUNK * 7) s.insertLogChunk.run(newLog.slice(i, i + NEW_ROWS_CHUNK * 7));
      for (; i < newLog.length; i += 7) s.insertLog.run(newLog.slice(i, i + 7));
      i = 0;
      for (; i + NEW_ROWS_CHUNK * 4 <= newLatest.length; i += NEW_ROWS_CHUNK * 4) s.insertLatestChunk.run(newLatest.slice(i, i + NEW_ROWS_CHUNK * 4));
      for (; i < newLatest.length; i += 4) s.insertLatest.run(newLatest.slice(i, i + 4));
      newLog.length = 0;
      newLatest.length = 0;
    };
    for (let i = 0; i < prepared.length; i++) {
      const p = prepared[i]!;
      if (seen) seen(p.id);
      let cur: [number, string, number] | undefined;
      if (hashes !== undefined) {
        const mine = wrote!.size > 0 ? wrote!.get(p.id) : undefined;
        const latestHash = mine !== undefined ? mine[1] : hashes[i];
        if (latestHash === p.hash && !force) continue;
        if (mine !== undefined) flushNew();
        cur = mine ?? (latestHash === null ? undefined : (s.latest.get(p.id) as [number, string, number]));
      } else {
        // The hash alone settles the common cases (unchanged, or new) with the cheapest lookup.
        const latestHash = s.latestHash.get(p.id) as string | undefined;
        if (latestHash === p.hash && !force) continue;
        cur = latestHash === undefined ? undefined : (s.latest.get(p.id) as [number, string, number]);
      }
      const seq = ++max;
      const deleted = p.deleted ? 1 : 0;
      if (cur === undefined && hashes !== undefined) {
        newLog.push(seq, p.id, deleted, null, ts, p.hash, p.body);
        newLatest.push(p.id, seq, p.hash, deleted);
        if (newLog.length >= NEW_ROWS_CHUNK * 7) flushNew();
      } else s.insertLog.run(seq, p.id, deleted, cur ? cur[0] : null, ts, p.hash, p.body);
      if (cur) {
        s.supersede.run(seq, cur[0]);
        if (cur[2] === 1) dead--;
        else live--;
        s.updateLatest.run(seq, p.hash, deleted, p.id);
      } else if (hashes === undefined) s.insertLatest.run(p.id, seq, p.hash, deleted);
      if (deleted) dead++;
      else live++;
      wrote?.set(p.id, [seq, p.hash, deleted]);
      if (indexes.length > 0) this.moveIndexRows(indexes, cur ? cur[0] : undefined, seq, deleted ? undefined : p.body, p.id);
      written++;
      if (cur && compaction.sink) {
        floor ??= this.compactionFloor();
        removed += compactChain(this.chain, seq, cur[0], compaction.keepVersions, floor, cutoff).removed;
      }
    }
    flushNew();
    let expired = 0;
    if (compaction.sink && expiresByAge(compaction)) {
      // keep_versions 0: the versions that have aged go as the sink writes, a bounded number per write.
      const r = this.expireStep(-1, cutoff, (floor ??= this.compactionFloor()), SINK_EXPIRE_ROWS);
      expired = r.removed;
      live -= r.live;
      dead -= r.dead;
    }
    if (written > 0 || expired > 0) {
      this.changes++;
      s.updateCounts.run(max, live, dead);
      s.countVersions.run(written - removed - expired, removed + expired, removed + expired > 0 ? ts : null);
    }
    return { received: prepared.length, written, unchanged: prepared.length - written, maxUpdated: max };
  }

  /** The hash of the latest version of each of the batch's entities (null: none yet), in the batch's order. */
  private latestHashes(prepared: readonly PreparedEntity[]): (string | null)[] | undefined {
    const ids = new Array<string>(prepared.length);
    for (let i = 0; i < prepared.length; i++) {
      const id = prepared[i]!.id;
      // An id with UTF-16 surrogates might not reach SQLite's JSON as it was bound: ask per entity.
      if (SURROGATE.test(id)) return undefined;
      ids[i] = id;
    }
    const hashes = this.stmts.latestHashes.all(JSON.stringify(ids)) as (string | null)[];
    return hashes.length === prepared.length ? hashes : undefined;
  }

  /**
   * How compactChain reads and removes this dataset's versions. Only versions that were replaced are removed, and a
   * replaced version holds no index rows (moveIndexRows carries them, "gone" rows included, to the new version).
   */
  private readonly chain = {
    prevOf: (seq: number): [number | null, number] | undefined => this.stmts.prevOf.get(seq) as [number | null, number] | undefined,
    remove: (seq: number): void => {
      this.stmts.deleteLog.run(seq);
    },
  };

  private addIndexRows(indexes: { idx: number; path: string[] }[], seq: number, body: string, id: string): void {
    const entity = JSON.parse(body) as Record<string, unknown>;
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
  private moveIndexRows(indexes: { idx: number; path: string[] }[], prevSeq: number | undefined, seq: number, body: string | undefined, id: string): void {
    const s = this.stmts;
    const current = new Set<string>();
    if (body !== undefined) {
      const entity = JSON.parse(body) as Record<string, unknown>;
      entity['_id'] = id;
      for (const ix of indexes) for (const key of indexKeys(entity, ix.path)) current.add(`${ix.idx}\u0000${key}`);
    }
    if (prevSeq !== undefined) {
      for (const [idx, key] of s.idxAtSeq.all(prevSeq) as [number, string][]) {
        const k = `${idx}\u0000${key}`;
        if (!current.has(k)) s.idxInsert.run(idx, key, seq, 1);
      }
      s.idxDeleteSeq.run(prevSeq);
    }
    for (const k of current) {
      const sep = k.indexOf('\u0000');
      s.idxInsert.run(Number(k.slice(0, sep)), k.slice(sep + 1), seq, 0);
    }
  }

  /** The latest version of one entity, found through the latest-version table (no scan). */
  get(id: string): StoredEntity | undefined {
    const r = this.stmts.latestRow.get(id) as RawRow | undefined;
    return r === undefined ? undefined : rowEntity(r);
  }

  /** The content hash and deleted flag of an entity's latest version (what a write compares with), without reading it. */
  latestHash(id: string): { hash: string; deleted: boolean } | undefined {
    const cur = this.stmts.latest.get(id) as [number, string, number] | undefined;
    return cur ? { hash: cur[1], deleted: cur[2] === 1 } : undefined;
  }

  getJson(id: string): string | undefined {
    return this.stmts.latestJson.get(id) as string | undefined;
  }

  /**
   * Counts the writes that changed something in this process (a write rolled back afterwards counts too): a cache of
   * the latest versions read while it had one value is valid while it keeps it. One hub process owns the database.
   */
  get changeCount(): number {
    return this.changes;
  }

  /**
   * Every live latest version as (offset, id, previous offset, ts, hash, body), in offset order (`storedEntity` makes
   * the entity); false from `visit` stops.
   */
  visitLive(visit: (row: LiveRow) => boolean): void {
    let cursor = -1;
    for (;;) {
      const rows = this.stmts.livePage.all(cursor, LIVE_PAGE) as LiveRow[];
      for (const r of rows) if (!visit(r)) return;
      if (rows.length < LIVE_PAGE) return;
      cursor = rows[rows.length - 1]![0];
    }
  }

  /** The version stored at `offset`, if it belongs to `id`. */
  getAt(id: string, offset: number): StoredEntity | undefined {
    const raw = this.stmts.bySeq.get(offset) as RawRow | undefined;
    if (!raw || raw[1] !== id) return undefined;
    return rowEntity(raw);
  }

  /** Entities in subset `subset` of the latest versions (only via a declared index). */
  getInSubset(id: string, subset: unknown): StoredEntity | undefined {
    const idx = this.subsetIndex(subset);
    const cur = this.stmts.latest.get(id) as [number, string, number] | undefined;
    if (!cur) return undefined;
    const hit = this.stmts.idxHas.get(idx.idx, idx.key, cur[0]);
    return hit ? this.getAt(id, cur[0]) : undefined;
  }

  /** Stream the log as JSON texts, page by page, so memory stays flat however large the dataset is. */
  *readJson(options: ReadOptions = {}): Generator<string[], void, undefined> {
    for (const page of this.rowPages(options)) {
      if (page.pending === undefined) yield page.rows.map(rowJson);
      else {
        yield page.pending.map(([pos, eid, del, hash, body]) => {
          const json = storedEntityJson(eid, page.end + pos, del === 1, null, 0, hash, body);
          return json.slice(0, -1) + ',"_uncommitted":true}';
        });
      }
    }
  }

  /**
   * The same stream as readJson, as entities: only each version's body is parsed, its maintained properties are set
   * as they are stored (`storedEntity`). This is how pipes read a dataset source.
   */
  *readEntities(options: ReadOptions = {}): Generator<JsonObject[], void, undefined> {
    for (const page of this.rowPages(options)) {
      if (page.pending === undefined) yield page.rows.map(rowEntity);
      else {
        yield page.pending.map(([pos, eid, del, hash, body]) => {
          const e = storedEntity(eid, page.end + pos, del === 1, null, 0, hash, body);
          e['_uncommitted'] = true;
          return e;
        });
      }
    }
  }

  /** The pages of readJson and readEntities as log rows (a subset's "gone" row as a deletion), then uncommitted ones. */
  private *rowPages(options: ReadOptions): Generator<{ rows: RawRow[]; pending?: PendingRow[]; end: number }, void, undefined> {
    const history = options.history ?? true;
    const deleted = options.deleted ?? true;
    const reverse = options.reverse ?? false;
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    if (remaining <= 0) return;
    const pageSize = Math.max(1, Math.min(DEFAULT_PAGE, Math.floor(options.pageSize ?? DEFAULT_PAGE)));
    const end = this.row().max_updated;
    if (options.subset !== undefined) {
      const idx = this.subsetIndex(options.subset);
      const stmt = deleted ? this.stmts.subsetPage : this.stmts.subsetPageLive;
      let cursor = options.since ?? -1;
      for (;;) {
        const rows = stmt.all(idx.idx, idx.key, cursor, end, Math.min(pageSize, remaining)) as [...RawRow, number][];
        if (rows.length === 0) break;
        remaining -= rows.length;
        cursor = rows[rows.length - 1]![0];
        // A "gone" row is the version with which the entity left the subset: it reads as a deletion.
        yield { rows: rows.map((r): RawRow => (r[7] === 1 ? [r[0], r[1], 1, r[3], r[4], r[5], r[6]] : (r as unknown as RawRow))), end };
        if (remaining <= 0 || rows.length < pageSize) break;
      }
      return;
    }
    const stmt = this.stmts.page[(reverse ? 4 : 0) + (history ? 0 : 2) + (deleted ? 0 : 1)]!;
    let cursor = reverse ? (options.since ?? end + 1) : (options.since ?? -1);
    const bound = partBounds(options, end);
    for (;;) {
      const rows = stmt.all({ cursor, ...bound, limit: Math.min(pageSize, remaining) }) as RawRow[];
      if (rows.length === 0) break;
      remaining -= rows.length;
      cursor = rows[rows.length - 1]![0];
      yield { rows, end };
      if (remaining <= 0 || rows.length < pageSize) break;
    }
    if (options.uncommitted && !reverse && remaining > 0) {
      const pending = this.stmts.pendingAll.all(Math.min(remaining, 1_000_000)) as PendingRow[];
      if (pending.length > 0) yield { rows: [], pending, end };
    }
  }

  /**
   * The same stream as readJson, as one comma-joined JSON text per page. Plain log reads let SQLite build the
   * entity texts (no per-row JavaScript work); subset and uncommitted reads join readJson's pages.
   */
  *readJsonText(options: ReadOptions = {}): Generator<string, void, undefined> {
    if (options.subset !== undefined || options.uncommitted) {
      for (const page of this.readJson(options)) if (page.length > 0) yield page.join(',');
      return;
    }
    const history = options.history ?? true;
    const deleted = options.deleted ?? true;
    const reverse = options.reverse ?? false;
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    if (remaining <= 0) return;
    const end = this.row().max_updated;
    const stmt = this.stmts.textPage[(reverse ? 4 : 0) + (history ? 0 : 2) + (deleted ? 0 : 1)]!;
    let cursor = reverse ? (options.since ?? end + 1) : (options.since ?? -1);
    const bound = partBounds(options, end);
    for (;;) {
      const want = Math.min(TEXT_PAGE, remaining);
      const [json, last, n] = stmt.get({ cursor, ...bound, limit: want }) as [string | null, number | null, number];
      if (n === 0 || json === null || last === null) break;
      remaining -= n;
      cursor = last;
      yield json;
      if (remaining <= 0 || n < want) break;
    }
  }

  /** Convenience for tests and small reads. */
  read(options: ReadOptions = {}): StoredEntity[] {
    const out: StoredEntity[] = [];
    for (const page of this.readJson(options)) for (const j of page) out.push(JSON.parse(j) as StoredEntity);
    return out;
  }

  setPopulated(populated: boolean): void {
    this.stmts.setPopulated.run(populated ? 1 : 0);
  }

  setCompleteness(micros: number | null): void {
    this.db.prepare('UPDATE datasets SET completeness = ? WHERE num = ?').run(micros, this.num);
  }

  /**
   * Write a deleted version of every live entity that `seenSql` does not hold (end of a full sync). The deletions count
   * as changes of `run`, so a sync that would delete more than the circuit breaker allows trips it (and deletes nothing)
   * instead of emptying the dataset.
   */
  deleteAllExcept(seenSql: string, params: unknown[], run?: WriteRun): number {
    // One synchronous connection: nothing can write between this read and the write below.
    const rows = this.db
      .prepare(`SELECT l.eid, b.body FROM ${this.tables.latest} l JOIN ${this.tables.log} b ON b.seq = l.seq
                WHERE l.deleted = 0 AND l.eid NOT IN (${seenSql})`)
      .raw()
      .all(...params) as [string, string][];
    if (rows.length === 0) return 0;
    const prepared = rows.map(([eid, body], i) => {
      const e = JSON.parse(body) as Record<string, unknown>;
      e['_id'] = eid;
      e['_deleted'] = true;
      return prepareEntity(e, i);
    });
    return this.writePrepared(prepared, run ? { run } : {}).written;
  }

  // --- indexes ---

  private indexes(): { idx: number; path: string[]; expression: string }[] {
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

  private subsetIndex(subset: unknown): { idx: number; key: string } {
    const q = parseSubset(subset);
    const ix = (this.stmts.indexList.all() as { idx: number; expression: string }[]).find((r) => r.expression === q.expression);
    if (!ix) {
      throw notFound(`subset ${q.expression}`, `dataset ${JSON.stringify(this.name)} has no index ${q.expression}; declare it in the sink's "indexes"`);
    }
    return { idx: ix.idx, key: q.key };
  }

  // --- circuit breaker ---

  commitCircuitBreaker(): number {
    return this.db.transaction(() => {
      const pending = this.stmts.pendingAll.all(Number.MAX_SAFE_INTEGER) as [number, string, number, string, string, number][];
      this.db.prepare(`DELETE FROM ${this.tables.pending}`).run();
      this.stmts.untrip.run();
      const forced = pending.filter((p) => p[5] === 1).map(toPrepared);
      const normal = pending.filter((p) => p[5] !== 1).map(toPrepared);
      let n = this.writeInTransaction(normal, {}).written;
      n += this.writeInTransaction(forced, { force: true }).written;
      return n;
    })();
  }

  /** How many latest versions lie after `since` (a pump's backlog), counted up to `cap`. */
  countAfter(since: number, cap: number): number {
    return this.db
      .prepare(`SELECT count(*) FROM (SELECT 1 FROM ${this.tables.log} WHERE seq > ? AND superseded = 0 LIMIT ?)`)
      .pluck()
      .get(since, cap) as number;
  }

  /** Trip the circuit breaker by hand (DTL's trip!): writes are refused until it is committed or rolled back. */
  tripCircuitBreaker(reason: string): void {
    this.stmts.trip.run(`tripped at ${new Date().toISOString()}: ${reason}`);
  }

  rollbackCircuitBreaker(): number {
    return this.db.transaction(() => {
      const n = this.db.prepare(`DELETE FROM ${this.tables.pending}`).run().changes;
      this.stmts.untrip.run();
      return n;
    })();
  }
}

function toPrepared(p: [number, string, number, string, string, number]): PreparedEntity {
  return { id: p[1], deleted: p[2] === 1, hash: p[3], body: p[4] };
}

/** The stored entity's JSON text of a log row. */
function rowEntity(r: LogRow): StoredEntity {
  const [seq, eid, deleted, prev, ts, hash, body] = r;
  return storedEntity(eid, seq, deleted === 1, prev, ts, hash, body) as StoredEntity;
}

function rowJson(r: LogRow): string {
  const [seq, eid, deleted, prev, ts, hash, body] = r;
  return storedEntityJson(eid, seq, deleted === 1, prev, ts, hash, body);
}

function prepareStatements(db: Db, t: Dataset['tables'], num: number) {
  const cols = 'seq, eid, deleted, prev, ts, hash, body';
  const raw = (sql: string): Database.Statement => db.prepare(sql).raw();
  // Parameters: @cursor, @end the last offset of the read, @snap its snapshot (@end, or later for one part of a read in
  // parts), @limit the page size. `superseded` holds the offset of the next version (0 while there is none; 1 in
  // databases written before that, which reads the same), so a latest-versions read keeps a version superseded after
  // its snapshot and returns each entity once.
  const fwd = (extra: string): Database.Statement =>
    raw(`SELECT ${cols} FROM ${t.log} WHERE seq > @cursor AND seq <= @end ${extra} ORDER BY seq LIMIT @limit`);
  const rev = (extra: string): Database.Statement =>
    raw(`SELECT ${cols} FROM ${t.log} WHERE seq < @cursor AND seq <= @end ${extra} ORDER BY seq DESC LIMIT @limit`);
  const latestOnly = '(superseded = 0 OR superseded > @snap)';
  const filters = ['', 'AND deleted = 0', `AND ${latestOnly}`, `AND ${latestOnly} AND deleted = 0`];
  const subsetSql = (extra: string): string =>
    `SELECT b.seq, b.eid, b.deleted, b.prev, b.ts, b.hash, b.body, i.gone FROM ${t.idx} i JOIN ${t.log} b ON b.seq = i.seq
     WHERE i.idx = ? AND i.key = ? AND i.seq > ? AND i.seq <= ? ${extra} ORDER BY i.seq LIMIT ?`;
  return {
    row: db.prepare('SELECT * FROM datasets WHERE num = ?').bind(num),
    latest: raw(`SELECT seq, hash, deleted FROM ${t.latest} WHERE eid = ?`),
    latestHash: db.prepare(`SELECT hash FROM ${t.latest} WHERE eid = ?`).pluck(),
    bySeq: raw(`SELECT ${cols} FROM ${t.log} WHERE seq = ?`),
    latestRow: raw(`SELECT ${cols} FROM ${t.log} WHERE seq = (SELECT seq FROM ${t.latest} WHERE eid = ?)`),
    latestJson: db.prepare(`SELECT ${ROW_JSON_SQL} FROM ${t.log} WHERE seq = (SELECT seq FROM ${t.latest} WHERE eid = ?)`).pluck(),
    livePage: raw(`SELECT seq, eid, prev, ts, hash, body FROM ${t.log} WHERE seq > ? AND superseded = 0 AND deleted = 0 ORDER BY seq LIMIT ?`),
    insertLog: db.prepare(`INSERT INTO ${t.log} (seq, eid, deleted, prev, ts, hash, body) VALUES (?, ?, ?, ?, ?, ?, ?)`),
    supersede: db.prepare(`UPDATE ${t.log} SET superseded = ? WHERE seq = ?`),
    latestHashes: db.prepare(`SELECT l.hash FROM json_each(?) AS j LEFT JOIN ${t.latest} AS l ON l.eid = j.value ORDER BY j.key`).pluck(),
    insertLatest: db.prepare(`INSERT INTO ${t.latest} (eid, seq, hash, deleted) VALUES (?, ?, ?, ?)`),
    insertLogChunk: db.prepare(`INSERT INTO ${t.log} (seq, eid, deleted, prev, ts, hash, body) VALUES ${Array<string>(NEW_ROWS_CHUNK).fill('(?, ?, ?, ?, ?, ?, ?)').join(', ')}`),
    insertLatestChunk: db.prepare(`INSERT INTO ${t.latest} (eid, seq, hash, deleted) VALUES ${Array<string>(NEW_ROWS_CHUNK).fill('(?, ?, ?, ?)').join(', ')}`),
    updateLatest: db.prepare(`UPDATE ${t.latest} SET seq = ?, hash = ?, deleted = ? WHERE eid = ?`),
    updateCounts: db.prepare(`UPDATE datasets SET max_updated = ?, live_count = ?, deleted_count = ? WHERE num = ${num}`),
    setPopulated: db.prepare(`UPDATE datasets SET populated = ? WHERE num = ${num}`),
    page: [fwd(filters[0]!), fwd(filters[1]!), fwd(filters[2]!), fwd(filters[3]!), rev(filters[0]!), rev(filters[1]!), rev(filters[2]!), rev(filters[3]!)],
    textPage: [false, true].flatMap((reverse) =>
      filters.map((f) =>
        raw(
          reverse
            ? `SELECT group_concat(j, ',' ORDER BY seq DESC), min(seq), count(*) FROM
                 (SELECT seq, ${ROW_JSON_SQL} AS j FROM ${t.log} WHERE seq < @cursor AND seq <= @end ${f} ORDER BY seq DESC LIMIT @limit)`
            : `SELECT group_concat(j, ',' ORDER BY seq), max(seq), count(*) FROM
                 (SELECT seq, ${ROW_JSON_SQL} AS j FROM ${t.log} WHERE seq > @cursor AND seq <= @end ${f} ORDER BY seq LIMIT @limit)`,
        ),
      ),
    ),
    subsetPage: raw(subsetSql('')),
    subsetPageLive: raw(subsetSql('AND b.deleted = 0 AND i.gone = 0')),
    idxHas: db.prepare(`SELECT 1 FROM ${t.idx} WHERE idx = ? AND key = ? AND seq = ? AND gone = 0`),
    idxInsert: db.prepare(`INSERT OR IGNORE INTO ${t.idx} (idx, key, seq, gone) VALUES (?, ?, ?, ?)`),
    idxAtSeq: raw(`SELECT idx, key FROM ${t.idx} WHERE seq = ?`),
    idxDeleteSeq: db.prepare(`DELETE FROM ${t.idx} WHERE seq = ?`),
    prevOf: raw(`SELECT prev, ts FROM ${t.log} WHERE seq = ?`),
    wholePage: raw(`SELECT seq, prev FROM ${t.log} WHERE seq > ? AND seq <= ? AND superseded = 0 AND prev IS NOT NULL ORDER BY seq LIMIT ?`),
    compactedUntil: db.prepare(`SELECT compacted_until FROM dataset_versions WHERE dataset = ${num}`).pluck(),
    setCompactedUntil: db.prepare(`UPDATE dataset_versions SET compacted_until = ? WHERE dataset = ${num}`),
    bytes: db.prepare(`SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE aggregate = 1 AND name IN ('${t.log}', '${t.latest}', '${t.idx}', '${t.idx}_seq', '${t.pending}')`).pluck(),
    usedBytes: db.prepare('SELECT (page_count - freelist_count) * page_size FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()').pluck(),
    allVersions: db.prepare('SELECT coalesce(sum(versions), 0) FROM dataset_versions').pluck(),
    deleteLog: db.prepare(`DELETE FROM ${t.log} WHERE seq = ?`),
    agedPage: raw(`SELECT seq, eid, deleted, superseded, ts FROM ${t.log} WHERE seq > ? ORDER BY seq LIMIT ?`),
    oldestTs: db.prepare(`SELECT ts FROM ${t.log} ORDER BY seq LIMIT 1`).pluck(),
    deleteLatestAt: db.prepare(`DELETE FROM ${t.latest} WHERE eid = ? AND seq = ?`),
    versions: db.prepare(`SELECT versions, removed, compacted_ts FROM dataset_versions WHERE dataset = ${num}`),
    countVersions: db.prepare(
      `UPDATE dataset_versions SET versions = versions + ?, removed = removed + ?, compacted_ts = coalesce(?, compacted_ts) WHERE dataset = ${num}`,
    ),
    indexList: db.prepare(`SELECT idx, expression, created_ts FROM dataset_indexes WHERE dataset = ${num} ORDER BY idx`),
    pendingCount: db.prepare(`SELECT count(*) AS n FROM ${t.pending}`),
    pendingAll: raw(`SELECT pos, eid, deleted, hash, body, force FROM ${t.pending} ORDER BY pos LIMIT ?`),
    insertPending: db.prepare(`INSERT INTO ${t.pending} (eid, deleted, hash, body, force) VALUES (?, ?, ?, ?, ?)`),
    trip: db.prepare(`UPDATE datasets SET cb_tripped = 1, cb_info = ? WHERE num = ${num}`),
    untrip: db.prepare(`UPDATE datasets SET cb_tripped = 0, cb_info = NULL WHERE num = ${num}`),
  };
}

export { EntityError };

// The dataset log's row shapes and prepared SQL statements, and how a log row becomes a stored entity.
import type Database from 'better-sqlite3';
import { storedEntity, storedEntityJson, type StoredEntity } from '../base/index.js';
import type { Db } from './database.js';

/** A dataset's tables: its log, latest versions, index rows and uncommitted entities. */
export interface DatasetTables {
  log: string;
  latest: string;
  idx: string;
  pending: string;
}

export type RawRow = [number, string, number, number | null, number, string, string];
/** An uncommitted entity: position, id, deleted, hash, body. */
export type PendingRow = [number, string, number, string, string];
/** A log row: offset, id, deleted (0/1), previous offset, timestamp, hash, body. */
export type LogRow = Readonly<RawRow>;
/** A live latest version as `visitLive` reads it: offset, id, previous offset, ts, hash, body. */
export type LiveRow = readonly [number, string, number | null, number, string, string];

/** Rows per multi-row insert of new entities (see writeInTransaction). */
export const NEW_ROWS_CHUNK = 50;

/** SQL that renders a log row as the stored entity's JSON text (the same text as storedEntityJson). */
const ROW_JSON_SQL = `'{"_id":' || json_quote(eid) || ',"_updated":' || seq || ',"_deleted":' || iif(deleted, 'true', 'false')
  || ',"_previous":' || ifnull(prev, 'null') || ',"_ts":' || ts || ',"_hash":"' || hash || '"'
  || iif(length(body) <= 2, '}', ',' || substr(body, 2))`;

/** The stored entity's JSON text of a log row. */
export function rowEntity(r: LogRow): StoredEntity {
  const [seq, eid, deleted, prev, ts, hash, body] = r;
  return storedEntity(eid, seq, deleted === 1, prev, ts, hash, body) as StoredEntity;
}

export function rowJson(r: LogRow): string {
  const [seq, eid, deleted, prev, ts, hash, body] = r;
  return storedEntityJson(eid, seq, deleted === 1, prev, ts, hash, body);
}

export type DatasetStatements = ReturnType<typeof prepareStatements>;

export function prepareStatements(db: Db, t: DatasetTables, num: number) {
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
    anyBetween: db.prepare(`SELECT 1 FROM ${t.log} WHERE seq > ? AND seq <= ? LIMIT 1`).pluck(),
    bySeq: raw(`SELECT ${cols} FROM ${t.log} WHERE seq = ?`),
    latestRow: raw(`SELECT ${cols} FROM ${t.log} WHERE seq = (SELECT seq FROM ${t.latest} WHERE eid = ?)`),
    latestJson: db.prepare(`SELECT ${ROW_JSON_SQL} FROM ${t.log} WHERE seq = (SELECT seq FROM ${t.latest} WHERE eid = ?)`).pluck(),
    // @end is the dataset's end: the rows of a large write after it are not read yet.
    livePage: raw(
      `SELECT seq, eid, prev, ts, hash, body FROM ${t.log} WHERE seq > @cursor AND seq <= @end AND (superseded = 0 OR superseded > @end) AND deleted = 0
       ORDER BY seq LIMIT @limit`,
    ),
    // The latest version of an entity as of @end, while a large write's versions lie after it: back along `prev`.
    visibleRow: raw(
      `WITH RECURSIVE c(seq) AS (SELECT seq FROM ${t.latest} WHERE eid = @id
         UNION ALL SELECT b.prev FROM c JOIN ${t.log} b ON b.seq = c.seq WHERE c.seq > @end AND b.prev IS NOT NULL)
       SELECT ${cols} FROM ${t.log} WHERE seq = (SELECT max(seq) FROM c WHERE seq <= @end)`,
    ),
    // Taking back a large write: its rows, newest first, and what the version each replaced was.
    stagedRows: raw(`SELECT seq, eid, prev FROM ${t.log} WHERE seq > ? ORDER BY seq DESC LIMIT ?`),
    maxSeq: db.prepare(`SELECT max(seq) FROM ${t.log}`).pluck(),
    deleteLatest: db.prepare(`DELETE FROM ${t.latest} WHERE eid = ?`),
    restoreLatest: db.prepare(`UPDATE ${t.latest} SET (seq, hash, deleted) = (SELECT seq, hash, deleted FROM ${t.log} WHERE seq = @prev) WHERE eid = @id`),
    unsupersede: db.prepare(`UPDATE ${t.log} SET superseded = 0 WHERE seq = ?`),
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

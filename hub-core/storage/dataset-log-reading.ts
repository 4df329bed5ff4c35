// Reading a dataset log: one entity by id or offset, the live versions, and the log page by page (JSON, entities or text).
import type { JsonObject, StoredEntity } from '../base/index.js';
import { storedEntity, storedEntityJson } from '../base/index.js';
import { parseJson } from '../base/index.js';
import { DatasetCompaction } from './dataset-log-compaction.js';
import { rowEntity, rowJson, type LiveRow, type PendingRow, type RawRow } from './dataset-log-statements.js';
import type { ReadOptions } from './dataset-log-types.js';

const DEFAULT_PAGE = 2000;
const LIVE_PAGE = 5000;
const TEXT_PAGE = 2000;

/** The @end and @snap of a forward or reverse read: the dataset's end, or one part's bounds (ReadOptions.until). */
function partBounds(options: ReadOptions, end: number): { end: number; snap: number } {
  if (options.until === undefined) return { end, snap: end };
  const until = Math.min(end, options.until);
  return { end: until, snap: Math.max(until, Math.min(end, options.snapshot ?? until)) };
}

/** How a dataset is read. */
export class DatasetReading extends DatasetCompaction {
  /** The latest version of one entity, found through the latest-version table (no scan). */
  get(id: string): StoredEntity | undefined {
    const r = this.latestVisible(id);
    return r === undefined ? undefined : rowEntity(r);
  }

  /** Whether any version with an offset in (after, until] is still stored (compaction removes old ones). */
  hasVersionBetween(after: number, until: number): boolean {
    return this.stmts.anyBetween.get(after, until) !== undefined;
  }

  /** The content hash and deleted flag of an entity's latest version (what a write compares with), without reading it. */
  latestHash(id: string): { hash: string; deleted: boolean } | undefined {
    const cur = this.stmts.latest.get(id) as [number, string, number] | undefined;
    const end = this.hiddenAfter();
    if (cur !== undefined && end !== undefined && cur[0] > end) {
      const r = this.latestVisible(id);
      return r ? { hash: r[5], deleted: r[2] === 1 } : undefined;
    }
    return cur ? { hash: cur[1], deleted: cur[2] === 1 } : undefined;
  }

  getJson(id: string): string | undefined {
    if (this.hiddenAfter() !== undefined) {
      const r = this.latestVisible(id);
      return r === undefined ? undefined : rowJson(r);
    }
    return this.stmts.latestJson.get(id) as string | undefined;
  }

  /** The log row of an entity's latest version that readers see (a large write under way is not seen yet). */
  private latestVisible(id: string): RawRow | undefined {
    const r = this.stmts.latestRow.get(id) as RawRow | undefined;
    const end = this.hiddenAfter();
    if (r === undefined || end === undefined || r[0] <= end) return r;
    return this.stmts.visibleRow.get({ id, end }) as RawRow | undefined;
  }

  /**
   * Every live latest version as (offset, id, previous offset, ts, hash, body), in offset order (`storedEntity` makes
   * the entity); false from `visit` stops.
   */
  visitLive(visit: (row: LiveRow) => boolean): void {
    let cursor = -1;
    const end = this.row().max_updated;
    for (;;) {
      const rows = this.stmts.livePage.all({ cursor, end, limit: LIVE_PAGE }) as LiveRow[];
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
    const cur = this.latestVisible(id);
    if (!cur) return undefined;
    const hit = this.stmts.idxHas.get(idx.idx, idx.key, cur[0]);
    return hit ? rowEntity(cur) : undefined;
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
    for (const page of this.readJson(options)) for (const j of page) out.push(parseJson(j) as StoredEntity);
    return out;
  }

  /** How many latest versions lie after `since` (a pump's backlog), counted up to `cap`. */
  countAfter(since: number, cap: number): number {
    return this.db
      .prepare(`SELECT count(*) FROM (SELECT 1 FROM ${this.tables.log} WHERE seq > @since AND seq <= @end AND (superseded = 0 OR superseded > @end) LIMIT @cap)`)
      .pluck()
      .get({ since, end: this.row().max_updated, cap }) as number;
  }
}

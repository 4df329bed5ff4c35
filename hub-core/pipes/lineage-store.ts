// Per pipe with a dataset sink, one row per written batch: the sink offsets it wrote up to, the run, how its source
// entities came to be read, and its LineagePacker text (which source entity made which output). A version of an output
// entity is found through its offset: the first batch row whose `until` is at or past it wrote it. One row per batch
// keeps recording cheap (issue 36: under 10 % of a run); lookups parse one batch's text.

import type { Db } from '../storage/index.js';
import { SOURCE_CHANGED, SOURCE_DELETED, SOURCE_NEW, unpackLineage, type LineageEntry } from './lineage-record.js';
import type { JsonObject } from '../base/index.js';

/** Why a source entity was processed in a run. */
export type ProcessReason = 'new' | 'changed' | 'deleted' | 'read' | 'rescan' | 'dependency';

/** A joined entity whose change made the dependency phase process a source entity again. */
export interface JoinedChange {
  dataset: string;
  /** The join key the source entity looked up (as dependency tracking keeps it). */
  key: string;
  /** Ids of changed entities of the joined dataset that hold the key (at most a few). */
  ids: string[];
}

/** How the batch's entities came to be read: by the run's reading of its source, or by dependency tracking. */
export type BatchOrigin = { kind: 'read'; rescan: boolean } | { kind: 'dependency'; joined: ReadonlyMap<string, readonly JoinedChange[]> };

export interface LineageRow {
  pipe: string;
  eid: string;
  src: string;
  offset: number | null;
  reason: ProcessReason;
  detail: JsonObject | null;
  run: string;
}

/** Live batch rows looked at by one prune. */
const PRUNE_SCAN = 5000;

/** Batch rows of a merge pipe looked through for a member (a merge pipe reads its source whole every run). */
const MEMBER_SCAN = 2000;

export class LineageStore {
  private readonly stmts;

  constructor(private readonly db: Db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS pump_lineage (
        pipe TEXT NOT NULL, until INTEGER NOT NULL, run TEXT NOT NULL, origin TEXT, body TEXT NOT NULL,
        PRIMARY KEY (pipe, until)) WITHOUT ROWID;
    `);
    this.stmts = {
      put: db.prepare('INSERT OR REPLACE INTO pump_lineage (pipe, until, run, origin, body) VALUES (?, ?, ?, ?, ?)'),
      at: db.prepare('SELECT run, origin, body FROM pump_lineage WHERE pipe = ? AND until >= ? ORDER BY until LIMIT 1').raw(),
      member: db.prepare('SELECT run, origin, body FROM pump_lineage WHERE pipe = ? AND instr(body, ?) > 0 ORDER BY until DESC LIMIT ?').raw(),
      clear: db.prepare('DELETE FROM pump_lineage WHERE pipe = ?'),
      // Live batches with the end of the batch before each (emptied rows keep their place: a version's batch is found
      // as the first row at or past its offset, so a row is emptied, never deleted, while later rows exist).
      live: db.prepare(
        `SELECT until, prev FROM (SELECT until, body, LAG(until, 1, -1) OVER (ORDER BY until) AS prev FROM pump_lineage WHERE pipe = ?)
         WHERE body != '[]' LIMIT ?`,
      ).raw(),
      liveCount: db.prepare(`SELECT count(*) FROM pump_lineage WHERE pipe = ? AND body != '[]'`).pluck(),
      empty: db.prepare(`UPDATE pump_lineage SET body = '[]', origin = NULL WHERE pipe = ? AND until = ?`),
    };
  }

  /** Count a batch's source entities per reason into `reasons` (labels as the execution log shows them). */
  count(text: string, origin: BatchOrigin, reasons: Record<string, number>): void {
    const seen = new Set<string>();
    for (const e of unpackLineage(text, true)) {
      if (seen.has(e.src)) continue;
      seen.add(e.src);
      const reason = reasonOf(e, origin);
      const label = reason === 'dependency' && origin.kind === 'dependency' ? `dependency:${[...new Set((origin.joined.get(e.src) ?? []).map((j) => j.dataset))].join(',')}` : reason;
      reasons[label] = (reasons[label] ?? 0) + 1;
    }
  }

  /** Record a batch that wrote the sink dataset's versions up to offset `until`. */
  write(pipe: string, run: string, until: number, text: string, origin: BatchOrigin): void {
    const originText = origin.kind === 'dependency' ? JSON.stringify(Object.fromEntries(origin.joined)) : origin.rescan ? 'rescan' : null;
    this.stmts.put.run(pipe, until, run, originText, text);
  }

  /** What the pipe recorded for the version of its output entity `eid` at `offset` in its sink dataset. */
  of(pipe: string, eid: string, offset: number): LineageRow | undefined {
    const row = this.stmts.at.get(pipe, offset) as RawRow | undefined;
    if (!row) return undefined;
    const entries = unpackLineage(row[2]).filter((e) => e.out === eid);
    const entry = entries[entries.length - 1];
    return entry && toRow(pipe, row, entry);
  }

  /** The outputs of a merge pipe whose merged source entity had `id` of `dataset` as a member (latest batches first). */
  madeFromMember(pipe: string, dataset: string, id: string, limit: number): LineageRow[] {
    // The members are a JSON text inside the batch's JSON text: searched for as written there (escaped).
    const member = `${JSON.stringify([dataset, id]).slice(0, -1)},`;
    const escaped = JSON.stringify(member).slice(1, -1);
    const out: LineageRow[] = [];
    const seen = new Set<string>();
    for (const row of this.stmts.member.all(pipe, escaped, MEMBER_SCAN) as RawRow[]) {
      for (const e of unpackLineage(row[2])) {
        if (seen.has(e.out) || !e.contributors.includes(member)) continue;
        seen.add(e.out);
        out.push(toRow(pipe, row, e));
        if (out.length >= limit) return out;
      }
    }
    return out;
  }

  /**
   * Empty the batches none of whose output versions is stored any more (compaction removed them), looking at the
   * oldest `limit` live ones; returns how many were emptied. Without it the records would grow with every run.
   */
  prune(pipe: string, stored: (after: number, until: number) => boolean, limit = PRUNE_SCAN): number {
    const gone = (this.stmts.live.all(pipe, limit) as [number, number][]).filter(([until, prev]) => !stored(prev, until));
    if (gone.length > 0) this.db.transaction(() => gone.forEach(([until]) => this.stmts.empty.run(pipe, until)))();
    return gone.length;
  }

  /** How many batches of the pipe still hold records. */
  liveBatches(pipe: string): number {
    return this.stmts.liveCount.get(pipe) as number;
  }

  clear(pipe: string): void {
    this.stmts.clear.run(pipe);
  }
}

type RawRow = [run: string, origin: string | null, body: string];

function reasonOf(e: LineageEntry, origin: BatchOrigin): ProcessReason {
  if (origin.kind === 'dependency') return 'dependency';
  if (e.offset === null) return 'read';
  if (origin.rescan) return 'rescan';
  return e.state === SOURCE_DELETED ? 'deleted' : e.state === SOURCE_NEW ? 'new' : e.state === SOURCE_CHANGED ? 'changed' : 'read';
}

function toRow(pipe: string, [run, originText, ]: RawRow, e: LineageEntry): LineageRow {
  const joined = originText !== null && originText !== 'rescan' ? ((JSON.parse(originText) as Record<string, JoinedChange[]>)[e.src] ?? []) : undefined;
  const origin: BatchOrigin = joined !== undefined ? { kind: 'dependency', joined: new Map([[e.src, joined]]) } : { kind: 'read', rescan: originText === 'rescan' };
  let detail: JsonObject | null = joined !== undefined ? { joined: joined as unknown as JsonObject[] } : null;
  if (e.contributors !== '') detail = { ...(detail ?? {}), contributors: JSON.parse(e.contributors) as JsonObject[] };
  return { pipe, eid: e.out, src: e.src, offset: e.offset, reason: reasonOf(e, origin), detail, run };
}

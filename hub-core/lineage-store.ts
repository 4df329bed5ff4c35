// Per pipe, for every entity it wrote (its latest version): the source entity that made it and why that one was
// processed in the run that wrote it (lineage-record.ts records it, entity-lineage.ts reads it). One narrow row per
// output entity, replaced when the entity is written again; an index by source entity answers "what did it make".

import type { Db } from './database.js';
import { SOURCE_CHANGED, SOURCE_DELETED, SOURCE_NEW, unpackLineage } from './lineage-record.js';
import type { JsonObject } from './json.js';

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

const CHUNK = 50;

export class LineageStore {
  private readonly stmts;

  constructor(db: Db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS pump_lineage (
        pipe TEXT NOT NULL, eid TEXT NOT NULL, src TEXT NOT NULL, src_offset INTEGER, reason TEXT NOT NULL,
        detail TEXT, run TEXT NOT NULL, PRIMARY KEY (pipe, eid)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS pump_lineage_src ON pump_lineage (pipe, src);
    `);
    const cols = '(pipe, eid, src, src_offset, reason, detail, run)';
    this.stmts = {
      put: db.prepare(`INSERT OR REPLACE INTO pump_lineage ${cols} VALUES (?, ?, ?, ?, ?, ?, ?)`),
      putChunk: db.prepare(`INSERT OR REPLACE INTO pump_lineage ${cols} VALUES ${Array<string>(CHUNK).fill('(?, ?, ?, ?, ?, ?, ?)').join(', ')}`),
      of: db.prepare('SELECT pipe, eid, src, src_offset, reason, detail, run FROM pump_lineage WHERE pipe = ? AND eid = ?').raw(),
      made: db.prepare('SELECT pipe, eid, src, src_offset, reason, detail, run FROM pump_lineage WHERE pipe = ? AND src = ? LIMIT ?').raw(),
      member: db
        .prepare('SELECT pipe, eid, src, src_offset, reason, detail, run FROM pump_lineage WHERE pipe = ? AND instr(detail, ?) > 0 LIMIT ?')
        .raw(),
      clear: db.prepare('DELETE FROM pump_lineage WHERE pipe = ?'),
    };
  }

  /**
   * Record a batch (LineagePacker text); returns how many source entities were processed for each reason. With
   * `reasons` the counts are added to it.
   */
  write(pipe: string, run: string, text: string, origin: BatchOrigin, reasons: Record<string, number>): void {
    const entries = unpackLineage(text);
    const counted = new Set<string>();
    const values: (string | number | null)[] = [];
    const flush = (all: boolean): void => {
      const per = 7;
      let i = 0;
      for (; values.length - i >= CHUNK * per; i += CHUNK * per) this.stmts.putChunk.run(values.slice(i, i + CHUNK * per));
      if (all) for (; i < values.length; i += per) this.stmts.put.run(values.slice(i, i + per));
      values.splice(0, i);
    };
    for (const e of entries) {
      let reason: ProcessReason;
      let detail: JsonObject | null = null;
      if (origin.kind === 'dependency') {
        reason = 'dependency';
        const joined = origin.joined.get(e.src) ?? [];
        detail = { joined: joined.map((j) => ({ dataset: j.dataset, key: j.key, ids: j.ids })) };
      } else if (e.offset === null) reason = 'read';
      else if (origin.rescan) reason = 'rescan';
      else reason = e.state === SOURCE_DELETED ? 'deleted' : e.state === SOURCE_NEW ? 'new' : e.state === SOURCE_CHANGED ? 'changed' : 'read';
      if (e.contributors !== '') detail = { ...(detail ?? {}), contributors: JSON.parse(e.contributors) as JsonObject[] };
      if (!counted.has(e.src)) {
        counted.add(e.src);
        const label = reason === 'dependency' ? `dependency:${[...new Set((origin.kind === 'dependency' ? (origin.joined.get(e.src) ?? []) : []).map((j) => j.dataset))].join(',')}` : reason;
        reasons[label] = (reasons[label] ?? 0) + 1;
      }
      values.push(pipe, e.out, e.src, e.offset, reason, detail === null ? null : JSON.stringify(detail), run);
      if (values.length >= CHUNK * 7 * 4) flush(false);
    }
    flush(true);
  }

  /** What the pipe recorded for its output entity `eid`. */
  of(pipe: string, eid: string): LineageRow | undefined {
    const row = this.stmts.of.get(pipe, eid) as RawRow | undefined;
    return row && toRow(row);
  }

  /** The output entities the pipe last wrote from source entity `src` (at most `limit`). */
  made(pipe: string, src: string, limit: number): LineageRow[] {
    return (this.stmts.made.all(pipe, src, limit) as RawRow[]).map(toRow);
  }

  /** The output entities of a merge pipe whose merged source entity had `id` of `dataset` as a member (a scan). */
  madeFromMember(pipe: string, dataset: string, id: string, limit: number): LineageRow[] {
    const member = JSON.stringify([dataset, id]).slice(0, -1) + ',';
    return (this.stmts.member.all(pipe, member, limit) as RawRow[]).map(toRow);
  }

  clear(pipe: string): void {
    this.stmts.clear.run(pipe);
  }
}

type RawRow = [string, string, string, number | null, string, string | null, string];

function toRow([pipe, eid, src, offset, reason, detail, run]: RawRow): LineageRow {
  return { pipe, eid, src, offset, reason: reason as ProcessReason, detail: detail === null ? null : (JSON.parse(detail) as JsonObject), run };
}

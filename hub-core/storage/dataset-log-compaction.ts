// A dataset log's compaction: whole-log passes in steps, keep_versions 0 expiry by age, and the chain sink writes compact.
import { ageCutoff, compactChain, compactsWhole, expiresByAge } from './dataset-compaction.js';
import { DatasetBase } from './dataset-log-base.js';

/** The most offsets one step of whole-log compaction reads. */
export const WHOLE_STEP_OFFSETS = 50_000;
/** keep_versions 0: versions a sink write looks at for removal by age. */
export const SINK_EXPIRE_ROWS = 2000;

export interface ExpireResult {
  next: number | undefined;
  removed: number;
  heldOff: number;
  /** Latest versions removed: live ones and deletions. */
  live: number;
  dead: number;
}

/** Removing the versions compaction lets go: whole-log steps, and the versions that have aged. */
export class DatasetCompaction extends DatasetBase {
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
    // A large write under way holds compaction off (dataset-log-staging.ts): the pass ends, incomplete.
    if (this.staged !== undefined) return { next: undefined, removed: 0, heldOff: 1 };
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
    if (this.staged !== undefined) return { next: undefined, removed: 0, heldOff: 1 };
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
  protected expireStep(cursor: number, cutoff: number, floor: number, limit: number): ExpireResult {
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
   * How compactChain reads and removes this dataset's versions. Only versions that were replaced are removed, and a
   * replaced version holds no index rows (moveIndexRows carries them, "gone" rows included, to the new version).
   */
  protected readonly chain = {
    prevOf: (seq: number): [number | null, number] | undefined => this.stmts.prevOf.get(seq) as [number | null, number] | undefined,
    remove: (seq: number): void => {
      this.stmts.deleteLog.run(seq);
    },
  };
}

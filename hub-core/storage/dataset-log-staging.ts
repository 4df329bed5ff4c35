// A large write in parts: each part is a transaction of its own (the hub answers between them), and readers see none
// of it until it is published, then all of it at once.
//
// The parts' versions are written to the log and the latest-version table as any write's, at offsets after the
// dataset's end (max_updated). Readers read up to that end, and a version that a part replaced still reads as the
// latest one (its `superseded` lies after the end; a read by id goes back along `prev`). Publishing moves the end and
// the counts in one small transaction. A write that is not published is taken back, in parts too: its versions are
// removed, newest first, each entity's latest version becoming the one it replaced. A hub that stopped in the middle
// of one takes it back when the dataset is next opened. No other write, and no compaction, runs on the dataset
// meanwhile; the versions the write replaced are compacted once it is published.
import { ageCutoff, compactChain } from './dataset-compaction.js';
import { DatasetWriting } from './dataset-log-writing.js';
import type { DatasetBase, StagedState } from './dataset-log-base.js';
import { conflict, type PreparedEntity } from '../base/index.js';
import type { WriteOptions, WriteResult } from './dataset-log-types.js';

export class DatasetStaging extends DatasetWriting {
  constructor(...args: ConstructorParameters<typeof DatasetBase>) {
    super(...args);
    // Versions after the end: a large write the hub stopped in. It was never published: take it back.
    const top = this.stmts.maxSeq.get() as number | null;
    const row = this.row();
    if (top !== null && top > row.max_updated) {
      this.beginStaged();
      while (!this.takeBackStep(10_000));
    }
  }

  /** Begin a large write (409 while another is under way). */
  beginStaged(): void {
    if (this.staged !== undefined) {
      throw conflict(`a large push to dataset ${JSON.stringify(this.name)} is being written`, 'write again when it has been answered');
    }
    const row = this.row();
    this.staged = { end: row.max_updated, max: row.max_updated, live: row.live_count, dead: row.deleted_count, written: 0, replaced: [], unindex: [], published: false };
  }

  /**
   * Write one part of the large write (its own transaction, or part of the caller's). A part that would trip the
   * circuit breaker throws CircuitBreakerTripped with nothing of it written and nothing recorded: the caller takes
   * the write back and leaves its entities with the circuit breaker (holdTripped).
   */
  writeStaged(prepared: readonly PreparedEntity[], options: WriteOptions = {}): WriteResult {
    const staged = this.unpublished();
    return this.db.transaction(() => this.writeInTransaction(prepared, options, staged))();
  }

  /** Make the large write visible at once: the end and the counts move, with `also` in the same transaction. */
  publishStaged(also?: () => void): void {
    const staged = this.unpublished();
    this.db.transaction(() => {
      for (const seq of staged.unindex) this.stmts.idxDeleteSeq.run(seq);
      if (staged.written > 0) {
        this.stmts.updateCounts.run(staged.max, staged.live, staged.dead);
        this.stmts.countVersions.run(staged.written, 0, null);
      }
      also?.();
    })();
    staged.published = true;
    staged.unindex = [];
    this.changes++;
  }

  /**
   * After publishing: compact the version chains of up to `limit` entities the write replaced (as the sink does when
   * it writes them). True when all are done: the large write is over.
   */
  compactStagedStep(limit: number): boolean {
    const staged = this.staged;
    if (staged === undefined || !staged.published) throw new Error('no published large write to compact');
    const pairs = staged.replaced;
    const n = Math.min(pairs.length, limit * 2);
    if (n > 0) {
      const now = Date.now();
      this.db.transaction(() => {
        const c = this.compaction();
        const floor = this.compactionFloor();
        const cutoff = ageCutoff(c, now);
        let removed = 0;
        for (let i = pairs.length - n; i < pairs.length; i += 2) removed += compactChain(this.chain, pairs[i]!, pairs[i + 1]!, c.keepVersions, floor, cutoff).removed;
        if (removed > 0) this.stmts.countVersions.run(-removed, removed, now * 1000);
      })();
      pairs.length -= n;
    }
    if (pairs.length > 0) return false;
    this.staged = undefined;
    return true;
  }

  /**
   * Take back an unpublished large write, up to `limit` of its versions (newest first) in one transaction; true when
   * it is all gone: the large write is over, and the dataset is as it was before it.
   */
  takeBackStep(limit: number): boolean {
    const staged = this.unpublished();
    const s = this.stmts;
    const rows = s.stagedRows.all(staged.end, limit) as [number, string, number | null][];
    if (rows.length > 0) {
      this.db.transaction(() => {
        for (const [seq, eid, prev] of rows) {
          if (prev === null) s.deleteLatest.run(eid);
          else {
            s.restoreLatest.run({ prev, id: eid });
            if (prev <= staged.end) s.unsupersede.run(prev);
          }
          s.idxDeleteSeq.run(seq);
          s.deleteLog.run(seq);
        }
      })();
    }
    if (rows.length === limit) return false;
    this.staged = undefined;
    return true;
  }

  /** Forget a large write without touching the tables (the dataset was deleted under it). */
  abandonStaged(): void {
    this.staged = undefined;
  }

  private unpublished(): StagedState {
    const staged = this.staged;
    if (staged === undefined || staged.published) throw new Error(`dataset ${JSON.stringify(this.name)} has no large write under way`);
    return staged;
  }
}

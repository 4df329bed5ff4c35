// Writing a dataset log: batches in one transaction, the circuit breaker, compaction as a sink writes, full-sync deletes.
import { prepareEntity, conflict, type PreparedEntity } from '../base/index.js';
import { parseJson } from '../base/index.js';
import { ageCutoff, compactChain, expiresByAge } from './dataset-compaction.js';
import { DatasetReading } from './dataset-log-reading.js';
import { SINK_EXPIRE_ROWS } from './dataset-log-compaction.js';
import { NEW_ROWS_CHUNK } from './dataset-log-statements.js';
import type { StagedState } from './dataset-log-base.js';
import { CircuitBreakerTripped, type DatasetSettings, type WriteOptions, type WriteResult, type WriteRun } from './dataset-log-types.js';

/** From this many entities on, a write reads the batch's latest versions in one statement. */
const BATCH_LATEST = 16;
const SURROGATE = /[\uD800-\uDFFF]/;

/** How a dataset is written. */
export class DatasetWriting extends DatasetReading {
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

  /**
   * Write a batch inside a transaction. With `staged`, the batch is one part of a large write (dataset-log-staging.ts):
   * its versions lie after the end readers see, which moves (and the counts change) only when it is published; the
   * versions it replaces are compacted after that.
   */
  protected writeInTransaction(prepared: readonly PreparedEntity[], options: WriteOptions, staged?: StagedState): WriteResult {
    const row = this.row();
    if (this.staged !== undefined && staged === undefined) {
      throw conflict(
        `a large push to dataset ${JSON.stringify(this.name)} is being written`,
        'it is written in parts and becomes visible at once when it is done; write again when it has been answered',
      );
    }
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
    let max = staged?.max ?? row.max_updated;
    let live = staged?.live ?? row.live_count;
    let dead = staged?.dead ?? row.deleted_count;
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
      if (indexes.length > 0) this.moveIndexRows(indexes, cur ? cur[0] : undefined, seq, deleted ? undefined : p.body, p.id, staged);
      written++;
      if (cur && compaction.sink && staged !== undefined) staged.replaced.push(seq, cur[0]);
      else if (cur && compaction.sink) {
        floor ??= this.compactionFloor();
        removed += compactChain(this.chain, seq, cur[0], compaction.keepVersions, floor, cutoff).removed;
      }
    }
    flushNew();
    if (staged !== undefined) {
      Object.assign(staged, { max, live, dead, written: staged.written + written });
      return { received: prepared.length, written, unchanged: prepared.length - written, maxUpdated: max };
    }
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
   * Write a deleted version of every live entity that `seenSql` does not hold (end of a full sync). The deletions count
   * as changes of `run`, so a sync that would delete more than the circuit breaker allows trips it (and deletes nothing)
   * instead of emptying the dataset.
   */
  deleteAllExcept(seenSql: string, params: unknown[], run?: WriteRun): number {
    // One synchronous connection: nothing can write between this read and the write below.
    const prepared = this.unseen(seenSql, params);
    if (prepared.length === 0) return 0;
    return this.writePrepared(prepared, run ? { run } : {}).written;
  }

  /** A deleted version of every live entity that `seenSql` does not hold (see deleteAllExcept). */
  unseen(seenSql: string, params: unknown[]): PreparedEntity[] {
    const rows = this.db
      .prepare(`SELECT l.eid, b.body FROM ${this.tables.latest} l JOIN ${this.tables.log} b ON b.seq = l.seq
                WHERE l.deleted = 0 AND l.eid NOT IN (${seenSql})`)
      .raw()
      .all(...params) as [string, string][];
    return rows.map(([eid, body], i) => {
      const e = parseJson(body) as Record<string, unknown>;
      e['_id'] = eid;
      e['_deleted'] = true;
      return prepareEntity(e, i);
    });
  }

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

// The outbox: what a pipe whose sink is an outside system (sql, rest, elasticsearch, mail, a json sink whose URL
// cannot be reached, ...) would have sent, recorded where the real write would happen, batch by batch, per pump run.
// It is part of the pipe's pump state: bounded to the last `keep_runs` runs that sent something, and cleared when
// the pump is reset (run-all's reset, a node reset, update-last-seen back to the start) or the pipe goes.

import type { Db } from '../storage/index.js';
import type { JsonObject, JsonValue } from '../base/index.js';
import { badRequest, notFound } from '../base/index.js';
import { parseJson } from '../base/index.js';
import { maskJson, type Mask } from '../security/index.js';

/** One entity as the sink would have sent it. */
export interface OutboxRecord extends JsonObject {
  /** What the target identifies it by (an `_id`, a primary key's columns, a message key). */
  key: JsonValue;
  /** What the target would have been asked to do with it (upsert, delete, index, a REST operation, send, push ...). */
  operation: string;
  /** The body that would have been sent for it. */
  body: JsonValue;
}

/** One request (or bulk operation) the sink would have made. */
export interface OutboxBatchInput {
  /** Where it would have gone: the system, table, index, topic, URL ... */
  target: JsonObject;
  records: readonly OutboxRecord[];
}

/** Records the batches of one pump run of one pipe. */
export interface OutboxWriter {
  record(sinkType: string, batch: OutboxBatchInput): void;
}

/**
 * A writer that masks secret values in what it records (a target URL built from a `$SECRET` in its path, a header
 * or a body the sink took from system configuration) before anything is stored: the outbox is shown by the API and
 * kept in hub.db, and neither may hold a secret.
 */
export function maskedOutboxWriter(writer: OutboxWriter, mask: Mask): OutboxWriter {
  return {
    record: (sinkType, batch) =>
      writer.record(sinkType, { target: maskJson(batch.target, mask), records: batch.records.map((r) => maskJson(r, mask)) }),
  };
}

export interface OutboxRun extends JsonObject {
  run_id: string;
  sink_type: string;
  started: string;
  last_batch: string;
  batches: number;
  entities: number;
  /** Entities per operation. */
  operations: Record<string, number>;
}

export interface OutboxBatch extends JsonObject {
  run_id: string;
  batch: number;
  time: string;
  target: JsonObject;
  entities: number;
  operations: Record<string, number>;
}

export const DEFAULT_KEEP_RUNS = 10;
export const MAX_KEEP_RUNS = 1000;

/** Where an entity differs between two runs' outboxes (`from` and `to`: the last record of its key in each). */
export interface OutboxDiff extends JsonObject {
  from: string;
  to: string;
  added: OutboxRecord[];
  removed: OutboxRecord[];
  changed: { key: JsonValue; from: OutboxRecord; to: OutboxRecord }[];
  unchanged: number;
}

const DIFF_LIMIT = 100_000;

export class OutboxStore {
  private readonly stmts;

  constructor(private readonly db: Db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS outbox_runs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, pipe TEXT NOT NULL, run_id TEXT NOT NULL, sink_type TEXT NOT NULL,
        started TEXT NOT NULL, last_batch TEXT NOT NULL, batches INTEGER NOT NULL, entities INTEGER NOT NULL,
        operations TEXT NOT NULL, UNIQUE (pipe, run_id));
      CREATE TABLE IF NOT EXISTS outbox_batches (
        run_seq INTEGER NOT NULL, batch INTEGER NOT NULL, time TEXT NOT NULL, target TEXT NOT NULL,
        entities INTEGER NOT NULL, operations TEXT NOT NULL, records TEXT NOT NULL, PRIMARY KEY (run_seq, batch)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS outbox_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    `);
    this.stmts = {
      run: db.prepare('SELECT * FROM outbox_runs WHERE pipe = ? AND run_id = ?'),
      newRun: db.prepare(
        "INSERT INTO outbox_runs (pipe, run_id, sink_type, started, last_batch, batches, entities, operations) VALUES (?, ?, ?, ?, ?, 0, 0, '{}')",
      ),
      updateRun: db.prepare('UPDATE outbox_runs SET last_batch = ?, batches = ?, entities = ?, operations = ? WHERE seq = ?'),
      putBatch: db.prepare('INSERT INTO outbox_batches (run_seq, batch, time, target, entities, operations, records) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      runs: db.prepare('SELECT * FROM outbox_runs WHERE pipe = ? ORDER BY seq DESC LIMIT ? OFFSET ?'),
      countRuns: db.prepare('SELECT count(*) FROM outbox_runs WHERE pipe = ?').pluck(),
      batches: db.prepare('SELECT run_seq, batch, time, target, entities, operations FROM outbox_batches WHERE run_seq = ? ORDER BY batch LIMIT ? OFFSET ?'),
      batch: db.prepare('SELECT * FROM outbox_batches WHERE run_seq = ? AND batch = ?'),
      records: db.prepare('SELECT records FROM outbox_batches WHERE run_seq = ? ORDER BY batch').pluck(),
      oldRuns: db.prepare('SELECT seq FROM outbox_runs WHERE pipe = ? ORDER BY seq DESC LIMIT -1 OFFSET ?').pluck(),
      delRun: db.prepare('DELETE FROM outbox_runs WHERE seq = ?'),
      delBatches: db.prepare('DELETE FROM outbox_batches WHERE run_seq = ?'),
      pipeRuns: db.prepare('SELECT seq FROM outbox_runs WHERE pipe = ?').pluck(),
      getSetting: db.prepare('SELECT value FROM outbox_settings WHERE key = ?').pluck(),
      putSetting: db.prepare('INSERT INTO outbox_settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    };
  }

  /** How many runs each pipe's outbox keeps (the last ones that sent something). */
  keepRuns(): number {
    const v = this.stmts.getSetting.get('keep_runs') as string | undefined;
    const n = v === undefined ? NaN : Number(v);
    return Number.isInteger(n) && n >= 1 ? n : DEFAULT_KEEP_RUNS;
  }

  setKeepRuns(n: unknown): number {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_KEEP_RUNS) {
      throw badRequest('invalid keep_runs', `an outbox keeps between 1 and ${MAX_KEEP_RUNS} runs per pipe`);
    }
    this.db.transaction(() => {
      this.stmts.putSetting.run('keep_runs', String(n));
      const pipes = this.db.prepare('SELECT DISTINCT pipe FROM outbox_runs').pluck().all() as string[];
      for (const pipe of pipes) this.trim(pipe, n);
    })();
    return n;
  }

  /** A writer for one pump run; the run appears in the outbox with its first batch. */
  writer(pipe: string, runId: string): OutboxWriter {
    return {
      record: (sinkType, input) => {
        if (input.records.length === 0) return;
        const now = new Date().toISOString();
        this.db.transaction(() => {
          let row = this.stmts.run.get(pipe, runId) as RunRow | undefined;
          if (!row) {
            this.stmts.newRun.run(pipe, runId, sinkType, now, now);
            this.trim(pipe, this.keepRuns());
            row = this.stmts.run.get(pipe, runId) as RunRow;
          }
          const ops: Record<string, number> = {};
          for (const r of input.records) ops[r.operation] = (ops[r.operation] ?? 0) + 1;
          const runOps = JSON.parse(row.operations) as Record<string, number>;
          for (const [k, v] of Object.entries(ops)) runOps[k] = (runOps[k] ?? 0) + v;
          const batch = row.batches + 1;
          this.stmts.putBatch.run(row.seq, batch, now, JSON.stringify(input.target), input.records.length, JSON.stringify(ops), JSON.stringify(input.records));
          this.stmts.updateRun.run(now, batch, row.entities + input.records.length, JSON.stringify(runOps), row.seq);
        })();
      },
    };
  }

  /** The pipe's outbox runs, newest first. */
  runs(pipe: string, limit: number, offset: number): { total: number; runs: OutboxRun[] } {
    const rows = this.stmts.runs.all(pipe, limit, offset) as RunRow[];
    return { total: this.stmts.countRuns.get(pipe) as number, runs: rows.map(runOf) };
  }

  run(pipe: string, runId: string): OutboxRun {
    return runOf(this.requireRun(pipe, runId));
  }

  /** A run's batches in order, without their entities. */
  batches(pipe: string, runId: string, limit: number, offset: number): { total: number; batches: OutboxBatch[] } {
    const row = this.requireRun(pipe, runId);
    const rows = this.stmts.batches.all(row.seq, limit, offset) as BatchRow[];
    return { total: row.batches, batches: rows.map((b) => batchOf(runId, b)) };
  }

  /** One batch with a page of its entities. */
  batch(pipe: string, runId: string, n: number, limit: number, offset: number): OutboxBatch & { records: OutboxRecord[] } {
    const row = this.requireRun(pipe, runId);
    const b = this.stmts.batch.get(row.seq, n) as (BatchRow & { records: string }) | undefined;
    if (!b) throw notFound(`batch ${n} of outbox run ${JSON.stringify(runId)}`, `the run has ${row.batches} batch(es)`);
    const records = parseJson(b.records) as OutboxRecord[];
    return { ...batchOf(runId, b), records: records.slice(offset, offset + limit) };
  }

  /** How the entities the run `to` sent differ from those of the run `from`, matched by key. */
  diff(pipe: string, from: string, to: string): OutboxDiff {
    const a = this.lastByKey(this.requireRun(pipe, from));
    const b = this.lastByKey(this.requireRun(pipe, to));
    const out: OutboxDiff = { from, to, added: [], removed: [], changed: [], unchanged: 0 };
    for (const [k, rb] of b) {
      const ra = a.get(k);
      if (ra === undefined) out.added.push(rb);
      else if (JSON.stringify(ra) === JSON.stringify(rb)) out.unchanged++;
      else out.changed.push({ key: rb.key, from: ra, to: rb });
    }
    for (const [k, ra] of a) if (!b.has(k)) out.removed.push(ra);
    return out;
  }

  clear(pipe: string): void {
    this.db.transaction(() => {
      for (const seq of this.stmts.pipeRuns.all(pipe) as number[]) this.dropRun(seq);
    })();
  }

  private lastByKey(row: RunRow): Map<string, OutboxRecord> {
    if (row.entities > DIFF_LIMIT) throw badRequest(`outbox run ${row.run_id} is too large to compare`, `it sent ${row.entities} entities; the diff compares up to ${DIFF_LIMIT}`);
    const byKey = new Map<string, OutboxRecord>();
    for (const text of this.stmts.records.all(row.seq) as string[]) {
      for (const r of parseJson(text) as OutboxRecord[]) byKey.set(JSON.stringify(r.key), r);
    }
    return byKey;
  }

  private requireRun(pipe: string, runId: string): RunRow {
    const row = this.stmts.run.get(pipe, runId) as RunRow | undefined;
    if (!row) throw notFound(`outbox run ${JSON.stringify(runId)} of pipe ${JSON.stringify(pipe)}`, 'runs that sent nothing are not kept; older runs are dropped');
    return row;
  }

  private trim(pipe: string, keep: number): void {
    for (const seq of this.stmts.oldRuns.all(pipe, keep) as number[]) this.dropRun(seq);
  }

  private dropRun(seq: number): void {
    this.stmts.delBatches.run(seq);
    this.stmts.delRun.run(seq);
  }
}

interface RunRow {
  seq: number;
  pipe: string;
  run_id: string;
  sink_type: string;
  started: string;
  last_batch: string;
  batches: number;
  entities: number;
  operations: string;
}

interface BatchRow {
  run_seq: number;
  batch: number;
  time: string;
  target: string;
  entities: number;
  operations: string;
}

function runOf(r: RunRow): OutboxRun {
  return {
    run_id: r.run_id,
    sink_type: r.sink_type,
    started: r.started,
    last_batch: r.last_batch,
    batches: r.batches,
    entities: r.entities,
    operations: JSON.parse(r.operations) as Record<string, number>,
  };
}

function batchOf(runId: string, b: BatchRow): OutboxBatch {
  return {
    run_id: runId,
    batch: b.batch,
    time: b.time,
    target: parseJson(b.target) as JsonObject,
    entities: b.entities,
    operations: JSON.parse(b.operations) as Record<string, number>,
  };
}

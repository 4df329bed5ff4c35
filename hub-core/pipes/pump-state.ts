import { randomBytes } from 'node:crypto';
import type { Db } from '../storage/index.js';
import type { JsonObject } from '../base/index.js';
import { parseJson } from '../base/index.js';
import type { PackedDependencies } from './packed-dependencies.js';
import { LineageStore } from './lineage-store.js';
import { DependencyStore } from './dependency-store.js';
import { OutboxStore } from './outbox.js';

/** The outcome of a finished run, as pump information reports it. */
export interface LastRun extends JsonObject {
  run_id: string;
  run_type: string;
  trigger: string;
  status: 'completed' | 'failed' | 'stopped';
  start_time: string;
  end_time: string;
  processed: number;
  changes: number;
  /** Errors of the run (refused entities, write errors, dead entities). State saved by older versions lacks it. */
  errors: number;
  /** Seconds the run took. State saved by older versions lacks it. */
  duration: number;
  reason_why_stopped: string | null;
  // `offline: true` when the sink is an outside system and what it would have sent went to the pipe's outbox, or the
  // source could not be read offline; `offline_reason` says which, in words. `unset_variable: true` when the run could
  // not start because its configuration names a `$ENV`/`$SECRET` that is not set.
}

/** What the hub remembers about one pipe's pump across restarts. */
export interface PumpState {
  /** Where the next incremental run continues reading its source (opaque; a dataset offset as a string). */
  lastSeen: string | null;
  /** Scheduling switched off with the `disable` operation. */
  disabled: boolean;
  /** A run was in progress; true after a restart means the hub stopped while it ran. */
  running: boolean;
  /** Where an interrupted rescan resumes; null starts the next rescan from the beginning. */
  rescanSince: string | null;
  rescanRunning: boolean;
  /** Entities waiting to be retried after sink write errors (kept in pump_retries; see the pump's retry settings). */
  pendingRetries: number;
  webhookToken: string | null;
  /** When `reset-tracking` was last asked for (dependency tracking continues from the end of its datasets). */
  trackingResetAt: string | null;
  runs: number;
  lastRun: LastRun | null;
}

export function initialPumpState(): PumpState {
  return {
    lastSeen: null,
    disabled: false,
    running: false,
    rescanSince: null,
    rescanRunning: false,
    pendingRetries: 0,
    webhookToken: null,
    trackingResetAt: null,
    runs: 0,
    lastRun: null,
  };
}

/**
 * Pump state per pipe in its own table (one JSON row per pipe), plus the ids a full run has written, which the
 * run's deletion tracking needs at its end, and what dependency tracking knows (dependency-store.ts: the (dataset, join
 * path, key) each source entity looked up; pump_tracking: per joined dataset, the offset its changes are seen up to).
 * Every update is a synchronous read-modify-write, so two runs of one
 * pipe (an incremental run and a rescan) never lose each other's changes.
 */
export class PumpStateStore {
  private readonly stmts;
  private readonly deps: DependencyStore;
  /** What outbound sinks would have sent, per pipe and run: part of the pump's state, cleared with it. */
  readonly outbox: OutboxStore;
  /** Which source entity made each entity a pipe wrote, and why it was processed (lineage-store.ts). */
  readonly lineage: LineageStore;

  constructor(private readonly db: Db) {
    this.outbox = new OutboxStore(db);
    this.lineage = new LineageStore(db);
    db.exec(`
      CREATE TABLE IF NOT EXISTS pump_state (pipe TEXT PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS pump_seen (pipe TEXT NOT NULL, eid TEXT NOT NULL, PRIMARY KEY (pipe, eid)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS pump_retries (
        pipe TEXT NOT NULL, eid TEXT NOT NULL, body TEXT NOT NULL, attempts INTEGER NOT NULL, error TEXT NOT NULL,
        PRIMARY KEY (pipe, eid)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS pump_tracking (
        pipe TEXT NOT NULL, dataset TEXT NOT NULL, seen_until INTEGER NOT NULL, PRIMARY KEY (pipe, dataset)) WITHOUT ROWID;
    `);
    this.deps = new DependencyStore(db);
    this.stmts = {
      get: db.prepare('SELECT body FROM pump_state WHERE pipe = ?').pluck(),
      put: db.prepare('INSERT INTO pump_state (pipe, body) VALUES (?, ?) ON CONFLICT(pipe) DO UPDATE SET body = excluded.body'),
      del: db.prepare('DELETE FROM pump_state WHERE pipe = ?'),
      all: db.prepare('SELECT pipe FROM pump_state').pluck(),
      seen: db.prepare('INSERT OR IGNORE INTO pump_seen (pipe, eid) VALUES (?, ?)'),
      clearSeen: db.prepare('DELETE FROM pump_seen WHERE pipe = ?'),
      putRetry: db.prepare(
        `INSERT INTO pump_retries (pipe, eid, body, attempts, error) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(pipe, eid) DO UPDATE SET body = excluded.body, attempts = excluded.attempts, error = excluded.error`,
      ),
      delRetry: db.prepare('DELETE FROM pump_retries WHERE pipe = ? AND eid = ?'),
      retries: db.prepare('SELECT eid, body, attempts FROM pump_retries WHERE pipe = ? ORDER BY eid'),
      countRetries: db.prepare('SELECT count(*) FROM pump_retries WHERE pipe = ?').pluck(),
      clearRetries: db.prepare('DELETE FROM pump_retries WHERE pipe = ?'),
      startTracking: db.prepare('INSERT OR IGNORE INTO pump_tracking (pipe, dataset, seen_until) VALUES (?, ?, ?)'),
      setTracking: db.prepare(
        'INSERT INTO pump_tracking (pipe, dataset, seen_until) VALUES (?, ?, ?) ON CONFLICT(pipe, dataset) DO UPDATE SET seen_until = excluded.seen_until',
      ),
      tracking: db.prepare('SELECT dataset, seen_until FROM pump_tracking WHERE pipe = ? ORDER BY dataset'),
      clearTracking: db.prepare('DELETE FROM pump_tracking WHERE pipe = ?'),
      trackingFloor: db.prepare('SELECT pipe, seen_until FROM pump_tracking WHERE dataset = ?').raw(),
    };
  }

  get(pipe: string): PumpState {
    const body = this.stmts.get.get(pipe) as string | undefined;
    return body === undefined ? initialPumpState() : { ...initialPumpState(), ...(JSON.parse(body) as Partial<PumpState>) };
  }

  update(pipe: string, change: (state: PumpState) => void): PumpState {
    const state = this.get(pipe);
    change(state);
    this.stmts.put.run(pipe, JSON.stringify(state));
    return state;
  }

  /** The pipe's webhook token, made on first use. */
  webhookToken(pipe: string): string {
    const current = this.get(pipe).webhookToken;
    if (current) return current;
    return this.update(pipe, (s) => (s.webhookToken = randomBytes(24).toString('base64url'))).webhookToken!;
  }

  pipes(): string[] {
    return this.stmts.all.all() as string[];
  }

  delete(pipe: string): void {
    this.stmts.del.run(pipe);
    this.stmts.clearSeen.run(pipe);
    this.stmts.clearRetries.run(pipe);
    this.deps.clear(pipe);
    this.stmts.clearTracking.run(pipe);
    this.outbox.clear(pipe);
    this.lineage.clear(pipe);
  }

  /** A run of the pipe begins or ends: see DependencyStore.beginRun. */
  beginDependencyRun(pipe: string): void {
    this.deps.beginRun(pipe);
  }

  endDependencyRun(pipe: string): void {
    this.deps.endRun(pipe);
  }

  /** Replace what each source entity of a batch depends on (dependency tracking); see DependencyStore.replace. */
  replaceDependenciesOf(pipe: string, batch: PackedDependencies): void {
    this.deps.replace(pipe, batch);
  }

  /** The join paths (JSON lists) on which the pipe's entities depend on `dataset`. */
  dependencyPaths(pipe: string, dataset: string): string[] {
    return this.deps.paths(pipe, dataset);
  }

  /** The source entities that looked up `key` on `path` of `dataset`. */
  dependents(pipe: string, dataset: string, path: string, key: string): string[] {
    return this.deps.dependents(pipe, dataset, path, key);
  }

  /** Track a joined dataset's changes after `offset`, unless it is tracked already. */
  startTracking(pipe: string, dataset: string, offset: number): void {
    this.stmts.startTracking.run(pipe, dataset, offset);
  }

  /** The joined datasets of the pipe and the offset up to which their changes have been seen. */
  trackingOffsets(pipe: string): { dataset: string; offset: number }[] {
    const rows = this.stmts.tracking.all(pipe) as { dataset: string; seen_until: number }[];
    return rows.map((r) => ({ dataset: r.dataset, offset: r.seen_until }));
  }

  /**
   * The lowest offset up to which any pipe (disabled ones included: their rows stay) has seen the changes of a
   * dataset it tracks; compaction must not go past it. Infinity when no pipe tracks the dataset. `tracks` tells
   * whether a pipe's configuration still tracks the dataset (a pipe whose hops no longer name it holds nothing off).
   */
  trackingFloor(dataset: string, tracks: (pipe: string) => boolean): number {
    let floor = Number.POSITIVE_INFINITY;
    for (const [pipe, seen] of this.stmts.trackingFloor.all(dataset) as [string, number][]) if (seen < floor && tracks(pipe)) floor = seen;
    return floor;
  }

  setTrackingOffset(pipe: string, dataset: string, offset: number): void {
    this.stmts.setTracking.run(pipe, dataset, offset);
  }

  /** Keep entities whose sink write failed for a later run; `attempts` counts the retries already made. */
  putRetries(pipe: string, entities: readonly { entity: JsonObject; attempts: number }[], error: string): void {
    for (const { entity, attempts } of entities) {
      const eid = entity['_id'];
      if (typeof eid === 'string') this.stmts.putRetry.run(pipe, eid, JSON.stringify(entity), attempts, error);
    }
    this.syncPending(pipe);
  }

  removeRetries(pipe: string, ids: Iterable<string>): void {
    for (const id of ids) this.stmts.delRetry.run(pipe, id);
    this.syncPending(pipe);
  }

  /** The entities waiting to be retried, with the retries made so far. */
  retries(pipe: string): { entity: JsonObject; attempts: number }[] {
    const rows = this.stmts.retries.all(pipe) as { eid: string; body: string; attempts: number }[];
    return rows.map((r) => ({ entity: parseJson(r.body) as JsonObject, attempts: r.attempts }));
  }

  /** Forget every pending retry (`discard-retries`). */
  clearRetries(pipe: string): void {
    this.stmts.clearRetries.run(pipe);
    this.syncPending(pipe);
  }

  private syncPending(pipe: string): void {
    const n = this.stmts.countRetries.get(pipe) as number;
    if (this.get(pipe).pendingRetries !== n) this.update(pipe, (s) => (s.pendingRetries = n));
  }

  markSeen(pipe: string, ids: Iterable<string>): void {
    for (const id of ids) this.stmts.seen.run(pipe, id);
  }

  clearSeen(pipe: string): void {
    this.stmts.clearSeen.run(pipe);
  }

  /** SQL (and its parameters) selecting the ids a full run of `pipe` has seen, for Dataset.deleteAllExcept. */
  seenSql(pipe: string): { sql: string; params: string[] } {
    return { sql: 'SELECT eid FROM pump_seen WHERE pipe = ?', params: [pipe] };
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
}

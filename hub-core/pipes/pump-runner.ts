// Runs pipes: read a batch from the source, transform it, write it to the sink in one transaction together with the
// pump's new position, yield to the event loop, repeat. A run writes "pump-started" and then "pump-completed" or
// "pump-failed" to the pipe's execution log dataset (automatic runs that change nothing are left out); a run that
// throws is recorded and never escapes.

import { randomUUID } from 'node:crypto';
import type { ConfigEntity } from '../config/index.js';
import type { DatasetStore } from '../storage/index.js';
import { DEFAULT_COMPACTION } from '../storage/index.js';
import type { Dataset } from '../storage/index.js';
import { CircuitBreakerTripped } from '../storage/index.js';
import { effectivePipeConfig, type EffectivePipe } from './pipe-config.js';
import type { PumpStateStore, PumpState, LastRun } from './pump-state.js';
import { DtlLimitError, DtlRuntimeError, heapExhausted, memoryLimitError } from '../dtl/index.js';
import type { JsonObject } from '../base/index.js';
import { HubError } from '../base/index.js';
import { isOfflineError } from '../base/index.js';
import { SOURCES } from './sources/index.js';
import { parseOffset } from './sources/basic-sources.js';
import { SINK_TYPE_LIST, SinkWriteError, idsOf, isPumpedSink, sinkType, type LocalSink, type RemoteSink, type Sink } from './sinks/index.js';
import { changedKeys } from './dependency-tracking.js';
import { RunProfiler } from './pump-profiler.js';
import { maskJson } from '../security/index.js';
import { maskedOutboxWriter } from './outbox.js';
import type { PipeRuntime, PipeRuntimes } from './pipe-runtime.js';
import type { PreparedEntity } from '../base/index.js';
import { transformBatchTurning } from './workers/transform-batch.js';
import type { PackedDependencies } from './packed-dependencies.js';
import { workerMayRun, workerRequest } from './workers/eligibility.js';
import type { PipeWorkerPool, WorkerRun } from './workers/pool.js';
import { MIN_RANGES, partRanges } from './workers/split-run.js';
import { LineagePacker } from './lineage-record.js';
import type { BatchOrigin, JoinedChange } from './lineage-store.js';

export type RunKind = 'incremental' | 'rescan';
export type RunTrigger = 'manual' | 'schedule' | 'startup' | 'webhook';

export const PUMP_SOURCES: ReadonlySet<string> = new Set(SOURCES.keys());
export { parseOffset };
export const PUMP_SINKS: ReadonlySet<string> = new Set(SINK_TYPE_LIST.filter((t) => isPumpedSink(t.type)).map((t) => t.type));
const DEFAULT_BATCH = 1000;
/** Batches of a pipe worker written in one transaction at most, when they are ready before the writer is. */
const MERGE_BATCHES = 8;
/** Joined changes recorded as the reason one source entity was processed again. */
const JOINED_PER_ENTITY = 8;

/** A transformed batch for the dataset sink (prepared by a pipe worker, or entities) and the position it moves to. */
interface OutBatch {
  out: JsonObject[];
  prepared: readonly PreparedEntity[] | undefined;
  deps: PackedDependencies;
  position: ((s: PumpState) => void) | undefined;
  lineage: BatchLineage | undefined;
}

/** A batch's lineage records (LineagePacker text) and how its source entities came to be read. */
interface BatchLineage {
  text: string;
  origin: BatchOrigin;
}

export function executionLogName(pipeId: string): string {
  return `system:pump_execution:${pipeId}`;
}

/** Whether this hub's pump can run the pipe: a source and a sink it knows how to pump. */
export function isPumpable(pipe: EffectivePipe): boolean {
  return PUMP_SOURCES.has(pipe.source.type) && PUMP_SINKS.has(pipe.sink.type);
}

/** The pipes whose configuration the runner reads; PipeRegistry provides it. */
export interface PumpPipes {
  get(id: string): ConfigEntity | undefined;
  sinkDataset(id: string): Dataset;
}

interface ActiveRun {
  readonly id: string;
  readonly kind: RunKind;
  stopRequested: boolean;
  done: Promise<void>;
  /** While the run drains a pipe worker: end it now, terminating the worker if it is busy with the run. */
  abort?: () => void;
  /** Profile the run (the `profiler=true` option of `start`); the profiler is reserved for it. */
  profile?: boolean;
  /** Live counters of the run, for progress while it goes. */
  counters?: Counters;
  startTime?: string;
}

interface Counters {
  processed: number;
  /** Entities the sink refused in this run (after the retries it made). */
  failed: number;
  writeErrors: number;
  dead: number;
  retriedOk: number;
  retriedFailed: number;
  changes: number;
  succeeded: number;
  deleted: number;
  sourceMs: number;
  transformMs: number;
  sinkMs: number;
  /** The sink recorded its batches in the outbox instead of writing an outside system, or the source could not be read. */
  offline: boolean;
  /** Why the run is offline, in words. */
  offlineReason?: string;
  /** Source entities processed per reason (lineage-store.ts): new, changed, deleted, read, rescan, dependency:<datasets>. */
  reasons: Record<string, number>;
}

class RunStopped extends Error {}

/** How long a stop waits for a run in a pipe worker to reach the end of its batch before terminating the worker. */
const STOP_GRACE_MS = 2000;

interface StartedEvent {
  entity: JsonObject | undefined;
  location: number | null;
  /** Written only when the run turns out not to be a no-op. */
  deferred: boolean;
  /** A no-op run is one that changed nothing (else: one that read nothing). */
  changesOnly: boolean;
}

export class PumpRunner {
  /** Running runs per pipe: at most one incremental run and one rescan. */
  private readonly active = new Map<string, { incremental?: ActiveRun; rescan?: ActiveRun }>();
  /** An incremental run was asked for while one ran: run once more after it (webhooks, schedules). */
  private readonly again = new Map<string, RunTrigger>();
  private closed = false;
  /** Record, per written entity, the source entity that made it and why it was processed (lineage-record.ts). */
  recordLineage = true;

  /** CPU profiles of runs started with `profiler=true`, written to the logs folder. */
  readonly profiler: RunProfiler;

  constructor(
    private readonly pipes: PumpPipes,
    private readonly datasets: DatasetStore,
    private readonly state: PumpStateStore,
    private readonly runtimes: PipeRuntimes,
    logsDir: string,
    /** Pipe workers (undefined, or fewer than 2: every run on this thread). */
    private readonly workers?: PipeWorkerPool,
  ) {
    this.profiler = new RunProfiler(logsDir);
  }

  isRunning(id: string): boolean {
    const a = this.active.get(id);
    return a?.incremental !== undefined || a?.rescan !== undefined;
  }

  isRescanning(id: string): boolean {
    return this.active.get(id)?.rescan !== undefined;
  }

  /**
   * Start a run unless one of this kind runs already; returns whether a run started. With `profile` the run is
   * profiled (409 while another run is being profiled).
   */
  start(id: string, kind: RunKind, trigger: RunTrigger, options: { profile?: boolean } = {}): boolean {
    if (this.closed) return false;
    const slots = this.active.get(id) ?? {};
    if (slots[kind]) return false;
    if (options.profile) this.profiler.reserve(id);
    const run: ActiveRun = { id, kind, stopRequested: false, done: Promise.resolve(), ...(options.profile ? { profile: true } : {}) };
    slots[kind] = run;
    this.active.set(id, slots);
    run.done = this.execute(run, trigger).finally(() => {
      const s = this.active.get(id);
      if (s && s[kind] === run) {
        delete s[kind];
        if (!s.incremental && !s.rescan) this.active.delete(id);
      }
      const next = this.again.get(id);
      if (kind === 'incremental' && next !== undefined && !run.stopRequested) {
        this.again.delete(id);
        this.start(id, 'incremental', next);
      }
    });
    return true;
  }

  /** Run now, or once more right after the run in progress. */
  request(id: string, trigger: RunTrigger): void {
    if (!this.start(id, 'incremental', trigger) && !this.closed) this.again.set(id, trigger);
  }

  /** Stop the pipe's runs (rescans included) after their current batch; resolves when they have ended. */
  async stop(id: string): Promise<void> {
    this.again.delete(id);
    const slots = this.active.get(id);
    if (!slots) return;
    const runs = [slots.incremental, slots.rescan].filter((r): r is ActiveRun => r !== undefined);
    for (const r of runs) r.stopRequested = true;
    // A run stops after its current batch. One whose worker is still inside a long evaluation after a grace period
    // (a runaway transform: issue 32) is ended by terminating that worker; a fresh one takes the next run.
    const grace = setTimeout(() => {
      for (const r of runs) r.abort?.();
    }, STOP_GRACE_MS);
    try {
      await Promise.all(runs.map((r) => r.done));
    } finally {
      clearTimeout(grace);
    }
  }

  /** Stop every run and refuse new ones (the hub is closing). */
  async close(): Promise<void> {
    this.closed = true;
    this.again.clear();
    await Promise.all([...this.active.keys()].map((id) => this.stop(id)));
  }

  /** What the pipe's running run (an incremental run first) has done so far, or null when none runs. */
  progress(id: string): JsonObject | null {
    const slots = this.active.get(id);
    const run = slots?.incremental ?? slots?.rescan;
    if (!run?.counters || run.startTime === undefined) return null;
    const c = run.counters;
    return { run_type: run.kind, start_time: run.startTime, processed: c.processed, changes: c.changes, failed: c.failed, profiling: run.profile === true };
  }

  private async execute(run: ActiveRun, trigger: RunTrigger): Promise<void> {
    const id = run.id;
    const runId = randomUUID();
    const start = new Date();
    const counters: Counters = { processed: 0, failed: 0, writeErrors: 0, dead: 0, retriedOk: 0, retriedFailed: 0, changes: 0, succeeded: 0, deleted: 0, sourceMs: 0, transformMs: 0, sinkMs: 0, offline: false, reasons: {} };
    run.counters = counters;
    run.startTime = start.toISOString();
    const base: JsonObject = { pump_definition: id, pump_instance: runId, run_type: run.kind, trigger, start_time: start.toISOString() };
    // "pump-started" is written at once for runs a user asked for; an automatic run that changes nothing is not logged
    // (unless the pump sets log_events_noop_runs), so a quiet schedule does not grow the execution log.
    const started: StartedEvent = { entity: undefined, location: null, deferred: true, changesOnly: true };
    let lastSeenBefore: string | null = null;
    let stopped = false;
    // Let the caller answer first: a run never starts inside the request that asked for it.
    await nextTick();
    const profileFiles = async (): Promise<string[]> => (run.profile ? this.profiler.end(id, start).catch(() => []) : []);
    try {
      if (this.closed) throw new RunStopped();
      if (run.profile) await this.profiler.begin();
      const config = this.pipes.get(id);
      if (!config) throw new HubError(404, `pipe ${JSON.stringify(id)} not found`, 'it was deleted');
      const runtime = this.runtimes.of(config);
      const pipe = runtime.pipe;
      this.state.update(id, (s) => {
        s.running = true;
        if (run.kind === 'rescan') s.rescanRunning = true;
        lastSeenBefore = run.kind === 'rescan' ? s.rescanSince : s.lastSeen;
      });
      started.entity = {
        _id: 'pump-started',
        event_type: 'pump-started',
        ...base,
        last_seen: lastSeenBefore,
        source: pipe.source,
        sink: pipe.sink,
      };
      started.deferred = trigger !== 'manual' && run.kind !== 'rescan' && pipe.pump['log_events_noop_runs'] !== true;
      started.changesOnly = pipe.pump['log_events_noop_runs_changes_only'] !== false;
      if (!started.deferred) started.location = this.log(id, started.entity);
      const errors = runtime.runErrors.filter((e) => e.level === 'error');
      if (errors.length > 0) throw new HubError(400, 'the pipe configuration is invalid', errors.map((e) => `${e.elements}: ${e.msg}`).join('; '));
      if (!isPumpable(pipe)) {
        throw new HubError(400, `this hub does not pump a pipe with a ${pipe.source.type} source and a ${pipe.sink.type} sink`);
      }
      const problem = runtime.transformProblem();
      if (problem) throw problem;
      // Variables are replaced only in the configuration the run uses; the log above keeps the references.
      stopped = !(await this.pump(run, runId, runtime, runtime.resolved(), counters));
      const files = await profileFiles();
      this.finish(id, run, runId, base, started, counters, stopped ? 'stopped' : 'completed', null, files);
    } catch (e) {
      const files = await profileFiles();
      if (e instanceof RunStopped || (this.closed && !this.datasetsUsable())) return;
      if (isOfflineError(e)) {
        // Offline: the pipe needs something no offline hub has. What was done so far stays; nothing is deleted.
        counters.offline = true;
        counters.offlineReason = this.runtimes.mask(e.detail ? `${e.message}: ${e.detail}` : e.message);
        try {
          this.finish(id, run, runId, base, started, counters, 'completed', null, files);
        } catch {
          // The hub is closing.
        }
        return;
      }
      // DTL's trip! fails the run and trips the circuit breaker of the pipe's sink dataset.
      if (e instanceof DtlRuntimeError && e.kind === 'trip') {
        try {
          const config = this.pipes.get(id);
          if (config && effectivePipeConfig(config).sink.type === 'dataset') this.pipes.sinkDataset(id).tripCircuitBreaker(this.runtimes.mask(`trip! in the transform: ${e.message}`));
        } catch {
          // The run is recorded as failed below either way.
        }
      }
      // A reason may quote a URL or a remote's answer built from secrets: stored and shown masked.
      const mask = (text: string): string => this.runtimes.mask(text);
      let reason = mask(e instanceof HubError && e.detail ? `${e.message}: ${e.detail}` : e instanceof Error ? e.message : String(e));
      if (e instanceof DtlLimitError) {
        // Running it again would do the same: the schedule leaves the pipe alone until the user has looked at it.
        try {
          this.state.update(id, (s) => (s.disabled = true));
        } catch {
          // The hub is closing; the run is recorded below if it still can be.
        }
        reason += `. The pump is disabled so that its schedule does not run it again: change the transform, then enable the pump (the Enable action on the pipe's page, or POST /pipes/${id}/pump with operation=enable)`;
      }
      const traceback = mask(e instanceof Error && e.stack ? e.stack : '');
      try {
        this.finish(id, run, runId, base, started, counters, 'failed', { reason, traceback }, files);
      } catch {
        // The database went away (the hub is closing): nothing more can be recorded.
      }
    }
  }

  private datasetsUsable(): boolean {
    try {
      this.datasets.names();
      return true;
    } catch {
      return false;
    }
  }

  private finish(
    id: string,
    run: ActiveRun,
    runId: string,
    base: JsonObject,
    started: StartedEvent,
    c: Counters,
    status: LastRun['status'],
    failure: { reason: string; traceback: string } | null,
    profileFiles: string[] = [],
  ): void {
    const end = new Date();
    const startTime = base['start_time'] as string;
    const duration = (end.getTime() - Date.parse(startTime)) / 1000;
    const state = this.state.get(id);
    const noop = !failure && status === 'completed' && (started.changesOnly ? c.changes === 0 : c.processed === 0);
    if (started.deferred && started.entity && !noop) started.location = this.log(id, started.entity);
    if (!started.deferred || !noop) this.log(id, {
      _id: failure ? 'pump-failed' : 'pump-completed',
      event_type: failure ? 'pump-failed' : 'pump-completed',
      ...base,
      end_time: end.toISOString(),
      duration,
      pump_started_location: started.location,
      status,
      stopped: status === 'stopped',
      processed_entities: c.processed,
      changed_entities: c.changes,
      entities_succeeded: c.succeeded,
      entities_failed: c.failed,
      deleted_entities: c.deleted,
      read_errors: 0,
      write_errors: c.writeErrors + (failure ? 1 : 0),
      failed_retries: c.retriedFailed,
      dead_entities: c.dead,
      failed_retried_entities: c.retriedFailed,
      successfully_retried_entities: c.retriedOk,
      retry_entities_exist: state.pendingRetries > 0,
      source_time: c.sourceMs / 1000,
      transform_time: c.transformMs / 1000,
      sink_time: c.sinkMs / 1000,
      last_seen: run.kind === 'rescan' ? state.rescanSince : state.lastSeen,
      reason_why_stopped: failure ? failure.reason : status === 'stopped' ? 'stopped by the "stop" operation' : '',
      traceback: failure ? failure.traceback : '',
      additional_errormessage: '',
      additional_traceback: '',
      ...(profileFiles.length > 0 ? { profile_files: profileFiles } : {}),
      ...(c.offline ? { offline: true, offline_reason: c.offlineReason ?? '' } : {}),
      ...(Object.keys(c.reasons).length > 0 ? { processed_reasons: c.reasons } : {}),
    });
    if (status === 'completed') this.markPopulated(id);
    this.state.update(id, (s) => {
      if (run.kind === 'rescan') s.rescanRunning = false;
      s.running = this.otherRunActive(run);
      s.runs += 1;
      s.lastRun = {
        run_id: runId,
        run_type: run.kind,
        trigger: base['trigger'] as string,
        status,
        start_time: startTime,
        end_time: end.toISOString(),
        processed: c.processed,
        changes: c.changes,
        // As the run metrics chart counts them: refused entities, write errors (a failed run is one) and dead entities.
        errors: c.failed + c.writeErrors + (failure ? 1 : 0) + c.dead,
        duration,
        reason_why_stopped: failure ? failure.reason : status === 'stopped' ? 'stopped by the "stop" operation' : null,
        ...(c.offline ? { offline: true, offline_reason: c.offlineReason ?? '' } : {}),
      };
    });
  }

  /** A run that read its source to the end has populated the sink dataset (the Datasets view's "Populated"). */
  private markPopulated(id: string): void {
    try {
      const config = this.pipes.get(id);
      if (!config || effectivePipeConfig(config).sink.type !== 'dataset') return;
      const dataset = this.pipes.sinkDataset(id);
      if (dataset.row().populated !== 1) dataset.setPopulated(true);
    } catch {
      // The dataset went away meanwhile: nothing to mark.
    }
  }

  private otherRunActive(run: ActiveRun): boolean {
    const slots = this.active.get(run.id);
    const other = run.kind === 'rescan' ? slots?.incremental : slots?.rescan;
    return other !== undefined;
  }

  /** Append an event to the pipe's execution log; returns its offset. */
  private log(id: string, entity: JsonObject): number {
    const ds = this.datasets.open(executionLogName(id));
    // The service trims execution logs by age (compaction.time_threshold_hours_pump), never by versions: every run's
    // events stay readable.
    const settings = ds.settings();
    if (settings.compaction === undefined) ds.setSettings({ ...settings, compaction: { ...DEFAULT_COMPACTION, sink: false, automatic: false } });
    return ds.write([maskJson(entity, (text) => this.runtimes.mask(text))]).maxUpdated;
  }

  /** Write a pump event outside a run (e.g. `pump-discard-retries`). */
  logEvent(id: string, eventType: string, extra: JsonObject = {}): number {
    return this.log(id, { _id: eventType, event_type: eventType, pump_definition: id, event_time: new Date().toISOString(), ...extra });
  }

  /** Pump all batches; false when the run was stopped before the end. */
  private async pump(run: ActiveRun, runId: string, runtime: PipeRuntime, pipe: EffectivePipe, c: Counters): Promise<boolean> {
    const id = run.id;
    const batchSize = typeof pipe['batch_size'] === 'number' && pipe['batch_size'] >= 1 ? Math.floor(pipe['batch_size']) : DEFAULT_BATCH;
    const opener = sinkType(pipe.sink.type)?.open;
    if (!opener) throw new HubError(400, `this hub does not pump a ${pipe.sink.type} sink`);
    const tracking = runtime.tracking;

    // A remote sink (the json sink pushes over HTTP) sends the pending retries first, and is finished after the last
    // batch unless one of its writes failed. A local sink is written inside each batch's transaction.
    const retry = retrySettings(pipe.pump);
    let sink: Sink | undefined;
    let pushFailed = false;
    let consecutiveErrors = 0;
    const sinkFailed = (failed: readonly { entity: JsonObject; attempts: number }[], error: SinkWriteError): void => {
      // Called inside a transaction: a failed entity is kept for a later run or, its retries used up, is dead.
      pushFailed = true;
      c.writeErrors += 1;
      const dead = failed.filter((f) => f.attempts >= retry.maxRetries);
      const again = failed.filter((f) => f.attempts < retry.maxRetries);
      const message = this.runtimes.mask(error.message);
      if (again.length > 0) this.state.putRetries(id, again, message);
      if (dead.length > 0) {
        this.state.removeRetries(id, idsOf(dead.map((f) => f.entity)));
        if (retry.deadLetter !== undefined) {
          this.datasets.open(retry.deadLetter).write(
            dead.map((f) => ({ _id: f.entity['_id'] ?? null, entity: f.entity, pipe: id, attempts: f.attempts, error: message, status: error.status })),
          );
        }
        c.dead += dead.length;
      }
    };
    const sendRetries = async (p: RemoteSink): Promise<void> => {
      const pending = this.state.retries(id);
      for (let i = 0; i < pending.length; i += batchSize) {
        const chunk = pending.slice(i, i + batchSize);
        const t = performance.now();
        try {
          await p.write(chunk.map((f) => f.entity));
          this.state.transaction(() => this.state.removeRetries(id, idsOf(chunk.map((f) => f.entity))));
          c.retriedOk += chunk.length;
        } catch (e) {
          if (!(e instanceof SinkWriteError)) throw e;
          this.state.transaction(() => sinkFailed(chunk.map((f) => ({ entity: f.entity, attempts: f.attempts + 1 })), e));
          c.retriedFailed += chunk.length;
        }
        c.sinkMs += performance.now() - t;
      }
    };
    const openSink = async (full: boolean): Promise<Sink> => {
      const opened = opener(pipe, {
        ...runtime.sinkContext(),
        pipeId: id,
        runId,
        full,
        dataset: () => this.pipes.sinkDataset(id),
        seen: {
          mark: (ids) => this.state.markSeen(id, ids),
          sql: () => this.state.seenSql(id),
          clear: () => this.state.clearSeen(id),
        },
        outbox: maskedOutboxWriter(this.state.outbox.writer(id, runId), (text) => this.runtimes.mask(text)),
      });
      if (!opened.local) await sendRetries(opened);
      return opened;
    };

    // One batch: transform, write and move the pump's position in one transaction.
    const writeBatch = async (entities: JsonObject[], position: ((s: PumpState) => void) | undefined, origin: BatchOrigin = readOrigin): Promise<void> => {
      const t = performance.now();
      const out: JsonObject[] = [];
      const packer = this.recordLineage ? new LineagePacker() : undefined;
      // On the hub's thread a batch lets the API answer between entities, and a stop ends it there.
      const deps = await transformBatchTurning(
        runtime,
        entities,
        out,
        () => {
          if (run.stopRequested || this.closed) throw new RunStopped();
        },
        packer,
      );
      c.transformMs += performance.now() - t;
      await writeOut(out, undefined, deps, entities.length, position, packer && { text: packer.finish(), origin });
    };
    // Counted for the run's summary; kept per batch for a dataset sink, by the sink offsets the batch wrote up to.
    let sinkDs: Dataset | null | undefined;
    const sinkDataset = (): Dataset | undefined => (sinkDs ??= pipe.sink.type === 'dataset' ? this.pipes.sinkDataset(id) : null) ?? undefined;
    const recordLineage = (lineage: BatchLineage | undefined, before: number | undefined): void => {
      if (!lineage) return;
      this.state.lineage.count(lineage.text, lineage.origin, c.reasons);
      const until = before === undefined ? undefined : sinkDataset()?.row().max_updated;
      if (until !== undefined && until > before!) this.state.lineage.write(id, runId, until, lineage.text, lineage.origin);
    };
    // A transformed batch (prepared for the dataset sink when a pipe worker made it) written with the new position.
    const writeOut = async (
      out: JsonObject[],
      prepared: readonly PreparedEntity[] | undefined,
      deps: PackedDependencies,
      count: number,
      position: ((s: PumpState) => void) | undefined,
      lineage: BatchLineage | undefined,
    ): Promise<void> => {
      const recordDeps = (): void => {
        this.state.replaceDependenciesOf(id, deps);
        recordLineage(lineage, undefined);
      };
      // The batch's output is about to be written (and serialized): not with the heap already past the bound.
      const heap = heapExhausted();
      if (heap) throw memoryLimitError(heap);
      c.processed += count;
      const t = performance.now();
      const s = sink!;
      if (!s.local) {
        let error: SinkWriteError | undefined;
        if (out.length > 0) {
          try {
            await s.write(out);
            if (s.offline === true && !c.offline) {
              c.offline = true;
              c.offlineReason = this.runtimes.mask(sinkOfflineReason(pipe, s));
            }
          } catch (e) {
            // Without retry settings a refused write fails the run (the position stays where it was).
            if (!(e instanceof SinkWriteError) || !retry.enabled) throw e;
            error = e;
          }
        }
        this.state.transaction(() => {
          recordDeps();
          if (error) sinkFailed(out.map((entity) => ({ entity, attempts: 0 })), error);
          else c.succeeded += out.length;
          if (position) this.state.update(id, position);
        });
        c.sinkMs += performance.now() - t;
        if (error) {
          c.failed += out.length;
          consecutiveErrors += 1;
          if (retry.maxConsecutive !== undefined && consecutiveErrors >= retry.maxConsecutive) {
            throw new HubError(502, `${consecutiveErrors} consecutive write errors`, error.message);
          }
        } else consecutiveErrors = 0;
        return;
      }
      writeLocal(s, [{ out, prepared, deps, position, lineage }]);
      c.sinkMs += performance.now() - t;
    };
    // Transformed batches for the dataset sink written in one transaction, each with its position: when the writer is
    // behind, the batches the workers have ready share one commit. A batch that trips the circuit breaker ends it.
    const writeLocal = (s: LocalSink, batches: readonly OutBatch[]): void => {
      let tripped: CircuitBreakerTripped | undefined;
      this.state.transaction(() => {
        for (const b of batches) {
          this.state.replaceDependenciesOf(id, b.deps);
          const n = b.prepared ? b.prepared.length : b.out.length;
          const before = b.lineage ? sinkDataset()?.row().max_updated : undefined;
          if (n > 0) {
            try {
              c.changes += b.prepared ? s.writePrepared!(b.prepared) : s.write(b.out);
              c.succeeded += n;
            } catch (e) {
              // The trip must be committed with the batch's pending entities; rethrown after the commit.
              if (!(e instanceof CircuitBreakerTripped)) throw e;
              tripped = e;
              return;
            }
          }
          recordLineage(b.lineage, before);
          if (b.position) this.state.update(id, b.position);
        }
      });
      if (tripped) throw tripped;
    };

    const checkStop = async (): Promise<void> => {
      await nextTick();
      if (run.stopRequested || this.closed) throw new RunStopped();
    };

    let readOrigin: BatchOrigin = { kind: 'read', rescan: false };
    if (tracking) this.state.beginDependencyRun(id);
    try {
      const src = runtime.openSource(pipe);
      const rescan = run.kind === 'rescan';
      // A full run (a source read whole, or a rescan from the beginning) deletes, at its end, what it did not write.
      // A resumed rescan keeps what its interrupted part has seen.
      const since = src.incremental ? (rescan ? this.state.get(id).rescanSince : this.state.get(id).lastSeen) : null;
      const full = !src.incremental || rescan;
      readOrigin = { kind: 'read', rescan };
      const remoteLineage = (text: string | undefined): BatchLineage | undefined => (text === undefined ? undefined : { text, origin: readOrigin });
      if (!src.incremental || (rescan && (since === null || since === ''))) this.state.clearSeen(id);
      sink = await openSink(full);
      c.offline = sink.offline === true;
      if (c.offline) c.offlineReason = this.runtimes.mask(sinkOfflineReason(pipe, sink));
      if (tracking && src.incremental && !rescan && pipe.source.type === 'dataset') {
        await this.dependencyPhase(id, pipe.source['dataset'] as string, parseOffset(since), batchSize, writeBatch, checkStop);
      }
      let from = since === null || since === '' ? undefined : since;
      const moveTo = (position: string | undefined): ((s: PumpState) => void) | undefined =>
        src.incremental && position !== undefined ? (s: PumpState) => (rescan ? (s.rescanSince = position) : (s.lastSeen = position)) : undefined;
      const drain = async (remote: WorkerRun): Promise<void> => {
        run.abort = () => remote.abort(new RunStopped());
        try {
          for (;;) {
            const b = await remote.next();
            if (!b) {
              c.sourceMs += remote.endSourceMs;
              break;
            }
            const group = [b];
            const local = sink!.local ? sink! : undefined;
            if (local) while (group.length < MERGE_BATCHES && remote.hasBatch()) group.push((await remote.next())!);
            for (const g of group) {
              c.sourceMs += g.sourceMs;
              c.transformMs += g.transformMs;
              for (const t of g.tracking) this.state.startTracking(id, t.dataset, t.offset);
            }
            if (local === undefined || group.length === 1) await writeOut([], b.prepared, b.deps, b.count, moveTo(b.position), remoteLineage(b.lineage));
            else {
              const heap = heapExhausted();
              if (heap) throw memoryLimitError(heap);
              const t = performance.now();
              for (const g of group) c.processed += g.count;
              writeLocal(local, group.map((g) => ({ out: [], prepared: g.prepared, deps: g.deps, position: moveTo(g.position), lineage: remoteLineage(g.lineage) })));
              c.sinkMs += performance.now() - t;
            }
            await checkStop();
          }
        } finally {
          run.abort = undefined;
          remote.close();
        }
      };
      // A pipe worker reads and transforms while this thread writes (see pipe-workers/); else all of it here. A large
      // dataset source is read in parts by every idle worker at once (split-run.ts), then what came after the start.
      let remote: WorkerRun | undefined;
      if (this.workers !== undefined && workerMayRun(runtime, pipe, run.profile === true)) {
        const parts = src.parts === true ? this.sourceParts(pipe, from, batchSize) : undefined;
        const split = parts && (await this.workers.startParts(workerRequest(this.runtimes, runtime, from, batchSize, this.recordLineage), parts.ranges, parts.end));
        if (split) {
          await drain(split);
          from = String(parts.end);
        }
        remote = await this.workers.start(workerRequest(this.runtimes, runtime, from, batchSize, this.recordLineage));
        if (remote) await drain(remote);
      }
      const batches = remote ? undefined : src.batches(from, batchSize);
      while (batches) {
        const t = performance.now();
        const next = await batches.next();
        c.sourceMs += performance.now() - t;
        if (next.done) break;
        const { entities, position } = next.value;
        await writeBatch(entities, moveTo(position));
        await checkStop();
      }
      if (!sink.local) {
        if (!pushFailed) await sink.finish();
      } else if (full && sink.endFull) {
        // Nothing awaits between the last (empty) read and this: no write can slip in between.
        const t = performance.now();
        const n = sink.endFull();
        c.deleted += n;
        c.changes += n;
        c.sinkMs += performance.now() - t;
      }
      if (sink.local) sink.finish?.();
      if (full && rescan) this.state.update(id, (s) => (s.rescanSince = null));
    } catch (e) {
      if (e instanceof RunStopped) return false;
      throw e;
    } finally {
      if (tracking) this.state.endDependencyRun(id);
    }
    return true;
  }

  /**
   * The ranges to read a dataset source's run in, in parts (split-run.ts): the offsets after `from` up to the source's
   * end now, cut so that a range holds about a batch of latest versions; undefined for a run too small to share.
   */
  private sourceParts(pipe: EffectivePipe, from: string | undefined, batchSize: number): { ranges: [number, number][]; end: number } | undefined {
    const ds = this.datasets.get(pipe.source['dataset'] as string);
    if (!ds) return undefined;
    const row = ds.row();
    const after = parseOffset(from) ?? -1;
    if (row.max_updated - after < 2 * MIN_RANGES * batchSize) return undefined;
    // Offsets per entity: the log holds older versions too, and a latest-versions read skips them.
    const history = pipe.source['include_previous_versions'] === true;
    const density = history ? 1 : Math.min(16, Math.max(1, (row.max_updated + 1) / Math.max(1, row.live_count + row.deleted_count)));
    return { ranges: partRanges(after, row.max_updated, batchSize * density), end: row.max_updated };
  }

  /**
   * Dependency tracking: the source entities that looked up keys which the joined datasets' changes (since the pipe
   * last saw them) touch are processed again, latest versions read by id; then the tracking offsets move to the ends
   * the changes were read up to. Entities after the source's last-seen offset are left to the run's own reading.
   */
  private async dependencyPhase(
    id: string,
    sourceName: string,
    lastSeen: number | undefined,
    batchSize: number,
    writeBatch: (entities: JsonObject[], position: undefined, origin: BatchOrigin) => Promise<void>,
    checkStop: () => Promise<void>,
  ): Promise<void> {
    const ends: { dataset: string; end: number }[] = [];
    const ids = new Set<string>();
    // Why each one is processed again: the joined entities whose change touched a key it looked up.
    const joined = new Map<string, JoinedChange[]>();
    for (const { dataset, offset } of this.state.trackingOffsets(id)) {
      const ds = this.datasets.get(dataset);
      if (!ds) continue;
      const end = ds.row().max_updated;
      if (end <= offset) continue;
      ends.push({ dataset, end });
      const owners = new Map<string, string[]>();
      for (const [path, keys] of changedKeys(ds, offset, this.state.dependencyPaths(id, dataset), owners)) {
        for (const key of keys) {
          for (const eid of this.state.dependents(id, dataset, path, key)) {
            ids.add(eid);
            const list = joined.get(eid) ?? [];
            if (list.length < JOINED_PER_ENTITY) list.push({ dataset, key, ids: owners.get(`${path}\u0000${key}`) ?? [] });
            joined.set(eid, list);
          }
        }
      }
    }
    const origin: BatchOrigin = { kind: 'dependency', joined };
    if (ends.length === 0) return;
    const source = this.datasets.get(sourceName);
    if (source && lastSeen !== undefined) {
      let batch: JsonObject[] = [];
      for (const eid of [...ids].sort()) {
        const e = source.get(eid);
        if (e === undefined || e._updated > lastSeen) continue;
        batch.push(e);
        if (batch.length >= batchSize) {
          await writeBatch(batch, undefined, origin);
          batch = [];
          await checkStop();
        }
      }
      if (batch.length > 0) await writeBatch(batch, undefined, origin);
    }
    this.state.transaction(() => {
      for (const { dataset, end } of ends) this.state.setTrackingOffset(id, dataset, end);
    });
  }
}

interface RetrySettings {
  /** Refused entities are kept and retried (else a refused write fails the run). */
  enabled: boolean;
  /** Retries per entity, one per run, before it goes to the dead letter dataset. */
  maxRetries: number;
  deadLetter: string | undefined;
  /** Refused batches in a row that fail the run. */
  maxConsecutive: number | undefined;
}

/** The pump's write retry settings: retries happen when any of them is set. */
function retrySettings(pump: JsonObject): RetrySettings {
  const num = (k: string): number | undefined => {
    const v = pump[k];
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : undefined;
  };
  const deadLetter = typeof pump['dead_letter_dataset'] === 'string' && pump['dead_letter_dataset'] !== '' ? pump['dead_letter_dataset'] : undefined;
  const maxRetries = num('max_retries_per_entity');
  const inRetryDataset = num('max_write_errors_in_retry_dataset');
  const maxConsecutive = num('max_consecutive_write_errors');
  return {
    enabled: deadLetter !== undefined || (maxRetries ?? 0) > 0 || (inRetryDataset ?? 0) > 0,
    maxRetries: Math.min(maxRetries ?? 5, 100),
    deadLetter,
    maxConsecutive: maxConsecutive !== undefined && maxConsecutive > 0 ? maxConsecutive : undefined,
  };
}

function nextTick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Why a sink's run went to the outbox, in words (its own reason, else its type's). */
function sinkOfflineReason(pipe: EffectivePipe, sink: Sink): string {
  const own = (sink as { offlineReason?: string }).offlineReason;
  if (own !== undefined) return own;
  const system = typeof pipe.sink['system'] === 'string' ? ` (system ${JSON.stringify(pipe.sink['system'])})` : '';
  return `the ${pipe.sink.type} sink writes to an outside system${system}: what it would have sent is in the outbox`;
}

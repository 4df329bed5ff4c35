// Runs pipes: read a batch from the source, transform it, write it to the sink in one transaction together with the
// pump's new position, yield to the event loop, repeat. A run writes "pump-started" and then "pump-completed" or
// "pump-failed" to the pipe's execution log dataset (automatic runs that change nothing are left out); a run that
// throws is recorded and never escapes.

import { randomUUID } from 'node:crypto';
import type { DatasetStore } from '../storage/index.js';
import { effectivePipeConfig, type EffectivePipe } from './pipe-config.js';
import type { PumpStateStore, PumpState } from './pump-state.js';
import { DtlLimitError, DtlRuntimeError, heapExhausted, memoryLimitError } from '../dtl/index.js';
import type { JsonObject } from '../base/index.js';
import { HubError, UnsetVariableError } from '../base/index.js';
import { isOfflineError } from '../base/index.js';
import { secretMask, type Mask } from '../security/index.js';
import { SOURCES } from './sources/index.js';
import { parseOffset } from './sources/basic-sources.js';
import { SINK_TYPE_LIST, isPumpedSink, sinkType, type Sink } from './sinks/index.js';
import { RunProfiler } from './pump-profiler.js';
import type { PipeRuntime, PipeRuntimes } from './pipe-runtime.js';
import { transformBatchTurning } from './workers/transform-batch.js';
import { ownSink, transformWorkerMayRun, workerMayRun, workerRequest } from './workers/eligibility.js';
import type { JobRequest, PipeWorkerPool, RemoteBatch, WorkerRun } from './workers/pool.js';
import type { RemoteTransform } from './workers/remote-transform.js';
import { MIN_RANGES, partRanges } from './workers/split-run.js';
import { LineagePacker } from './lineage-record.js';
import type { BatchOrigin } from './lineage-store.js';
import { RunStopped, type ActiveRun, type BatchLineage, type Counters, type PumpPipes, type RunHost, type RunKind, type RunTrigger, type StartedEvent } from './pump-run-types.js';
import { RunLog, type RunFailure } from './pump-run-log.js';
import { runWriter, sinkOfflineReason } from './pump-run-writer.js';
import { dependencyPhase } from './pump-dependency-phase.js';

export type { PumpPipes, RunKind, RunTrigger } from './pump-run-types.js';
export { executionLogName } from './pump-run-log.js';

export const PUMP_SOURCES: ReadonlySet<string> = new Set(SOURCES.keys());
export { parseOffset };
export const PUMP_SINKS: ReadonlySet<string> = new Set(SINK_TYPE_LIST.filter((t) => isPumpedSink(t.type)).map((t) => t.type));
const DEFAULT_BATCH = 1000;
/** Batches of a pipe worker written in one transaction at most, when they are ready before the writer is. */
const MERGE_BATCHES = 8;

/** Whether this hub's pump can run the pipe: a source and a sink it knows how to pump. */
export function isPumpable(pipe: EffectivePipe): boolean {
  return PUMP_SOURCES.has(pipe.source.type) && PUMP_SINKS.has(pipe.sink.type);
}

/** How long a stop waits for a run in a pipe worker to reach the end of its batch before terminating the worker. */
const STOP_GRACE_MS = 2000;

export class PumpRunner {
  /** Running runs per pipe: at most one incremental run and one rescan. */
  private readonly active = new Map<string, { incremental?: ActiveRun; rescan?: ActiveRun }>();
  /** An incremental run was asked for while one ran: run once more after it (webhooks, schedules). */
  private readonly again = new Map<string, RunTrigger>();
  private closed = false;
  /** Record, per written entity, the source entity that made it and why it was processed (lineage-record.ts). */
  recordLineage = true;

  /** How often a pipe's lineage records are pruned at most, in ms; and when each pipe's last were. */
  lineagePruneMs = 60_000;
  private readonly pruned = new Map<string, number>();

  /** CPU profiles of runs started with `profiler=true`, written to the logs folder. */
  readonly profiler: RunProfiler;
  private readonly host: RunHost;
  private readonly runLog: RunLog;

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
    // One profiled run at a time: every profile a worker sends back is that run's.
    if (workers) workers.onProfile = (profile) => this.profiler.addWorkerProfile(profile);
    this.host = { pipes, datasets, state, runtimes };
    this.runLog = new RunLog(pipes, datasets, state, runtimes);
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
    // The values of the secrets the transform was compiled with: a secret changed during the run is masked too.
    let keyMask: Mask | undefined;
    const maskRun = (text: string): string => {
      const masked = this.runtimes.mask(text);
      return keyMask ? keyMask(masked) : masked;
    };
    // Let the caller answer first: a run never starts inside the request that asked for it.
    await nextTick();
    const profileFiles = async (): Promise<string[]> => {
      if (!run.profile) return [];
      await this.workers?.profilesSettled();
      return this.profiler.end(id, start).catch(() => []);
    };
    const finish = (status: 'completed' | 'stopped' | 'failed', failure: RunFailure | null, files: string[]): void =>
      this.runLog.finish({ id, run, runId, base, started, counters, status, failure, profileFiles: files, otherRunActive: () => this.otherRunActive(run) });
    try {
      if (this.closed) throw new RunStopped();
      if (run.profile) await this.profiler.begin();
      const config = this.pipes.get(id);
      if (!config) throw new HubError(404, `pipe ${JSON.stringify(id)} not found`, 'it was deleted');
      const runtime = this.runtimes.of(config);
      if (runtime.needsSecrets) keyMask = secretMask(Object.values(runtime.keySecrets()));
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
      if (!started.deferred) started.location = this.runLog.log(id, started.entity);
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
      finish(stopped ? 'stopped' : 'completed', null, files);
      this.pruneLineage(id);
    } catch (e) {
      const files = await profileFiles();
      if (e instanceof RunStopped || (this.closed && !this.datasetsUsable())) return;
      if (isOfflineError(e)) {
        // Offline: the pipe needs something no offline hub has. What was done so far stays; nothing is deleted.
        counters.offline = true;
        counters.offlineReason = maskRun(e.detail ? `${e.message}: ${e.detail}` : e.message);
        try {
          finish('completed', null, files);
        } catch {
          // The hub is closing.
        }
        return;
      }
      // DTL's trip! fails the run and trips the circuit breaker of the pipe's sink dataset.
      if (e instanceof DtlRuntimeError && e.kind === 'trip') {
        try {
          const config = this.pipes.get(id);
          if (config && effectivePipeConfig(config).sink.type === 'dataset') this.pipes.sinkDataset(id).tripCircuitBreaker(maskRun(`trip! in the transform: ${e.message}`));
        } catch {
          // The run is recorded as failed below either way.
        }
      }
      // A reason may quote a URL or a remote's answer built from secrets: stored and shown masked.
      const mask = maskRun;
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
        const unsetVariable = e instanceof UnsetVariableError || (e instanceof DtlRuntimeError && e.kind === 'unset-variable');
        finish('failed', { reason, traceback, unsetVariable }, files);
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

  /** Empty the lineage records of versions compaction removed from the pipe's sink dataset (lineage-store.ts). */
  private pruneLineage(id: string): void {
    const now = Date.now();
    if (now - (this.pruned.get(id) ?? 0) < this.lineagePruneMs) return;
    this.pruned.set(id, now);
    try {
      const config = this.pipes.get(id);
      if (!config || effectivePipeConfig(config).sink.type !== 'dataset') return;
      const sink = this.pipes.sinkDataset(id);
      this.state.lineage.prune(id, (after, until) => sink.hasVersionBetween(after, until));
    } catch {
      // The dataset went away meanwhile, or the hub is closing: the next run prunes.
    }
  }

  /** What a pipe worker needs to carry (a share of) this run. */
  private jobRequest(run: ActiveRun, runtime: PipeRuntime, since: string | undefined, batchSize: number): JobRequest {
    return { ...workerRequest(this.runtimes, runtime, since, batchSize, this.recordLineage), ...(run.profile === true ? { profile: true } : {}) };
  }

  private otherRunActive(run: ActiveRun): boolean {
    const slots = this.active.get(run.id);
    const other = run.kind === 'rescan' ? slots?.incremental : slots?.rescan;
    return other !== undefined;
  }

  /** Write a pump event outside a run (e.g. `pump-discard-retries`). */
  logEvent(id: string, eventType: string, extra: JsonObject = {}): number {
    return this.runLog.log(id, { _id: eventType, event_type: eventType, pump_definition: id, event_time: new Date().toISOString(), ...extra });
  }

  /** Pump all batches; false when the run was stopped before the end. */
  private async pump(run: ActiveRun, runId: string, runtime: PipeRuntime, pipe: EffectivePipe, c: Counters): Promise<boolean> {
    const id = run.id;
    const batchSize = typeof pipe['batch_size'] === 'number' && pipe['batch_size'] >= 1 ? Math.floor(pipe['batch_size']) : DEFAULT_BATCH;
    const opener = sinkType(pipe.sink.type)?.open;
    if (!opener) throw new HubError(400, `this hub does not pump a ${pipe.sink.type} sink`);
    const tracking = runtime.tracking;
    let sink: Sink | undefined;
    const writer = runWriter(this.host, id, runId, runtime, pipe, c, batchSize, opener);

    // A run that stays on this thread (its source or sink) has its transform run in a pipe worker, batch by batch
    // (eligibility.ts, remote-transform.ts): opened at the first batch this thread transforms. One that reads its own
    // sink sends a batch only once the one before is written (`own`), and the worker sees the sink as committed.
    const own = ownSink(runtime, pipe);
    let xform: RemoteTransform | undefined;
    let xformTried = false;
    // A batch handed to the transform worker (undefined: this thread transforms it): what comes back, to be written
    // by writeSent. A stop that waits too long for it terminates the worker (a runaway evaluation there); a stop
    // asked for before (maybe while the worker came online) ends the run here.
    const sendBatch = async (entities: JsonObject[]): Promise<{ sent: Promise<RemoteBatch> } | undefined> => {
      if (!xformTried) {
        xformTried = true;
        if (this.workers !== undefined && transformWorkerMayRun(runtime)) {
          const only = { prepared: pipe.sink.type === 'dataset', ...(own.refresh !== undefined ? { refresh: own.refresh } : {}) };
          xform = await this.workers.startTransform(this.jobRequest(run, runtime, undefined, batchSize), only);
          const x = xform;
          if (x) run.abort = () => x.abort(new RunStopped());
        }
      }
      if (!xform) return undefined;
      if (run.stopRequested || this.closed) throw new RunStopped();
      const sent = xform.transform(entities);
      // Awaited in order by writeSent; one sent later may fail first (a stop), which is not an unhandled rejection.
      sent.catch(() => undefined);
      return { sent };
    };
    const writeSent = async (sent: Promise<RemoteBatch>, count: number, position: ((s: PumpState) => void) | undefined, origin: BatchOrigin): Promise<void> => {
      const b = await sent;
      c.transformMs += b.transformMs;
      for (const t of b.tracking) this.state.startTracking(id, t.dataset, t.offset);
      await writer.writeOut(b.out ?? [], b.out === undefined ? b.prepared : undefined, b.deps, count, position, b.lineage === undefined ? undefined : { text: b.lineage, origin });
    };

    // One batch: transform, write and move the pump's position in one transaction.
    const writeBatch = async (entities: JsonObject[], position: ((s: PumpState) => void) | undefined, origin: BatchOrigin = readOrigin): Promise<void> => {
      const handed = await sendBatch(entities);
      if (handed) return writeSent(handed.sent, entities.length, position, origin);
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
      await writer.writeOut(out, undefined, deps, entities.length, position, packer && { text: packer.finish(), origin });
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
      sink = await writer.openSink(full);
      c.offline = sink.offline === true;
      if (c.offline) c.offlineReason = this.runtimes.mask(sinkOfflineReason(pipe, sink));
      if (tracking && src.incremental && !rescan && pipe.source.type === 'dataset') {
        await dependencyPhase(this.host, id, pipe.source['dataset'] as string, parseOffset(since), batchSize, writeBatch, checkStop);
        // The phase's transform job ends here: the rest of the run may go to the workers whole (read in parts only
        // while every worker is idle); a run that stays here opens one again.
        xform?.close();
        xform = undefined;
        xformTried = false;
      }
      let from = since === null || since === '' ? undefined : since;
      const moveTo = (position: string | undefined): ((s: PumpState) => void) | undefined =>
        src.incremental && position !== undefined ? (s: PumpState) => (rescan ? (s.rescanSince = position) : (s.lastSeen = position)) : undefined;
      const drain = async (remote: WorkerRun): Promise<void> => {
        const before = run.abort;
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
            if (local === undefined || group.length === 1) await writer.writeOut([], b.prepared, b.deps, b.count, moveTo(b.position), remoteLineage(b.lineage));
            else {
              const heap = heapExhausted();
              if (heap) throw memoryLimitError(heap);
              const t = performance.now();
              for (const g of group) c.processed += g.count;
              writer.writeLocal(local, group.map((g) => ({ out: [], prepared: g.prepared, deps: g.deps, position: moveTo(g.position), lineage: remoteLineage(g.lineage) })));
              c.sinkMs += performance.now() - t;
            }
            await checkStop();
          }
        } finally {
          run.abort = before;
          remote.close();
        }
      };
      // A pipe worker reads and transforms while this thread writes (see pipe-workers/); else all of it here. A large
      // dataset source is read in parts by every idle worker at once (split-run.ts), then what came after the start.
      let remote: WorkerRun | undefined;
      if (this.workers !== undefined && workerMayRun(runtime, pipe)) {
        const parts = src.parts === true ? this.sourceParts(pipe, from, batchSize) : undefined;
        const split = parts && (await this.workers.startParts(this.jobRequest(run, runtime, from, batchSize), parts.ranges, parts.end));
        if (split) {
          await drain(split);
          from = String(parts.end);
        }
        remote = await this.workers.start(this.jobRequest(run, runtime, from, batchSize));
        if (remote) await drain(remote);
      }
      const batches = remote ? undefined : src.batches(from, batchSize);
      // A batch in the transform worker while this thread reads the next and sends it too, then writes the first. A
      // transform that reads the sink gets the next batch only once the one before is written (this thread reads it
      // meanwhile, unless the source reads the sink too: then nothing is read ahead of a write).
      let held: { sent: Promise<RemoteBatch>; count: number; position: ((s: PumpState) => void) | undefined } | undefined;
      while (batches) {
        const t = performance.now();
        const next = await batches.next();
        c.sourceMs += performance.now() - t;
        if (next.done) break;
        const { entities, position } = next.value;
        if (!own.ahead && held) {
          await writeSent(held.sent, held.count, held.position, readOrigin);
          held = undefined;
        }
        const handed = await sendBatch(entities);
        if (handed === undefined) await writeBatch(entities, moveTo(position));
        else if (!own.readAhead) await writeSent(handed.sent, entities.length, moveTo(position), readOrigin);
        else {
          if (held) await writeSent(held.sent, held.count, held.position, readOrigin);
          held = { sent: handed.sent, count: entities.length, position: moveTo(position) };
        }
        await checkStop();
      }
      if (held) await writeSent(held.sent, held.count, held.position, readOrigin);
      if (!sink.local) {
        if (!writer.pushFailed) await sink.finish();
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
      xform?.close();
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
}

function nextTick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

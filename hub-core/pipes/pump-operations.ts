// The pumps of a hub as the API sees them: pump information, the pump operations, the webhook. Holds the runner,
// the scheduler and the persisted pump state together.

import { randomUUID, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import type { ConfigEntity, ConfigStore } from '../config/index.js';
import type { Db } from '../storage/index.js';
import type { DatasetStore } from '../storage/index.js';
import type { Dataset } from '../storage/index.js';
import type { EffectivePipe } from './pipe-config.js';
import { PumpStateStore } from './pump-state.js';
import { trackedDatasets } from './dependency-tracking.js';
import { PipeWorkerPool } from './workers/pool.js';
import { pipeWorkerCount, workerMemoryMb, workerNice } from './workers/worker-count.js';
import { PumpRunner, executionLogName, isPumpable, parseOffset, type PumpPipes } from './pump-runner.js';
import { PumpScheduler } from './pump-scheduler.js';
import { scheduledPipe } from './pump-config.js';
import type { EnvLookup, VariableContext } from '../config/index.js';
import { sourceType } from './sources/index.js';
import { sinkType } from './sinks/index.js';
import { systemClock, type Clock } from '../base/index.js';
import { PipeRuntimes, type PipeRuntimeContext, type RuntimeChanges } from './pipe-runtime.js';
import { badRequest, notFound } from '../base/index.js';
import type { JsonObject } from '../base/index.js';

export const PUMP_OPERATIONS = [
  'start',
  'start-rescan',
  'stop',
  'enable',
  'disable',
  'update-last-seen',
  'set-last-seen-to-end',
  'reset-tracking',
  'reset-rescan',
  'discard-retries',
] as const;
export type PumpOperation = (typeof PUMP_OPERATIONS)[number];

/** The pump operations a pipe supports, from its effective configuration. */
export function supportedOperations(pipe: EffectivePipe): PumpOperation[] {
  if (!isPumpable(pipe)) return [];
  const mode = pipe.pump['mode'];
  // The source and sink types say what applies (their modules in sources/ and sinks/).
  const datasetSource = sourceType(pipe.source.type)?.positions === true;
  const rescans = datasetSource && sinkType(pipe.sink.type)?.rescans === true;
  const ok = new Set<PumpOperation>(['stop', 'discard-retries']);
  if (mode !== 'off') ok.add('start');
  if (mode !== 'off' && rescans) ok.add('start-rescan');
  if (mode === 'scheduled') ['enable', 'disable'].forEach((o) => ok.add(o as PumpOperation));
  if (datasetSource) ['update-last-seen', 'set-last-seen-to-end', 'reset-tracking'].forEach((o) => ok.add(o as PumpOperation));
  if (rescans) ok.add('reset-rescan');
  return PUMP_OPERATIONS.filter((o) => ok.has(o));
}

export interface PumpPipeSource extends PumpPipes {
  require(id: string): ConfigEntity;
}

/** What the pipe runtimes get from the hub (the pumps add the datasets and dependency tracking). */
export type RuntimeSettings = Omit<PipeRuntimeContext, 'datasets' | 'startTracking'>;

/** How the reason of a run the hub never ended begins. */
const INTERRUPTED = 'interrupted:';

export class PumpService {
  readonly state: PumpStateStore;
  /** What each pipe does to an entity: shared with every other path that moves entities through a pipe. */
  readonly runtimes: PipeRuntimes;
  readonly runner: PumpRunner;
  /** Worker threads that read and transform while this thread writes (pipe-workers/). */
  readonly workers: PipeWorkerPool;
  readonly scheduler: PumpScheduler;
  private readonly env: EnvLookup;

  constructor(
    db: Db,
    private readonly datasets: DatasetStore,
    private readonly pipes: PumpPipeSource,
    config: ConfigStore,
    dataDir: string,
    settings: RuntimeSettings,
    changes: RuntimeChanges,
    clock: Clock = systemClock,
  ) {
    this.env = (name) => settings.vars.env(name);
    this.state = new PumpStateStore(db);
    const state = this.state;
    datasets.setCompactionFloor((name) =>
      state.trackingFloor(name, (pipe) => {
        const config = pipes.get(pipe);
        if (config === undefined) return false;
        const t = trackedDatasets(config['transform']);
        return t.hops && t.named(name) && t.tracked(name);
      }),
    );
    this.runtimes = new PipeRuntimes(
      {
        ...settings,
        datasets,
        startTracking: (pipeId, dataset) => state.startTracking(pipeId, dataset, datasets.get(dataset)?.row().max_updated ?? -1),
        schedulerOff: () => this.schedulerOff(),
      },
      changes,
    );
    this.workers = new PipeWorkerPool(join(dataDir, 'hub.db'), datasets, pipeWorkerCount(), workerMemoryMb(), workerNice());
    this.runner = new PumpRunner(pipes, datasets, this.state, this.runtimes, join(dataDir, 'logs'), this.workers);
    this.scheduler = new PumpScheduler(config, this.state, this.runner, dataDir, clock, this.env);
    // However a pipe goes (its endpoint, a replaced config group, a workspace), its pump goes with it. Announced
    // inside the deleting transaction: act once it is over, and only if the pipe is really gone.
    config.onChange((change) => {
      if (change.kind !== 'pipe' || change.entity !== undefined) return;
      setImmediate(() => {
        try {
          if (this.pipes.get(change.id) === undefined) this.pipeDeleted(change.id);
        } catch {
          // The hub closed meanwhile: nothing to clean up any more.
        }
      });
    });
  }

  /**
   * Begin automatic runs (schedules, run_at_startup), or with `paused` hold them until the scheduler is resumed.
   * Runs of a hub that stopped mid-run are marked ended.
   */
  start(options: { paused?: boolean } = {}): void {
    if (this.scheduler.isStarted) return;
    if (options.paused === true) this.scheduler.setPaused(true);
    for (const id of this.state.pipes()) {
      const s = this.state.get(id);
      if (s.running || s.rescanRunning) this.recordInterrupted(id, s.rescanRunning && !s.running ? 'rescan' : 'incremental');
    }
    this.scheduler.start();
  }

  /**
   * A run that was going when the hub stopped without ending it (killed, crashed, power cut): it is recorded as failed
   * in the execution log and as the last run, naming the run's pump-started event when it had written one.
   */
  private recordInterrupted(id: string, runType: string): void {
    const now = new Date().toISOString();
    const previous = this.state.get(id).lastRun;
    let started: JsonObject | undefined;
    try {
      const event = this.datasets.get(executionLogName(id))?.get('pump-started');
      if (event && event['pump_instance'] !== previous?.run_id) started = event;
    } catch {
      // No readable log: the event below says what is known.
    }
    const runId = typeof started?.['pump_instance'] === 'string' ? started['pump_instance'] : randomUUID();
    const startTime = typeof started?.['start_time'] === 'string' ? started['start_time'] : null;
    // Twice in a row: this pipe may be what brings the hub down (a crash loop with a schedule or run_at_startup).
    const again = previous?.status === 'failed' && (previous.reason_why_stopped ?? '').startsWith(INTERRUPTED);
    const reason = again
      ? `${INTERRUPTED} the hub stopped during this pipe's run twice in a row (killed or crashed), so the pump is disabled and its schedule does not start it again: look at the pipe, then enable the pump (the Enable action on the pipe's page, or POST /pipes/${id}/pump with operation=enable)`
      : `${INTERRUPTED} the hub stopped while this run was in progress (it was killed or crashed); what its committed batches wrote is kept and the next run continues from there`;
    try {
      this.runner.logEvent(id, 'pump-failed', {
        pump_instance: runId,
        run_type: typeof started?.['run_type'] === 'string' ? started['run_type'] : runType,
        trigger: typeof started?.['trigger'] === 'string' ? started['trigger'] : 'unknown',
        start_time: startTime,
        end_time: null,
        status: 'failed',
        interrupted: true,
        reason_why_stopped: reason,
        traceback: '',
      });
    } catch {
      // A pipe whose log cannot be written still gets its last run below.
    }
    this.state.update(id, (x) => {
      x.running = false;
      x.rescanRunning = false;
      if (again) x.disabled = true;
      x.runs += 1;
      x.lastRun = {
        run_id: runId,
        run_type: runType,
        trigger: typeof started?.['trigger'] === 'string' ? started['trigger'] : 'unknown',
        status: 'failed',
        start_time: startTime ?? now,
        end_time: now,
        processed: 0,
        changes: 0,
        errors: 1,
        duration: 0, // unknown: the run's end was never seen
        reason_why_stopped: reason,
      };
    });
  }

  /** Stop scheduling and every run, waiting for runs to end their current batch. */
  async close(): Promise<void> {
    this.scheduler.stop();
    await this.runner.close();
  }

  /** Synchronous part of close, for a hub closing its database right away. */
  closeNow(): void {
    this.scheduler.stop();
    void this.runner.close();
    this.workers.close();
  }

  isRunning(id: string): boolean {
    return this.runner.isRunning(id);
  }

  /** No pump starts by itself: the scheduler is not started, or it is switched off. */
  schedulerOff(): boolean {
    return !this.scheduler.isStarted || this.scheduler.isOff();
  }

  /** What checking a configuration needs: the environment variables and whether the scheduler is off. */
  variables(): VariableContext {
    return { env: this.env, schedulerOff: () => this.schedulerOff() };
  }

  /** Not run by the schedule: mode manual or off, or switched off with `disable`. */
  isDisabled(id: string, pipe: EffectivePipe): boolean {
    return pipe.pump['mode'] !== 'scheduled' || this.state.get(id).disabled;
  }

  supportedOperations(pipe: EffectivePipe): string[] {
    return supportedOperations(pipe);
  }

  /**
   * What waits for the pump: source entities after last-seen (dataset sources, counted up to 100,000), entities
   * waiting for a write retry, and changes in joined datasets that dependency tracking has not looked at yet.
   */
  queues(id: string, pipe: EffectivePipe): JsonObject {
    const s = this.state.get(id);
    const out: JsonObject = { retries: s.pendingRetries };
    if (pipe.source.type === 'dataset' && typeof pipe.source['dataset'] === 'string') {
      const ds = this.datasets.get(pipe.source['dataset']);
      const since = s.lastSeen === null || s.lastSeen === '' ? -1 : Number(s.lastSeen);
      if (ds && Number.isInteger(since)) out['source'] = this.countAfter(ds, since);
    }
    let pending = 0;
    for (const t of this.state.trackingOffsets(id)) {
      const end = this.datasets.get(t.dataset)?.row().max_updated ?? t.offset;
      pending += Math.max(0, end - t.offset);
    }
    out['dependencies'] = pending;
    return out;
  }

  /**
   * Source entities after an offset, counted up to 100,000. Counting is a scan, and the pipe list asks for every
   * pipe on every poll: the count is kept until the dataset's log grows (any write moves its end), so pipes that
   * share a source and a position, and polls of an unchanged dataset, count once.
   */
  private countAfter(ds: Dataset, since: number): number {
    const key = `${ds.tables.log}\u0000${since}\u0000${ds.row().max_updated}`;
    let n = this.backlogCounts.get(key);
    if (n === undefined) {
      n = ds.countAfter(since, 100_000);
      if (this.backlogCounts.size >= 2000) this.backlogCounts.clear();
      this.backlogCounts.set(key, n);
    }
    return n;
  }

  private readonly backlogCounts = new Map<string, number>();

  /**
   * What the pipe list shows of a pump beside the pipe information of the spec (additive `runtime` fields): the
   * last run's summary, the progress of the run in progress, whether a rescan runs and when the next scheduled run is.
   */
  runtimeSummary(id: string): JsonObject {
    const next = this.scheduler.nextRun(id);
    return {
      'is-rescanning': this.runner.isRescanning(id),
      'current-run': this.runner.progress(id),
      'last-run': this.state.get(id).lastRun,
      'next-run': next ? next.toISOString() : null,
    };
  }

  pipeDeleted(id: string): void {
    this.runtimes.forget(id);
    this.scheduler.reschedule(id);
    void this.runner.stop(id).then(() => {
      try {
        if (this.pipes.get(id) === undefined) this.state.delete(id);
      } catch {
        // The hub closed meanwhile.
      }
    });
  }

  info(id: string): JsonObject {
    const pipe = scheduledPipe(this.pipes.require(id), this.env);
    const token = this.state.webhookToken(id);
    const s = this.state.get(id);
    const next = this.scheduler.nextRun(id);
    const schedule: JsonObject = { mode: pipe.pump['mode'] ?? 'scheduled' };
    if (typeof pipe.pump['cron_expression'] === 'string') schedule['cron_expression'] = pipe.pump['cron_expression'];
    else schedule['schedule_interval'] = pipe.pump['schedule_interval'] ?? null;
    schedule['run_at_startup'] = pipe.pump['run_at_startup'] === true;
    return {
      _id: id,
      'is-running': this.runner.isRunning(id),
      'is-disabled': this.isDisabled(id, pipe),
      'is-rescanning': this.runner.isRescanning(id),
      'current-run': this.runner.progress(id),
      'last-seen': s.lastSeen,
      rescan: { 'is-running': this.runner.isRescanning(id), 'last-seen': s.rescanSince },
      'pending-retries': s.pendingRetries,
      'tracking-reset-at': s.trackingResetAt,
      'supported-operations': supportedOperations(pipe),
      schedule,
      'scheduler-disabled': this.scheduler.isOff(),
      'next-run': next ? next.toISOString() : null,
      runs: s.runs,
      'last-run': s.lastRun,
      'webhook-token': token,
      // `start` takes profiler=true here (instance-api §4.2): the run's CPU profile goes to the logs folder.
      'supports-profiler': true,
    };
  }

  /** Carry out one pump operation (form field `operation`); answers the pump information. */
  async operate(id: string, operation: string, form: Record<string, unknown>): Promise<JsonObject> {
    const pipe = scheduledPipe(this.pipes.require(id), this.env);
    if (!(PUMP_OPERATIONS as readonly string[]).includes(operation)) {
      throw badRequest(`unknown pump operation ${JSON.stringify(operation)}`, `known operations: ${PUMP_OPERATIONS.join(', ')}`);
    }
    const supported = supportedOperations(pipe);
    if (!(supported as string[]).includes(operation)) {
      throw badRequest(
        `pipe ${JSON.stringify(id)} does not support the pump operation ${JSON.stringify(operation)}`,
        supported.length > 0 ? `it supports: ${supported.join(', ')}` : 'its pump cannot be operated',
      );
    }
    switch (operation as PumpOperation) {
      case 'start': {
        const profiler = form['profiler'];
        if (profiler !== undefined && profiler !== 'true' && profiler !== 'false' && profiler !== true && profiler !== false) {
          throw badRequest(`invalid profiler value ${JSON.stringify(profiler)}`, 'profiler is "true" or "false"');
        }
        this.runner.start(id, 'incremental', 'manual', { profile: profiler === 'true' || profiler === true });
        break;
      }
      case 'start-rescan':
        this.runner.start(id, 'rescan', 'manual');
        break;
      case 'stop':
        await this.runner.stop(id);
        break;
      case 'enable':
        this.state.update(id, (s) => (s.disabled = false));
        this.scheduler.reschedule(id);
        break;
      case 'disable':
        this.state.update(id, (s) => (s.disabled = true));
        this.scheduler.reschedule(id);
        break;
      case 'update-last-seen': {
        const raw = form['last-seen'];
        // Without the field the pump would silently start over: the value (or an empty one, to start over) is required.
        if (raw === undefined) {
          throw badRequest('the form field "last-seen" is required for update-last-seen', 'send the offset to read after (an "_updated" value), or an empty value to read the source from the beginning');
        }
        const value = raw === undefined || raw === null ? '' : String(raw);
        if (value !== '' && (parseOffset(value) === undefined || !/^-?\d+$/.test(value.trim()))) {
          throw badRequest(`invalid last-seen value ${JSON.stringify(value)}`, 'a dataset source is read from an integer offset (an "_updated" value); an empty value starts from the beginning');
        }
        if (value !== '' && !Number.isSafeInteger(Number(value))) {
          throw badRequest(`invalid last-seen value ${JSON.stringify(value)}`, `an offset is at most ${Number.MAX_SAFE_INTEGER}`);
        }
        this.state.update(id, (s) => (s.lastSeen = value === '' ? null : String(Number(value))));
        // Back to the start: what the outbox recorded is history of an earlier pass.
        if (value === '') this.state.outbox.clear(id);
        this.runner.logEvent(id, 'pump-offset-set', { last_seen: value === '' ? null : String(Number(value)) });
        break;
      }
      case 'set-last-seen-to-end': {
        const name = pipe.source['dataset'] as string;
        const ds = this.datasets.get(name);
        const end = ds ? ds.row().max_updated : -1;
        this.state.update(id, (s) => (s.lastSeen = end < 0 ? null : String(end)));
        this.runner.logEvent(id, 'pump-offset-set', { last_seen: end < 0 ? null : String(end) });
        break;
      }
      case 'reset-tracking':
        // Dependency tracking continues from the end of each joined dataset: earlier changes re-queue nothing.
        this.state.transaction(() => {
          for (const { dataset } of this.state.trackingOffsets(id)) {
            this.state.setTrackingOffset(id, dataset, this.datasets.get(dataset)?.row().max_updated ?? -1);
          }
          this.state.update(id, (s) => (s.trackingResetAt = new Date().toISOString()));
        });
        break;
      case 'reset-rescan':
        this.state.update(id, (s) => (s.rescanSince = null));
        this.state.clearSeen(id);
        break;
      case 'discard-retries': {
        const pending = this.state.get(id).pendingRetries;
        this.state.clearRetries(id);
        this.runner.logEvent(id, 'pump-discard-retries', { discarded_retries: pending });
        break;
      }
    }
    return this.info(id);
  }

  /** A webhook call: with the pipe's token, the pump is scheduled to run; anything else is "not found". */
  webhook(id: string, token: unknown): void {
    const config = this.pipes.get(id);
    const expected = config ? this.state.get(id).webhookToken : null;
    if (!config || !expected || typeof token !== 'string' || !sameText(token, expected)) {
      throw notFound(`webhook of pipe ${JSON.stringify(id)}`, 'no such pipe, or the token is not the pipe\'s webhook token');
    }
    const pipe = scheduledPipe(config, this.env);
    if (!isPumpable(pipe) || pipe.pump['mode'] === 'off' || this.state.get(id).disabled || this.scheduler.isOff()) return;
    this.runner.request(id, 'webhook');
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

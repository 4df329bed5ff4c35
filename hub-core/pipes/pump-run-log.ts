// A pump run's bookkeeping: its events in the pipe's execution log, its last-run summary and the populated flag.
import type { DatasetStore } from '../storage/index.js';
import { DEFAULT_COMPACTION } from '../storage/index.js';
import { effectivePipeConfig } from './pipe-config.js';
import type { PumpStateStore, LastRun } from './pump-state.js';
import type { JsonObject } from '../base/index.js';
import { maskJson } from '../security/index.js';
import type { PipeRuntimes } from './pipe-runtime.js';
import type { ActiveRun, Counters, PumpPipes, StartedEvent } from './pump-run-types.js';

/** Why a run failed: the reason and traceback as logged; `unsetVariable` when it needed an unset $ENV/$SECRET. */
export interface RunFailure {
  reason: string;
  traceback: string;
  unsetVariable?: boolean;
}

/** Everything a run's end records. */
export interface FinishedRun {
  id: string;
  run: ActiveRun;
  runId: string;
  base: JsonObject;
  started: StartedEvent;
  counters: Counters;
  status: LastRun['status'];
  failure: RunFailure | null;
  /** CPU profiles written for the run (`profiler=true`). */
  profileFiles: string[];
  /** Whether another run of the pipe (a rescan beside an incremental run) is still going. */
  otherRunActive: () => boolean;
}

export function executionLogName(pipeId: string): string {
  return `system:pump_execution:${pipeId}`;
}

/** Records what runs did: the execution log's events and the pump state's last run. */
export class RunLog {
  constructor(
    private readonly pipes: PumpPipes,
    private readonly datasets: DatasetStore,
    private readonly state: PumpStateStore,
    private readonly runtimes: PipeRuntimes,
  ) {}

  finish(f: FinishedRun): void {
    const { id, run, runId, base, started, counters: c, status, failure, profileFiles, otherRunActive } = f;
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
      s.running = otherRunActive();
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
        ...(failure?.unsetVariable === true ? { unset_variable: true } : {}),
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

  /** Append an event to the pipe's execution log; returns its offset. */
  log(id: string, entity: JsonObject): number {
    const ds = this.datasets.open(executionLogName(id));
    // The service trims execution logs by age (compaction.time_threshold_hours_pump), never by versions: every run's
    // events stay readable.
    const settings = ds.settings();
    if (settings.compaction === undefined) ds.setSettings({ ...settings, compaction: { ...DEFAULT_COMPACTION, sink: false, automatic: false } });
    return ds.write([maskJson(entity, (text) => this.runtimes.mask(text))]).maxUpdated;
  }
}

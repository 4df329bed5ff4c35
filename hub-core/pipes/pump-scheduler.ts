// Starts pump runs on their schedule: `schedule_interval` seconds, or `cron_expression` (UTC; it wins when both are
// set). Only pumps in mode "scheduled" that are not disabled are scheduled, and none at all while the node metadata
// or the data folder's startup_options.json sets `task_manager.disable_pump_scheduler`. Timers are unref'd: a
// schedule never keeps the process alive.

import { join } from 'node:path';
import { parseCron } from '../config/index.js';
import type { ConfigEntity, ConfigStore } from '../config/index.js';
import { effectivePipeConfig, type EffectivePipe } from './pipe-config.js';
import type { EnvLookup } from '../config/index.js';
import { hasErrors } from '../base/index.js';
import { pipeConfigErrors, scheduledPipe } from './pump-config.js';
import type { PumpStateStore } from './pump-state.js';
import { isPumpable, type PumpRunner } from './pump-runner.js';
import { isJsonObject } from '../base/index.js';
import { systemClock, type Clock, type TimerHandle } from '../base/index.js';
import { isUpstreamOf, upstreamPipes } from './pipe-upstream.js';
import { readTextFile } from '../base/index.js';

/** How often a first run that waits for its upstream pipes looks again. */
const FIRST_RUN_RETRY_MS = 500;
/** A first run waits for an upstream first run due within this long. */
const FIRST_RUN_WAIT_MS = 60_000;

const MAX_TIMER_MS = 2 ** 31 - 1;

/** When the next scheduled run is due (epoch milliseconds), or undefined when the settings give none. */
export function nextRunAt(pipe: EffectivePipe, now = Date.now()): number | undefined {
  const cron = pipe.pump['cron_expression'];
  if (typeof cron === 'string') {
    try {
      const next = parseCron(cron).next(new Date(now));
      return next ? next.getTime() : undefined;
    } catch {
      return undefined;
    }
  }
  const interval = pipe.pump['schedule_interval'];
  return typeof interval === 'number' && interval > 0 ? now + interval * 1000 : undefined;
}

/** `{"task_manager": {"disable_pump_scheduler": true}}` in the data folder's startup_options.json. */
export function readStartupOptions(dataDir: string): { disablePumpScheduler: boolean } {
  let text: string;
  try {
    text = readTextFile(join(dataDir, 'startup_options.json'));
  } catch {
    return { disablePumpScheduler: false };
  }
  try {
    const value: unknown = JSON.parse(text);
    const tm = isJsonObject(value) ? value['task_manager'] : undefined;
    return { disablePumpScheduler: isJsonObject(tm) && tm['disable_pump_scheduler'] === true };
  } catch {
    // An unreadable file must not stop the hub; the pumps then run as they would without it.
    return { disablePumpScheduler: false };
  }
}

export class PumpScheduler {
  private readonly timers = new Map<string, { timer: TimerHandle; at: number }>();
  private started = false;
  private startupDisabled = false;
  /**
   * Paused by the user (a workspace opens with its schedules paused, so a developer can look first): nothing starts
   * by itself until resumed; manual runs, previews and tests are not affected. Not persisted.
   */
  private pausedNow = false;
  private unsubscribe: (() => void) | undefined;
  /** Pipes whose first run since start() has not begun: their downstream pipes' first runs wait for them. */
  private readonly firstPending = new Set<string>();
  private readonly startupRetries = new Map<string, TimerHandle>();
  /** Pipes whose run_at_startup run has not been requested yet. */
  private readonly awaitingStartup = new Set<string>();

  constructor(
    private readonly config: ConfigStore,
    private readonly state: PumpStateStore,
    private readonly runner: PumpRunner,
    private readonly dataDir: string,
    private readonly clock: Clock = systemClock,
    /** Environment variables: pump settings may name theirs ("mode": "$ENV(pump-mode)"). */
    private readonly env: EnvLookup = () => undefined,
  ) {}

  get isStarted(): boolean {
    return this.started;
  }

  get paused(): boolean {
    return this.pausedNow;
  }

  /**
   * Pause or resume the schedules. Pausing cancels every timer (runs going on go on); resuming arms them again and
   * starts the run_at_startup runs that the pause held back, as a start would.
   */
  setPaused(paused: boolean): void {
    if (paused === this.pausedNow) return;
    this.pausedNow = paused;
    if (!this.started) return;
    if (paused) {
      this.cancelTimers();
      return;
    }
    this.rescheduleAll();
    this.beginFirstRuns();
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.startupDisabled = readStartupOptions(this.dataDir).disablePumpScheduler;
    // Changes are announced inside their transaction: act on them once it is over.
    this.unsubscribe = this.config.onChange((change) => {
      if (change.kind === 'pipe') setImmediate(() => this.reschedule(change.id));
      else if (change.kind === 'metadata') setImmediate(() => this.rescheduleAll());
    });
    this.rescheduleAll();
    this.beginFirstRuns();
  }

  /** The first runs since start (or resume): run_at_startup pipes now, in the order of their dependencies. */
  private beginFirstRuns(): void {
    if (this.isOff()) return;
    const startup: string[] = [];
    for (const pipe of this.config.list('pipe')) {
      const eff = this.schedulable(pipe);
      if (!eff) continue;
      this.firstPending.add(pipe._id);
      if (eff.pump['run_at_startup'] === true) startup.push(pipe._id);
    }
    for (const id of startup) this.awaitingStartup.add(id);
    for (const id of startup) this.startupRun(id);
  }

  /** A run at startup, once the pipes upstream of it have had theirs. */
  private startupRun(id: string): void {
    this.startupRetries.delete(id);
    if (!this.started || this.isOff()) {
      this.awaitingStartup.delete(id);
      return;
    }
    if (this.waitsForUpstream(id)) {
      this.startupRetries.set(id, this.clock.setTimer(() => this.startupRun(id), FIRST_RUN_RETRY_MS));
      return;
    }
    this.firstPending.delete(id);
    this.awaitingStartup.delete(id);
    this.runner.request(id, 'startup');
  }

  /**
   * A pipe's first run since start waits while a pipe upstream of it has yet to start its first run or is running,
   * so a downstream pipe does not run before its source has data (pipes in a cycle do not wait for each other).
   */
  private waitsForUpstream(id: string): boolean {
    if (!this.firstPending.has(id)) return false;
    const pipes = new Map<string, EffectivePipe>();
    for (const p of this.config.list('pipe')) pipes.set(p._id, effectivePipeConfig(p));
    const upstream = upstreamPipes(pipes);
    const soon = this.clock.now() + FIRST_RUN_WAIT_MS;
    for (const u of upstream.get(id) ?? []) {
      if (isUpstreamOf(upstream, id, u)) continue;
      if (this.runner.isRunning(u)) return true;
      // An upstream first run that is about to begin (not one a day away on its cron).
      const due = this.timers.get(u)?.at;
      if (this.firstPending.has(u) && (this.awaitingStartup.has(u) || (due !== undefined && due <= soon))) return true;
    }
    return false;
  }

  stop(): void {
    this.started = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.cancelTimers();
  }

  private cancelTimers(): void {
    for (const t of this.timers.values()) t.timer.cancel();
    this.timers.clear();
    for (const t of this.startupRetries.values()) t.cancel();
    this.startupRetries.clear();
    this.awaitingStartup.clear();
    this.firstPending.clear();
  }

  /**
   * No pump starts by itself: switched off in the node metadata (`task_manager.disable_pump_scheduler`, or
   * `disable_user_pipes`, which the service's command-line client sets while it replaces the configuration) or in
   * startup_options.json.
   */
  isDisabled(): boolean {
    if (this.startupDisabled) return true;
    const md = this.config.get('metadata', 'node');
    const tm = md?.['task_manager'];
    return isJsonObject(tm) && (tm['disable_pump_scheduler'] === true || tm['disable_user_pipes'] === true);
  }

  /** Nothing starts by itself now: paused, or switched off (isDisabled). */
  isOff(): boolean {
    return this.pausedNow || this.isDisabled();
  }

  nextRun(id: string): Date | undefined {
    const t = this.timers.get(id);
    return t ? new Date(t.at) : undefined;
  }

  rescheduleAll(): void {
    const ids = new Set(this.config.list('pipe').map((p) => p._id));
    for (const id of this.timers.keys()) if (!ids.has(id)) this.reschedule(id);
    for (const id of ids) this.reschedule(id);
  }

  reschedule(id: string): void {
    const old = this.timers.get(id);
    if (old) old.timer.cancel();
    this.timers.delete(id);
    if (!this.started || this.isOff()) return;
    const config = this.config.get('pipe', id);
    const eff = config ? this.schedulable(config) : undefined;
    if (!eff) return;
    const at = nextRunAt(eff, this.clock.now());
    if (at !== undefined) this.arm(id, at);
  }

  private arm(id: string, at: number): void {
    const timer = this.clock.setTimer(() => this.fire(id, at), Math.min(MAX_TIMER_MS, Math.max(0, at - this.clock.now())));
    this.timers.set(id, { timer, at });
  }

  private fire(id: string, at: number): void {
    if (!this.started) return;
    // Delays beyond what one timer can wait are waited for in steps.
    if (this.clock.now() < at - 5) return this.arm(id, at);
    this.timers.delete(id);
    const config = this.config.get('pipe', id);
    if (!this.isOff() && config && this.schedulable(config)) {
      if (this.waitsForUpstream(id)) return this.arm(id, this.clock.now() + FIRST_RUN_RETRY_MS);
      this.firstPending.delete(id);
      this.runner.start(id, 'incremental', 'schedule');
    }
    this.reschedule(id);
  }

  /** The effective configuration of a pipe the schedule may run, or undefined. */
  schedulable(config: ConfigEntity): EffectivePipe | undefined {
    const eff = scheduledPipe(config, this.env);
    if (eff.pump['mode'] !== 'scheduled' || !isPumpable(eff)) return undefined;
    if (hasErrors(pipeConfigErrors(config, { env: this.env, schedulerOff: () => false }))) return undefined;
    if (this.state.get(config._id).disabled) return undefined;
    return eff;
  }
}

// What the UI reads of GET /pipes/<id>/pump and of pipe information's runtime, the pump operations of instance-api
// §4.2 (when each one applies, what it did in words), and small helpers shared by the pipe list and the pipe page.

/** A finished run in a few words (pump information's and pipe information's `last-run`). */
export interface LastRun {
  status?: string;
  run_type?: string;
  trigger?: string;
  start_time?: string;
  end_time?: string;
  processed?: number;
  changes?: number;
  /** Refused entities, write errors and dead entities; a hub of an older version leaves it out. */
  errors?: number;
  duration?: number;
  reason_why_stopped?: string | null;
  /** The sink is an outside system: the run recorded what it would have sent in the pipe's outbox. */
  offline?: boolean;
}

/** The run in progress (`current-run`): counters that grow batch by batch. */
export interface RunProgress {
  run_type?: string;
  start_time?: string;
  processed?: number;
  changes?: number;
  failed?: number;
  profiling?: boolean;
}

export interface PumpInfo {
  'is-running': boolean;
  'is-disabled': boolean;
  'is-rescanning'?: boolean;
  'current-run'?: RunProgress | null;
  'last-seen'?: string | null;
  'pending-retries'?: number;
  'supported-operations'?: string[];
  'next-run'?: string | null;
  'supports-profiler'?: boolean;
  runs?: number;
  'last-run'?: LastRun | null;
  [key: string]: unknown;
}

export type LogEntry = Record<string, unknown> & { _id: string; _updated: number };

export type OperationName =
  | 'start'
  | 'stop'
  | 'enable'
  | 'disable'
  | 'start-rescan'
  | 'reset-rescan'
  | 'update-last-seen'
  | 'set-last-seen-to-end'
  | 'reset-tracking'
  | 'discard-retries';

export interface PumpOperation {
  op: OperationName;
  label: string;
  help: string;
  /** Asked before it runs (a destructive operation). */
  confirm?: (pump: PumpState) => string;
  /** Ask only while retries are pending (otherwise there is nothing to lose). */
  confirmIfRetries?: boolean;
  /** Takes the `last-seen` form field. */
  param?: 'last-seen';
}

/** What decides whether an operation applies now: the pump's state as the page knows it. */
export interface PumpState {
  running: boolean;
  rescanning: boolean;
  disabled: boolean;
  lastSeen: string | null;
  pendingRetries: number;
}

/** Every pump operation, in the order the buttons show them, with what it does in words. */
export const PUMP_OPERATIONS: readonly PumpOperation[] = [
  { op: 'start', label: 'start', help: 'Start a new run now (works even when scheduling is disabled).' },
  { op: 'stop', label: 'stop', help: 'Stop the running run or rescan after its current batch.' },
  { op: 'enable', label: 'enable', help: 'Allow automatic runs on the schedule.' },
  { op: 'disable', label: 'disable', help: 'Forbid automatic runs; a manual start still works.' },
  { op: 'start-rescan', label: 'start-rescan', help: 'Read the whole source again, unless a rescan is running.' },
  { op: 'reset-rescan', label: 'reset-rescan', help: 'Make the next rescan start from the beginning even if the last one was interrupted.' },
  { op: 'update-last-seen', label: 'update-last-seen…', help: 'Set where the next run continues reading the source, or clear it to start over.', param: 'last-seen' },
  {
    op: 'set-last-seen-to-end',
    label: 'set-last-seen-to-end…',
    help: 'Consider all source data read. Unread source entities are skipped.',
    confirm: (s) =>
      `Skip every unread source entity${s.lastSeen ? ` after offset ${s.lastSeen}` : ''}? They will not reach the sink (data loss is possible).`,
  },
  {
    op: 'reset-tracking',
    label: 'reset-tracking…',
    help: 'Experimental: dependency tracking continues from the end of joined datasets; output may be incorrect for untracked changes.',
    confirm: () => 'Reset dependency tracking? Changes made to joined datasets until now will not re-queue source entities.',
  },
  {
    op: 'discard-retries',
    label: 'discard-retries',
    help: 'The next run ignores pending retries of failed writes; they do not go to the dead-letter dataset.',
    confirm: (s) => `Discard ${s.pendingRetries} pending ${s.pendingRetries === 1 ? 'retry' : 'retries'}? Those entities will not be written.`,
    confirmIfRetries: true,
  },
];

/** The state the operations depend on, from the hub's pump information. */
export function pumpStateOf(pump: PumpInfo): PumpState {
  return {
    running: pump['is-running'],
    rescanning: pump['is-rescanning'] === true,
    disabled: pump['is-disabled'],
    lastSeen: pump['last-seen'] ?? null,
    pendingRetries: pump['pending-retries'] ?? 0,
  };
}

/** Why an operation the pipe supports does not apply in the pump's current state (null: it applies). */
export function notNow(op: OperationName, s: PumpState): string | null {
  switch (op) {
    case 'start':
      return s.running ? (s.rescanning ? 'A rescan is in progress.' : 'A run is in progress.') : null;
    case 'start-rescan':
      return s.rescanning ? 'A rescan is in progress.' : null;
    case 'stop':
      return s.running ? null : 'Nothing runs: the pump is idle.';
    case 'enable':
      return s.disabled ? null : 'Scheduling is already enabled.';
    case 'disable':
      return s.disabled ? 'Scheduling is already disabled.' : null;
    default:
      return null;
  }
}

/** What an operation did, in words, from the pump information it answered. */
export function operationResult(op: OperationName, pump: PumpInfo, before: PumpState): string {
  const last = pump['last-seen'] ?? null;
  switch (op) {
    case 'start':
      return pump['is-running'] ? 'Started a run.' : 'Started a run; it has ended already.';
    case 'stop':
      return before.running ? `Stopped: the run ended after its current batch${pump['last-run'] ? ` (${pump['last-run'].processed ?? 0} entities processed)` : ''}.` : 'Nothing was running.';
    case 'enable':
      return `Scheduling enabled${pump['next-run'] ? `: next run ${new Date(pump['next-run']).toLocaleString()}` : ''}.`;
    case 'disable':
      return 'Scheduling disabled: no automatic runs; start still works.';
    case 'start-rescan':
      return 'Started a rescan of the whole source.';
    case 'reset-rescan':
      return 'The next rescan starts from the beginning.';
    case 'update-last-seen':
      return last === null ? 'Last-seen cleared: the next run reads the source from the beginning.' : `Last-seen set to ${last}: the next run reads what comes after it.`;
    case 'set-last-seen-to-end':
      return last === null ? 'The source is empty: nothing to skip.' : `Last-seen set to the end of the source (${last}): the next run reads only new entities.`;
    case 'reset-tracking':
      return 'Dependency tracking reset: it continues from the end of the joined datasets.';
    case 'discard-retries':
      return `Discarded ${before.pendingRetries} pending ${before.pendingRetries === 1 ? 'retry' : 'retries'}.`;
  }
}

/** "12 s ago", "3 min ago", … for a date-time string; the string itself when it does not parse. */
export function ago(time: string | undefined | null, now = Date.now()): string {
  if (!time) return '—';
  const t = Date.parse(time);
  if (Number.isNaN(t)) return time;
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(t).toLocaleString();
}

/** "in 12 s", "in 3 min", … for a future date-time string. */
export function until(time: string | undefined | null, now = Date.now()): string {
  if (!time) return '';
  const t = Date.parse(time);
  if (Number.isNaN(t)) return time;
  const s = Math.max(0, Math.round((t - now) / 1000));
  if (s < 60) return `in ${s} s`;
  if (s < 3600) return `in ${Math.floor(s / 60)} min`;
  if (s < 86400) return `in ${Math.floor(s / 3600)} h`;
  return new Date(t).toLocaleString();
}

/** Seconds as "0.42 s", "12 s", "3 min 5 s". */
export function seconds(s: number): string {
  if (s < 10) return `${s.toFixed(2)} s`;
  if (s < 120) return `${Math.round(s)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** The result of a run in one word: ok, failed or stopped. */
export function runResult(run: LastRun | null | undefined): 'ok' | 'failed' | 'stopped' | null {
  if (!run) return null;
  if (run.status === 'failed') return 'failed';
  if (run.status === 'stopped') return 'stopped';
  return 'ok';
}

/** The config group a pipe belongs to ('' = the default group). */
export function configGroup(original: Record<string, unknown>): string {
  const meta = original['metadata'];
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    const g = (meta as Record<string, unknown>)['$config-group'];
    if (typeof g === 'string') return g;
  }
  return '';
}

/** The last finished run in execution-log entries read newest first (pump-completed / pump-failed), or null. */
export function lastRunOfLog(newestFirst: readonly Record<string, unknown>[]): LastRun | null {
  const e = newestFirst.find((x) => ['pump-completed', 'pump-failed'].includes(String(x['event_type'] ?? x['_id'])));
  if (!e) return null;
  const text = (k: string): string | undefined => (typeof e[k] === 'string' ? (e[k] as string) : undefined);
  const num = (k: string): number | undefined => (typeof e[k] === 'number' ? (e[k] as number) : undefined);
  return {
    status: e['event_type'] === 'pump-failed' ? 'failed' : (text('status') ?? 'completed'),
    start_time: text('start_time'),
    end_time: text('end_time'),
    processed: num('processed_entities'),
    changes: num('changed_entities'),
    errors: runErrors(e),
    duration: num('duration'),
    reason_why_stopped: text('reason_why_stopped') ?? null,
  };
}

/** Errors of a finished run as the chart and the list count them. */
export function runErrors(e: Record<string, unknown>): number {
  const n = (k: string): number => (typeof e[k] === 'number' && Number.isFinite(e[k]) ? (e[k] as number) : 0);
  return n('entities_failed') + n('write_errors') + n('dead_entities');
}

// What the UI reads of GET /pipes/<id>/pump, the pump operations of instance-api §4.2, and small helpers shared by
// the pipe list and the pipe page.

export interface LastRun {
  status?: string;
  start_time?: string;
  end_time?: string;
  processed?: number;
  changes?: number;
  reason_why_stopped?: string | null;
}

export interface PumpInfo {
  'is-running': boolean;
  'is-disabled': boolean;
  'is-rescanning'?: boolean;
  'last-seen'?: string | null;
  'pending-retries'?: number;
  'supported-operations'?: string[];
  'next-run'?: string | null;
  runs?: number;
  'last-run'?: LastRun | null;
  [key: string]: unknown;
}

export type LogEntry = Record<string, unknown> & { _id: string; _updated: number };

/**
 * Every pump operation, in the order the buttons show them, with what it does in words. `confirm` asks first;
 * `confirmIfRetries` asks only while retries are pending (otherwise there is nothing to lose).
 */
export const PUMP_OPERATIONS: readonly { op: string; label: string; help: string; confirm?: string; confirmIfRetries?: boolean; param?: 'last-seen' }[] = [
  { op: 'start', label: 'start', help: 'Start a new run now (works even when scheduling is disabled).' },
  { op: 'stop', label: 'stop', help: 'Stop the running run or rescan; no effect when idle.' },
  { op: 'enable', label: 'enable', help: 'Allow automatic runs on the schedule.' },
  { op: 'disable', label: 'disable', help: 'Forbid automatic runs; a manual start still works.' },
  { op: 'start-rescan', label: 'start-rescan', help: 'Read the whole source again, unless a rescan is running.' },
  { op: 'reset-rescan', label: 'reset-rescan', help: 'Make the next rescan start from the beginning even if the last one was interrupted.' },
  { op: 'update-last-seen', label: 'update-last-seen…', help: 'Set where the next run continues reading the source; empty starts over.', param: 'last-seen' },
  {
    op: 'set-last-seen-to-end',
    label: 'set-last-seen-to-end',
    help: 'Consider all source data read. Unread source entities are skipped.',
    confirm: 'Skip every unread source entity? They will not reach the sink (data loss is possible).',
  },
  {
    op: 'reset-tracking',
    label: 'reset-tracking',
    help: 'Experimental: dependency tracking continues from the end of joined datasets; output may be incorrect for untracked changes.',
    confirm: 'Reset dependency tracking? Changes made to joined datasets until now will not re-queue source entities.',
  },
  {
    op: 'discard-retries',
    label: 'discard-retries',
    help: 'The next run ignores pending retries of failed writes; they do not go to the dead-letter dataset.',
    confirm: 'Discard every pending retry? Those entities will not be written.',
    confirmIfRetries: true,
  },
];

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

// Notification rules as code: the portal's rule types (portal-api.md §2.10, §3, §4.6) kept with the pipe, in its
// configuration's `metadata.notification_rules`, and evaluated on this hub's own pump runs. The rule types and their
// `extra_rule_info` are those the portal offers (the identifiers and parameter names of test/helpers/portal-server.ts),
// so a rule moves between the workspace and a subscription unchanged.
//
// Alerts are derived from the pipe's execution log (every run's pump-completed / pump-failed event and every
// pump-offset-set event, in order), so they need no state of their own and read the same after a restart:
//   - after each run every rule is evaluated; one whose condition holds raises an alert (§3: the pipe's status turns
//     `failed`), one whose condition no longer holds ends its ongoing alert;
//   - a rule raises at most one alert per hour (§4.6.9): triggerings within the hour after an alert was raised are
//     merged into it (event_count, last_event_timestamp);
//   - "Pump started overdue" looks at the clock: it is evaluated when the alerts are read.

import { anyChar, anyRun, caseInsensitiveAtom, compileGlob, literalAtom, type GlobAtom } from '../base/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';
import type { Notification as PortalNotification } from '../base/index.js';

export const NUMERIC_METRICS: Readonly<Record<string, string>> = {
  'Entities processed': 'processed_entities',
  'Changed entities': 'changed_entities',
  'Failed retries': 'failed_retries',
  'Dead entities': 'dead_entities',
  'Failed retried entities': 'failed_retried_entities',
  'Successfully retried entities': 'successfully_retried_entities',
  'Read errors': 'read_errors',
  'Write errors': 'write_errors',
  'Sink time': 'sink_time',
  'Source time': 'source_time',
  'Transform time': 'transform_time',
};

export const TEXT_METRICS: Readonly<Record<string, string>> = {
  'Reason why stopped': 'reason_why_stopped',
  Traceback: 'traceback',
  'Additional low-level errormessage': 'additional_errormessage',
  'Additional low-level traceback': 'additional_traceback',
};

export const RULE_TYPE_IDS = [
  'pump_completed_value_too_low',
  'pump_completed_value_too_high',
  'pump_completed_value_too_low_over_time',
  'pump_completed_value_too_high_over_time',
  'pump_started_overdue',
  'pump_finished_overdue',
  'pump_failed',
  'pump_restore_completed',
  'pump_offset_set',
  'pattern_match',
] as const;
export type RuleType = (typeof RULE_TYPE_IDS)[number];

/** Seconds the portal adds to the overdue rules' own parameter (§4.6.2, §4.6.3). */
export const OVERDUE_BASE_SECONDS = 300;
const HOUR_MS = 3_600_000;
const UNIT_MS: Readonly<Record<string, number>> = { minutes: 60_000, hours: HOUR_MS, days: 24 * HOUR_MS };

export interface NotificationRule {
  id: string;
  type: RuleType;
  name: string;
  description: string;
  extra_rule_info: JsonObject;
}

export interface RuleProblem {
  /** Where in the pipe configuration. */
  elements: string;
  msg: string;
}

/** An alert in the shape of the portal's notification (§2.8), for one of this hub's pipes. */
export interface LocalAlert
  extends Pick<
    PortalNotification,
    | 'notification_id'
    | 'notification_rule_id'
    | 'notification_rule_name'
    | 'notification_rule_type'
    | 'msg'
    | 'event_timestamp'
    | 'last_event_timestamp'
    | 'event_count'
    | 'is_ongoing'
  > {
  pipe_id: string;
  /** The run that raised the alert (its `pump_instance`) and the one that triggered it last. */
  extra_notification_info: { run: string | null; last_run: string | null };
}

/**
 * A `*` / `?` pattern (§4.6.7) that matches anywhere in a value, matched as a regular expression with the `u` (and,
 * when not case sensitive, `i`) flags would, but without backtracking (issue 32): `pat` anywhere is `*pat*` whole.
 */
export function wildcardPattern(pattern: string, caseSensitive: boolean): { test(text: string): boolean } {
  const atom = (c: string): GlobAtom => (c === '*' ? anyRun : c === '?' ? anyChar : caseSensitive ? literalAtom(c) : caseInsensitiveAtom(c));
  const test = compileGlob([anyRun, ...Array.from(pattern, atom), anyRun]);
  return { test };
}

/** The rules of a pipe configuration and the problems of those that cannot be used. */
export function pipeRules(config: JsonObject): { rules: NotificationRule[]; problems: RuleProblem[] } {
  const rules: NotificationRule[] = [];
  const problems: RuleProblem[] = [];
  const metadata = config['metadata'];
  const list = isJsonObject(metadata) ? metadata['notification_rules'] : undefined;
  if (list === undefined) return { rules, problems };
  if (!Array.isArray(list)) return { rules, problems: [{ elements: '$.metadata.notification_rules', msg: 'must be a list of rules' }] };
  const ids = new Set<string>();
  list.forEach((raw, i) => {
    const at = `$.metadata.notification_rules[${i}]`;
    const bad = (msg: string, where = at): void => void problems.push({ elements: where, msg });
    if (!isJsonObject(raw)) return bad('a rule is an object with "type" and "name"');
    const type = raw['type'];
    if (typeof type !== 'string' || !(RULE_TYPE_IDS as readonly string[]).includes(type)) {
      return bad(`unknown rule type ${JSON.stringify(type)}; the types: ${RULE_TYPE_IDS.join(', ')}`, `${at}.type`);
    }
    const extra = raw['extra_rule_info'] ?? {};
    if (!isJsonObject(extra)) return bad('must be an object', `${at}.extra_rule_info`);
    const problem = parameterProblem(type as RuleType, extra);
    if (problem) return bad(problem, `${at}.extra_rule_info`);
    const name = typeof raw['name'] === 'string' && raw['name'] !== '' ? raw['name'] : type;
    const id = typeof raw['id'] === 'string' && raw['id'] !== '' ? raw['id'] : name;
    if (ids.has(id)) return bad(`two rules are named ${JSON.stringify(id)}; give one an "id" or another "name"`);
    ids.add(id);
    rules.push({ id, type: type as RuleType, name, description: typeof raw['description'] === 'string' ? raw['description'] : '', extra_rule_info: extra });
  });
  return { rules, problems };
}

/** Why a rule's parameters are unusable (the portal's rule-type schemas), or null. */
function parameterProblem(type: RuleType, x: JsonObject): string | null {
  const nonNegative = (k: string, integer: boolean, required: boolean): string | null => {
    const v = x[k];
    if (v === undefined) return required ? `"${k}" is required` : null;
    return typeof v === 'number' && v >= 0 && (!integer || Number.isInteger(v)) ? null : `"${k}" must be a non-negative ${integer ? 'integer' : 'number'}`;
  };
  switch (type) {
    case 'pump_completed_value_too_low':
    case 'pump_completed_value_too_high':
    case 'pump_completed_value_too_low_over_time':
    case 'pump_completed_value_too_high_over_time': {
      if (typeof x['metric'] !== 'string' || !(x['metric'] in NUMERIC_METRICS)) return `"metric" must be one of ${Object.keys(NUMERIC_METRICS).join(', ')}`;
      const limit = nonNegative('limit', false, true);
      if (limit) return limit;
      if (!type.endsWith('_over_time')) return null;
      const p = x['period'];
      if (!isJsonObject(p) || typeof p['amount'] !== 'number' || !Number.isInteger(p['amount']) || p['amount'] < 1 || typeof p['unit'] !== 'string' || !(p['unit'] in UNIT_MS)) {
        return '"period" must be {"amount": <integer ≥ 1>, "unit": "minutes" | "hours" | "days"}';
      }
      return null;
    }
    case 'pump_started_overdue':
      return nonNegative('grace_period', true, false);
    case 'pump_finished_overdue':
      return nonNegative('limit', true, true);
    case 'pattern_match': {
      if (typeof x['metric'] !== 'string' || !(x['metric'] in TEXT_METRICS)) return `"metric" must be one of ${Object.keys(TEXT_METRICS).join(', ')}`;
      const p = x['patterns'];
      if (!Array.isArray(p) || p.length === 0 || !p.every((s) => typeof s === 'string' && s !== '')) return '"patterns" must be a non-empty list of non-empty strings';
      if (x['case_sensitive'] !== undefined && typeof x['case_sensitive'] !== 'boolean') return '"case_sensitive" must be true or false';
      return null;
    }
    default:
      return null;
  }
}

/** A run's end as the execution log records it (pump-completed or pump-failed), or an offset being set. */
export interface PumpEvent {
  type: 'run' | 'offset-set';
  /** When it happened (a run: its end). */
  time: number;
  /** A run: the event's fields (metrics, status, duration, pump_instance). */
  fields: JsonObject;
}

/** The events of an execution log, oldest first, that rules look at. */
export function pumpEvents(log: Iterable<JsonObject>): PumpEvent[] {
  const out: PumpEvent[] = [];
  for (const e of log) {
    const kind = e['event_type'];
    if (kind === 'pump-completed' || kind === 'pump-failed') {
      const t = Date.parse(String(e['end_time'] ?? ''));
      if (!Number.isNaN(t)) out.push({ type: 'run', time: t, fields: e });
    } else if (kind === 'pump-offset-set') {
      const t = Date.parse(String(e['event_time'] ?? ''));
      if (!Number.isNaN(t)) out.push({ type: 'offset-set', time: t, fields: e });
    }
  }
  return out;
}

function failed(run: JsonObject): boolean {
  return run['event_type'] === 'pump-failed' || run['status'] === 'failed';
}

function metric(run: JsonObject, label: string): number | undefined {
  const v: JsonValue | undefined = run[NUMERIC_METRICS[label]!];
  return typeof v === 'number' ? v : undefined;
}

/** Whether one run meets a value rule's condition (§4.6.1), and the value. */
function valueCondition(rule: NotificationRule, run: JsonObject): { holds: boolean; value: number | undefined } {
  const label = rule.extra_rule_info['metric'] as string;
  const limit = rule.extra_rule_info['limit'] as number;
  const value = metric(run, label);
  if (value === undefined) return { holds: false, value };
  return { holds: rule.type.includes('too_low') ? value < limit : value > limit, value };
}

/**
 * Whether the rule's condition holds after the run `runs[last]` (the runs before it are its history), and in words why.
 * Null: the rule does not look at runs (offset set, started overdue, restore).
 */
export function ruleHoldsAfterRun(rule: NotificationRule, runs: readonly PumpEvent[], last: number): { holds: boolean; msg: string } | null {
  const run = runs[last]!.fields;
  const x = rule.extra_rule_info;
  switch (rule.type) {
    case 'pump_completed_value_too_low':
    case 'pump_completed_value_too_high': {
      const { holds, value } = valueCondition(rule, run);
      return { holds, msg: `${String(x['metric'])} was ${value ?? 'not recorded'}, ${rule.type.endsWith('low') ? 'below' : 'above'} the limit ${String(x['limit'])}` };
    }
    case 'pump_completed_value_too_low_over_time':
    case 'pump_completed_value_too_high_over_time': {
      // The condition must have held at every run for at least the period: the streak of runs meeting it, back from
      // this one, must start a period or more before this run's end.
      const p = x['period'] as { amount: number; unit: string };
      const periodMs = p.amount * UNIT_MS[p.unit]!;
      let first = last;
      while (first >= 0 && valueCondition(rule, runs[first]!.fields).holds) first--;
      first++;
      const holds = first <= last && runs[last]!.time - runs[first]!.time >= periodMs;
      const { value } = valueCondition(rule, run);
      return {
        holds,
        msg: `${String(x['metric'])} has been ${rule.type.includes('too_low') ? 'below' : 'above'} the limit ${String(x['limit'])} for ${p.amount} ${p.unit} (now ${value ?? 'not recorded'})`,
      };
    }
    case 'pump_failed':
      return { holds: failed(run), msg: `the run failed: ${String(run['reason_why_stopped'] ?? '')}` };
    case 'pump_finished_overdue': {
      const limit = OVERDUE_BASE_SECONDS + (x['limit'] as number);
      const duration = typeof run['duration'] === 'number' ? run['duration'] : 0;
      return { holds: duration > limit, msg: `the run took ${duration} s, more than ${limit} s` };
    }
    case 'pattern_match': {
      const label = x['metric'] as string;
      const value = run[TEXT_METRICS[label]!];
      const text = typeof value === 'string' ? value : '';
      // A missing or empty value never matches.
      const hit = text === '' ? undefined : (x['patterns'] as string[]).find((pat) => wildcardPattern(pat, x['case_sensitive'] === true).test(text));
      return { holds: hit !== undefined, msg: `${label} matches ${JSON.stringify(hit ?? '')}: ${text.slice(0, 200)}` };
    }
    default:
      return null;
  }
}

/** The pipe's schedule as the overdue rule reads it: seconds between runs, when it has a fixed interval. */
export interface ScheduleFacts {
  /** Seconds between scheduled runs (null: not scheduled, or by cron). */
  interval: number | null;
  /** The next start a cron expression gives after a time (ms), when the pipe runs by cron. */
  cronNext?: (after: number) => number | null;
}

/** When the next start is expected after the latest run start or end (§4.6.2), or null when none is. */
export function expectedStart(lastActivity: number | null, schedule: ScheduleFacts): number | null {
  if (lastActivity === null) return null;
  if (schedule.interval !== null) return lastActivity + schedule.interval * 1000;
  return schedule.cronNext ? schedule.cronNext(lastActivity) : null;
}

/** Evaluate the rules over a pipe's events; `now` and the schedule serve "Pump started overdue". */
export function evaluateRules(
  pipeId: string,
  rules: readonly NotificationRule[],
  events: readonly PumpEvent[],
  options: { now: number; schedule: ScheduleFacts; lastStart: number | null; running: boolean },
): LocalAlert[] {
  const alerts: LocalAlert[] = [];
  const open = new Map<string, LocalAlert>();
  const runs = events.filter((e) => e.type === 'run');
  const trigger = (rule: NotificationRule, time: number, msg: string, run: string | null): void => {
    const iso = new Date(time).toISOString();
    const last = open.get(rule.id);
    // At most one alert per rule per hour: later triggerings within the hour are counted in it.
    if (last && time - Date.parse(last.event_timestamp) < HOUR_MS) {
      last.event_count++;
      last.last_event_timestamp = iso;
      last.is_ongoing = true;
      last.msg = msg;
      last.extra_notification_info.last_run = run;
      return;
    }
    const alert: LocalAlert = {
      notification_id: alerts.length + 1,
      notification_rule_id: rule.id,
      notification_rule_name: rule.name,
      notification_rule_type: rule.type,
      msg,
      event_timestamp: iso,
      last_event_timestamp: iso,
      event_count: 1,
      is_ongoing: true,
      pipe_id: pipeId,
      extra_notification_info: { run, last_run: run },
    };
    alerts.push(alert);
    open.set(rule.id, alert);
  };
  const resolve = (rule: NotificationRule): void => {
    const a = open.get(rule.id);
    if (a) a.is_ongoing = false;
  };
  let runIndex = -1;
  for (const e of events) {
    if (e.type === 'offset-set') {
      for (const rule of rules) {
        if (rule.type === 'pump_offset_set') trigger(rule, e.time, `the offset was set to ${JSON.stringify(e.fields['last_seen'] ?? null)}`, null);
      }
      continue;
    }
    runIndex++;
    const runId = typeof e.fields['pump_instance'] === 'string' ? e.fields['pump_instance'] : null;
    for (const rule of rules) {
      const verdict = ruleHoldsAfterRun(rule, runs, runIndex);
      if (verdict === null) {
        // A run that succeeds ends the offset alert too (§3: a successful run clears the pipe's notifications).
        if (rule.type === 'pump_offset_set' && !failed(e.fields)) resolve(rule);
        continue;
      }
      if (verdict.holds) trigger(rule, e.time, verdict.msg, runId);
      else resolve(rule);
    }
  }
  // Started overdue: the next expected start passed by more than 300 s plus the grace period, with no start since.
  const lastEnd = runs.length > 0 ? runs[runs.length - 1]!.time : null;
  const lastActivity = Math.max(options.lastStart ?? -Infinity, lastEnd ?? -Infinity);
  const expected = options.running ? null : expectedStart(Number.isFinite(lastActivity) ? lastActivity : null, options.schedule);
  for (const rule of rules) {
    if (rule.type !== 'pump_started_overdue' || expected === null) continue;
    const grace = OVERDUE_BASE_SECONDS + ((rule.extra_rule_info['grace_period'] as number | undefined) ?? 0);
    if (options.now > expected + grace * 1000) {
      trigger(rule, expected + grace * 1000, `no run started since ${new Date(expected).toISOString()}, when one was expected (${grace} s allowed)`, null);
    }
  }
  return alerts;
}

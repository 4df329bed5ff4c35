// Notification rules kept with the pipe (metadata.notification_rules) and evaluated on this hub's pump runs. The rule
// semantics follow portal-api.md §4.6 point by point (on made-up run histories where they need the clock), then the
// API is checked on real runs of a real hub.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { pipePath, pumpOperation, runPump } from '../../helpers/api.js';
import { evaluateRules, pipeRules, wildcardPattern, type NotificationRule, type PumpEvent, type ScheduleFacts } from '../../../hub-core/config/index.js';

type Json = Record<string, unknown>;
const T0 = Date.parse('2026-01-05T10:00:00Z');
const MIN = 60_000;

function rule(type: NotificationRule['type'], extra: Json = {}, id = type): NotificationRule {
  return { id, type, name: id, description: '', extra_rule_info: extra as NotificationRule['extra_rule_info'] };
}
function run(at: number, fields: Json = {}): PumpEvent {
  return { type: 'run', time: at, fields: { event_type: 'pump-completed', status: 'completed', processed_entities: 10, changed_entities: 0, duration: 1, pump_instance: `run-${at}`, ...fields } as PumpEvent['fields'] };
}
const noSchedule: ScheduleFacts = { interval: null };
const evaluate = (rules: NotificationRule[], events: PumpEvent[], now = T0 + 24 * 60 * MIN, schedule = noSchedule, lastStart: number | null = null) =>
  evaluateRules('p', rules, events, { now, schedule, lastStart, running: false });

describe('rule semantics (portal-api.md §4.6)', () => {
  test('1. value too low / too high compare the run\'s metric with the limit', () => {
    const high = rule('pump_completed_value_too_high', { metric: 'Changed entities', limit: 5 });
    const low = rule('pump_completed_value_too_low', { metric: 'Entities processed', limit: 3 });
    const alerts = evaluate([high, low], [run(T0, { changed_entities: 6, processed_entities: 3 })]);
    assert.deepEqual(alerts.map((a) => a.notification_rule_type), ['pump_completed_value_too_high'], '3 is not below 3');
    assert.match(alerts[0]!.msg, /Changed entities was 6, above the limit 5/);
    assert.equal(evaluate([high], [run(T0, { changed_entities: 5 })]).length, 0, '5 is not above 5');
  });

  test('1. the over-time variants trigger only when the condition has held for the whole period', () => {
    const r = rule('pump_completed_value_too_high_over_time', { metric: 'Write errors', limit: 0, period: { amount: 1, unit: 'hours' } });
    const bad = (at: number): PumpEvent => run(at, { write_errors: 2 });
    assert.equal(evaluate([r], [bad(T0), bad(T0 + 30 * MIN), bad(T0 + 59 * MIN)]).length, 0, 'not an hour yet');
    const alerts = evaluate([r], [bad(T0), bad(T0 + 30 * MIN), bad(T0 + 60 * MIN)]);
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0]!.event_timestamp, new Date(T0 + 60 * MIN).toISOString());
    // A good run in between starts the period again.
    assert.equal(evaluate([r], [bad(T0), run(T0 + 20 * MIN), bad(T0 + 30 * MIN), bad(T0 + 60 * MIN)]).length, 0);
  });

  test('2. pump started overdue: 300 s plus the grace period after the next expected start', () => {
    const r = rule('pump_started_overdue', { grace_period: 60 });
    const schedule: ScheduleFacts = { interval: 600 };
    const lastEnd = T0;
    const due = T0 + 600 * 1000 + 360 * 1000;
    assert.equal(evaluate([r], [run(lastEnd)], due, schedule).length, 0, 'exactly at the limit');
    const alerts = evaluate([r], [run(lastEnd)], due + 1000, schedule);
    assert.equal(alerts.length, 1);
    assert.match(alerts[0]!.msg, /360 s allowed/);
    // A later start moves the expectation.
    assert.equal(evaluate([r], [run(lastEnd)], due + 1000, schedule, T0 + 500 * 1000).length, 0);
    assert.equal(evaluate([r], [run(lastEnd)], due + 1000, noSchedule).length, 0, 'a pipe that is not scheduled is never overdue');
  });

  test('3. pump finished overdue: a run longer than 300 s plus the limit', () => {
    const r = rule('pump_finished_overdue', { limit: 100 });
    assert.equal(evaluate([r], [run(T0, { duration: 400 })]).length, 0);
    assert.equal(evaluate([r], [run(T0, { duration: 400.5 })]).length, 1);
  });

  test('4. pump failed: the last run failed; a run that succeeds ends the alert', () => {
    const r = rule('pump_failed');
    const failed = run(T0, { event_type: 'pump-failed', status: 'failed', reason_why_stopped: 'boom' });
    const [alert] = evaluate([r], [failed]);
    assert.equal(alert!.is_ongoing, true);
    assert.equal(alert!.extra_notification_info.run, `run-${T0}`);
    const after = evaluate([r], [failed, run(T0 + 5 * MIN)]);
    assert.equal(after.length, 1);
    assert.equal(after[0]!.is_ongoing, false);
  });

  test('6. pump offset set triggers on every offset change', () => {
    const r = rule('pump_offset_set');
    const alerts = evaluate([r], [{ type: 'offset-set', time: T0, fields: { last_seen: '42' } }]);
    assert.equal(alerts.length, 1);
    assert.match(alerts[0]!.msg, /"42"/);
  });

  test('7. pattern match: * any characters, ? exactly one, anywhere in the value; an empty value never matches', () => {
    assert.equal(wildcardPattern('time?out', false).test('a time-out here'), true);
    assert.equal(wildcardPattern('time?out', false).test('timeout'), false);
    assert.equal(wildcardPattern('time?out', false).test('timed out'), false);
    assert.equal(wildcardPattern('conn*refused', false).test('Connection was REFUSED'), true);
    assert.equal(wildcardPattern('refused', true).test('REFUSED'), false);
    assert.equal(wildcardPattern('a.b', false).test('axb'), false, 'other characters are literal');
    const r = rule('pattern_match', { metric: 'Reason why stopped', patterns: ['*'] });
    assert.equal(evaluate([r], [run(T0, { reason_why_stopped: '' })]).length, 0);
    assert.equal(evaluate([r], [run(T0)]).length, 0, 'missing');
    assert.equal(evaluate([r], [run(T0, { reason_why_stopped: 'x' })]).length, 1);
  });

  test('9. at most one alert per rule per hour, with the count and the first and last times', () => {
    const r = rule('pump_failed');
    const fail = (at: number): PumpEvent => run(at, { status: 'failed', event_type: 'pump-failed' });
    const alerts = evaluate([r], [fail(T0), fail(T0 + 10 * MIN), fail(T0 + 50 * MIN), fail(T0 + 61 * MIN)]);
    assert.equal(alerts.length, 2);
    assert.deepEqual([alerts[0]!.event_count, alerts[0]!.event_timestamp, alerts[0]!.last_event_timestamp], [3, new Date(T0).toISOString(), new Date(T0 + 50 * MIN).toISOString()]);
    assert.equal(alerts[1]!.event_count, 1);
  });

  test('rules that cannot be used are reported with where they are', () => {
    const { rules, problems } = pipeRules({
      _id: 'p',
      type: 'pipe',
      metadata: {
        notification_rules: [
          { type: 'pump_failed', name: 'failed' },
          { type: 'no_such_type' },
          { type: 'pump_completed_value_too_high', extra_rule_info: { metric: 'Bananas', limit: 1 } },
          { type: 'pattern_match', extra_rule_info: { metric: 'Traceback', patterns: [] } },
          { type: 'pump_failed', name: 'failed' },
        ],
      },
    });
    assert.deepEqual(rules.map((r) => r.id), ['failed']);
    assert.deepEqual(problems.map((p) => p.elements), [
      '$.metadata.notification_rules[1].type',
      '$.metadata.notification_rules[2].extra_rule_info',
      '$.metadata.notification_rules[3].extra_rule_info',
      '$.metadata.notification_rules[4]',
    ]);
  });
});

describe('alerts of real runs', () => {
  const h = useHub();
  const rules = [
    { name: 'failed', type: 'pump_failed' },
    { name: 'busy', type: 'pump_completed_value_too_high', extra_rule_info: { metric: 'Changed entities', limit: 2 } },
    { name: 'no good', type: 'pattern_match', extra_rule_info: { metric: 'Reason why stopped', patterns: ['*no?good*'] } },
  ];
  const entities = [{ _id: 'o1' }, { _id: 'o2' }, { _id: 'o3' }];
  const ok = { _id: 'orders', type: 'pipe', source: { type: 'embedded', entities }, metadata: { notification_rules: rules }, pump: { mode: 'manual' } };
  const failing = { ...ok, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['fail!', 'no good']] } } };

  interface Alerts {
    status: string;
    alerts: { notification_rule_id: string; is_ongoing: boolean; event_count: number; extra_notification_info: { run: string | null } }[];
  }
  const alerts = async (): Promise<Alerts> => h.json<Alerts>(`${pipePath('orders')}/alerts`);
  const ongoing = (a: Alerts): string[] => a.alerts.filter((x) => x.is_ongoing).map((x) => x.notification_rule_id).sort();

  test('rules raise alerts as runs meet them and end them when runs no longer do', async () => {
    await h.json('/pipes', { method: 'POST', json: [ok] });
    assert.deepEqual(await alerts(), { pipe: 'orders', status: 'ok', rules: 3, alerts: [] });

    await runPump(h, 'orders');
    let a = await alerts();
    assert.equal(a.status, 'failed');
    assert.deepEqual(ongoing(a), ['busy'], 'three changes are more than two');
    const log = await h.json<{ event_type: string; pump_instance: string }[]>(`/datasets/${encodeURIComponent('system:pump_execution:orders')}/entities`);
    const completed = log.filter((e) => e.event_type === 'pump-completed').at(-1)!;
    assert.equal(a.alerts[0]!.extra_notification_info.run, completed.pump_instance, 'the alert names the run that raised it');

    await h.json(`${pipePath('orders')}/config`, { method: 'PUT', json: failing });
    await runPump(h, 'orders');
    await runPump(h, 'orders');
    a = await alerts();
    assert.deepEqual(ongoing(a), ['failed', 'no good'], 'a failed run changes nothing: "busy" ends');
    assert.equal(a.alerts.find((x) => x.notification_rule_id === 'failed')!.event_count, 2, 'two failures within the hour are one alert');

    await h.json(`${pipePath('orders')}/config`, { method: 'PUT', json: ok });
    await runPump(h, 'orders');
    a = await alerts();
    assert.equal(a.status, 'ok');
    assert.deepEqual(ongoing(a), []);
    assert.deepEqual(a.alerts.map((x) => x.notification_rule_id).sort(), ['busy', 'failed', 'no good'], 'the alerts stay listed, ended');

    const all = await h.json<{ pipe: string }[]>('/alerts');
    assert.deepEqual(all.map((x) => x.pipe), ['orders']);
  });

  test('an offset set by hand raises the offset rule', async () => {
    await h.json('/pipes', {
      method: 'POST',
      json: [{ _id: 'follow', type: 'pipe', source: { type: 'dataset', dataset: 'orders' }, metadata: { notification_rules: [{ type: 'pump_offset_set', name: 'rewound' }] }, pump: { mode: 'manual' } }],
    });
    await pumpOperation(h, 'follow', 'update-last-seen', { 'last-seen': '1' });
    const a = await h.json<Alerts>(`${pipePath('follow')}/alerts`);
    assert.deepEqual(a.alerts.map((x) => [x.notification_rule_id, x.is_ongoing]), [['rewound', true]]);
    const r = await h.json<{ rules: unknown[]; problems: unknown[]; 'rule-types': string[] }>(`${pipePath('follow')}/notification-rules`);
    assert.equal(r.rules.length, 1);
    assert.ok(r['rule-types'].includes('pattern_match'));
  });
});

// pump.cron_expression as the service documents it (cron-expressions.rst). Every expected time below is worked out
// by hand from the documentation's examples and a calendar (2026-11-25 is a Wednesday), not from running the parser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCron, CronSyntaxError } from '../../../hub-core/config/index.js';
import { nextRunAt } from '../../../hub-core/pipes/index.js';
import { pumpConfigErrors } from '../../../hub-core/pipes/index.js';

const WED = '2026-11-25T00:00:00Z';

/** The next `count` runs after `from`, as ISO minutes. */
function runs(expression: string, from: string, count = 3): string[] {
  const schedule = parseCron(expression);
  const out: string[] = [];
  let at = new Date(from);
  for (let i = 0; i < count; i++) {
    const next = schedule.next(at);
    if (!next) break;
    out.push(next.toISOString().slice(0, 16));
    at = next;
  }
  return out;
}

test('the documented examples, five fields', () => {
  assert.deepEqual(runs('0 12 * * *', WED, 2), ['2026-11-25T12:00', '2026-11-26T12:00'], 'noon every day');
  assert.deepEqual(runs('15 10 * * *', WED, 2), ['2026-11-25T10:15', '2026-11-26T10:15'], '10:15 every day');
  assert.deepEqual(runs('* 14 * * *', '2026-11-25T14:58:30Z', 3), ['2026-11-25T14:59', '2026-11-26T14:00', '2026-11-26T14:01'], 'every minute 14:00-14:59');
  assert.deepEqual(runs('0/5 14 * * *', '2026-11-25T14:49:00Z', 3), ['2026-11-25T14:50', '2026-11-25T14:55', '2026-11-26T14:00'], 'every 5 minutes from 14:00 to 14:55');
  assert.deepEqual(runs('0/5 14,18 * * *', '2026-11-25T14:55:00Z', 2), ['2026-11-25T18:00', '2026-11-25T18:05'], 'and from 18:00');
  assert.deepEqual(runs('0-5 14 * * *', '2026-11-25T14:04:00Z', 2), ['2026-11-25T14:05', '2026-11-26T14:00'], '14:00 to 14:05');
  // 2027-03-01 is a Monday, so the Wednesdays of March 2027 are the 3rd, 10th, ...
  assert.deepEqual(runs('10,44 14 ? 3 WED', WED, 3), ['2027-03-03T14:10', '2027-03-03T14:44', '2027-03-10T14:10'], 'Wednesdays in March');
  assert.deepEqual(runs('15 10 ? * MON-FRI', '2026-11-27T10:15:00Z', 1), ['2026-11-30T10:15'], 'Friday 27th, then Monday 30th');
  assert.deepEqual(runs('15 10 15 * ?', WED, 2), ['2026-12-15T10:15', '2027-01-15T10:15'], 'the 15th of every month');
  assert.deepEqual(runs('15 10 L * ?', WED, 4), ['2026-11-30T10:15', '2026-12-31T10:15', '2027-01-31T10:15', '2027-02-28T10:15'], 'the last day of every month');
  assert.deepEqual(runs('0 12 1/5 * ?', WED, 3), ['2026-11-26T12:00', '2026-12-01T12:00', '2026-12-06T12:00'], 'every 5 days from the 1st');
  assert.deepEqual(runs('11 11 11 11 ?', WED, 2), ['2027-11-11T11:11', '2028-11-11T11:11'], 'every 11th of November at 11:11');
});

test('the sixth field is the year', () => {
  assert.deepEqual(runs('15 10 * * * *', WED, 1), ['2026-11-25T10:15'], '* for the year is every year');
  assert.deepEqual(runs('15 10 * * * 2016', WED), [], '2016 is over: no run');
  assert.deepEqual(runs('15 10 * * * 2016', '2016-03-01T11:00:00Z', 1), ['2016-03-02T10:15']);
  assert.deepEqual(runs('0 0 1 1 * 2027-2028', WED), ['2027-01-01T00:00', '2028-01-01T00:00'], 'and then no more');
});

test('last and n-th day of the week (0-6 is SUN-SAT, as the documented table says)', () => {
  // November 2026: Fridays 6, 13, 20, 27; Saturdays 7, 14, 21, 28. December: Fridays 4, 11, 18, 25; Saturdays 5, 12, 19, 26.
  assert.deepEqual(runs('15 10 ? * 5L', WED, 2), ['2026-11-27T10:15', '2026-12-25T10:15'], 'the last Friday');
  assert.deepEqual(runs('15 10 ? * 6L', WED, 2), ['2026-11-28T10:15', '2026-12-26T10:15'], 'the last Saturday');
  assert.deepEqual(runs('15 10 ? * 5#3', WED, 2), ['2026-12-18T10:15', '2027-01-15T10:15'], 'the third Friday');
  // 2002-01-01 was a Tuesday: the last Saturday of January 2002 is the 26th.
  assert.deepEqual(runs('15 10 ? * 6L 2002-2005', '2002-01-01T00:00:00Z', 1), ['2002-01-26T10:15']);
  assert.deepEqual(runs('15 10 ? * 6L 2002-2005', WED), []);
  assert.deepEqual(runs('0 9 15W * ?', '2026-11-01T00:00:00Z', 2), ['2026-11-16T09:00', '2026-12-15T09:00'], 'Sunday 15 Nov moves to Monday 16');
  assert.deepEqual(runs('0 9 * * 7', WED, 1), ['2026-11-29T09:00'], '7 is Sunday too');
});

test('both day fields restricted: a day matching either runs', () => {
  assert.deepEqual(runs('0 8 1 * MON', WED, 3), ['2026-11-30T08:00', '2026-12-01T08:00', '2026-12-07T08:00']);
});

test('bad expressions say what is wrong', () => {
  const bad: [string, RegExp][] = [
    ['* * * *', /5 or 6 fields .* not 4/],
    ['0 0 0 * * * *', /5 or 6 fields .* not 7/],
    ['61 * * * *', /minutes "61": 61 is outside 0-59/],
    ['? * * * *', /"\?" is only for day of month and day of week/],
    ['0 0 * * * 1900', /year "1900": 1900 is outside 1970-2099/],
    ['*/0 * * * *', /the step must be a whole number above 0/],
    ['0 0 * FOO *', /month "FOO": "FOO" is not a number or a name \(JAN-DEC\)/],
    ['0 0 * * MON#6', /the week after # is 1-5/],
    ['0 0 5-1 * *', /the range ends before it starts/],
  ];
  for (const [expression, message] of bad) assert.throws(() => parseCron(expression), (e: Error) => e instanceof CronSyntaxError && message.test(e.message), expression);
});

test('a pipe’s schedule follows the documented format, and a bad one is a config error in words', () => {
  const pipe = (cron: string) => ({ pump: { cron_expression: cron } }) as unknown as Parameters<typeof nextRunAt>[0];
  assert.equal(new Date(nextRunAt(pipe('15 10 ? * MON-FRI'), Date.parse('2026-11-28T12:00:00Z'))!).toISOString(), '2026-11-30T10:15:00.000Z');
  assert.equal(nextRunAt(pipe('15 10 * * * 2016'), Date.parse(WED)), undefined, 'a schedule that is over runs no more');
  const pumpErrors = (pump: Record<string, unknown>) => pumpConfigErrors({ pump: { mode: 'scheduled', ...pump } } as unknown as Parameters<typeof pumpConfigErrors>[0]);
  assert.deepEqual(pumpErrors({ cron_expression: '0/3 * * * ?' }), []);
  const errors = pumpErrors({ cron_expression: '0 0 0 * * * *' });
  assert.equal(errors.length, 1);
  assert.match(errors[0]!.msg, /invalid cron expression: a cron expression has 5 or 6 fields/);
});

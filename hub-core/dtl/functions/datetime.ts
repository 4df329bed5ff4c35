// Date and time: now, datetime, datetime-parse, datetime-format, datetime-plus, datetime-diff, datetime-shift,
// is-datetime. Datetimes are UTC instants with nanosecond precision; formats use strptime/strftime directives
// (%Y %m %d %e %H %I %M %S %f %p %y %j %b %B %a %A %z, and %% for a percent sign). Where a function takes a time
// zone it is an IANA name ("Europe/Oslo"), resolved with the ICU data of Node's Intl.

import type { Expr } from '../context.js';
import {
  checkTimeZone,
  compileFormatter,
  compileParser,
  compileZonedFormatter,
  compileZonedParser,
  fromWallClock,
  toWallClock,
  type DateTimeFormatter,
  type DateTimeParser,
} from '../datetime.js';
import { expression, one, optional, type ArgNode, type CompileContext, type FunctionSpec } from '../registry.js';
import { DateTime, Decimal, daysInMonth, firstOf, isPlainString, mapValues, parseDateTimeText, typedOf, type DtlValue } from '../values.js';
import { withCurrent } from './util.js';

const FAMILY = 'datetime';

/** Date parts understood by datetime-plus and datetime-diff, with their length in nanoseconds (fixed-length parts). */
const FIXED_PARTS: Record<string, bigint> = {
  week: 7n * 86_400_000_000_000n,
  day: 86_400_000_000_000n,
  hour: 3_600_000_000_000n,
  minute: 60_000_000_000n,
  second: 1_000_000_000n,
  millisecond: 1_000_000n,
  microsecond: 1_000n,
  nanosecond: 1n,
};
const DATE_PARTS = ['year', 'month', ...Object.keys(FIXED_PARTS)];

function datetimeOf(v: DtlValue | undefined): DateTime | undefined {
  const t = typedOf(v);
  return t instanceof DateTime ? t : undefined;
}

/** Compile a literal DATEPART argument, reporting an unknown part. */
function datePart(cc: CompileContext, arg: ArgNode): string {
  const part = arg.node as string;
  if (!DATE_PARTS.includes(part)) cc.error(arg, `unknown date part "${part}"; use one of ${DATE_PARTS.join(', ')}`);
  return part;
}

/** The optional literal time zone argument; undefined for UTC. */
function timeZone(cc: CompileContext, arg: ArgNode | undefined): string | undefined {
  if (arg === undefined) return undefined;
  const zone = arg.node as string;
  try {
    checkTimeZone(zone);
  } catch (e) {
    cc.error(arg, (e as Error).message);
    return undefined;
  }
  return zone;
}

/** `value` moved by `months` calendar months; the day is clamped to the end of a shorter month (Jan 31 + 1 month = Feb 28/29). */
function addMonths(value: DateTime, months: number): DateTime | undefined {
  const d = new Date(value.epochMs);
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12 + 1;
  if (year < 1 || year > 9999) return undefined;
  const day = Math.min(d.getUTCDate(), daysInMonth(year, month));
  const out = new Date(d.getTime());
  out.setUTCFullYear(year, month - 1, day);
  return new DateTime(out.getTime(), value.nanos, value.dateOnly);
}

const MIN_NS = -62_135_596_800_000_000_000n; // 0001-01-01T00:00:00Z
const MAX_NS = 253_402_300_799_999_999_999n; // 9999-12-31T23:59:59.999999999Z

function plus(value: DateTime, part: string, amount: number): DateTime | undefined {
  if (part === 'year' || part === 'month') return addMonths(value, part === 'year' ? amount * 12 : amount);
  const ns = value.epochNanos + BigInt(amount) * (FIXED_PARTS[part] as bigint);
  if (ns < MIN_NS || ns > MAX_NS) return undefined;
  const out = DateTime.fromEpochNanos(ns);
  // A date stays a date when whole days are added.
  return value.dateOnly && (part === 'day' || part === 'week') ? new DateTime(out.epochMs, 0, true) : out;
}

/** Whole calendar months from `b` to `a` (a - b), truncated toward zero. */
function monthsBetween(a: DateTime, b: DateTime): number {
  const da = new Date(a.epochMs);
  const db = new Date(b.epochMs);
  let months = (da.getUTCFullYear() - db.getUTCFullYear()) * 12 + (da.getUTCMonth() - db.getUTCMonth());
  const shifted = addMonths(b, months);
  if (shifted !== undefined) {
    if (months > 0 && shifted.compare(a) > 0) months--;
    else if (months < 0 && shifted.compare(a) < 0) months++;
  }
  return months;
}

function diff(part: string, start: DateTime, end: DateTime): number {
  if (part === 'year' || part === 'month') {
    const months = monthsBetween(start, end);
    return part === 'year' ? Math.trunc(months / 12) : months;
  }
  // BigInt division truncates toward zero, as documented ("+-8 days is +-1 week").
  return Number((start.epochNanos - end.epochNanos) / (FIXED_PARTS[part] as bigint));
}

const ISO_LENIENT = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Text as a datetime: ISO 8601 dates and datetimes (a missing zone means UTC; "T" may be a space). */
export function parseIsoDateTime(text: string): DateTime | undefined {
  const strict = parseDateTimeText(text);
  if (strict !== undefined) return strict;
  const m = ISO_LENIENT.exec(text.trim());
  if (m === null) return undefined;
  let time = (m[2] as string).replace(',', '.');
  if (time.length === 5) time += ':00';
  const frac = /\.(\d+)$/.exec(time);
  if (frac !== null && (frac[1] as string).length > 9) time = time.slice(0, time.length - (frac[1] as string).length + 9);
  let zone = m[3] ?? 'Z';
  if (zone === 'z') zone = 'Z';
  if (/^[+-]\d{2}$/.test(zone)) zone += ':00';
  return parseDateTimeText(`${m[1] as string}T${time}${zone}`);
}

/** A value cast to a datetime: datetimes as they are, ISO text parsed, integers read as nanoseconds since the epoch. */
function toDateTime(v: DtlValue): DateTime | undefined {
  if (typeof v === 'bigint') return v < MIN_NS || v > MAX_NS ? undefined : DateTime.fromEpochNanos(v);
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return undefined;
    // Integers past 2^53 are read from JSON as bigints (exact); a number this large was a float: to the microsecond.
    const ns = Number.isSafeInteger(v) ? BigInt(v) : BigInt(Math.round(v / 1000)) * 1000n;
    return ns < MIN_NS || ns > MAX_NS ? undefined : DateTime.fromEpochNanos(ns);
  }
  if (typeof v === 'string') {
    const t = typedOf(v);
    if (t === null) return parseIsoDateTime(v);
    if (t instanceof DateTime) return t;
    if (t instanceof Decimal && t.isInteger()) {
      const ns = t.truncate();
      return ns < MIN_NS || ns > MAX_NS ? undefined : DateTime.fromEpochNanos(ns);
    }
    return undefined;
  }
  const t = typedOf(v);
  if (t instanceof DateTime) return t;
  if (t instanceof Decimal && t.isInteger()) {
    const ns = t.truncate();
    return ns < MIN_NS || ns > MAX_NS ? undefined : DateTime.fromEpochNanos(ns);
  }
  return undefined;
}

export const datetimeFunctions: FunctionSpec[] = [
  expression({
    name: 'datetime-parse',
    family: FAMILY,
    params: [optional('TIMEZONE', 'string'), one('FORMAT', 'string'), one('VALUES', 'value')],
    description: 'Each string parsed as a datetime with the strptime-style format (as local time of TIMEZONE when given); strings that do not match are left out.',
    examples: [
      { expression: ['datetime-parse', '%Y-%m-%dT%H:%M:%S.%fZ', '2015-07-28T09:46:00.12345Z'], result: '~t2015-07-28T09:46:00.12345Z' },
      { expression: ['datetime-parse', '%Y-%m-%dT%H:%M:%S%z', '2015-07-28T09:46:00+0200'], result: '~t2015-07-28T07:46:00Z' },
      { expression: ['datetime-parse', '%d.%m.%Y', '28.07.2015'], result: '~t2015-07-28T00:00:00Z' },
      { expression: ['datetime-parse', '%d.%m.%Y', ['list', '28.07.2015', '01.01.1970']], result: ['~t2015-07-28T00:00:00Z', '~t1970-01-01T00:00:00Z'] },
      { expression: ['datetime-parse', 'Europe/Oslo', '%Y-%m-%dT%H:%M:%S', '2018-08-18T12:39:01'], result: '~t2018-08-18T10:39:01Z' },
    ],
    compile(b, cc) {
      const formatArg = b.one('FORMAT');
      const zone = timeZone(cc, b.opt('TIMEZONE'));
      let parse: DateTimeParser;
      try {
        parse = zone === undefined ? compileParser(formatArg.node as string) : compileZonedParser(formatArg.node as string, zone);
      } catch (e) {
        cc.error(formatArg, (e as Error).message);
        parse = () => undefined;
      }
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => mapValues(values(ctx), (x) => (isPlainString(x) ? parse(x) : undefined));
    },
  }),

  expression({
    name: 'datetime-format',
    family: FAMILY,
    params: [optional('TIMEZONE', 'string'), one('FORMAT', 'string'), one('VALUES', 'value')],
    description: 'Each datetime written as text with the strftime-style format (in the local time of TIMEZONE when given); other values are left out.',
    examples: [
      { expression: ['datetime-format', '%Y-%m-%dT%H:%M:%SZ', ['datetime-parse', '%Y-%m-%d', '2015-07-28']], result: '2015-07-28T00:00:00Z' },
      { expression: ['datetime-format', '%d.%m.%Y %H:%M', '_S.updated'], source: { updated: '~t2024-02-29T13:05:00Z' }, result: '29.02.2024 13:05' },
      {
        expression: ['datetime-format', 'Europe/Oslo', '%Y-%m-%d %H:%M:%S', ['datetime-parse', '%Y-%m-%dT%H:%M:%S', '2018-08-18T12:39:01']],
        result: '2018-08-18 14:39:01',
      },
    ],
    json: 'yes',
    compile(b, cc) {
      const formatArg = b.one('FORMAT');
      const zone = timeZone(cc, b.opt('TIMEZONE'));
      let format: DateTimeFormatter;
      try {
        format = zone === undefined ? compileFormatter(formatArg.node as string) : compileZonedFormatter(formatArg.node as string, zone);
      } catch (e) {
        cc.error(formatArg, (e as Error).message);
        format = () => '';
      }
      const values = cc.expr(b.one('VALUES'));
      return (ctx) =>
        mapValues(values(ctx), (x) => {
          const t = datetimeOf(x);
          return t === undefined ? undefined : format(t);
        });
    },
  }),

  expression({
    name: 'now',
    family: FAMILY,
    params: [],
    description: 'The current time as a datetime.',
    examples: [{ expression: ['gt', ['now'], '~t2020-01-01T00:00:00Z'], result: true }],
    compile: () => () => new DateTime(Date.now(), 0),
  }),

  expression({
    name: 'datetime',
    family: FAMILY,
    params: [optional('DEFAULT', 'default'), one('VALUES', 'value')],
    description: 'Each value as a datetime: ISO text is parsed, integers count nanoseconds since 1970; others are left out, or replaced by DEFAULT (with _ bound to them).',
    examples: [
      { expression: ['datetime', '2015-07-28T09:46:00.12345Z'], result: '~t2015-07-28T09:46:00.12345Z' },
      { expression: ['datetime', 1438076760123450000n], result: '~t2015-07-28T09:46:00.12345Z' },
      { expression: ['datetime', ['list', '2015-07-28', 'hello', -1000000000]], result: ['~t2015-07-28', '~t1969-12-31T23:59:59Z'] },
      { expression: ['datetime', ['string', '_.'], ['list', '2020-01-01T10:00:00Z', 'n/a']], result: ['~t2020-01-01T10:00:00Z', 'n/a'] },
    ],
    json: 'args',
    compile(b, cc) {
      const defArg = b.opt('DEFAULT');
      const def = defArg === undefined ? undefined : cc.expr(defArg);
      const values = cc.expr(b.one('VALUES'));
      if (def === undefined) return (ctx) => mapValues(values(ctx), toDateTime);
      return (ctx) => mapValues(values(ctx), (x) => (x === null ? undefined : (toDateTime(x) ?? withCurrent(ctx, x, def))));
    },
  }),

  expression({
    name: 'datetime-plus',
    family: FAMILY,
    params: [one('DATEPART', 'string'), one('AMOUNT', 'integer'), one('VALUES', 'value')],
    description: 'Each datetime moved by AMOUNT (may be negative) of the date part (year, month, week, day, hour, ... nanosecond); months keep the day where they can.',
    examples: [
      { expression: ['datetime-plus', 'day', 1, ['datetime-parse', '%Y-%m-%d', '2015-07-28']], result: '~t2015-07-29T00:00:00Z' },
      { expression: ['datetime-plus', 'hour', -1, ['datetime-parse', '%Y-%m-%d', '2016-03-01']], result: '~t2016-02-29T23:00:00Z' },
      {
        expression: ['datetime-plus', 'year', 1, ['list', ['datetime-parse', '%Y-%m-%d', '1971-01-01'], ['datetime-parse', '%Y-%m-%d', '1950-06-01']]],
        result: ['~t1972-01-01T00:00:00Z', '~t1951-06-01T00:00:00Z'],
      },
    ],
    compile(b, cc) {
      const part = datePart(cc, b.one('DATEPART'));
      const amountArg = b.one('AMOUNT');
      const values = cc.expr(b.one('VALUES'));
      const apply = (v: DtlValue, amount: number): DtlValue =>
        mapValues(v, (x) => {
          const t = datetimeOf(x);
          return t === undefined ? undefined : plus(t, part, amount);
        });
      if (typeof amountArg.node === 'number') {
        const amount = amountArg.node;
        return (ctx) => apply(values(ctx), amount);
      }
      const amountExpr: Expr = cc.expr(amountArg);
      return (ctx) => {
        const amount = firstOf(amountExpr(ctx));
        return typeof amount === 'number' && Number.isSafeInteger(amount) ? apply(values(ctx), amount) : null;
      };
    },
  }),

  expression({
    name: 'datetime-diff',
    family: FAMILY,
    params: [one('DATEPART', 'string'), one('START', 'value'), one('END', 'value')],
    description: 'The whole number of date parts from END to START (START minus END, truncated toward zero); null unless both are datetimes.',
    examples: [
      { expression: ['datetime-diff', 'day', ['datetime-parse', '%Y-%m-%d', '2015-07-28'], ['datetime-parse', '%Y-%m-%d', '2015-07-29']], result: -1 },
      { expression: ['datetime-diff', 'day', ['datetime-parse', '%Y-%m-%d', '2015-07-29'], ['datetime-parse', '%Y-%m-%d', '2015-07-28']], result: 1 },
      { expression: ['datetime-diff', 'year', ['datetime-parse', '%Y-%m-%d', '2015-03-02'], ['datetime-parse', '%Y-%m-%d', '2016-07-29']], result: -1 },
      { expression: ['datetime-diff', 'month', ['datetime-parse', '%Y-%m-%d', '2015-03-02'], ['datetime-parse', '%Y-%m-%d', '2016-07-29']], result: -16 },
    ],
    json: 'yes',
    compile(b, cc) {
      const part = datePart(cc, b.one('DATEPART'));
      const start = cc.expr(b.one('START'));
      const end = cc.expr(b.one('END'));
      return (ctx) => {
        const s = datetimeOf(firstOf(start(ctx)));
        const e = datetimeOf(firstOf(end(ctx)));
        return s === undefined || e === undefined ? null : diff(part, s, e);
      };
    },
  }),

  expression({
    name: 'datetime-shift',
    family: FAMILY,
    params: [one('FROM_TIMEZONE', 'string'), one('TO_TIMEZONE', 'string'), one('VALUES', 'value')],
    description: 'Each datetime read as wall-clock time in FROM_TIMEZONE and given as the wall-clock time of that instant in TO_TIMEZONE; other values are left out.',
    examples: [
      { expression: ['datetime-shift', 'Europe/Oslo', 'UTC', ['datetime-parse', '%Y/%m/%d %H:%M', '2015/07/28 09:46']], result: '~t2015-07-28T07:46:00Z' },
      { expression: ['datetime-shift', 'UTC', 'Europe/Oslo', ['datetime-parse', '%Y/%m/%d %H:%M', '2015/07/28 09:46']], result: '~t2015-07-28T11:46:00Z' },
      {
        expression: [
          'datetime-shift',
          'Europe/Oslo',
          'UTC',
          ['list', ['datetime-parse', '%Y/%m/%d %H:%M', '2015/07/28 09:46'], ['datetime-parse', '%Y/%m/%d %H:%M', '2015/07/28 04:46']],
        ],
        result: ['~t2015-07-28T07:46:00Z', '~t2015-07-28T02:46:00Z'],
      },
    ],
    compile(b, cc) {
      const from = timeZone(cc, b.one('FROM_TIMEZONE')) ?? 'UTC';
      const to = timeZone(cc, b.one('TO_TIMEZONE')) ?? 'UTC';
      const values = cc.expr(b.one('VALUES'));
      return (ctx) =>
        mapValues(values(ctx), (x) => {
          const t = datetimeOf(x);
          if (t === undefined) return undefined;
          const local = toWallClock(to, fromWallClock(from, t));
          // The result is a time of day, also when a date came in.
          return local.dateOnly ? new DateTime(local.epochMs, local.nanos) : local;
        });
    },
  }),

  expression({
    name: 'is-datetime',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'True when the value (or the first element of a list) is a datetime.',
    examples: [
      { expression: ['is-datetime', ['now']], result: true },
      { expression: ['is-datetime', ['datetime', '2015-07-28T09:46:00.12345Z']], result: true },
      { expression: ['is-datetime', '2015-07-28T09:46:00.12345Z'], result: false },
      { expression: ['is-datetime', ['list', '1', 2]], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => datetimeOf(firstOf(values(ctx))) !== undefined;
    },
  }),
];

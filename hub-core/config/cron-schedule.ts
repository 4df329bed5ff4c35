// Cron expressions as the service documents them for `pump.cron_expression` (cron-expressions.rst), in UTC:
//
//   minutes hours day-of-month month day-of-week [year]
//
// Five or six fields; the sixth is the year (1970-2099), not seconds. Every field takes `*`, lists (`a,b`), ranges
// (`a-b`) and steps (`*/n`, `a-b/n`, and `a/n`: from a to the field's end, e.g. `0/5` or `1/5`). Day of month and day
// of week also take `?` (no specific value); day of month `L` (last day) and `nW` (the weekday nearest day n); day of
// week `nL` (the last day n of the month) and `n#k` (the k-th day n of the month). Months are 1-12 or JAN-DEC; days of
// week 0-6 or SUN-SAT (7 is Sunday too). When both day fields are restricted, a day matching either runs (as cron).
//
// The documentation contradicts itself on day-of-week numbers: its table says 0-6 = SUN-SAT (as the Wikipedia page it
// refers to), its examples call `6L` "the last friday" and `6#3` "the third friday" (Quartz numbering). The table
// wins here: 5 is Friday. (croner, which this hub used before, reads a sixth field as seconds and `?` as "now", and
// refuses `0/5`: the documented format is parsed here instead.)

export interface CronSchedule {
  /** The first run strictly after `after`, or undefined when there is none (a year field in the past). */
  next(after: Date): Date | undefined;
}

export class CronSyntaxError extends Error {}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const LAST_YEAR = 2099;

interface Field {
  name: string;
  min: number;
  max: number;
  names?: string[];
  /** The value names[0] stands for. */
  namesFrom?: number;
}

const FIELDS: Field[] = [
  { name: 'minutes', min: 0, max: 59 },
  { name: 'hours', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, namesFrom: 1 },
  { name: 'day of week', min: 0, max: 7, names: DAYS, namesFrom: 0 },
  { name: 'year', min: 1970, max: LAST_YEAR },
];

function fail(field: Field, part: string, why: string): never {
  throw new CronSyntaxError(`${field.name} "${part}": ${why}`);
}

function value(field: Field, text: string, whole: string): number {
  const upper = text.toUpperCase();
  const named = field.names?.indexOf(upper) ?? -1;
  if (named >= 0) return named + (field.namesFrom ?? 0);
  if (!/^\d+$/.test(text)) fail(field, whole, `"${text}" is not a number${field.names ? ` or a name (${field.names[0]}-${field.names.at(-1)})` : ''}`);
  const n = Number(text);
  if (n < field.min || n > field.max) fail(field, whole, `${n} is outside ${field.min}-${field.max}`);
  return n;
}

/** The values of a plain field part (`*`, `a`, `a-b`, with an optional `/step`). */
function values(field: Field, part: string): Set<number> {
  const [range, stepText, extra] = part.split('/');
  if (extra !== undefined || range === undefined || range === '') fail(field, part, 'not a value, range or step');
  let step = 1;
  if (stepText !== undefined) {
    if (!/^\d+$/.test(stepText) || Number(stepText) === 0) fail(field, part, 'the step must be a whole number above 0');
    step = Number(stepText);
  }
  let from: number;
  let to: number;
  if (range === '*') [from, to] = [field.min, field.name === 'day of week' ? 6 : field.max];
  else if (range.includes('-')) {
    const [a, b] = range.split('-');
    from = value(field, a ?? '', part);
    to = value(field, b ?? '', part);
    if (to < from) fail(field, part, 'the range ends before it starts');
  } else {
    from = value(field, range, part);
    // `a/n`: from a to the end of the field.
    to = stepText !== undefined ? (field.name === 'day of week' ? 6 : field.max) : from;
  }
  const out = new Set<number>();
  for (let v = from; v <= to; v += step) out.add(field.name === 'day of week' && v === 7 ? 0 : v);
  return out;
}

type DayTest = (year: number, month: number, day: number) => boolean;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function weekday(year: number, month: number, day: number): number {
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay();
}

/** Day of month: `*`, `?`, values, `L`, `nW`. Undefined when unrestricted. */
function dayOfMonth(text: string): DayTest | undefined {
  const field = FIELDS[2]!;
  if (text === '*' || text === '?') return undefined;
  const tests: DayTest[] = [];
  for (const part of text.split(',')) {
    if (part.toUpperCase() === 'L') tests.push((y, m, d) => d === daysInMonth(y, m));
    else if (/^\d+W$/i.test(part)) {
      const target = value(field, part.slice(0, -1), part);
      tests.push((y, m, d) => d === nearestWeekday(y, m, target));
    } else {
      const set = values(field, part);
      tests.push((_y, _m, d) => set.has(d));
    }
  }
  return (y, m, d) => tests.some((t) => t(y, m, d));
}

/** The weekday (Monday-Friday) nearest to day `target` of the month, never crossing into another month. */
function nearestWeekday(year: number, month: number, target: number): number {
  const last = daysInMonth(year, month);
  const day = Math.min(target, last);
  const wd = weekday(year, month, day);
  if (wd === 6) return day === 1 ? 3 : day - 1;
  if (wd === 0) return day === last ? day - 2 : day + 1;
  return day;
}

/** Day of week: `*`, `?`, values, `nL`, `n#k`. Undefined when unrestricted. */
function dayOfWeek(text: string): DayTest | undefined {
  const field = FIELDS[4]!;
  if (text === '*' || text === '?') return undefined;
  const tests: DayTest[] = [];
  for (const part of text.split(',')) {
    const last = /^(\w+)L$/i.exec(part);
    const nth = /^(\w+)#(\d)$/.exec(part);
    if (part.toUpperCase() === 'L') tests.push((y, m, d) => weekday(y, m, d) === 6);
    else if (last) {
      const wd = value(field, last[1]!, part) % 7;
      tests.push((y, m, d) => weekday(y, m, d) === wd && d + 7 > daysInMonth(y, m));
    } else if (nth) {
      const wd = value(field, nth[1]!, part) % 7;
      const k = Number(nth[2]);
      if (k < 1 || k > 5) fail(field, part, 'the week after # is 1-5');
      tests.push((y, m, d) => weekday(y, m, d) === wd && Math.ceil(d / 7) === k);
    } else {
      const set = values(field, part);
      tests.push((y, m, d) => set.has(weekday(y, m, d)));
    }
  }
  return (y, m, d) => tests.some((t) => t(y, m, d));
}

function listValues(field: Field, text: string): Set<number> {
  if (text === '?') fail(field, text, '"?" is only for day of month and day of week');
  const out = new Set<number>();
  for (const part of text.split(',')) for (const v of values(field, part)) out.add(v);
  return out;
}

/** Parse a cron expression; throws CronSyntaxError saying what is wrong. */
export function parseCron(expression: string): CronSchedule {
  const parts = expression.trim().split(/\s+/);
  if (parts.length < 5 || parts.length > 6) {
    throw new CronSyntaxError(`a cron expression has 5 or 6 fields (minutes hours day-of-month month day-of-week [year]), not ${parts.length}`);
  }
  const [minT, hourT, domT, monT, dowT, yearT] = parts as [string, string, string, string, string, string | undefined];
  const minutes = [...listValues(FIELDS[0]!, minT)].sort((a, b) => a - b);
  const hours = [...listValues(FIELDS[1]!, hourT)].sort((a, b) => a - b);
  const months = listValues(FIELDS[3]!, monT);
  const years = yearT === undefined || yearT === '*' ? undefined : listValues(FIELDS[5]!, yearT);
  const dom = dayOfMonth(domT);
  const dow = dayOfWeek(dowT);
  const dayMatches: DayTest =
    dom && dow ? (y, m, d) => dom(y, m, d) || dow(y, m, d) : (dom ?? dow ?? (() => true));

  return {
    next(after: Date): Date | undefined {
      // The first whole minute after `after`.
      const start = new Date(Math.floor(after.getTime() / 60_000) * 60_000 + 60_000);
      let y = start.getUTCFullYear();
      let m = start.getUTCMonth() + 1;
      let d = start.getUTCDate();
      let first = true;
      while (y <= LAST_YEAR) {
        if ((years && !years.has(y)) || !months.has(m)) {
          // Skip to the first day of the next month.
          [y, m, d, first] = m === 12 ? [y + 1, 1, 1, false] : [y, m + 1, 1, false];
          continue;
        }
        if (d <= daysInMonth(y, m) && dayMatches(y, m, d)) {
          const fromHour = first ? start.getUTCHours() : 0;
          for (const h of hours) {
            if (h < fromHour) continue;
            const fromMinute = first && h === fromHour ? start.getUTCMinutes() : 0;
            const minute = minutes.find((x) => x >= fromMinute);
            if (minute !== undefined) return new Date(Date.UTC(y, m - 1, d, h, minute));
          }
        }
        first = false;
        if (d >= daysInMonth(y, m)) [y, m, d] = m === 12 ? [y + 1, 1, 1] : [y, m + 1, 1];
        else d++;
      }
      return undefined;
    },
  };
}

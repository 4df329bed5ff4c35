// strptime/strftime-style parsing and formatting of datetimes (always UTC), compiled once per format string.

import { DateTime, daysInMonth, utcMillis } from './values.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** Directives understood when parsing, with the text each may match. */
const PARSE_DIRECTIVES: Record<string, string> = {
  d: '(3[01]|[12]\\d|0[1-9]|[1-9])',
  e: ' ?(3[01]|[12]\\d|0[1-9]|[1-9])',
  H: '(2[0-3]|[01]\\d|\\d)',
  I: '(1[0-2]|0[1-9]|[1-9])',
  m: '(1[0-2]|0[1-9]|[1-9])',
  M: '([0-5]\\d|\\d)',
  S: '([0-5]\\d|\\d)',
  f: '(\\d{1,9})',
  p: '(am|pm)',
  y: '(\\d\\d)',
  Y: '(\\d{4})',
  j: '(36[0-6]|3[0-5]\\d|[12]\\d\\d|0[1-9]\\d|00[1-9]|[1-9]\\d|0?[1-9])',
  b: '(' + MONTHS.map((m) => m.slice(0, 3)).join('|') + ')',
  B: '(' + MONTHS.join('|') + ')',
  a: '(?:' + WEEKDAYS.map((d) => d.slice(0, 3)).join('|') + ')',
  A: '(?:' + WEEKDAYS.join('|') + ')',
  z: '(Z|[+-]\\d\\d:?[0-5]\\d)',
};

export type DateTimeParser = (text: string) => DateTime | undefined;

/** The longest text each directive may match (every directive prefers its longest match, as the expression above). */
const DIRECTIVE_MAX: Record<string, number> = { d: 2, e: 3, H: 2, I: 2, m: 2, M: 2, S: 2, f: 9, p: 2, y: 2, Y: 4, j: 3, b: 3, B: 9, a: 3, A: 9, z: 6 };

/** One step of a parse format: a directive, a literal character or a run of whitespace. */
interface ParseToken {
  /** The step as a whole-text expression (flag i), tried on one candidate piece of the text at a time. */
  readonly re: RegExp;
  /** The longest piece it may match (Infinity: a run of whitespace). */
  readonly max: number;
  /** It captures a field (its group 1). */
  readonly capturing: boolean;
}

/**
 * The format's steps matched against the whole text as the regular expression `^step1step2…$` (flag i) would,
 * but without exponential backtracking (issue 32: "%f%f%f%f%f%f%f%f%fX" on 40 digits ran for minutes): every step
 * prefers its longest match, so trying the pieces longest first, step by step, finds the same match, and a step
 * that failed at a position is not tried there again. Answers the captured fields in order, or null.
 */
function matchTokens(tokens: readonly ParseToken[], text: string): string[] | null {
  const n = text.length;
  const failed = new Set<number>();
  const fields: string[] = [];
  const walk = (k: number, pos: number): boolean => {
    if (k === tokens.length) return pos === n;
    const key = k * (n + 1) + pos;
    if (failed.has(key)) return false;
    const t = tokens[k]!;
    for (let len = Math.min(t.max, n - pos); len >= 1; len--) {
      const m = t.re.exec(text.slice(pos, pos + len));
      if (m === null) continue;
      if (t.capturing) fields.push(m[1] as string);
      if (walk(k + 1, pos + len)) return true;
      if (t.capturing) fields.pop();
    }
    failed.add(key);
    return false;
  };
  return walk(0, 0) ? fields : null;
}

/** Compile a parse format; throws an Error naming the problem when the format uses an unknown directive. */
export function compileParser(format: string): DateTimeParser {
  const tokens: ParseToken[] = [];
  const fields: string[] = [];
  const step = (source: string, max: number, capturing: boolean): void => void tokens.push({ re: new RegExp(`^(?:${source})$`, 'i'), max, capturing });
  for (let i = 0; i < format.length; i++) {
    const c = format[i] as string;
    if (c === '%') {
      const d = format[++i];
      if (d === undefined) throw new Error('the format ends with a lone "%"');
      if (d === '%') {
        step('%', 1, false);
        continue;
      }
      const re = PARSE_DIRECTIVES[d];
      if (re === undefined) throw new Error(`unsupported directive "%${d}" in the format`);
      const capturing = !re.startsWith('(?:');
      step(re, DIRECTIVE_MAX[d]!, capturing);
      if (capturing) fields.push(d);
    } else if (/\s/.test(c)) {
      step('\\s+', Infinity, false);
      while (i + 1 < format.length && /\s/.test(format[i + 1] as string)) i++;
    } else {
      step(c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 1, false);
    }
  }
  return (text) => {
    const captured = matchTokens(tokens, text);
    if (captured === null) return undefined;
    const m = [text, ...captured];
    let year = 1900;
    let month = 1;
    let day = 1;
    let hour = 0;
    let minute = 0;
    let second = 0;
    let fraction = '';
    let hour12: number | undefined;
    let pm: boolean | undefined;
    let yday: number | undefined;
    let offset = 0;
    for (let k = 0; k < fields.length; k++) {
      const v = m[k + 1] as string;
      switch (fields[k]) {
        case 'd':
        case 'e':
          day = Number(v);
          break;
        case 'H':
          hour = Number(v);
          break;
        case 'I':
          hour12 = Number(v);
          break;
        case 'm':
          month = Number(v);
          break;
        case 'M':
          minute = Number(v);
          break;
        case 'S':
          second = Number(v);
          break;
        case 'f':
          fraction = v;
          break;
        case 'p':
          pm = v.toLowerCase() === 'pm';
          break;
        case 'y': {
          const y = Number(v);
          year = y < 69 ? 2000 + y : 1900 + y;
          break;
        }
        case 'Y':
          year = Number(v);
          break;
        case 'j':
          yday = Number(v);
          break;
        case 'b':
        case 'B':
          month = MONTHS.findIndex((name) => name.toLowerCase().startsWith(v.toLowerCase().slice(0, 3))) + 1;
          break;
        case 'z':
          if (v.toUpperCase() !== 'Z') {
            const sign = v[0] === '-' ? -1 : 1;
            const digits = v.slice(1).replace(':', '');
            offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
          }
          break;
      }
    }
    if (hour12 !== undefined) hour = (hour12 % 12) + (pm === true ? 12 : 0);
    else if (pm === true && hour < 12) hour += 12;
    if (yday !== undefined) {
      const leap = daysInMonth(year, 2) === 29;
      if (yday > (leap ? 366 : 365)) return undefined;
      month = 1;
      day = yday;
      while (day > daysInMonth(year, month)) day -= daysInMonth(year, month++);
    }
    const ms = utcMillis(year, month, day, hour, minute, second);
    if (ms === undefined) return undefined;
    const frac = fraction.padEnd(9, '0');
    return new DateTime(ms + Number(frac.slice(0, 3)) - offset * 60_000, Number(frac.slice(3)));
  };
}

export type DateTimeFormatter = (value: DateTime) => string;

const FORMAT_DIRECTIVES = new Set(['d', 'e', 'H', 'I', 'm', 'M', 'S', 'f', 'p', 'y', 'Y', 'j', 'b', 'B', 'a', 'A', 'z', 'Z', '%']);

/** Compile a strftime-style format; throws an Error naming the problem when the format uses an unknown directive. */
export function compileFormatter(format: string): DateTimeFormatter {
  const parts: (string | ((d: Date, v: DateTime) => string))[] = [];
  let literal = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i] as string;
    if (c !== '%') {
      literal += c;
      continue;
    }
    const d = format[++i];
    if (d === undefined) throw new Error('the format ends with a lone "%"');
    if (!FORMAT_DIRECTIVES.has(d)) throw new Error(`unsupported directive "%${d}" in the format`);
    if (d === '%') {
      literal += '%';
      continue;
    }
    if (literal !== '') parts.push(literal);
    literal = '';
    parts.push(formatPart(d));
  }
  if (literal !== '') parts.push(literal);
  return (value) => {
    const date = new Date(value.epochMs);
    let out = '';
    for (const p of parts) out += typeof p === 'string' ? p : p(date, value);
    return out;
  };
}

function two(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

function formatPart(d: string): (date: Date, v: DateTime) => string {
  switch (d) {
    case 'd':
      return (t) => two(t.getUTCDate());
    case 'e':
      return (t) => String(t.getUTCDate());
    case 'H':
      return (t) => two(t.getUTCHours());
    case 'I':
      return (t) => two(t.getUTCHours() % 12 === 0 ? 12 : t.getUTCHours() % 12);
    case 'm':
      return (t) => two(t.getUTCMonth() + 1);
    case 'M':
      return (t) => two(t.getUTCMinutes());
    case 'S':
      return (t) => two(t.getUTCSeconds());
    case 'f':
      return (_t, v) => String(Math.floor(v.fraction / 1000)).padStart(6, '0');
    case 'p':
      return (t) => (t.getUTCHours() < 12 ? 'AM' : 'PM');
    case 'y':
      return (t) => two(((t.getUTCFullYear() % 100) + 100) % 100);
    case 'Y':
      return (t) => String(t.getUTCFullYear()).padStart(4, '0');
    case 'j':
      return (t) => String(Math.floor((t.getTime() - (utcMillis(t.getUTCFullYear(), 1, 1, 0, 0, 0) ?? 0)) / 86_400_000) + 1).padStart(3, '0');
    case 'b':
      return (t) => (MONTHS[t.getUTCMonth()] as string).slice(0, 3);
    case 'B':
      return (t) => MONTHS[t.getUTCMonth()] as string;
    case 'a':
      return (t) => (WEEKDAYS[(t.getUTCDay() + 6) % 7] as string).slice(0, 3);
    case 'A':
      return (t) => WEEKDAYS[(t.getUTCDay() + 6) % 7] as string;
    case 'z':
      return () => '+0000';
    default:
      return () => 'UTC';
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Time zones (IANA names, resolved by the ICU data Node ships with)
//
// A "wall-clock" value is a DateTime whose UTC fields are read as the local time of a zone. Converting between the two
// needs the zone's offset at an instant, which Intl gives us per zone through one cached formatter.

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();
const UTC_NAMES = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Zulu', 'Etc/Zulu', 'UCT', 'Etc/UCT', 'Universal', 'Etc/Universal', 'Greenwich', 'Etc/Greenwich', 'GMT0', 'GMT+0', 'GMT-0', 'Etc/GMT0', 'Etc/GMT+0', 'Etc/GMT-0']);

function zoneFormatter(zone: string): Intl.DateTimeFormat {
  let f = zoneFormatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    zoneFormatters.set(zone, f);
  }
  return f;
}

/** True when `zone` names a time zone we can convert to and from. */
export function isKnownTimeZone(zone: string): boolean {
  if (UTC_NAMES.has(zone)) return true;
  try {
    zoneFormatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** Throws an Error naming the zone when it is unknown (for compile-time checks). */
export function checkTimeZone(zone: string): void {
  if (!isKnownTimeZone(zone)) throw new Error(`unknown time zone "${zone}"; use an IANA name such as "Europe/Oslo" or "UTC"`);
}

/** The zone's offset from UTC at the instant `epochMs`, in milliseconds (positive east of Greenwich). */
export function zoneOffsetMs(zone: string, epochMs: number): number {
  if (UTC_NAMES.has(zone)) return 0;
  // Intl works on whole seconds here; the offset of every real zone is a whole number of seconds.
  const whole = Math.floor(epochMs / 1000) * 1000;
  const parts = zoneFormatter(zone).formatToParts(new Date(whole));
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let bc = false;
  for (const p of parts) {
    switch (p.type) {
      case 'year':
        year = Number(p.value);
        break;
      case 'month':
        month = Number(p.value);
        break;
      case 'day':
        day = Number(p.value);
        break;
      case 'hour':
        hour = Number(p.value);
        break;
      case 'minute':
        minute = Number(p.value);
        break;
      case 'second':
        second = Number(p.value);
        break;
      case 'era':
        bc = p.value.startsWith('B');
        break;
    }
  }
  const d = new Date(0);
  d.setUTCFullYear(bc ? 1 - year : year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime() - whole;
}

/** The wall-clock reading of an instant in `zone` (the DateTime's UTC fields then show the local time). */
export function toWallClock(zone: string, value: DateTime): DateTime {
  const offset = zoneOffsetMs(zone, value.epochMs);
  return offset === 0 ? value : new DateTime(value.epochMs + offset, value.nanos, value.dateOnly);
}

/**
 * The instant at which the clocks of `zone` show the wall-clock time `local`. A time skipped by a daylight-saving
 * change is read with the offset from before the change; a time that occurs twice gives the earlier instant.
 */
export function fromWallClock(zone: string, local: DateTime): DateTime {
  const before = zoneOffsetMs(zone, local.epochMs - 86_400_000);
  const after = zoneOffsetMs(zone, local.epochMs + 86_400_000);
  let ms: number;
  if (before === after) {
    ms = local.epochMs - before;
  } else {
    // Around a change: prefer the earlier of the readings that round-trip, else the pre-change offset.
    const candidates = [local.epochMs - before, local.epochMs - after].sort((a, b) => a - b);
    const exact = candidates.filter((c) => c + zoneOffsetMs(zone, c) === local.epochMs);
    ms = exact[0] ?? local.epochMs - before;
  }
  if (ms === local.epochMs) return local.dateOnly ? new DateTime(ms, local.nanos) : local;
  return new DateTime(ms, local.nanos);
}

/** The offset as "+HHMM" / "-HHMM". */
export function formatOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  return sign + two(Math.floor(minutes / 60)) + two(minutes % 60);
}

/** A parser that reads times without an explicit offset (%z) as wall-clock time in `zone`. */
export function compileZonedParser(format: string, zone: string): DateTimeParser {
  checkTimeZone(zone);
  const parse = compileParser(format);
  if (UTC_NAMES.has(zone) || /%z/.test(format.replace(/%%/g, ''))) return parse;
  return (text) => {
    const local = parse(text);
    return local === undefined ? undefined : fromWallClock(zone, local);
  };
}

/** A formatter that writes the wall-clock time of `zone`; %z gives the zone's offset and %Z the zone name. */
export function compileZonedFormatter(format: string, zone: string): DateTimeFormatter {
  checkTimeZone(zone);
  if (UTC_NAMES.has(zone)) return compileFormatter(format);
  // Split around %z / %Z so that they can show the zone; everything else formats the shifted value.
  const pieces: (DateTimeFormatter | 'z' | 'Z')[] = [];
  let rest = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i] as string;
    if (c === '%' && (format[i + 1] === 'z' || format[i + 1] === 'Z')) {
      if (rest !== '') pieces.push(compileFormatter(rest));
      rest = '';
      pieces.push(format[i + 1] as 'z' | 'Z');
      i++;
    } else if (c === '%' && format[i + 1] === '%') {
      rest += '%%';
      i++;
    } else {
      rest += c;
    }
  }
  if (rest !== '') pieces.push(compileFormatter(rest));
  return (value) => {
    const offset = zoneOffsetMs(zone, value.epochMs);
    const local = new DateTime(value.epochMs + offset, value.nanos);
    let out = '';
    for (const p of pieces) out += p === 'z' ? formatOffset(offset) : p === 'Z' ? zone : p(local);
    return out;
  };
}

// Parsing tagged strings ("~:", "~t", "~f", "~b", "~u", "~r") and ISO datetime text into typed values.

import { Buffer } from 'node:buffer';
import { Decimal } from './decimal.js';
import { Bytes, DateTime, Ni, Uri, Uuid, type TypedValue } from './typed-values.js';

const DATETIME_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2}))?$/;
const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const BASE64_TEXT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

export const TILDE = 126;
const CACHE_LIMIT = 20_000;
const parseCache = new Map<string, TypedValue | null>();

/** The typed value a tagged string stands for, or null for a plain string. Results are cached. */
export function parseTagged(s: string): TypedValue | null {
  if (s.length < 2 || s.charCodeAt(0) !== TILDE) return null;
  const hit = parseCache.get(s);
  if (hit !== undefined) return hit;
  const value = parseTaggedUncached(s);
  if (parseCache.size >= CACHE_LIMIT) parseCache.clear();
  parseCache.set(s, value);
  return value;
}

function parseTaggedUncached(s: string): TypedValue | null {
  const body = s.slice(2);
  switch (s.charCodeAt(1)) {
    case 58: // ':'
      return body.length > 0 ? new Ni(body, s) : null;
    case 116: // 't'
      return parseDateTimeText(body, s) ?? null;
    case 102: {
      // 'f'
      const d = Decimal.parse(body);
      return d === undefined ? null : new Decimal(d.mantissa, d.scale, s);
    }
    case 98: // 'b'
      return BASE64_TEXT.test(body) ? new Bytes(new Uint8Array(Buffer.from(body, 'base64')), s) : null;
    case 117: // 'u'
      return UUID_TEXT.test(body) ? new Uuid(body, s) : null;
    case 114: // 'r'
      return new Uri(body, s);
    default:
      return null;
  }
}

/** Parse ISO date or datetime text (without the tag); the zone may be Z or an offset, which is folded into UTC. */
export function parseDateTimeText(text: string, raw?: string): DateTime | undefined {
  const m = DATETIME_TEXT.exec(text);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (m[4] === undefined) {
    const ms = utcMillis(year, month, day, 0, 0, 0);
    return ms === undefined ? undefined : new DateTime(ms, 0, true, raw);
  }
  if (m[8] === undefined) return undefined;
  const ms = utcMillis(year, month, day, Number(m[4]), Number(m[5]), Number(m[6]));
  if (ms === undefined) return undefined;
  const frac = (m[7] ?? '').padEnd(9, '0');
  const offset = m[8] === 'Z' ? 0 : offsetMinutes(m[8]);
  if (offset === undefined) return undefined;
  return new DateTime(ms + Number(frac.slice(0, 3)) - offset * 60_000, Number(frac.slice(3)), false, raw);
}

function offsetMinutes(text: string): number | undefined {
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(text);
  if (m === null) return undefined;
  const h = Number(m[2]);
  const min = Number(m[3]);
  if (h > 23 || min > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (h * 60 + min);
}

/** Milliseconds since the epoch of a UTC calendar time, or undefined when a field is out of range. */
export function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number): number | undefined {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || hour < 0 || minute < 0 || second < 0) return undefined;
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

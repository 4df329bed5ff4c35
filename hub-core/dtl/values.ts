// The DTL value model.
//
// Entities travel as JSON. Typed values (namespaced identifiers, datetimes, decimals, bytes, UUIDs, URIs) are written
// in JSON as strings with a two-character tag: "~:", "~t", "~f", "~b", "~u", "~r". A string with a known tag and a
// valid body *is* that typed value (there is no escape for plain strings starting with "~"); a string with an unknown
// tag or an invalid body is a plain string.
//
// At run time the engine accepts both forms of a typed value: the tagged string (as it arrives in a source entity, so
// nothing has to be decoded up front) and a `TypedValue` instance (as produced by functions such as `datetime-parse`).
// Every type-sensitive helper here (`typedOf`, `compareValues`, `valuesEqual`, `keyOf`, ...) treats the two alike.
// Values written into a target entity are always `encode`d, so target and output entities are plain JSON.
//
// Cross-type order (used by sorted, min, max and the comparison functions), lowest first:
//   null < boolean < number/decimal < datetime/date < UUID < namespaced identifier < URI < string < dict < list < bytes
// Values of one rank compare by value: numbers and decimals numerically (exactly), datetimes as instants, UUIDs,
// NIs and URIs by their text, strings by UTF-16 code units ("B" < "a"), dicts by their key/value pairs taken in key
// order, lists element by element (a shorter prefix first), bytes byte by byte.

import { Buffer } from 'node:buffer';
import { Decimal as DecimalJs } from 'decimal.js';
import type { JsonObject, JsonPrimitive, JsonValue } from '../base/index.js';

export type TypedKind = 'ni' | 'datetime' | 'decimal' | 'bytes' | 'uuid' | 'uri';

/** Base of the typed (non-JSON) values. Instances are immutable. */
export abstract class TypedValue {
  abstract readonly kind: TypedKind;
  /** The tagged JSON form; for a value read from JSON, the exact text it was read from. */
  protected tag: string | undefined;
  tagged(): string {
    if (this.tag === undefined) this.tag = this.format();
    return this.tag;
  }
  /** The text after the two-character tag. */
  text(): string {
    return this.tagged().slice(2);
  }
  toJSON(): string {
    return this.tagged();
  }
  toString(): string {
    return this.tagged();
  }
  protected abstract format(): string;
}

export type DtlValue = JsonPrimitive | TypedValue | DtlValue[] | DtlDict;
export interface DtlDict {
  [key: string]: DtlValue;
}

// ---------------------------------------------------------------------------------------------------------------------
// The typed values

/** A namespaced identifier, `~:ns:id` (or `~:id` in the global namespace). */
export class Ni extends TypedValue {
  readonly kind = 'ni';
  /** Everything after "~:", i.e. "ns:id". */
  readonly body: string;
  constructor(body: string, raw?: string) {
    super();
    this.body = body;
    this.tag = raw;
  }
  static of(namespace: string | null, id: string): Ni {
    return new Ni(namespace === null ? id : `${namespace}:${id}`);
  }
  /** The namespace, or null for the global namespace. */
  get namespace(): string | null {
    const i = this.body.indexOf(':');
    return i < 0 ? null : this.body.slice(0, i);
  }
  get id(): string {
    const i = this.body.indexOf(':');
    return i < 0 ? this.body : this.body.slice(i + 1);
  }
  protected format(): string {
    return '~:' + this.body;
  }
}

/** A UTC instant with nanosecond precision: `epochMs` (whole milliseconds, floored) plus `nanos` (0..999999). */
export class DateTime extends TypedValue {
  readonly kind = 'datetime';
  constructor(
    readonly epochMs: number,
    readonly nanos = 0,
    /** True for a date value written without a time ("~t2015-12-31"). */
    readonly dateOnly = false,
    raw?: string,
  ) {
    super();
    this.tag = raw;
  }
  static fromEpochNanos(ns: bigint): DateTime {
    const ms = ns >= 0n ? ns / 1_000_000n : -((-ns + 999_999n) / 1_000_000n);
    return new DateTime(Number(ms), Number(ns - ms * 1_000_000n));
  }
  get epochNanos(): bigint {
    return BigInt(this.epochMs) * 1_000_000n + BigInt(this.nanos);
  }
  /** Nanoseconds within the second, 0..999999999. */
  get fraction(): number {
    const msInSecond = ((this.epochMs % 1000) + 1000) % 1000;
    return msInSecond * 1_000_000 + this.nanos;
  }
  compare(other: DateTime): number {
    if (this.epochMs !== other.epochMs) return this.epochMs < other.epochMs ? -1 : 1;
    return this.nanos === other.nanos ? 0 : this.nanos < other.nanos ? -1 : 1;
  }
  /** ISO text without the tag; the fraction has up to nine digits and no trailing zeros. */
  iso(): string {
    const d = new Date(this.epochMs);
    const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
    if (this.dateOnly) return date;
    let frac = '';
    const f = this.fraction;
    if (f !== 0) frac = '.' + pad(f, 9).replace(/0+$/, '');
    return `${date}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}${frac}Z`;
  }
  /** The same instant as a canonical key (always nine fraction digits). */
  canonical(): string {
    const d = new Date(this.epochMs);
    return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(this.fraction, 9)}Z`;
  }
  protected format(): string {
    return '~t' + this.iso();
  }
}

/** An exact decimal number: `mantissa * 10^-scale` (scale >= 0). Trailing zeros are kept, "1.50" stays "1.50". */
export class Decimal extends TypedValue {
  readonly kind = 'decimal';
  constructor(
    readonly mantissa: bigint,
    readonly scale: number,
    raw?: string,
  ) {
    super();
    this.tag = raw;
  }
  /** Parse decimal text ("-1.50", "2", "1e3", ".5"); undefined when it is not a finite decimal number. */
  static parse(text: string): Decimal | undefined {
    const m = DECIMAL_TEXT.exec(text);
    if (m === null) return undefined;
    const int = m[2] ?? '';
    const frac = m[3] ?? m[4] ?? '';
    if (int === '' && frac === '') return undefined;
    let mantissa = BigInt((int || '0') + frac);
    let scale = frac.length - (m[5] !== undefined ? Number(m[5]) : 0);
    if (scale < 0) {
      mantissa *= 10n ** BigInt(-scale);
      scale = 0;
    }
    if (m[1] === '-') mantissa = -mantissa;
    return new Decimal(mantissa, scale);
  }
  static fromNumber(n: number): Decimal {
    if (Number.isInteger(n) && Number.isSafeInteger(n)) return new Decimal(BigInt(n), 0);
    const d = Decimal.parse(String(n));
    if (d === undefined) throw new RangeError(`${n} is not a finite number`);
    return d;
  }
  static fromBigInt(n: bigint): Decimal {
    return new Decimal(n, 0);
  }
  toNumber(): number {
    return Number(this.plain());
  }
  /** Integer part, truncated toward zero. */
  truncate(): bigint {
    return this.mantissa / 10n ** BigInt(this.scale);
  }
  isInteger(): boolean {
    return this.mantissa % 10n ** BigInt(this.scale) === 0n;
  }
  compare(other: Decimal): number {
    const [a, b] = align(this, other);
    return a === b ? 0 : a < b ? -1 : 1;
  }
  add(other: Decimal): Decimal {
    const [a, b, scale] = alignScale(this, other);
    return new Decimal(a + b, scale);
  }
  subtract(other: Decimal): Decimal {
    const [a, b, scale] = alignScale(this, other);
    return new Decimal(a - b, scale);
  }
  multiply(other: Decimal): Decimal {
    return new Decimal(this.mantissa * other.mantissa, this.scale + other.scale);
  }
  negate(): Decimal {
    return new Decimal(-this.mantissa, this.scale);
  }
  isZero(): boolean {
    return this.mantissa === 0n;
  }
  isNegative(): boolean {
    return this.mantissa < 0n;
  }
  abs(): Decimal {
    return this.mantissa < 0n ? this.negate() : this;
  }
  /**
   * The quotient, or undefined when dividing by zero. An exact quotient keeps the scale of `this` minus the divisor's
   * scale where it can (6.0 / 2 is 3.0, 1 / 4 is 0.25); any other is rounded half-to-even to `precision` significant
   * digits (1 / 3 is 0.333...3 with 28 threes).
   */
  divide(other: Decimal, precision = DECIMAL_PRECISION): Decimal | undefined {
    if (other.mantissa === 0n) return undefined;
    if (this.mantissa === 0n) return new Decimal(0n, Math.max(0, this.scale - other.scale));
    const negative = this.mantissa < 0n !== other.mantissa < 0n;
    const num = this.mantissa < 0n ? -this.mantissa : this.mantissa;
    const den = other.mantissa < 0n ? -other.mantissa : other.mantissa;
    const ideal = this.scale - other.scale;
    // Pick the result scale so that the integer quotient has more than `precision` digits.
    let scale = precision + 1 - (digitCount(num) - digitCount(den)) + ideal;
    if (scale < 0) scale = 0;
    const k = scale - ideal; // quotient * 10^scale = num * 10^k / den
    const n = k >= 0 ? num * 10n ** BigInt(k) : num;
    const d = k >= 0 ? den : den * 10n ** BigInt(-k);
    let q = n / d;
    let sticky = n % d !== 0n;
    const extra = digitCount(q) - precision;
    if (extra > 0 && (sticky || q % 10n ** BigInt(extra) !== 0n)) {
      // Inexact: round to `precision` significant digits, half to even.
      const unit = 10n ** BigInt(extra);
      const rem = q % unit;
      q /= unit;
      const twice = rem * 2n;
      if (twice > unit || (twice === unit && (sticky || q % 2n === 1n))) q += 1n;
      sticky = true;
      let s = scale - extra;
      if (s < 0) {
        q *= 10n ** BigInt(-s);
        s = 0;
      }
      return new Decimal(negative ? -q : q, s);
    }
    if (sticky) {
      // Inexact with no more digits than the precision (only when the scale was clamped at zero).
      const twice = (n % d) * 2n;
      if (twice > d || (twice === d && q % 2n === 1n)) q += 1n;
      return new Decimal(negative ? -q : q, scale);
    }
    // Exact: drop trailing zeros down to the ideal scale (never below zero).
    const floor = Math.max(ideal, 0);
    while (scale > floor && q % 10n === 0n) {
      q /= 10n;
      scale--;
    }
    return new Decimal(negative ? -q : q, scale);
  }
  /** The remainder of dividing by `other`, with the sign of `other` (floored division); undefined for zero. */
  mod(other: Decimal): Decimal | undefined {
    if (other.mantissa === 0n) return undefined;
    const [a, b, scale] = alignScale(this, other);
    let r = a % b;
    if (r !== 0n && r < 0n !== b < 0n) r += b;
    return new Decimal(r, scale);
  }
  /**
   * Rounded to `digits` fraction digits (negative: to tens, hundreds, ...). The result has exactly max(digits, 0)
   * fraction digits ("2.2" to 2 digits is "2.20").
   */
  round(digits: number, mode: RoundingMode): Decimal {
    const target = Math.max(digits, 0);
    if (digits >= this.scale) return new Decimal(this.mantissa * 10n ** BigInt(target - this.scale), target);
    const unit = 10n ** BigInt(this.scale - digits);
    let q = this.mantissa / unit;
    const r = this.mantissa % unit;
    if (r !== 0n) {
      if (mode === 'floor') {
        if (r < 0n) q -= 1n;
      } else if (mode === 'ceil') {
        if (r > 0n) q += 1n;
      } else if (mode === 'half-even') {
        const twice = (r < 0n ? -r : r) * 2n;
        if (twice > unit || (twice === unit && q % 2n !== 0n)) q += r < 0n ? -1n : 1n;
      }
    }
    return digits < 0 ? new Decimal(q * 10n ** BigInt(-digits), 0) : new Decimal(q, digits);
  }
  /**
   * `this` raised to an integer power: exact for a positive power of a modest size, otherwise rounded to `precision`
   * significant digits. Undefined for zero raised to a negative power.
   */
  powInteger(n: number, precision = DECIMAL_PRECISION): Decimal | undefined {
    if (n === 0) return new Decimal(1n, 0);
    if (this.mantissa === 0n) return n < 0 ? undefined : new Decimal(0n, 0);
    const size = Math.abs(n) * digitCount(this.mantissa < 0n ? -this.mantissa : this.mantissa);
    if (n > 0 && size <= 10_000) return new Decimal(this.mantissa ** BigInt(n), this.scale * n);
    if (n < 0 && size <= 10_000) return new Decimal(1n, 0).divide(new Decimal(this.mantissa ** BigInt(-n), this.scale * -n), precision);
    return Decimal.fromLibrary(this.toLibrary(precision).pow(n));
  }
  /** `this` raised to any decimal power, to `precision` significant digits; undefined when not a real number. */
  pow(exponent: Decimal, precision = DECIMAL_PRECISION): Decimal | undefined {
    if (exponent.isInteger() && exponent.abs().compare(new Decimal(1_000_000n, 0)) <= 0) {
      return this.powInteger(Number(exponent.truncate()), precision);
    }
    if (this.mantissa < 0n) return undefined;
    if (this.mantissa === 0n) return exponent.mantissa < 0n ? undefined : new Decimal(0n, 0);
    return Decimal.fromLibrary(this.toLibrary(precision).pow(exponent.toLibrary(precision)));
  }
  /** The square root to `precision` significant digits (exact roots are exact); undefined for a negative number. */
  sqrt(precision = DECIMAL_PRECISION): Decimal | undefined {
    if (this.mantissa < 0n) return undefined;
    return Decimal.fromLibrary(this.toLibrary(precision).sqrt());
  }
  private toLibrary(precision: number): DecimalJs {
    return new (libraryContext(precision))(this.plain());
  }
  private static fromLibrary(d: DecimalJs): Decimal | undefined {
    return d.isFinite() ? Decimal.parse(d.toFixed()) : undefined;
  }
  /** Plain text with all the digits of the scale ("1.50"). */
  plain(): string {
    const neg = this.mantissa < 0n;
    let digits = (neg ? -this.mantissa : this.mantissa).toString();
    if (this.scale > 0) {
      digits = digits.padStart(this.scale + 1, '0');
      digits = digits.slice(0, digits.length - this.scale) + '.' + digits.slice(digits.length - this.scale);
    }
    return (neg ? '-' : '') + digits;
  }
  /** Text without trailing fraction zeros and without "-0": equal numbers give equal text. */
  normalized(): string {
    let m = this.mantissa;
    let s = this.scale;
    while (s > 0 && m % 10n === 0n) {
      m /= 10n;
      s--;
    }
    if (m === 0n) return '0';
    return new Decimal(m, s).plain();
  }
  protected format(): string {
    return '~f' + this.plain();
  }
}

/** Binary data, written as standard base64. */
export class Bytes extends TypedValue {
  readonly kind = 'bytes';
  constructor(
    readonly bytes: Uint8Array,
    raw?: string,
  ) {
    super();
    this.tag = raw;
  }
  base64(): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('base64');
  }
  compare(other: Bytes): number {
    return Buffer.compare(this.bytes, other.bytes);
  }
  protected format(): string {
    return '~b' + this.base64();
  }
}

/** A UUID; `hex` is the lower-case canonical text. */
export class Uuid extends TypedValue {
  readonly kind = 'uuid';
  readonly hex: string;
  constructor(hex: string, raw?: string) {
    super();
    this.hex = hex.toLowerCase();
    this.tag = raw;
  }
  protected format(): string {
    return '~u' + this.hex;
  }
}

/** A URI; no escaping is applied to the text. */
export class Uri extends TypedValue {
  readonly kind = 'uri';
  constructor(
    readonly uri: string,
    raw?: string,
  ) {
    super();
    this.tag = raw;
  }
  protected format(): string {
    return '~r' + this.uri;
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Parsing tagged strings

const DECIMAL_TEXT = /^([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$/;
const DATETIME_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2}))?$/;
const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const BASE64_TEXT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

const TILDE = 126;
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

function pad(n: number, width: number): string {
  const s = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? '-' + s : s;
}

/** Significant digits kept by inexact decimal division, roots and powers (as the usual decimal context does). */
export const DECIMAL_PRECISION = 28;

export type RoundingMode = 'half-even' | 'ceil' | 'floor' | 'trunc';

function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

const libraryContexts = new Map<number, typeof DecimalJs>();

function libraryContext(precision: number): typeof DecimalJs {
  let c = libraryContexts.get(precision);
  if (c === undefined) {
    c = DecimalJs.clone({ precision, rounding: DecimalJs.ROUND_HALF_EVEN, toExpNeg: -9e15, toExpPos: 9e15 });
    libraryContexts.set(precision, c);
  }
  return c;
}

function align(a: Decimal, b: Decimal): [bigint, bigint] {
  const [x, y] = alignScale(a, b);
  return [x, y];
}

function alignScale(a: Decimal, b: Decimal): [bigint, bigint, number] {
  if (a.scale === b.scale) return [a.mantissa, b.mantissa, a.scale];
  if (a.scale < b.scale) return [a.mantissa * 10n ** BigInt(b.scale - a.scale), b.mantissa, b.scale];
  return [a.mantissa, b.mantissa * 10n ** BigInt(a.scale - b.scale), a.scale];
}

// ---------------------------------------------------------------------------------------------------------------------
// Classification

/** True for a JSON object / dict value (not a list, not a typed value). */
export function isDict(v: unknown): v is DtlDict {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof TypedValue);
}

/** The typed value `v` stands for (an instance or a valid tagged string), else null. */
export function typedOf(v: DtlValue | undefined): TypedValue | null {
  if (typeof v === 'string') return v.length > 1 && v.charCodeAt(0) === TILDE ? parseTagged(v) : null;
  return v instanceof TypedValue ? v : null;
}

/** True for a string that is not a typed value. */
export function isPlainString(v: DtlValue | undefined): v is string {
  return typeof v === 'string' && (v.length < 2 || v.charCodeAt(0) !== TILDE || parseTagged(v) === null);
}

export type ValueKind = 'null' | 'boolean' | 'integer' | 'float' | 'string' | 'list' | 'dict' | TypedKind;

/** The kind of a value; tagged strings count as their typed kind. */
export function kindOf(v: DtlValue | undefined): ValueKind {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(v) ? 'integer' : 'float';
    case 'string': {
      const t = v.length > 1 && v.charCodeAt(0) === TILDE ? parseTagged(v) : null;
      return t === null ? 'string' : t.kind;
    }
  }
  if (Array.isArray(v)) return 'list';
  if (v instanceof TypedValue) return v.kind;
  return 'dict';
}

const RANK: Record<ValueKind, number> = {
  null: 0,
  boolean: 1,
  integer: 2,
  float: 2,
  decimal: 2,
  datetime: 3,
  uuid: 4,
  ni: 5,
  uri: 6,
  string: 7,
  dict: 8,
  list: 9,
  bytes: 10,
};

/** Position of the value's type in the cross-type order (see the top of this file). */
export function rankOf(v: DtlValue | undefined): number {
  return RANK[kindOf(v)];
}

// ---------------------------------------------------------------------------------------------------------------------
// Truthiness and list coercion

/** false, null (and missing) and the empty list are false; every other value is true. */
export function isTruthy(v: DtlValue | undefined): boolean {
  return v !== false && v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0);
}

const EMPTY: readonly DtlValue[] = Object.freeze([]);

/** Coerce to a list: null gives the empty list, a list itself, any other value a one-element list. */
export function asList(v: DtlValue | undefined): readonly DtlValue[] {
  if (v === null || v === undefined) return EMPTY;
  return Array.isArray(v) ? v : [v];
}

/** The first value: a list's first element (null when empty), any other value itself. */
export function firstOf(v: DtlValue | undefined): DtlValue {
  if (v === undefined) return null;
  if (Array.isArray(v)) return v.length === 0 ? null : (v[0] as DtlValue);
  return v;
}

/**
 * Apply `fn` to a value the way most DTL functions do: a list gives a list of the results (dropping `undefined`), a
 * single value gives the single result (null when dropped), null gives null.
 */
export function mapValues(v: DtlValue, fn: (x: DtlValue) => DtlValue | undefined): DtlValue {
  if (v === null) return null;
  if (!Array.isArray(v)) return fn(v) ?? null;
  const out: DtlValue[] = [];
  for (const x of v) {
    const r = fn(x);
    if (r !== undefined) out.push(r);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------------
// Equality and order

function numericOf(v: DtlValue): number | Decimal | undefined {
  if (typeof v === 'number') return v;
  const t = typedOf(v);
  return t instanceof Decimal ? t : undefined;
}

function compareNumeric(a: number | Decimal, b: number | Decimal): number {
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a < b ? -1 : 1;
  const da = typeof a === 'number' ? Decimal.fromNumber(a) : a;
  const db = typeof b === 'number' ? Decimal.fromNumber(b) : b;
  return da.compare(db);
}

function compareStrings(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

function compareSameTyped(a: TypedValue, b: TypedValue): number {
  if (a instanceof DateTime && b instanceof DateTime) return a.compare(b);
  if (a instanceof Uuid && b instanceof Uuid) return compareStrings(a.hex, b.hex);
  if (a instanceof Ni && b instanceof Ni) return compareStrings(a.body, b.body);
  if (a instanceof Uri && b instanceof Uri) return compareStrings(a.uri, b.uri);
  if (a instanceof Bytes && b instanceof Bytes) return a.compare(b);
  if (a instanceof Decimal && b instanceof Decimal) return a.compare(b);
  return 0;
}

/** Total order over all values (see the top of this file). Returns a negative number, zero or a positive number. */
export function compareValues(a: DtlValue | undefined, b: DtlValue | undefined): number {
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a < b ? -1 : 1;
  const ka = kindOf(a);
  const kb = kindOf(b);
  const ra = RANK[ka];
  const rb = RANK[kb];
  if (ra !== rb) return ra < rb ? -1 : 1;
  return compareSameRank(ra, a ?? null, b ?? null);
}

/**
 * Compare two values of compatible types (same rank); undefined when either is null or the types differ. The
 * comparison functions (gt, gte, lt, lte) use this so that "abc" > 5 is simply false.
 */
export function compareCompatible(a: DtlValue | undefined, b: DtlValue | undefined): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a < b ? -1 : 1;
  if (a === null || a === undefined || b === null || b === undefined) return undefined;
  const ra = rankOf(a);
  if (ra !== rankOf(b)) return undefined;
  return compareSameRank(ra, a, b);
}

function compareSameRank(rank: number, a: DtlValue, b: DtlValue): number {
  switch (rank) {
    case 0:
      return 0;
    case 1:
      return a === b ? 0 : a === false ? -1 : 1;
    case 2:
      return compareNumeric(numericOf(a) as number | Decimal, numericOf(b) as number | Decimal);
    case 7:
      return compareStrings(a as string, b as string);
    case 8:
      return compareDicts(a as DtlDict, b as DtlDict);
    case 9:
      return compareLists(a as DtlValue[], b as DtlValue[]);
    default:
      return compareSameTyped(typedOf(a) as TypedValue, typedOf(b) as TypedValue);
  }
}

function compareLists(a: readonly DtlValue[], b: readonly DtlValue[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function compareDicts(a: DtlDict, b: DtlDict): number {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const x = ka[i] as string;
    const y = kb[i] as string;
    if (x !== y) return x < y ? -1 : 1;
    const c = compareValues(a[x], b[y]);
    if (c !== 0) return c;
  }
  return ka.length === kb.length ? 0 : ka.length < kb.length ? -1 : 1;
}

/**
 * Deep equality by value: numbers and decimals compare numerically, a typed value equals its tagged string, dicts
 * compare regardless of key order. Booleans never equal numbers.
 */
export function valuesEqual(a: DtlValue | undefined, b: DtlValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return (a ?? null) === (b ?? null);
  const ta = typeof a;
  const tb = typeof b;
  if (ta === 'number' && tb === 'number') return false;
  if (ta === 'string' && tb === 'string') {
    const x = typedOf(a);
    const y = typedOf(b);
    if (x === null || y === null) return false;
    return x.kind === y.kind && compareSameTyped(x, y) === 0;
  }
  if (ta === 'boolean' || tb === 'boolean') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  if (isDict(a)) {
    if (!isDict(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const k of keys) {
      if (!Object.hasOwn(b, k) || !valuesEqual(a[k], b[k])) return false;
    }
    return true;
  }
  if (isDict(b)) return false;
  const ra = rankOf(a);
  if (ra !== rankOf(b)) return false;
  if (ra === 2) return compareNumeric(numericOf(a) as number | Decimal, numericOf(b) as number | Decimal) === 0;
  const x = typedOf(a);
  const y = typedOf(b);
  return x !== null && y !== null && x.kind === y.kind && compareSameTyped(x, y) === 0;
}

/**
 * A canonical text for a value, equal exactly when `valuesEqual` holds: canonical JSON of the decoded value, with
 * numbers and decimals written alike ("1.50" and 1.5 give "#1.5") and datetimes with nine fraction digits. Used for
 * distinct/in/union and for join keys.
 */
export function keyOf(v: DtlValue | undefined): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return '#' + (Number.isSafeInteger(v) ? String(v) : Decimal.fromNumber(v).normalized());
    case 'string': {
      const t = v.length > 1 && v.charCodeAt(0) === TILDE ? parseTagged(v) : null;
      return t === null ? JSON.stringify(v) : typedKey(t);
    }
  }
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i > 0 ? ',' : '') + keyOf(v[i]);
    return out + ']';
  }
  if (v instanceof TypedValue) return typedKey(v);
  const keys = Object.keys(v).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    out += (i > 0 ? ',' : '') + JSON.stringify(k) + ':' + keyOf(v[k]);
  }
  return out + '}';
}

function typedKey(t: TypedValue): string {
  if (t instanceof Decimal) return '#' + t.normalized();
  if (t instanceof DateTime) return JSON.stringify('~t' + t.canonical());
  if (t instanceof Uuid) return JSON.stringify('~u' + t.hex);
  if (t instanceof Bytes) return JSON.stringify('~b' + t.base64());
  return JSON.stringify(t.tagged());
}

// ---------------------------------------------------------------------------------------------------------------------
// Encoding and decoding

/**
 * Write a value as JSON: typed values become their tagged strings. Containers are copied only when something inside
 * them changes, so plain JSON comes back as the very same object.
 */
export function encode(v: DtlValue): JsonValue {
  if (typeof v !== 'object' || v === null) return v;
  if (v instanceof TypedValue) return v.tagged();
  if (Array.isArray(v)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = v[i] as DtlValue;
      const e = encode(x);
      if (e !== x && out === undefined) out = v.slice(0, i) as JsonValue[];
      if (out !== undefined) out.push(e);
    }
    return out ?? (v as JsonValue[]);
  }
  let out: JsonObject | undefined;
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const x = v[k] as DtlValue;
    const e = encode(x);
    if (e !== x && out === undefined) {
      out = {};
      for (let j = 0; j < i; j++) setProperty(out, keys[j] as string, v[keys[j] as string] as JsonValue);
    }
    if (out !== undefined) setProperty(out, k, e);
  }
  return out ?? (v as JsonObject);
}

/** Read JSON into typed values: every valid tagged string becomes a `TypedValue`. Copies only what changes. */
export function decode(v: JsonValue): DtlValue {
  if (typeof v === 'string') return typedOf(v) ?? v;
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    let out: DtlValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = v[i] as JsonValue;
      const d = decode(x);
      if (d !== x && out === undefined) out = v.slice(0, i);
      if (out !== undefined) out.push(d);
    }
    return out ?? v;
  }
  let out: DtlDict | undefined;
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const x = v[k] as JsonValue;
    const d = decode(x);
    if (d !== x && out === undefined) {
      out = {};
      for (let j = 0; j < i; j++) setProperty(out, keys[j] as string, v[keys[j] as string] as JsonValue);
    }
    if (out !== undefined) setProperty(out, k, d);
  }
  return out ?? v;
}

/** Set an own property, also for the key "__proto__" (which plain assignment would treat as the prototype). */
export function setProperty<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** An own property's value, or undefined (never an inherited member such as "constructor"). */
export function getProperty(obj: DtlDict, key: string): DtlValue | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

// ---------------------------------------------------------------------------------------------------------------------
// Text forms

/**
 * The text of a value, as the `string` function gives it: strings as they are, typed values without their tag
 * ("~rhttp://x" gives "http://x", "~:ns:id" gives "ns:id"), numbers and booleans as in JSON, lists and dicts as JSON
 * with sorted keys and ", " / ": " separators (typed values inside as their text).
 */
export function toText(v: DtlValue): string {
  if (typeof v === 'string') {
    const t = v.length > 1 && v.charCodeAt(0) === TILDE ? parseTagged(v) : null;
    return t === null ? v : t.text();
  }
  if (v instanceof TypedValue) return v.text();
  if (typeof v === 'object' && v !== null) return plainJson(v);
  return String(v);
}

/** JSON text in the style of the original service: sorted keys, ", " and ": " separators, typed values untagged. */
export function plainJson(v: DtlValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string' || v instanceof TypedValue) return JSON.stringify(typeof v === 'string' ? toText(v) : v.text());
  if (typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(plainJson).join(', ') + ']';
  const keys = Object.keys(v).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ': ' + plainJson(v[k] as DtlValue)).join(', ') + '}';
}

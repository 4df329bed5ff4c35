// Equality and total order over DTL values, and the canonical key text that matches equality.

import { Decimal } from './decimal.js';
import { TILDE, parseTagged } from './tagged-text.js';
import { Bytes, DateTime, Ni, TypedValue, Uri, Uuid, type DtlDict, type DtlValue } from './typed-values.js';
import { RANK, isDict, kindOf, rankOf, typedOf } from './value-kinds.js';

type Numeric = number | bigint | Decimal;

function numericOf(v: DtlValue): Numeric | undefined {
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  const t = typedOf(v);
  return t instanceof Decimal ? t : undefined;
}

/** Numbers, big integers and decimals by value: 1 equals 1n and "~f1.0", 2.5 lies between 2n and 3n. */
function compareNumeric(a: Numeric, b: Numeric): number {
  if (a instanceof Decimal || b instanceof Decimal) return asDecimal(a).compare(asDecimal(b));
  // A number and a bigint compare by their exact values in JavaScript (1.5 < 2n), as two of either kind do.
  return a < b ? -1 : a > b ? 1 : 0;
}

function asDecimal(n: Numeric): Decimal {
  return typeof n === 'number' ? Decimal.fromNumber(n) : typeof n === 'bigint' ? Decimal.fromBigInt(n) : n;
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

/** Total order over all values (see the top of values.ts). Returns a negative number, zero or a positive number. */
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
      return compareNumeric(numericOf(a) as Numeric, numericOf(b) as Numeric);
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
  if (ra === 2) return compareNumeric(numericOf(a) as Numeric, numericOf(b) as Numeric) === 0;
  const x = typedOf(a);
  const y = typedOf(b);
  return x !== null && y !== null && x.kind === y.kind && compareSameTyped(x, y) === 0;
}

/**
 * A canonical text for a value, equal exactly when `valuesEqual` holds: canonical JSON of the decoded value, with
 * numbers, big integers and decimals written alike ("1.50" and 1.5 give "#1.5") and datetimes with nine fraction digits. Used for
 * distinct/in/union and for join keys.
 */
export function keyOf(v: DtlValue | undefined): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return '#' + (Number.isSafeInteger(v) ? String(v) : Decimal.fromNumber(v).normalized());
    case 'bigint':
      return '#' + v.toString();
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

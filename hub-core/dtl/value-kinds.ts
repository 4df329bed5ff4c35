// Classifying values (kind, rank, dict, typed), truthiness, list coercion and own-property access.

import { TILDE, parseTagged } from './tagged-text.js';
import { TypedValue, type DtlDict, type DtlValue, type TypedKind } from './typed-values.js';

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

/**
 * The kind of a value; tagged strings count as their typed kind. A bigint is an integer (one beyond ±2^53, as JSON
 * text with a larger integer is read); a number beyond ±2^53 can only come from float arithmetic or a float literal
 * (1e20), so it is a float.
 */
export function kindOf(v: DtlValue | undefined): ValueKind {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isSafeInteger(v) ? 'integer' : 'float';
    case 'bigint':
      return 'integer';
    case 'string': {
      const t = v.length > 1 && v.charCodeAt(0) === TILDE ? parseTagged(v) : null;
      return t === null ? 'string' : t.kind;
    }
  }
  if (Array.isArray(v)) return 'list';
  if (v instanceof TypedValue) return v.kind;
  return 'dict';
}

export const RANK: Record<ValueKind, number> = {
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

/** Position of the value's type in the cross-type order (see the top of values.ts). */
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

/** Set an own property, also for the key "__proto__" (which plain assignment would treat as the prototype). */
export function setProperty<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** An own property's value, or undefined (never an inherited member such as "constructor"). */
export function getProperty(obj: DtlDict, key: string): DtlValue | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

// Small helpers shared by the function families.

import type { Ctx, Expr } from '../context.js';
import { spend } from '../work-limit.js';
import type { ArgNode, CompileContext } from '../registry.js';
import { asList, valuesEqual, type DtlValue } from '../values.js';

/** Evaluate `e` with `_` bound to `value`. */
export function withCurrent(ctx: Ctx, value: DtlValue, e: Expr): DtlValue {
  spend(ctx.run, 1);
  const saved = ctx.current;
  ctx.current = value;
  const r = e(ctx);
  ctx.current = saved;
  return r;
}

/** Call `fn` for each string in a value (a string, or the strings of a list). */
export function forEachString(v: DtlValue, fn: (s: string) => void): void {
  if (typeof v === 'string') fn(v);
  else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') fn(x);
}

/** The first string of a value, if any. */
export function firstString(v: DtlValue): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') return x;
  return undefined;
}

/**
 * Equality as `eq` defines it: null equals only null; otherwise both sides are coerced to lists (a value becomes a
 * one-element list) and the lists compared element by element.
 */
export function dtlEquals(a: DtlValue, b: DtlValue): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (Array.isArray(b)) return valuesEqual(a, b);
    return a.length === 1 && valuesEqual(a[0], b);
  }
  if (Array.isArray(b)) return b.length === 1 && valuesEqual(a, b[0]);
  return valuesEqual(a, b);
}

/** Values in order with duplicates (by value) removed. */
export function distinctValues(values: readonly DtlValue[]): DtlValue[] {
  const out: DtlValue[] = [];
  for (const v of values) if (!out.some((x) => valuesEqual(x, v))) out.push(v);
  return out;
}

/** Concatenate two values as lists. */
export function concatLists(a: DtlValue, b: DtlValue): DtlValue[] {
  return [...asList(a), ...asList(b)];
}

/** A property-name argument: a literal name, or an expression evaluated per run. */
export type NameArg = { readonly name: string } | { readonly expr: Expr };

export function nameArg(cc: CompileContext, arg: ArgNode): NameArg {
  return typeof arg.node === 'string' ? { name: arg.node } : { expr: cc.expr(arg) };
}

/** Short description of a value for error messages. */
export function describeValue(v: DtlValue): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? text.slice(0, 57) + '...' : text;
}

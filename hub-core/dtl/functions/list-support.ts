// Helpers shared by the list functions: the family name, integer and optional arguments, sort keys, concatenation.

import type { Ctx, Expr } from '../context.js';
import type { ArgNode, CompileContext } from '../registry.js';
import { Decimal, typedOf, type DtlValue } from '../values.js';
import { spend } from '../work-limit.js';

export const FAMILY = 'lists';

/** An integer argument's value: an integer, an integral decimal, or a one-element list of one; else undefined. */
export function integerOf(v: DtlValue): number | undefined {
  const x = Array.isArray(v) && v.length === 1 ? (v[0] as DtlValue) : v;
  if (typeof x === 'number') return Number.isSafeInteger(x) ? x : undefined;
  const t = typedOf(x);
  if (t instanceof Decimal && t.isInteger()) {
    const n = Number(t.truncate());
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** The integer of a literal integer argument (for compile-time checks), else undefined. */
export function literalInteger(arg: ArgNode | undefined): number | undefined {
  return arg !== undefined && typeof arg.node === 'number' && Number.isInteger(arg.node) ? arg.node : undefined;
}

/** An optional function argument, compiled; undefined when it is absent. */
export function optionalExpr(cc: CompileContext, arg: ArgNode | undefined): Expr | undefined {
  return arg === undefined ? undefined : cc.expr(arg);
}

/** The sort keys of values: the values themselves, or the function's result for each (with _ bound to it). */
export function keysOf(ctx: Ctx, values: readonly DtlValue[], fn: Expr | undefined): readonly DtlValue[] {
  if (fn === undefined) return values;
  spend(ctx.run, values.length);
  const saved = ctx.current;
  const out = new Array<DtlValue>(values.length);
  for (let i = 0; i < values.length; i++) {
    ctx.current = values[i] as DtlValue;
    out[i] = fn(ctx);
  }
  ctx.current = saved;
  return out;
}

/** Concatenate values as lists, one level: a list contributes its elements, null nothing, any other value itself. */
export function concatAll(parts: readonly DtlValue[]): DtlValue[] {
  const out: DtlValue[] = [];
  for (const p of parts) {
    if (Array.isArray(p)) for (const x of p) out.push(x);
    else if (p !== null) out.push(p);
  }
  return out;
}

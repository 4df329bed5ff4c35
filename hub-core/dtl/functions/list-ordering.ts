// Ordering and totals over the engine's total order: max, min, sorted, sorted-descending, sum.

import { expression, one, optional, type FunctionSpec } from '../registry.js';
import { asList, compareValues, Decimal, typedOf, type DtlValue } from '../values.js';
import { FAMILY, optionalExpr, keysOf } from './list-support.js';
import { integerValue } from '../integers.js';

/** A stable sort of `values` by their keys, ascending or descending (equal keys keep their input order). */
export function sortByKeys(values: readonly DtlValue[], keys: readonly DtlValue[], descending: boolean): DtlValue[] {
  const idx = values.map((_, i) => i);
  const sign = descending ? -1 : 1;
  idx.sort((i, j) => sign * compareValues(keys[i], keys[j]) || i - j);
  return idx.map((i) => values[i] as DtlValue);
}

/** The value whose key is least (or greatest); the first such value on ties; null for no values. */
export function extreme(values: readonly DtlValue[], keys: readonly DtlValue[], wantMax: boolean): DtlValue {
  if (values.length === 0) return null;
  let best = 0;
  for (let i = 1; i < values.length; i++) {
    const c = compareValues(keys[i], keys[best]);
    if (wantMax ? c > 0 : c < 0) best = i;
  }
  return values[best] as DtlValue;
}

/**
 * The sum of the numbers and decimals among values (other values are ignored). Integers only give an exact integer
 * (of any size); with a decimal among them every number is taken at its shortest decimal text and the sum is an exact
 * decimal; otherwise the numbers are added as floats, left to right.
 */
export function sumOf(values: readonly DtlValue[]): DtlValue {
  let hasDecimal = false;
  let allIntegers = true;
  for (const v of values) {
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) allIntegers = false;
    } else if (typeof v !== 'bigint' && typedOf(v) instanceof Decimal) hasDecimal = true;
  }
  if (hasDecimal) {
    let total = new Decimal(0n, 0);
    for (const v of values) {
      if (typeof v === 'number') {
        if (Number.isFinite(v)) total = total.add(Decimal.fromNumber(v));
      } else if (typeof v === 'bigint') total = total.add(Decimal.fromBigInt(v));
      else {
        const t = typedOf(v);
        if (t instanceof Decimal) total = total.add(t);
      }
    }
    return total;
  }
  if (allIntegers) {
    let total = 0n;
    for (const v of values) if (typeof v === 'number' || typeof v === 'bigint') total += BigInt(v);
    return integerValue(total);
  }
  let total = 0;
  for (const v of values) if (typeof v === 'number' || typeof v === 'bigint') total += Number(v);
  return total;
}

/** A function of the form [NAME, FUNCTION?, VALUES]: `pick` gets the values and their keys (FUNCTION's results, or themselves). */
function orderingFunction(name: string, description: string, examples: FunctionSpec['examples'], pick: (values: DtlValue, keys: (list: readonly DtlValue[]) => readonly DtlValue[]) => DtlValue): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [optional('FUNCTION', 'function'), one('VALUES', 'value')],
    description,
    examples,
    json: 'args',
    compile(b, cc) {
      const fn = optionalExpr(cc, b.opt('FUNCTION'));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => pick(values(ctx), (list) => keysOf(ctx, list, fn));
    },
  });
}

export function sortFunction(name: string, descending: boolean, description: string, examples: FunctionSpec['examples']): FunctionSpec {
  return orderingFunction(name, description, examples, (v, keys) => (Array.isArray(v) ? sortByKeys(v, keys(v), descending) : v));
}

export function extremeFunction(name: string, wantMax: boolean, description: string, examples: FunctionSpec['examples']): FunctionSpec {
  return orderingFunction(name, description, examples, (v, keys) => {
    const vs = asList(v);
    return extreme(vs, keys(vs), wantMax);
  });
}

export const listOrderingFunctions: FunctionSpec[] = [
  extremeFunction('max', true, 'The greatest value in the engine\'s total order over all types (by FUNCTION\'s result when given); null when there are none.', [
    { expression: ['max', ['list', 4, 2, 5, 3]], result: 5 },
    { expression: ['max', ['list', { x: 1 }, 'b', 2, 'a']], result: { x: 1 } },
    { expression: ['max', '_.amount', '_S.orders'], source: { orders: [{ amount: 5 }, { amount: 50 }, { amount: 7 }] }, result: { amount: 50 } },
  ]),

  extremeFunction('min', false, 'The least value in the engine\'s total order over all types (by FUNCTION\'s result when given); null when there are none.', [
    { expression: ['min', ['list', 4, 2, 5, 3]], result: 2 },
    { expression: ['min', ['list', 'B', 'b', 'A', 'a']], result: 'A' },
    { expression: ['min', '_.amount', '_S.orders'], source: { orders: [{ amount: 5 }, { amount: 50 }, { amount: 7 }] }, result: { amount: 5 } },
  ]),

  sortFunction('sorted', false, 'The list in ascending order of the engine\'s total order (by FUNCTION\'s result when given; stable, duplicates kept); non-lists unchanged.', [
    { expression: ['sorted', ['list', 4, 2, 5, 4, 3]], result: [2, 3, 4, 4, 5] },
    { expression: ['sorted', ['list', 'b', 2, { x: 1 }, 'a', 4]], result: [2, 4, 'a', 'b', { x: 1 }] },
    { expression: ['sorted', '_.age', ['list', { age: 30 }, { age: 50 }, { age: 20 }]], result: [{ age: 20 }, { age: 30 }, { age: 50 }] },
  ]),

  sortFunction('sorted-descending', true, 'The list in descending order of the engine\'s total order (by FUNCTION\'s result when given; stable, duplicates kept); non-lists unchanged.', [
    { expression: ['sorted-descending', ['list', 4, 2, 5, 4, 3]], result: [5, 4, 4, 3, 2] },
    { expression: ['sorted-descending', ['list', 'b', 2, { x: 1 }, 'a', 4]], result: [{ x: 1 }, 'b', 'a', 4, 2] },
    { expression: ['sorted-descending', '_.age', ['list', { age: 30 }, { age: 50 }, { age: 20 }]], result: [{ age: 50 }, { age: 30 }, { age: 20 }] },
  ]),

  expression({
    name: 'sum',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'The sum of the numbers among the values (others ignored); exact when decimals are involved, 0 when there are none.',
    examples: [
      { expression: ['sum', ['list', 2, 4, 6]], result: 12 },
      { expression: ['sum', ['list', '~f0.1', 0.2, 'x', null]], result: '~f0.3' },
    ],
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => sumOf(asList(values(ctx)));
    },
  }),
];

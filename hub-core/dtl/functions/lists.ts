// Lists: list, first, last, count, is-empty, is-not-empty, in, map, filter, combine, flatten, distinct, enumerate,
// group, group-by, insert, is-list, map-dict, map-values, max, min, nth, range, reversed, slice, sorted,
// sorted-descending, sum.
//
// Conventions of this family:
// - Ordering (sorted, min, max) is the engine's total order over all values (`compareValues`, see values.ts);
//   sameness (distinct, group, group-by) is by canonical key (`keyOf`), so 1, 1.0 and "~f1.00" are one value.
// - Where a list is expected, null counts as the empty list and any other single value as a one-element list.
// - Integer arguments (INDEX, START, ...) accept an integer number, an integral decimal, or a one-element list of
//   either; anything else (null included) makes the function give null.

import { DtlRuntimeError, type Ctx, type Expr } from '../context.js';
import { expression, one, oneOrMore, optional, zeroOrMore, type ArgNode, type CompileContext, type FunctionSpec } from '../registry.js';
import {
  asList,
  compareValues,
  Decimal,
  isDict,
  isPlainString,
  isTruthy,
  keyOf,
  setProperty,
  TypedValue,
  typedOf,
  valuesEqual,
  type DtlDict,
  type DtlValue,
} from '../values.js';
import { withCurrent } from './util.js';
import { spend } from '../work-limit.js';

const FAMILY = 'lists';

/** Largest list `range` will build; a bigger one is a run-time error rather than an out-of-memory crash. */
const RANGE_LIMIT = 10_000_000;

/** An integer argument's value: an integer, an integral decimal, or a one-element list of one; else undefined. */
function integerOf(v: DtlValue): number | undefined {
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
function literalInteger(arg: ArgNode | undefined): number | undefined {
  return arg !== undefined && typeof arg.node === 'number' && Number.isInteger(arg.node) ? arg.node : undefined;
}

/** An optional function argument, compiled; undefined when it is absent. */
function optionalExpr(cc: CompileContext, arg: ArgNode | undefined): Expr | undefined {
  return arg === undefined ? undefined : cc.expr(arg);
}

/** The sort keys of values: the values themselves, or the function's result for each (with _ bound to it). */
function keysOf(ctx: Ctx, values: readonly DtlValue[], fn: Expr | undefined): readonly DtlValue[] {
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

/** A stable sort of `values` by their keys, ascending or descending (equal keys keep their input order). */
function sortByKeys(values: readonly DtlValue[], keys: readonly DtlValue[], descending: boolean): DtlValue[] {
  const idx = values.map((_, i) => i);
  const sign = descending ? -1 : 1;
  idx.sort((i, j) => sign * compareValues(keys[i], keys[j]) || i - j);
  return idx.map((i) => values[i] as DtlValue);
}

/** The value whose key is least (or greatest); the first such value on ties; null for no values. */
function extreme(values: readonly DtlValue[], keys: readonly DtlValue[], wantMax: boolean): DtlValue {
  if (values.length === 0) return null;
  let best = 0;
  for (let i = 1; i < values.length; i++) {
    const c = compareValues(keys[i], keys[best]);
    if (wantMax ? c > 0 : c < 0) best = i;
  }
  return values[best] as DtlValue;
}

/** Concatenate values as lists, one level: a list contributes its elements, null nothing, any other value itself. */
function concatAll(parts: readonly DtlValue[]): DtlValue[] {
  const out: DtlValue[] = [];
  for (const p of parts) {
    if (Array.isArray(p)) for (const x of p) out.push(x);
    else if (p !== null) out.push(p);
  }
  return out;
}

/**
 * The sum of the numbers and decimals among values (other values are ignored). Integers only give an integer;
 * with a decimal among them every number is taken at its shortest decimal text and the sum is an exact decimal;
 * otherwise the numbers are added as floats, left to right.
 */
export function sumOf(values: readonly DtlValue[]): DtlValue {
  let hasDecimal = false;
  let allIntegers = true;
  for (const v of values) {
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) allIntegers = false;
    } else if (typedOf(v) instanceof Decimal) hasDecimal = true;
  }
  if (hasDecimal) {
    let total = new Decimal(0n, 0);
    for (const v of values) {
      if (typeof v === 'number') {
        if (Number.isFinite(v)) total = total.add(Decimal.fromNumber(v));
      } else {
        const t = typedOf(v);
        if (t instanceof Decimal) total = total.add(t);
      }
    }
    return total;
  }
  if (allIntegers) {
    let total = 0n;
    for (const v of values) if (typeof v === 'number') total += BigInt(v);
    return Number(total);
  }
  let total = 0;
  for (const v of values) if (typeof v === 'number') total += v;
  return total;
}

/**
 * The JSON text of a value with typed values as their tagged strings, dict keys sorted and ", " / ": " separators:
 * the string form `group-by` uses for its keys.
 */
export function taggedJson(v: DtlValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof TypedValue) return JSON.stringify(v.tagged());
  if (typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(taggedJson).join(', ') + ']';
  const keys = Object.keys(v).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ': ' + taggedJson(v[k] as DtlValue)).join(', ') + '}';
}

/** Python-style slice bounds and step: the indices from START to END (exclusive) in steps of STEP. */
function sliceList(vs: readonly DtlValue[], start: number | undefined, end: number | undefined, step: number): DtlValue[] {
  const n = vs.length;
  const clamp = (i: number, lo: number, hi: number): number => (i < lo ? lo : i > hi ? hi : i);
  const norm = (i: number, lo: number, hi: number): number => clamp(i < 0 ? i + n : i, lo, hi);
  const out: DtlValue[] = [];
  if (step > 0) {
    const from = start === undefined ? 0 : norm(start, 0, n);
    const to = end === undefined ? n : norm(end, 0, n);
    for (let i = from; i < to; i += step) out.push(vs[i] as DtlValue);
  } else {
    const from = start === undefined ? n - 1 : norm(start, -1, n - 1);
    const to = end === undefined ? -1 : norm(end, -1, n - 1);
    for (let i = from; i > to; i += step) out.push(vs[i] as DtlValue);
  }
  return out;
}

function sortFunction(name: string, descending: boolean, description: string, examples: FunctionSpec['examples']): FunctionSpec {
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
      return (ctx) => {
        const v = values(ctx);
        if (!Array.isArray(v)) return v;
        return sortByKeys(v, keysOf(ctx, v, fn), descending);
      };
    },
  });
}

function extremeFunction(name: string, wantMax: boolean, description: string, examples: FunctionSpec['examples']): FunctionSpec {
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
      return (ctx) => {
        const vs = asList(values(ctx));
        return extreme(vs, keysOf(ctx, vs, fn), wantMax);
      };
    },
  });
}

export const listFunctions: FunctionSpec[] = [
  expression({
    name: 'list',
    family: FAMILY,
    params: [zeroOrMore('VALUES', 'value')],
    description: 'A list of the argument values, in order (nested lists stay nested).',
    examples: [
      { expression: ['list'], result: [] },
      { expression: ['list', 'a', ['list', 'b'], 'c'], result: ['a', ['b'], 'c'] },
    ],
    json: 'args',
    compile(b, cc) {
      const items = b.many('VALUES').map((a) => cc.expr(a));
      const n = items.length;
      if (n === 0) return () => [];
      if (n === 1) {
        const x = items[0] as Expr;
        return (ctx) => [x(ctx)];
      }
      if (n === 2) {
        const [x, y] = items as [Expr, Expr];
        return (ctx) => [x(ctx), y(ctx)];
      }
      return (ctx) => {
        const out = new Array<DtlValue>(n);
        for (let i = 0; i < n; i++) out[i] = (items[i] as Expr)(ctx);
        return out;
      };
    },
  }),

  expression({
    name: 'first',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'The first element of a list (null when empty); any other value itself.',
    examples: [
      { expression: ['first', ['list', 'a', 'b', 'c']], result: 'a' },
      { expression: ['first', '_S.tags'], source: { tags: ['x', 'y'] }, result: 'x' },
      { expression: ['first', 123], result: 123 },
    ],
    json: 'args',
    compile(b, cc) {
      const v = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const x = v(ctx);
        return Array.isArray(x) ? (x.length === 0 ? null : (x[0] as DtlValue)) : x;
      };
    },
  }),

  expression({
    name: 'last',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'The last element of a list (null when empty); any other value itself.',
    examples: [
      { expression: ['last', ['list', 'a', 'b', 'c']], result: 'c' },
      { expression: ['last', 'x'], result: 'x' },
    ],
    json: 'args',
    compile(b, cc) {
      const v = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const x = v(ctx);
        return Array.isArray(x) ? (x.length === 0 ? null : (x[x.length - 1] as DtlValue)) : x;
      };
    },
  }),

  expression({
    name: 'count',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'The number of values: the length of a list, 0 for null, 1 for any other value.',
    examples: [
      { expression: ['count', ['list', 2, 4, 6]], result: 3 },
      { expression: ['count', null], result: 0 },
      { expression: ['count', 123], result: 1 },
    ],
    json: 'yes',
    compile(b, cc) {
      const v = cc.expr(b.one('VALUES'));
      return (ctx) => asList(v(ctx)).length;
    },
  }),

  expression({
    name: 'is-empty',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'True for null and the empty list.',
    examples: [
      { expression: ['is-empty', '_S.hobbies'], source: { hobbies: [] }, result: true },
      { expression: ['is-empty', '_S.hobbies'], source: {}, result: true },
      { expression: ['is-empty', 0], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const v = cc.expr(b.one('VALUES'));
      return (ctx) => asList(v(ctx)).length === 0;
    },
  }),

  expression({
    name: 'is-not-empty',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'True for any value except null and the empty list.',
    examples: [
      { expression: ['is-not-empty', '_S.hobbies'], source: { hobbies: ['chess'] }, result: true },
      { expression: ['is-not-empty', null], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const v = cc.expr(b.one('VALUES'));
      return (ctx) => asList(v(ctx)).length > 0;
    },
  }),

  expression({
    name: 'in',
    family: FAMILY,
    params: [one('VALUES', 'value'), one('ITEMS', 'value')],
    description: 'True when every one of the values occurs among the items; false when there are no values.',
    examples: [
      { expression: ['in', 'a', ['list', 'a', 'b', 'c']], result: true },
      { expression: ['in', 'd', ['list', 'a', 'b', 'c']], result: false },
      { expression: ['in', ['list', 10], 10], result: true },
      { expression: ['in', ['list'], 10], result: false },
      { expression: ['in', null, ['list', null]], result: false },
      { expression: ['in', ['list', null], ['list', 1, null, 2]], result: true },
      { expression: ['in', ['list', 'a', 'c', 'd'], ['list', 'a', 'b', 'c']], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      const items = cc.expr(b.one('ITEMS'));
      return (ctx) => {
        const v = values(ctx);
        if (v === null) return false;
        const vs = asList(v);
        if (vs.length === 0) return false;
        const is = asList(items(ctx));
        if (vs.length * is.length <= 64) {
          for (const x of vs) {
            let found = false;
            for (const y of is) {
              if (x === y || valuesEqual(x, y)) {
                found = true;
                break;
              }
            }
            if (!found) return false;
          }
          return true;
        }
        const keys = new Set(is.map(keyOf));
        for (const x of vs) if (!keys.has(keyOf(x))) return false;
        return true;
      };
    },
  }),

  expression({
    name: 'map',
    family: FAMILY,
    params: [one('FUNCTION', 'function'), one('VALUES', 'value')],
    description: 'The list of results of the function applied to each value (with _ bound to it).',
    examples: [
      { expression: ['map', ['lower', '_.'], ['list', 'A', 'B', 'C']], result: ['a', 'b', 'c'] },
      { expression: ['map', ['first', '_.'], ['list', ['list', 'A', 'B'], ['list', 'C']]], result: ['A', 'C'] },
      { expression: ['map', ['upper', '_.name'], '_S.people'], source: { people: [{ name: 'x' }, { name: 'y' }] }, result: ['X', 'Y'] },
    ],
    compile(b, cc) {
      const fn = cc.expr(b.one('FUNCTION'));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const vs = asList(values(ctx));
        spend(ctx.run, vs.length);
        const out = new Array<DtlValue>(vs.length);
        const saved = ctx.current;
        for (let i = 0; i < vs.length; i++) {
          ctx.current = vs[i] as DtlValue;
          out[i] = fn(ctx);
        }
        ctx.current = saved;
        return out;
      };
    },
  }),

  expression({
    name: 'filter',
    family: FAMILY,
    params: [one('FUNCTION', 'function'), one('VALUES', 'value')],
    description: 'The values for which the function (with _ bound to each) is true.',
    examples: [
      { expression: ['filter', ['gt', '_.age', 42], ['list', { age: 30 }, { age: 50 }, { age: 40 }]], result: [{ age: 50 }] },
      { expression: ['filter', '_.', ['list', 1, null, false, 2]], result: [1, 2] },
    ],
    json: 'args',
    compile(b, cc) {
      const fn = cc.expr(b.one('FUNCTION'));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const out: DtlValue[] = [];
        for (const v of asList(values(ctx))) if (isTruthy(withCurrent(ctx, v, fn))) out.push(v);
        return out;
      };
    },
  }),
  expression({
    name: 'combine',
    family: FAMILY,
    params: [oneOrMore('VALUES', 'value')],
    description: 'One list of all the arguments: a list argument adds its elements (one level), null adds nothing, any other value itself.',
    examples: [
      { expression: ['combine', null], result: [] },
      { expression: ['combine', 1, ['list', 2, 3, ['list', 4]]], result: [1, 2, 3, [4]] },
      { expression: ['combine', ['list', 1, 2], ['list', 3, 4], 5], result: [1, 2, 3, 4, 5] },
    ],
    json: 'args',
    compile(b, cc) {
      const args = b.many('VALUES').map((a) => cc.expr(a));
      return (ctx) => concatAll(args.map((e) => e(ctx)));
    },
  }),

  expression({
    name: 'flatten',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'A new list with the elements of the list elements spliced in, one level deep (null elements add nothing).',
    examples: [
      { expression: ['flatten', ['list', 1, 2, ['list', 3, 4]]], result: [1, 2, 3, 4] },
      { expression: ['flatten', ['list', ['list', 1, 2], ['list', 3, ['list', 4], 5]]], result: [1, 2, 3, [4], 5] },
    ],
    json: 'args',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => concatAll(asList(values(ctx)));
    },
  }),

  expression({
    name: 'distinct',
    family: FAMILY,
    params: [optional('FUNCTION', 'function'), one('VALUES', 'value')],
    description: 'The values without duplicates, first occurrence kept; with FUNCTION, values count as duplicates when its results are equal.',
    examples: [
      { expression: ['distinct', ['list', 4, 2, 5, 4, 3]], result: [4, 2, 5, 3] },
      { expression: ['distinct', '_.ean', '_S.lines'], source: { lines: [{ ean: 1, n: 'a' }, { ean: 2, n: 'b' }, { ean: 1, n: 'c' }] }, result: [{ ean: 1, n: 'a' }, { ean: 2, n: 'b' }] },
    ],
    json: 'args',
    compile(b, cc) {
      const fn = optionalExpr(cc, b.opt('FUNCTION'));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const vs = asList(values(ctx));
        const keys = keysOf(ctx, vs, fn);
        const seen = new Set<string>();
        const out: DtlValue[] = [];
        for (let i = 0; i < vs.length; i++) {
          const k = keyOf(keys[i]);
          if (seen.has(k)) continue;
          seen.add(k);
          out.push(vs[i] as DtlValue);
        }
        return out;
      };
    },
  }),

  expression({
    name: 'enumerate',
    family: FAMILY,
    params: [optional('START', 'integer'), one('VALUES', 'value')],
    description: 'Each value as a dict {"key": position, "value": value}, positions counting from START (default 0); a single value gives a single dict.',
    examples: [
      { expression: ['enumerate', 'a'], result: { key: 0, value: 'a' } },
      { expression: ['enumerate', 2, ['list', 17, 32, 21]], result: [{ key: 2, value: 17 }, { key: 3, value: 32 }, { key: 4, value: 21 }] },
    ],
    json: 'args',
    compile(b, cc) {
      const startArg = b.opt('START');
      const start = startArg === undefined ? () => 0 : cc.expr(startArg);
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const first = integerOf(start(ctx));
        if (first === undefined) return null;
        const v = values(ctx);
        if (v === null) return null;
        if (!Array.isArray(v)) return { key: first, value: v };
        return v.map((x, i) => ({ key: first + i, value: x }));
      };
    },
  }),

  expression({
    name: 'group',
    family: FAMILY,
    params: [one('KEY_FUNCTION', 'function'), one('VALUE_FUNCTION', 'function'), one('VALUES', 'value')],
    description: 'A list of [key, values] pairs: each value is grouped under its KEY_FUNCTION result and contributes its VALUE_FUNCTION result.',
    examples: [
      {
        expression: ['group', ['first', '_.'], ['nth', 1, '_.'], ['list', ['list', 'Adresse1', 'A'], ['list', 'Adresse2', 'B'], ['list', 'Adresse2', 'C']]],
        result: [['Adresse1', ['A']], ['Adresse2', ['B', 'C']]],
      },
      { expression: ['group', ['upper', '_.'], ['lower', '_.'], 'Hello'], result: [['HELLO', ['hello']]] },
    ],
    json: 'args',
    compile(b, cc) {
      const keyFn = cc.expr(b.one('KEY_FUNCTION'));
      const valueFn = cc.expr(b.one('VALUE_FUNCTION'));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const groups = new Map<string, [DtlValue, DtlValue[]]>();
        for (const v of asList(values(ctx))) {
          const key = withCurrent(ctx, v, keyFn);
          const item = withCurrent(ctx, v, valueFn);
          const k = keyOf(key);
          const g = groups.get(k);
          if (g === undefined) groups.set(k, [key, [item]]);
          else g[1].push(item);
        }
        return [...groups.values()];
      };
    },
  }),

  expression({
    name: 'group-by',
    family: FAMILY,
    params: [optional('KEY_FUNCTION', 'function'), optional('STRING_FUNCTION', 'function'), one('VALUES', 'value')],
    description: 'A dict of the values grouped by KEY_FUNCTION; the dict keys are the group keys as tagged JSON text, or STRING_FUNCTION of them.',
    examples: [
      { expression: ['group-by', ['upper', '_.'], ['list', 'a', 'b', 'a']], result: { '"A"': ['a', 'a'], '"B"': ['b'] } },
      { expression: ['group-by', ['upper', '_.'], ['string', '_.'], ['list', 'a', 'b']], result: { A: ['a'], B: ['b'] } },
      { expression: ['group-by', '_.n', ['list', { n: 3 }, { n: 5 }, { n: 3.0 }]], result: { '3': [{ n: 3 }, { n: 3 }], '5': [{ n: 5 }] } },
    ],
    json: 'args',
    compile(b, cc) {
      const keyFn = optionalExpr(cc, b.opt('KEY_FUNCTION'));
      const stringFn = optionalExpr(cc, b.opt('STRING_FUNCTION'));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const vs = asList(values(ctx));
        const keys = keysOf(ctx, vs, keyFn);
        const out: DtlDict = {};
        const texts = new Map<string, string>();
        for (let i = 0; i < vs.length; i++) {
          const key = keys[i] as DtlValue;
          const k = keyOf(key);
          let text = texts.get(k);
          if (text === undefined) {
            if (stringFn === undefined) text = taggedJson(key);
            else {
              const s = withCurrent(ctx, key, stringFn);
              text = isPlainString(s) ? s : taggedJson(s);
            }
            texts.set(k, text);
          }
          const g = Object.hasOwn(out, text) ? out[text] : undefined;
          if (Array.isArray(g)) g.push(vs[i] as DtlValue);
          else setProperty(out, text, [vs[i] as DtlValue]);
        }
        return out;
      };
    },
  }),

  expression({
    name: 'insert',
    family: FAMILY,
    params: [one('INDEX', 'integer'), one('VALUES', 'value'), one('OBJECT', 'value')],
    description: 'A copy of the list with OBJECT inserted as one element before position INDEX (negative counts from the end; clamped to the list).',
    examples: [
      { expression: ['insert', 1, 2, 3], result: [2, 3] },
      { expression: ['insert', 1, ['list', 1, 2], ['list', 3, 4]], result: [1, [3, 4], 2] },
      { expression: ['insert', -2, ['list', 1, 2, 3], 4], result: [1, 4, 2, 3] },
    ],
    json: 'args',
    compile(b, cc) {
      const index = cc.expr(b.one('INDEX'));
      const values = cc.expr(b.one('VALUES'));
      const object = cc.expr(b.one('OBJECT'));
      return (ctx) => {
        const i = integerOf(index(ctx));
        if (i === undefined) return null;
        const out = [...asList(values(ctx))];
        const n = out.length;
        const at = i < 0 ? Math.max(0, i + n) : Math.min(i, n);
        out.splice(at, 0, object(ctx));
        return out;
      };
    },
  }),

  expression({
    name: 'is-list',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'True when the value is a list (also an empty one); false for anything else, null included.',
    examples: [
      { expression: ['is-list', ['list', 'foo:bar']], result: true },
      { expression: ['is-list', 'foo:bar'], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const v = cc.expr(b.one('VALUES'));
      return (ctx) => Array.isArray(v(ctx));
    },
  }),

  expression({
    name: 'map-dict',
    family: FAMILY,
    params: [one('KEY_FUNCTION', 'function'), one('VALUE_FUNCTION', 'function'), one('VALUES', 'value')],
    description: 'Each dict rebuilt with KEY_FUNCTION applied to its keys and VALUE_FUNCTION to its values; non-string keys drop the pair, empty results are left out.',
    examples: [
      { expression: ['map-dict', ['upper', '_.'], ['list', '_.'], { A: 1, B: 2 }], result: { A: [1], B: [2] } },
      {
        expression: ['map-dict', ['if', ['matches', '???*', '_.'], ['concat', 'x:', '_.']], '_.', ['list', { abc: 1, ab: 2, abcd: 3 }, { def: 4 }, { gh: 5 }]],
        result: [{ 'x:abc': 1, 'x:abcd': 3 }, { 'x:def': 4 }],
      },
    ],
    json: 'args',
    compile(b, cc) {
      const keyFn = cc.expr(b.one('KEY_FUNCTION'));
      const valueFn = cc.expr(b.one('VALUE_FUNCTION'));
      const values = cc.expr(b.one('VALUES'));
      const mapDict = (ctx: Ctx, d: DtlDict): DtlDict | undefined => {
        const out: DtlDict = {};
        let any = false;
        for (const k of Object.keys(d)) {
          const key = withCurrent(ctx, k, keyFn);
          if (typeof key !== 'string') continue;
          setProperty(out, key, withCurrent(ctx, d[k] as DtlValue, valueFn));
          any = true;
        }
        return any ? out : undefined;
      };
      return (ctx) => {
        const v = values(ctx);
        if (!Array.isArray(v)) return isDict(v) ? (mapDict(ctx, v) ?? null) : null;
        const out: DtlValue[] = [];
        for (const x of v) {
          if (!isDict(x)) continue;
          const r = mapDict(ctx, x);
          if (r !== undefined) out.push(r);
        }
        return out;
      };
    },
  }),

  expression({
    name: 'map-values',
    family: FAMILY,
    params: [one('VALUE_FUNCTION', 'function'), one('VALUES', 'value')],
    description: 'One list of VALUE_FUNCTION applied to every value of every dict among the values (non-dicts are ignored).',
    examples: [
      { expression: ['map-values', ['lower', '_.'], { key1: 'A', key2: 'B' }], result: ['a', 'b'] },
      { expression: ['map-values', ['lower', '_.'], ['list', { key1: 'A', key2: 'B' }, 100, { key1: 'B', key2: 'A', key3: 'C' }]], result: ['a', 'b', 'b', 'a', 'c'] },
    ],
    json: 'args',
    compile(b, cc) {
      const fn = cc.expr(b.one('VALUE_FUNCTION'));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const out: DtlValue[] = [];
        for (const d of asList(values(ctx))) {
          if (!isDict(d)) continue;
          for (const k of Object.keys(d)) out.push(withCurrent(ctx, d[k] as DtlValue, fn));
        }
        return out;
      };
    },
  }),

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

  expression({
    name: 'nth',
    family: FAMILY,
    params: [one('INDEX', 'integer'), one('VALUES', 'value')],
    description: 'The element at zero-based INDEX (negative counts from the end); null when out of range; a single value is its own element 0.',
    examples: [
      { expression: ['nth', 1, ['list', 'a', 'b', 'c']], result: 'b' },
      { expression: ['nth', 5, ['list', 'a', 'b', 'c']], result: null },
      { expression: ['nth', 0, 'x'], result: 'x' },
    ],
    json: 'args',
    compile(b, cc) {
      const index = cc.expr(b.one('INDEX'));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const i = integerOf(index(ctx));
        if (i === undefined) return null;
        const vs = asList(values(ctx));
        const at = i < 0 ? i + vs.length : i;
        return at >= 0 && at < vs.length ? (vs[at] as DtlValue) : null;
      };
    },
  }),

  expression({
    name: 'range',
    family: FAMILY,
    params: [one('START', 'integer'), one('STOP', 'integer'), optional('STEP', 'integer')],
    description: 'The integers from START up to but not including STOP, in steps of STEP (default 1; never 0, may be negative).',
    examples: [
      { expression: ['range', 0, 4], result: [0, 1, 2, 3] },
      { expression: ['range', 4, 0, -1], result: [4, 3, 2, 1] },
      { expression: ['range', 0, 4, 0], error: 'STEP of "range" must not be 0' },
    ],
    json: 'yes',
    compile(b, cc) {
      const start = cc.expr(b.one('START'));
      const stop = cc.expr(b.one('STOP'));
      const stepArg = b.opt('STEP');
      if (literalInteger(stepArg) === 0 && stepArg !== undefined) cc.error(stepArg, 'STEP of "range" must not be 0');
      const step = stepArg === undefined ? () => 1 : cc.expr(stepArg);
      const at = b.at;
      return (ctx) => {
        const from = integerOf(start(ctx));
        const to = integerOf(stop(ctx));
        const by = integerOf(step(ctx));
        if (from === undefined || to === undefined || by === undefined) return null;
        if (by === 0) throw new DtlRuntimeError('error', 'range: STEP must not be 0', at);
        const count = Math.max(0, Math.ceil((to - from) / by));
        if (count > RANGE_LIMIT) throw new DtlRuntimeError('error', `range: ${count} integers is more than the limit of ${RANGE_LIMIT}`, at);
        spend(ctx.run, count);
        const out = new Array<number>(count);
        for (let i = 0; i < count; i++) out[i] = from + i * by;
        return out;
      };
    },
  }),

  expression({
    name: 'reversed',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'A copy of the list in reverse order; a value that is not a list (null included) is returned unchanged.',
    examples: [
      { expression: ['reversed', ['list', 1, 3, 2]], result: [2, 3, 1] },
      { expression: ['reversed', 'abc'], result: 'abc' },
    ],
    json: 'args',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const v = values(ctx);
        return Array.isArray(v) ? [...v].reverse() : v;
      };
    },
  }),

  expression({
    name: 'slice',
    family: FAMILY,
    params: [one('START', 'integer'), optional('END', 'integer'), optional('STRIDE', 'integer'), one('VALUES', 'value')],
    description: 'The elements from START up to but not including END, every STRIDE-th (negative positions count from the end, as in Python).',
    examples: [
      { expression: ['slice', 2, -2, 2, ['list', 0, 1, 2, 3, 4, 5, 6]], result: [2, 4] },
      { expression: ['slice', 2, ['list', 0, 1, 2, 3, 4, 5, 6]], result: [2, 3, 4, 5, 6] },
      { expression: ['slice', -1, '_S.end', -1, ['list', 1, 2, 3]], source: {}, result: [3, 2, 1] },
    ],
    json: 'args',
    compile(b, cc) {
      const start = cc.expr(b.one('START'));
      const endArg = b.opt('END');
      const end = optionalExpr(cc, endArg);
      const strideArg = b.opt('STRIDE');
      if (strideArg !== undefined && literalInteger(strideArg) === 0) cc.error(strideArg, 'STRIDE of "slice" must not be 0');
      const stride = optionalExpr(cc, strideArg);
      const values = cc.expr(b.one('VALUES'));
      const at = b.at;
      // A START or END that evaluates to null means "from the beginning" / "to the end" (as None does in Python);
      // any other non-integer makes the result null.
      const bound = (v: DtlValue): number | undefined | false => (v === null ? undefined : (integerOf(v) ?? false));
      return (ctx) => {
        const s = bound(start(ctx));
        const e = end === undefined ? undefined : bound(end(ctx));
        const by = stride === undefined ? 1 : bound(stride(ctx));
        if (s === false || e === false || by === false) return null;
        if (by === 0) throw new DtlRuntimeError('error', 'slice: STRIDE must not be 0', at);
        return sliceList(asList(values(ctx)), s, e, by ?? 1);
      };
    },
  }),

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

// Reading and testing lists: first, last, count, is-empty, is-not-empty, in, is-list, nth, reversed, slice.

import { DtlRuntimeError } from '../context.js';
import { expression, one, optional, type FunctionSpec } from '../registry.js';
import { asList, keyOf, valuesEqual, type DtlValue } from '../values.js';
import { FAMILY, integerOf, literalInteger, optionalExpr } from './list-support.js';

/** Python-style slice bounds and step: the indices from START to END (exclusive) in steps of STEP. */
export function sliceList(vs: readonly DtlValue[], start: number | undefined, end: number | undefined, step: number): DtlValue[] {
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

export const listAccessFunctions: FunctionSpec[] = [
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
];

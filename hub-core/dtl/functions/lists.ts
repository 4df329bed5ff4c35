// Lists: list, first, last, count, is-empty, is-not-empty, in, map, filter.

import type { Expr } from '../context.js';
import { expression, one, zeroOrMore, type FunctionSpec } from '../registry.js';
import { asList, isTruthy, keyOf, valuesEqual, type DtlValue } from '../values.js';
import { withCurrent } from './util.js';

const FAMILY = 'lists';

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
];

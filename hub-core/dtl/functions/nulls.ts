// Nulls: coalesce, coalesce-args, if-null, is-null, is-not-null.
//
// "Null-ish" (is-null) means: null, the empty list, or a list whose first element is null.

import type { Expr } from '../context.js';
import { expression, one, oneOrMore, optional, type FunctionSpec } from '../registry.js';
import { asList, isTruthy, type DtlValue } from '../values.js';
import { withCurrent } from './util.js';

const FAMILY = 'nulls';

export function isNullish(v: DtlValue): boolean {
  return v === null || (Array.isArray(v) && (v.length === 0 || v[0] === null));
}

export const nullFunctions: FunctionSpec[] = [
  expression({
    name: 'coalesce',
    family: FAMILY,
    params: [optional('FUNCTION', 'function'), one('VALUES', 'value')],
    description: 'The first of the values that is not null (or for which the function, with _ bound to it, is true); else null.',
    examples: [
      { expression: ['coalesce', '_S.tags'], source: { tags: [null, 'a', 'b'] }, result: 'a' },
      { expression: ['coalesce', ['gt', '_.expenses', 1000], '_S.hobbies'], source: { hobbies: [{ expenses: 10 }, { expenses: 2000 }] }, result: { expenses: 2000 } },
    ],
    json: 'args',
    compile(b, cc) {
      const fnArg = b.opt('FUNCTION');
      const fn = fnArg === undefined ? undefined : cc.expr(fnArg);
      const values = cc.expr(b.one('VALUES'));
      if (fn === undefined) {
        return (ctx) => {
          for (const v of asList(values(ctx))) if (v !== null) return v;
          return null;
        };
      }
      return (ctx) => {
        for (const v of asList(values(ctx))) if (isTruthy(withCurrent(ctx, v, fn))) return v;
        return null;
      };
    },
  }),

  expression({
    name: 'coalesce-args',
    family: FAMILY,
    params: [oneOrMore('VALUES', 'value')],
    description: 'The value of the first argument that is not null (an empty list is not null); later arguments are not evaluated.',
    examples: [
      { expression: ['coalesce-args', '_S.nickname', '_S.name', 'anonymous'], source: { name: 'Ann' }, result: 'Ann' },
      { expression: ['coalesce-args', null, null, 123, 236], result: 123 },
      { expression: ['coalesce-args', null, ['list'], 123, 236], result: [], note: 'The empty list is not null (as the public documentation shows).' },
    ],
    json: 'args',
    compile(b, cc) {
      const args = b.many('VALUES').map((a) => cc.expr(a));
      return (ctx) => {
        // Only null itself is passed over: hub/dtl/dtl-functions-nulls.rst gives [] for
        // ["coalesce-args", null, ["list"], 123, 236] ("the first non-null argument").
        for (const e of args) {
          const v = e(ctx);
          if (v !== null) return v;
        }
        return null;
      };
    },
  }),

  expression({
    name: 'if-null',
    family: FAMILY,
    params: [one('VALUE', 'value'), one('FALLBACK_VALUE', 'value')],
    description: 'VALUE unless it is null-ish (null, [] or a list starting with null), in which case FALLBACK_VALUE.',
    examples: [
      { expression: ['if-null', null, 2], result: 2 },
      { expression: ['if-null', 1, 2], result: 1 },
      { expression: ['if-null', ['list', null, 123], 2], result: 2 },
      { expression: ['if-null', ['list', 1, '12345'], 2], result: [1, '12345'] },
    ],
    json: 'args',
    compile(b, cc) {
      const value = cc.expr(b.one('VALUE'));
      const fallback: Expr = cc.expr(b.one('FALLBACK_VALUE'));
      return (ctx) => {
        const v = value(ctx);
        return isNullish(v) ? fallback(ctx) : v;
      };
    },
  }),

  expression({
    name: 'is-null',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'True for null, the empty list, or a list whose first element is null.',
    examples: [
      { expression: ['is-null', null], result: true },
      { expression: ['is-null', 1], result: false },
      { expression: ['is-null', ['list', null, 123]], result: true },
    ],
    json: 'yes',
    compile(b, cc) {
      const v = cc.expr(b.one('VALUES'));
      return (ctx) => isNullish(v(ctx));
    },
  }),

  expression({
    name: 'is-not-null',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'The negation of is-null.',
    examples: [
      { expression: ['is-not-null', 1], result: true },
      { expression: ['is-not-null', ['list']], result: false },
      { expression: ['is-not-null', ['list', 1, '12345']], result: true },
    ],
    json: 'yes',
    compile(b, cc) {
      const v = cc.expr(b.one('VALUES'));
      return (ctx) => !isNullish(v(ctx));
    },
  }),
];

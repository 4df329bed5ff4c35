// Boolean logic: and, or, not, all, any. Arguments count as true or false by DTL truthiness (false, null and the
// empty list are false); the results are booleans.

import type { Expr } from '../context.js';
import { one, oneOrMore, optional, expression, type FunctionSpec } from '../registry.js';
import { asList, isTruthy } from '../values.js';
import { withCurrent } from './util.js';

const FAMILY = 'logic';

export const logicFunctions: FunctionSpec[] = [
  expression({
    name: 'and',
    family: FAMILY,
    params: [oneOrMore('CONDITIONS', 'boolean')],
    description: 'True when every argument is true; stops at the first false one.',
    examples: [
      { expression: ['and', ['gt', '_S.age', 26], ['eq', '_S.gender', 'male']], source: { age: 30, gender: 'male' }, result: true },
      { expression: ['and', true, null], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const conds = b.many('CONDITIONS').map((a) => cc.expr(a));
      if (conds.length === 1) {
        const c = conds[0] as Expr;
        return (ctx) => isTruthy(c(ctx));
      }
      if (conds.length === 2) {
        const [x, y] = conds as [Expr, Expr];
        return (ctx) => isTruthy(x(ctx)) && isTruthy(y(ctx));
      }
      return (ctx) => {
        for (const c of conds) if (!isTruthy(c(ctx))) return false;
        return true;
      };
    },
  }),

  expression({
    name: 'or',
    family: FAMILY,
    params: [oneOrMore('CONDITIONS', 'boolean')],
    description: 'True when at least one argument is true; stops at the first true one.',
    examples: [
      { expression: ['or', ['eq', '_S.category', 'A'], ['eq', '_S.category', 'B']], source: { category: 'B' }, result: true },
      { expression: ['or', false, ['list']], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const conds = b.many('CONDITIONS').map((a) => cc.expr(a));
      if (conds.length === 2) {
        const [x, y] = conds as [Expr, Expr];
        return (ctx) => isTruthy(x(ctx)) || isTruthy(y(ctx));
      }
      return (ctx) => {
        for (const c of conds) if (isTruthy(c(ctx))) return true;
        return false;
      };
    },
  }),

  expression({
    name: 'not',
    family: FAMILY,
    params: [oneOrMore('CONDITIONS', 'boolean')],
    description: 'The negation of "and" over its arguments: true unless every argument is true.',
    examples: [
      { expression: ['not', ['or', ['eq', '_S.category', 'A'], ['eq', '_S.category', 'B']]], source: { category: 'C' }, result: true },
      { expression: ['not', 1], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const conds = b.many('CONDITIONS').map((a) => cc.expr(a));
      if (conds.length === 1) {
        const c = conds[0] as Expr;
        return (ctx) => !isTruthy(c(ctx));
      }
      return (ctx) => {
        for (const c of conds) if (!isTruthy(c(ctx))) return true;
        return false;
      };
    },
  }),

  expression({
    name: 'all',
    family: FAMILY,
    params: [optional('FUNCTION', 'function'), one('VALUES', 'value')],
    description: 'True when every value (or the function of every value, with _ bound to it) is true; true for no values.',
    examples: [
      { expression: ['all', ['list', 1, 2, 3]], result: true },
      { expression: ['all', ['gt', '_.', 2], ['list', 4, 5, 6]], result: true },
      { expression: ['all', ['lt', '_.', 2], ['list', 1, 3, 5]], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const fnArg = b.opt('FUNCTION');
      const fn = fnArg === undefined ? undefined : cc.expr(fnArg);
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        for (const v of asList(values(ctx))) if (!isTruthy(fn === undefined ? v : withCurrent(ctx, v, fn))) return false;
        return true;
      };
    },
  }),

  expression({
    name: 'any',
    family: FAMILY,
    params: [optional('FUNCTION', 'function'), one('VALUES', 'value')],
    description: 'True when at least one value (or the function of one value, with _ bound to it) is true.',
    examples: [
      { expression: ['any', ['list', 1, 2, 3]], result: true },
      { expression: ['any', ['gt', '_.', 5], ['list', 4, 6, 8]], result: true },
      { expression: ['any', ['lt', '_.', 2], ['list', 6, 7, 8]], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const fnArg = b.opt('FUNCTION');
      const fn = fnArg === undefined ? undefined : cc.expr(fnArg);
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        for (const v of asList(values(ctx))) if (isTruthy(fn === undefined ? v : withCurrent(ctx, v, fn))) return true;
        return false;
      };
    },
  }),
];

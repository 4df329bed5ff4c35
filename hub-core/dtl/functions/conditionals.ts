// Conditional expressions: if, case, case-eq (the transform forms of the same names live in transforms.ts).

import type { Expr } from '../context.js';
import { expression, one, oneOrMore, optional, type ArgNode, type CompileContext, type FunctionSpec } from '../registry.js';
import { isTruthy } from '../values.js';
import { dtlEquals } from './util.js';

const FAMILY = 'conditionals';

/** Pairs (key, result) from clause arguments, plus the trailing else expression when the count is odd. */
function clauses(cc: CompileContext, args: readonly ArgNode[]): { keys: Expr[]; results: Expr[]; otherwise: Expr | undefined } {
  const keys: Expr[] = [];
  const results: Expr[] = [];
  for (let i = 0; i + 1 < args.length; i += 2) {
    keys.push(cc.expr(args[i] as ArgNode));
    results.push(cc.expr(args[i + 1] as ArgNode));
  }
  const otherwise = args.length % 2 === 1 ? cc.expr(args[args.length - 1] as ArgNode) : undefined;
  return { keys, results, otherwise };
}

export const conditionalFunctions: FunctionSpec[] = [
  expression({
    name: 'if',
    family: FAMILY,
    params: [one('CONDITION', 'boolean'), one('THEN', 'value'), optional('ELSE', 'value')],
    description: 'The value of THEN when the condition is true, else the value of ELSE (null when there is none).',
    examples: [
      { expression: ['if', ['gt', '_S.age', 42], 1, 2], source: { age: 50 }, result: 1 },
      { expression: ['if', ['gt', '_S.age', 42], 1], source: { age: 5 }, result: null },
    ],
    json: 'args',
    compile(b, cc) {
      const cond = cc.expr(b.one('CONDITION'));
      const then = cc.expr(b.one('THEN'));
      const elseArg = b.opt('ELSE');
      const otherwise = elseArg === undefined ? undefined : cc.expr(elseArg);
      if (otherwise === undefined) return (ctx) => (isTruthy(cond(ctx)) ? then(ctx) : null);
      return (ctx) => (isTruthy(cond(ctx)) ? then(ctx) : otherwise(ctx));
    },
  }),

  expression({
    name: 'case',
    family: FAMILY,
    params: [oneOrMore('CLAUSES', 'value')],
    signature: '(CONDITION(boolean-expression{1}), VALUE(value-expression{1})){>=1}, ELSE(value-expression{0|1})',
    arity: (n) => (n < 2 ? 'needs at least one condition and its value' : undefined),
    description: 'The value paired with the first true condition, else the trailing ELSE value (null when there is none).',
    examples: [
      {
        expression: ['case', ['gte', '_S.age', 18], 'adult', ['gte', '_S.age', 13], 'teenager', 'child'],
        source: { age: 14 },
        result: 'teenager',
      },
      { expression: ['case', false, 1], result: null },
    ],
    json: 'args',
    compile(b, cc) {
      const { keys, results, otherwise } = clauses(cc, b.many('CLAUSES'));
      return (ctx) => {
        for (let i = 0; i < keys.length; i++) if (isTruthy((keys[i] as Expr)(ctx))) return (results[i] as Expr)(ctx);
        return otherwise === undefined ? null : otherwise(ctx);
      };
    },
  }),

  expression({
    name: 'case-eq',
    family: FAMILY,
    params: [one('VALUE', 'value'), oneOrMore('CLAUSES', 'value')],
    signature: 'VALUE(value-expression{1}), (VALUE_N(value-expression{1}), RESULT(value-expression{1})){>=1}, ELSE(value-expression{0|1})',
    arity: (n) => (n < 3 ? 'needs a value and at least one value/result pair' : undefined),
    description: 'The result paired with the first value equal (as eq) to VALUE, else the trailing ELSE value (or null).',
    examples: [
      { expression: ['case-eq', '_S.country', 'NO', 'Norway', 'SE', 'Sweden', 'Other'], source: { country: 'NO' }, result: 'Norway' },
      { expression: ['case-eq', '_S.country', 'NO', 'Norway', 'SE', 'Sweden', 'Other'], source: { country: 'DK' }, result: 'Other' },
    ],
    json: 'args',
    compile(b, cc) {
      const value = cc.expr(b.one('VALUE'));
      const { keys, results, otherwise } = clauses(cc, b.many('CLAUSES'));
      return (ctx) => {
        const v = value(ctx);
        for (let i = 0; i < keys.length; i++) if (dtlEquals(v, (keys[i] as Expr)(ctx))) return (results[i] as Expr)(ctx);
        return otherwise === undefined ? null : otherwise(ctx);
      };
    },
  }),
];

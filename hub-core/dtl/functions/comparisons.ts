// Comparisons: eq, neq, gt, gte, lt, lte.
//
// eq/neq compare whole values, coercing a single value to a one-element list (so 42 equals [42]); null equals only
// null. gt/gte/lt/lte compare the first value of each side and are false when either is null or when the two values
// are of incompatible types (e.g. a string and a number); see values.ts for the order within each type.

import type { Expr } from '../context.js';
import { expression, one, type FunctionSpec } from '../registry.js';
import { compareCompatible, firstOf, type DtlValue } from '../values.js';
import { dtlEquals } from './util.js';

const FAMILY = 'comparisons';

function ordering(name: string, description: string, test: (c: number) => boolean, examples: FunctionSpec['examples']): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [one('VALUE1', 'value'), one('VALUE2', 'value')],
    description,
    examples,
    json: 'yes',
    compile(b, cc) {
      const x = cc.expr(b.one('VALUE1'));
      const y = cc.expr(b.one('VALUE2'));
      return (ctx) => {
        const a = x(ctx);
        const c = y(ctx);
        if (typeof a === 'number' && typeof c === 'number') return test(a === c ? 0 : a < c ? -1 : 1);
        const r = compareCompatible(firstOf(a), firstOf(c));
        return r !== undefined && test(r);
      };
    },
  });
}

function equality(name: string, negate: boolean, description: string, examples: FunctionSpec['examples']): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [one('VALUE1', 'value'), one('VALUE2', 'value')],
    description,
    examples,
    json: 'yes',
    compile(b, cc) {
      const x: Expr = cc.expr(b.one('VALUE1'));
      const y: Expr = cc.expr(b.one('VALUE2'));
      return negate ? (ctx) => !dtlEquals(x(ctx), y(ctx) as DtlValue) : (ctx) => dtlEquals(x(ctx), y(ctx));
    },
  });
}

export const comparisonFunctions: FunctionSpec[] = [
  equality('eq', false, 'True when the two values are equal (a single value equals a one-element list holding it).', [
    { expression: ['eq', '_S.age', 42], source: { age: 42 }, result: true },
    { expression: ['eq', ['list', 1, 2], ['list', 1, 2]], result: true },
    { expression: ['eq', ['list'], null], result: false },
  ]),
  equality('neq', true, 'True when the two values are not equal (the negation of eq).', [
    { expression: ['neq', '_S.age', 42], source: { age: 41 }, result: true },
    { expression: ['neq', null, null], result: false },
  ]),
  ordering('gt', 'True when the first value of the first argument is greater than that of the second.', (c) => c > 0, [
    { expression: ['gt', '_S.age', 42], source: { age: 43 }, result: true },
    { expression: ['gt', 'abc', 5], result: false },
  ]),
  ordering('gte', 'True when the first value of the first argument is greater than or equal to that of the second.', (c) => c >= 0, [
    { expression: ['gte', '_S.age', 42], source: { age: 42 }, result: true },
  ]),
  ordering('lt', 'True when the first value of the first argument is less than that of the second.', (c) => c < 0, [
    { expression: ['lt', '_S.age', 42], source: { age: 41 }, result: true },
    { expression: ['lt', '~t2020-01-01T00:00:00Z', '~t2021-01-01T00:00:00Z'], result: true },
  ]),
  ordering('lte', 'True when the first value of the first argument is less than or equal to that of the second.', (c) => c <= 0, [
    { expression: ['lte', '_S.age', 42], source: { age: 43 }, result: false },
  ]),
];

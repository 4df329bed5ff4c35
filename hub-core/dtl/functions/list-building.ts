// Building lists: list, combine, flatten, insert, range, enumerate.

import { DtlRuntimeError, type Expr } from '../context.js';
import { expression, one, oneOrMore, optional, zeroOrMore, type FunctionSpec } from '../registry.js';
import { asList, type DtlValue } from '../values.js';
import { spend } from '../work-limit.js';
import { FAMILY, integerOf, literalInteger, concatAll } from './list-support.js';

/** Largest list `range` will build; a bigger one is a run-time error rather than an out-of-memory crash. */
export const RANGE_LIMIT = 10_000_000;

export const listBuildingFunctions: FunctionSpec[] = [
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
];

// Transforms that steer the rule set: comment, if, case, case-eq, fail!, trip!, sleep!.

import { DtlRuntimeError, NOOP_TX, type Expr, type Tx } from '../context.js';
import { one, oneOrMore, optional, transform, zeroOrMore, type FunctionSpec } from '../registry.js';
import { firstOf, isTruthy, toText } from '../values.js';
import { dtlEquals } from './util.js';
import { CHECK_EVERY, spend } from '../work-limit.js';
import { FAMILY } from './transform-properties.js';

export const SLEEP_CELL = new Int32Array(new SharedArrayBuffer(4));

/** fail! and trip!: stop the run with a message (trip! also trips the sink's circuit breaker, see the pump runner). */
export function failingTransform(kind: 'fail' | 'trip', description: string, example: string): FunctionSpec {
  const name = `${kind}!`;
  return transform({
    name,
    family: FAMILY,
    params: [one('MESSAGE', 'value')],
    description,
    examples: [{ expression: [name, example], error: example }],
    compile(b, cc) {
      const msg = cc.expr(b.one('MESSAGE'));
      const at = b.at;
      return (ctx) => {
        const m = firstOf(msg(ctx));
        throw new DtlRuntimeError(kind, m === null ? `${name} was called` : toText(m), at);
      };
    },
  });
}

export const flowTransforms: FunctionSpec[] = [
  transform({
    name: 'comment',
    family: FAMILY,
    params: [zeroOrMore('COMMENTS', 'literal')],
    description: 'Does nothing; its arguments are not evaluated (use it for notes or to switch transforms off).',
    examples: [{ expression: ['comment', 'First line', ['add', 'never', 'added']], result: [{ _id: '1' }] }],
    compile: () => NOOP_TX,
  }),

  transform({
    name: 'if',
    family: FAMILY,
    params: [one('CONDITION', 'boolean'), one('THEN', 'transforms'), optional('ELSE', 'transforms')],
    description: 'Runs the THEN transforms when the condition is true, otherwise the ELSE transforms (if any).',
    examples: [
      { expression: ['if', ['gt', '_S.age', 18], ['add', 'type', 'adult'], ['add', 'type', 'child']], source: { _id: '1', age: 20 }, result: [{ _id: '1', type: 'adult' }] },
      {
        expression: ['if', ['eq', '_S.type', 'person'], [['add', 'type', 'person'], ['copy', ['list', 'name', 'age']]]],
        source: { _id: '1', type: 'person', name: 'n', age: 3, x: 0 },
        result: [{ _id: '1', type: 'person', name: 'n', age: 3 }],
      },
    ],
    compile(b, cc) {
      const cond = cc.expr(b.one('CONDITION'));
      const then = cc.transforms(b.one('THEN'));
      const elseArg = b.opt('ELSE');
      const otherwise = elseArg === undefined ? NOOP_TX : cc.transforms(elseArg);
      return (ctx) => (isTruthy(cond(ctx)) ? then(ctx) : otherwise(ctx));
    },
  }),

  transform({
    name: 'case',
    family: FAMILY,
    params: [oneOrMore('CLAUSES', 'value')],
    signature: '(CONDITION(boolean-expression{1}), THEN(transforms{1})){>=1}, ELSE(transforms{0|1})',
    arity: (n) => (n < 2 ? 'needs at least one condition and its transforms' : undefined),
    description: 'Runs the transforms of the first condition that is true, else the trailing ELSE transforms (if any).',
    examples: [
      {
        expression: [
          'case',
          ['gte', '_S.age', 18],
          ['add', 'group', 'adult'],
          ['gte', '_S.age', 13],
          ['add', 'group', 'teenager'],
          ['add', 'group', 'unknown'],
        ],
        source: { _id: '1', age: 15 },
        result: [{ _id: '1', group: 'teenager' }],
      },
    ],
    compile(b, cc) {
      const args = b.many('CLAUSES');
      const conds: Expr[] = [];
      const thens: Tx[] = [];
      for (let i = 0; i + 1 < args.length; i += 2) {
        conds.push(cc.expr(args[i] as (typeof args)[number]));
        thens.push(cc.transforms(args[i + 1] as (typeof args)[number]));
      }
      const last = args.length % 2 === 1 ? args[args.length - 1] : undefined;
      const otherwise = last === undefined ? NOOP_TX : cc.transforms(last);
      return (ctx) => {
        for (let i = 0; i < conds.length; i++) if (isTruthy((conds[i] as Expr)(ctx))) return (thens[i] as Tx)(ctx);
        return otherwise(ctx);
      };
    },
  }),

  transform({
    name: 'case-eq',
    family: FAMILY,
    params: [one('VALUE', 'value'), oneOrMore('CLAUSES', 'value')],
    signature: 'VALUE(value-expression{1}), (VALUE_N(value-expression{1}), THEN(transforms{1})){>=1}, ELSE(transforms{0|1})',
    arity: (n) => (n < 3 ? 'needs a value and at least one value/transforms pair' : undefined),
    description: 'Runs the transforms paired with the first value equal (as eq) to VALUE, else the trailing ELSE transforms.',
    examples: [
      {
        expression: ['case-eq', '_S.country', 'NO', ['add', 'country', 'Norway'], 'SE', ['add', 'country', 'Sweden'], ['add', 'country', 'Other']],
        source: { _id: '1', country: 'SE' },
        result: [{ _id: '1', country: 'Sweden' }],
      },
      {
        expression: ['case-eq', '_S.dialing_code', 45, ['add', 'country_code', 'DK'], 47, ['add', 'country_code', 'NO']],
        source: { _id: '1', dialing_code: 46 },
        result: [{ _id: '1' }],
      },
    ],
    compile(b, cc) {
      const value = cc.expr(b.one('VALUE'));
      const args = b.many('CLAUSES');
      const keys: Expr[] = [];
      const thens: Tx[] = [];
      for (let i = 0; i + 1 < args.length; i += 2) {
        keys.push(cc.expr(args[i] as (typeof args)[number]));
        thens.push(cc.transforms(args[i + 1] as (typeof args)[number]));
      }
      const last = args.length % 2 === 1 ? args[args.length - 1] : undefined;
      const otherwise = last === undefined ? NOOP_TX : cc.transforms(last);
      return (ctx) => {
        const v = value(ctx);
        for (let i = 0; i < keys.length; i++) if (dtlEquals(v, (keys[i] as Expr)(ctx))) return (thens[i] as Tx)(ctx);
        return otherwise(ctx);
      };
    },
  }),

  failingTransform('fail', 'Makes the pipe run fail with the given message.', 'invalid input, please review'),
  failingTransform('trip', 'Makes the pipe run fail and trips the circuit breaker of its sink dataset.', 'too many changes'),

  transform({
    name: 'sleep!',
    family: FAMILY,
    params: [one('PERIOD', 'integer')],
    description: 'Pauses processing for the given number of seconds (capped by the hub, 1 second by default).',
    examples: [{ expression: ['sleep!', 0], result: [{ _id: '1' }] }],
    compile(b, cc) {
      const period = cc.expr(b.one('PERIOD'));
      return (ctx) => {
        const s = firstOf(period(ctx));
        if (typeof s !== 'number' || !(s > 0)) return;
        const ms = Math.min(s * 1000, ctx.run.maxSleepMs);
        if (ms > 0) Atomics.wait(SLEEP_CELL, 0, 0, ms);
        // A pause is a checkpoint of the run's bounds (the time per entity, the hold of the hub's thread): sleeps in a
        // "map" over a long list would otherwise add up to hours between two checkpoints.
        spend(ctx.run, CHECK_EVERY);
      };
    },
  }),
];

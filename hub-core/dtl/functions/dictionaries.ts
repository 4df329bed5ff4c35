// Dictionaries: dict, apply.

import { childContext, type Ctx, type Expr } from '../context.js';
import { expression, one, zeroOrMore, type FunctionSpec } from '../registry.js';
import { asList, isDict, setProperty, type DtlDict, type DtlValue } from '../values.js';

const FAMILY = 'dictionaries';

export const dictionaryFunctions: FunctionSpec[] = [
  expression({
    name: 'dict',
    family: FAMILY,
    params: [zeroOrMore('ARGS', 'value')],
    signature: 'EMPTY{0} | ITEMS(value-expression{1}) | (KEY(value-expression{1}), VALUE(value-expression{1})){>=1}',
    arity: (n) => (n > 1 && n % 2 === 1 ? 'takes no argument, one list of [key, value] pairs, or keys and values in pairs' : undefined),
    description: 'A new dict: empty, from a list of [key, value] pairs, or from key and value arguments; the last key wins.',
    examples: [
      { expression: ['dict'], result: {} },
      { expression: ['dict', ['list', ['list', 'A', 1], ['list', 'B', 2], ['list', 'C', 3]]], result: { A: 1, B: 2, C: 3 } },
      { expression: ['dict', ['list', 'X', 123, ['list', 'A', 1]]], result: { A: 1 } },
      { expression: ['dict', 'a', ['upper', 'a'], ['lower', 'B'], 'B'], result: { a: 'A', b: 'B' } },
    ],
    json: 'args',
    compile(b, cc) {
      const args = b.many('ARGS').map((a) => cc.expr(a));
      if (args.length === 0) return () => ({});
      if (args.length === 1) {
        const items = args[0] as Expr;
        return (ctx) => {
          const v = items(ctx);
          if (isDict(v)) return v;
          const out: DtlDict = {};
          for (const item of asList(v)) {
            if (Array.isArray(item) && item.length === 2 && typeof item[0] === 'string') setProperty(out, item[0], item[1] as DtlValue);
          }
          return out;
        };
      }
      return (ctx) => {
        const out: DtlDict = {};
        for (let i = 0; i + 1 < args.length; i += 2) {
          const k = (args[i] as Expr)(ctx);
          if (typeof k === 'string') setProperty(out, k, (args[i + 1] as Expr)(ctx));
        }
        return out;
      };
    },
  }),

  expression({
    name: 'apply',
    family: FAMILY,
    params: [one('RULE_ID', 'rule-id'), one('VALUES', 'value')],
    description: 'Runs the named rule set with each value as its source and gives the resulting targets (filtered ones left out).',
    examples: [
      {
        expression: ['apply', 'order', '_S.orders'],
        source: { orders: [{ id: 1, amount: 10 }, { id: 2, amount: 20 }] },
        rules: { order: [['copy', 'amount']] },
        result: [{ amount: 10 }, { amount: 20 }],
      },
    ],
    json: 'yes',
    compile(b, cc) {
      const ref = cc.ruleSet(b.one('RULE_ID'));
      const values = cc.expr(b.one('VALUES'));
      const mode = cc.jsonMode(values);
      const applyOne = (ctx: Ctx, v: DtlValue, json: boolean): DtlValue | undefined => {
        const child = childContext(ctx, v, json);
        return ref.run(child) ? undefined : child.target;
      };
      return (ctx) => {
        const v = values(ctx);
        if (v === null) return null;
        const json = mode === 'json' || (mode === 'source' && ctx.sourceJson);
        if (!Array.isArray(v)) return applyOne(ctx, v, json) ?? null;
        const out: DtlValue[] = [];
        for (const x of v) {
          if (x === null) continue;
          const r = applyOne(ctx, x, json);
          if (r !== undefined) out.push(r);
        }
        return out;
      };
    },
  }),
];

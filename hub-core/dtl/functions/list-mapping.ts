// Mapping, filtering and grouping: map, filter, distinct, group, group-by, map-dict, map-values.

import type { Ctx } from '../context.js';
import { expression, one, optional, type FunctionSpec } from '../registry.js';
import { asList, isDict, isPlainString, isTruthy, keyOf, setProperty, TypedValue, type DtlDict, type DtlValue } from '../values.js';
import { withCurrent } from './util.js';
import { spend } from '../work-limit.js';
import { FAMILY, optionalExpr, keysOf } from './list-support.js';

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

export const listMappingFunctions: FunctionSpec[] = [
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
];

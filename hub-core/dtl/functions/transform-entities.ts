// Transforms on whole entities: merge, merge-union, make-ni, create, create-child, filter, discard.

import type { JsonObject, JsonValue } from '../../base/index.js';
import { DtlRuntimeError, STOP_DISCARD, STOP_FILTER, type Ctx, type Expr } from '../context.js';
import { one, optional, transform, type FunctionSpec } from '../registry.js';
import { asList, firstOf, isDict, isPlainString, isTruthy, setProperty, valuesEqual, type DtlDict, type DtlValue } from '../values.js';
import { describeValue, distinctValues } from './util.js';
import { isPathString } from '../paths.js';
import { isQualified, matchingKeys, renamedKeepingNamespace, exactName } from '../namespaced-names.js';
import { FAMILY } from './transform-properties.js';

export function checkEntity(ctx: Ctx, v: DtlValue, fn: string, at: string): v is DtlDict {
  if (isDict(v) && typeof v['_id'] === 'string') return true;
  if (v !== null && ctx.run.idRequired) {
    throw new DtlRuntimeError('error', `${fn}: ${describeValue(v)} is not an entity (a dict with a string "_id")`, at);
  }
  return false;
}

export const entityTransforms: FunctionSpec[] = [
  transform({
    name: 'merge',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Copies every property of each dict in the values onto the target; later values win; root "_" properties are skipped.',
    examples: [
      { expression: ['merge', ['list', { a: 1 }, { a: 2, b: 3 }]], result: [{ _id: '1', a: 2, b: 3 }] },
      { expression: ['merge', '_S.extra'], source: { _id: '1', extra: { _id: 'x', c: 1 } }, result: [{ _id: '1', c: 1 }] },
    ],
    compile(b, cc) {
      const values = cc.toJson(cc.expr(b.one('VALUES')));
      return (ctx) => {
        const t = ctx.target;
        for (const d of asList(values(ctx))) {
          if (!isDict(d)) continue;
          for (const k of Object.keys(d)) if (k.charCodeAt(0) !== 95) setProperty(t, k, d[k] as DtlValue);
        }
      };
    },
  }),

  transform({
    name: 'merge-union',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Like merge, but a property the target already has gets the union (as a list) of its old and new values.',
    examples: [
      { expression: ['merge-union', ['list', { a: 1 }, { a: 2, b: 3 }]], result: [{ _id: '1', a: [1, 2], b: 3 }] },
      { expression: ['merge-union', ['list', { a: [1, 2] }, { a: 2 }]], result: [{ _id: '1', a: [1, 2] }] },
    ],
    compile(b, cc) {
      const values = cc.toJson(cc.expr(b.one('VALUES')));
      return (ctx) => {
        const t = ctx.target;
        for (const d of asList(values(ctx))) {
          if (!isDict(d)) continue;
          for (const k of Object.keys(d)) {
            if (k.charCodeAt(0) === 95) continue;
            const v = d[k] as DtlValue;
            if (!Object.hasOwn(t, k)) {
              setProperty(t, k, v);
              continue;
            }
            const old = t[k] as DtlValue;
            if (valuesEqual(old, v)) continue;
            setProperty(t, k, distinctValues([...asList(old), ...asList(v)]));
          }
        }
      };
    },
  }),

  transform({
    name: 'make-ni',
    family: FAMILY,
    params: [one('NAMESPACE', 'value'), one('FROM_PROPERTY', 'string'), optional('TO_PROPERTY', 'string')],
    description: 'Turns the string values of a source property into namespaced identifiers in the target (default name: the property + "-ni").',
    examples: [
      { expression: ['make-ni', 'soccer', 'referee', 'ref'], source: { _id: '1', referee: 'john.doe' }, result: [{ _id: '1', ref: '~:soccer:john.doe' }] },
      { expression: ['make-ni', 'hockey', 'players'], source: { _id: '1', players: ['a', 7, 'b'] }, result: [{ _id: '1', 'players-ni': ['~:hockey:a', '~:hockey:b'] }] },
      { expression: ['make-ni', 'hockey', 'players'], source: { _id: '1', players: [7] }, result: [{ _id: '1' }] },
    ],
    compile(b, cc) {
      const nsArg = b.one('NAMESPACE');
      const from = b.one('FROM_PROPERTY').node as string;
      const toArg = b.opt('TO_PROPERTY')?.node as string | undefined;
      const to = toArg ?? from + '-ni';
      // A literal NAMESPACE is the namespace; a path or another expression is evaluated per entity (as for "ni").
      const literal = typeof nsArg.node === 'string' && (nsArg.node === '_' || !isPathString(nsArg.node)) ? nsArg.node : undefined;
      const nsExpr = literal === undefined ? cc.expr(nsArg) : undefined;
      const prefixOf = (ctx: Ctx): string | undefined => {
        if (literal !== undefined) return `~:${literal}:`;
        const n = firstOf((nsExpr as Expr)(ctx));
        return isPlainString(n) ? `~:${n}:` : undefined;
      };
      const write = (ctx: Ctx, key: string, v: DtlValue): void => {
        const prefix = prefixOf(ctx);
        if (prefix === undefined) return;
        if (Array.isArray(v)) {
          const out: JsonValue[] = [];
          for (const x of v) if (isPlainString(x)) out.push(prefix + x);
          if (out.length > 0) setProperty(ctx.target, key, out);
        } else if (isPlainString(v)) {
          setProperty(ctx.target, key, prefix + v);
        }
      };
      const names = cc.namespaces;
      if (names) {
        // FROM_PROPERTY in every namespace (unless qualified); each target keeps the namespace of its source property.
        return (ctx) => {
          const s = ctx.source;
          if (!isDict(s)) return;
          for (const k of matchingKeys(Object.keys(s), from, names)) {
            const target = toArg === undefined ? `${k}-ni` : isQualified(toArg) ? exactName(toArg, names) : renamedKeepingNamespace(k, toArg);
            write(ctx, target, s[k] as DtlValue);
          }
        };
      }
      return (ctx) => {
        const s = ctx.source;
        if (!isDict(s) || !Object.hasOwn(s, from)) return;
        write(ctx, to, s[from] as DtlValue);
      };
    },
  }),

  transform({
    name: 'create',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Emits each entity in the values as an extra output entity (each needs a string _id).',
    examples: [
      {
        expression: ['create', '_S.orders'],
        source: { _id: '1', orders: [{ _id: 'o1', n: 1 }, { _id: 'o2', n: 2 }] },
        result: [{ _id: 'o1', n: 1 }, { _id: 'o2', n: 2 }, { _id: '1' }],
      },
    ],
    compile(b, cc) {
      const values = cc.toJson(cc.expr(b.one('VALUES')));
      const at = b.at;
      return (ctx) => {
        for (const v of asList(values(ctx))) {
          if (checkEntity(ctx, v, 'create', at)) ctx.run.emit({ ...(v as JsonObject) });
        }
      };
    },
  }),

  transform({
    name: 'create-child',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Adds each entity in the values to the target\'s "$children" list (replacing a child with the same _id).',
    examples: [
      {
        expression: ['create-child', '_S.orders'],
        source: { _id: '1', orders: [{ _id: 'o1' }, { _id: 'o2' }] },
        result: [{ _id: '1', $children: [{ _id: 'o1' }, { _id: 'o2' }] }],
      },
    ],
    compile(b, cc) {
      const values = cc.toJson(cc.expr(b.one('VALUES')));
      const at = b.at;
      return (ctx) => {
        const kids = asList(values(ctx));
        if (kids.length === 0) return;
        const t = ctx.target;
        const list: DtlValue[] = [...asList(t['$children'] ?? null)];
        for (const kid of kids) {
          if (!checkEntity(ctx, kid, 'create-child', at)) continue;
          const i = list.findIndex((c) => isDict(c) && c['_id'] === kid['_id']);
          if (i >= 0) list[i] = kid;
          else list.push(kid);
        }
        t['$children'] = list;
      };
    },
  }),

  transform({
    name: 'filter',
    family: FAMILY,
    params: [optional('CONDITION', 'boolean')],
    description: 'Stops the rule set unless the condition is true; the entity is then written as deleted, marked "_filtered".',
    examples: [
      { expression: ['filter', ['gt', '_S.age', 42]], source: { _id: '1', age: 50 }, result: [{ _id: '1' }] },
      { expression: ['filter', ['gt', '_S.age', 42]], source: { _id: '1', age: 30 }, result: [{ _id: '1', _deleted: true, _filtered: true }] },
      { expression: ['filter'], result: [{ _id: '1', _deleted: true, _filtered: true }] },
    ],
    compile(b, cc) {
      const arg = b.opt('CONDITION');
      if (arg === undefined) return () => STOP_FILTER;
      const cond = cc.expr(arg);
      return (ctx) => (isTruthy(cond(ctx)) ? undefined : STOP_FILTER);
    },
  }),

  transform({
    name: 'discard',
    family: FAMILY,
    params: [optional('CONDITION', 'boolean')],
    description: 'Stops the rule set unless the condition is true; nothing is then written for the entity.',
    examples: [
      { expression: ['discard', ['gt', '_S.age', 42]], source: { _id: '1', age: 30 }, result: [] },
      { expression: ['discard', ['gt', '_S.age', 42]], source: { _id: '1', age: 50 }, result: [{ _id: '1' }] },
      { expression: ['discard'], result: [] },
    ],
    compile(b, cc) {
      const arg = b.opt('CONDITION');
      if (arg === undefined) return () => STOP_DISCARD;
      const cond = cc.expr(arg);
      return (ctx) => (isTruthy(cond(ctx)) ? undefined : STOP_DISCARD);
    },
  }),
];

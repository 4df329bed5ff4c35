// Transforms that write properties of the target: add, add-if, default, copy, rename, remove.

import { propertyGetter, propertySetter } from '../access.js';
import type { Ctx, Tx } from '../context.js';
import { one, optional, transform, type BoundArgs, type CompileContext, type FunctionSpec } from '../registry.js';
import { encode, isDict, isTruthy, setProperty, type DtlDict, type DtlValue } from '../values.js';
import { compileWildcards, hasWildcard, type NameMatcher } from '../wildcard.js';
import { firstString, forEachString, nameArg, withCurrent } from './util.js';
import type { NamespaceSettings } from '../namespace-settings.js';
import { matchTicks } from '../work-limit.js';
import { isQualified, matchingKeys, namespacedPatterns, renamedKeepingNamespace, writtenId, writtenName, exactName } from '../namespaced-names.js';

export const FAMILY = 'transforms';

/** A transform that writes `value(ctx)` under the property named by `prop` (literal or computed names). */
export function propertyWriter(cc: CompileContext, b: BoundArgs, param: string, write: (ctx: Ctx, t: DtlDict, key: string) => void): Tx {
  const prop = nameArg(cc, b.one(param));
  const ns = cc.namespaces;
  if ('name' in prop) {
    const key = ns ? writtenName(prop.name, ns) : prop.name;
    return (ctx) => {
      write(ctx, ctx.target, key);
    };
  }
  const names = prop.expr;
  return (ctx) => {
    forEachString(names(ctx), (key) => write(ctx, ctx.target, ns ? writtenName(key, ns) : key));
  };
}

/** With namespaced identifiers on, the value written under `_id` gets the identity namespace. */
export function idAware(ns: NamespaceSettings | undefined, key: string, v: DtlValue): DtlValue {
  return ns !== undefined && key === '_id' ? (writtenId(v, ns) as DtlValue) : v;
}

/** Copy a source value into the target: encoded unless the source is known to be plain JSON. */
export function sourceValue(ctx: Ctx, v: DtlValue): DtlValue {
  return ctx.sourceJson ? v : encode(v);
}

/** The patterns of a wildcard-list argument as a matcher; computed once when the patterns are literal. */
export function patternMatcher(cc: CompileContext, b: BoundArgs, param: string): { static?: NameMatcher; names?: string[]; dynamic?: (ctx: Ctx) => NameMatcher } {
  const arg = b.opt(param);
  if (arg === undefined) return { static: () => false, names: [] };
  const ns = cc.namespaces;
  // With namespaced identifiers on, a pattern is namespace aware: plain names are no longer exact keys (only "*" is
  // still "every property").
  const compile = ns ? (list: readonly string[]): NameMatcher => namespacedPatterns(list, ns) : compileWildcards;
  const patterns = cc.staticStrings(arg);
  if (patterns !== undefined) {
    if (!ns || patterns.every((p) => p === '*')) return { static: compile(patterns), names: patterns };
    return { static: compile(patterns) };
  }
  const e = cc.expr(arg);
  const cache = new Map<string, NameMatcher>();
  return {
    dynamic: (ctx) => {
      const list: string[] = [];
      forEachString(e(ctx), (s) => list.push(s));
      const key = list.join('\u0000');
      let m = cache.get(key);
      if (m === undefined) {
        m = compile(list);
        if (cache.size > 100) cache.clear();
        cache.set(key, m);
      }
      return m;
    },
  };
}

export const propertyTransforms: FunctionSpec[] = [
  transform({
    name: 'add',
    family: FAMILY,
    params: [one('PROPERTY', 'property'), one('VALUES', 'value')],
    description: 'Sets a property of the target to the value of an expression, replacing an earlier value.',
    examples: [
      { expression: ['add', 'age', 26], result: [{ _id: '1', age: 26 }] },
      { expression: ['add', 'upper_name', ['upper', '_S.name']], source: { _id: '1', name: 'ann' }, result: [{ _id: '1', upper_name: 'ANN' }] },
      { expression: ['add', ['concat', 'x-', '_S.key'], '_S.value'], source: { _id: '1', key: 'k', value: 7 }, result: [{ _id: '1', 'x-k': 7 }] },
    ],
    compile(b, cc) {
      const value = cc.toJson(cc.expr(b.one('VALUES')));
      const prop = nameArg(cc, b.one('PROPERTY'));
      const ns = cc.namespaces;
      if ('name' in prop) {
        const key = ns ? writtenName(prop.name, ns) : prop.name;
        const set = propertySetter(key);
        if (ns && key === '_id') return (ctx) => void set(ctx.target, idAware(ns, key, value(ctx)));
        return (ctx) => {
          set(ctx.target, value(ctx));
        };
      }
      return propertyWriter(cc, b, 'PROPERTY', (ctx, t, key) => setProperty(t, key, idAware(ns, key, value(ctx))));
    },
  }),

  transform({
    name: 'add-if',
    family: FAMILY,
    params: [one('PROPERTY', 'property'), optional('CONDITION', 'function'), one('VALUES', 'value')],
    description: 'Like add, but only when the condition (evaluated with _ bound to the value; by default "not null") holds.',
    examples: [
      { expression: ['add-if', 'foo', null], result: [{ _id: '1' }] },
      { expression: ['add-if', 'foo', ['list']], result: [{ _id: '1', foo: [] }] },
      { expression: ['add-if', 'foo', ['gte', '_.', 18], 123], result: [{ _id: '1', foo: 123 }] },
      { expression: ['add-if', 'foo', ['gte', '_.', 18], 12], result: [{ _id: '1' }] },
    ],
    compile(b, cc) {
      const value = cc.expr(b.one('VALUES'));
      const condArg = b.opt('CONDITION');
      const cond = condArg === undefined ? undefined : cc.expr(condArg);
      const names = nameArg(cc, b.one('PROPERTY'));
      const ns = cc.namespaces;
      const fixed = 'name' in names ? (ns ? writtenName(names.name, ns) : names.name) : undefined;
      return (ctx) => {
        const v = value(ctx);
        const ok = cond === undefined ? v !== null : isTruthy(withCurrent(ctx, v, cond));
        if (!ok) return;
        const json = encode(v);
        if (fixed !== undefined) setProperty(ctx.target, fixed, idAware(ns, fixed, json));
        else if (!('name' in names)) {
          forEachString(names.expr(ctx), (k) => {
            const key = ns ? writtenName(k, ns) : k;
            setProperty(ctx.target, key, idAware(ns, key, json));
          });
        }
      };
    },
  }),

  transform({
    name: 'default',
    family: FAMILY,
    params: [one('PROPERTY', 'property'), one('VALUES', 'value')],
    description: 'Like add, but leaves the target alone when it already has the property.',
    examples: [
      { expression: ['default', 'age', 26], result: [{ _id: '1', age: 26 }] },
      { expression: [['add', 'age', 1], ['default', 'age', 26]], result: [{ _id: '1', age: 1 }] },
    ],
    compile(b, cc) {
      const value = cc.toJson(cc.expr(b.one('VALUES')));
      const ns = cc.namespaces;
      return propertyWriter(cc, b, 'PROPERTY', (ctx, t, key) => {
        if (!Object.hasOwn(t, key)) setProperty(t, key, idAware(ns, key, value(ctx)));
      });
    },
  }),

  transform({
    name: 'copy',
    family: FAMILY,
    params: [one('INCLUDE_PROPERTIES', 'wildcard-list'), optional('EXCLUDE_PROPERTIES', 'wildcard-list')],
    description: 'Copies the source properties whose names match the include patterns and none of the exclude patterns.',
    examples: [
      { expression: ['copy', 'age'], source: { _id: '1', age: 36, name: 'x' }, result: [{ _id: '1', age: 36 }] },
      { expression: ['copy', 'a*', 'ab*'], source: { _id: '1', a: 1, ab: 2, ac: 3, b: 4 }, result: [{ _id: '1', a: 1, ac: 3 }] },
      {
        expression: ['copy', ['list', 'a*', 'b*'], ['list', 'ab*', 'ba*']],
        source: { _id: '1', ax: 1, ab: 2, bx: 3, ba: 4, c: 5 },
        result: [{ _id: '1', ax: 1, bx: 3 }],
      },
      { expression: ['copy', '*', '_*'], source: { _id: '1', _updated: 3, x: 1 }, result: [{ _id: '1', x: 1 }] },
    ],
    compile(b, cc) {
      const include = patternMatcher(cc, b, 'INCLUDE_PROPERTIES');
      const exclude = patternMatcher(cc, b, 'EXCLUDE_PROPERTIES');
      const plainNames = include.names !== undefined && exclude.names?.length === 0 && !include.names.some(hasWildcard) ? include.names : undefined;
      if (plainNames !== undefined && plainNames.length === 1) {
        const key = plainNames[0] as string;
        const get = propertyGetter(key);
        const set = propertySetter(key);
        return (ctx) => {
          const s = ctx.source;
          if (!isDict(s)) return;
          const v = get(s);
          if (v !== undefined || Object.hasOwn(s, key)) set(ctx.target, sourceValue(ctx, v ?? null));
        };
      }
      if (plainNames !== undefined) {
        return (ctx) => {
          const s = ctx.source;
          if (!isDict(s)) return;
          for (const key of plainNames) if (Object.hasOwn(s, key)) setProperty(ctx.target, key, sourceValue(ctx, s[key] as DtlValue));
        };
      }
      const inc = include.static;
      const exc = exclude.static;
      if (include.names?.includes('*') && exclude.names?.length === 0) {
        // Everything: a bulk copy, unless a value needs encoding or a key would be taken as the prototype.
        return (ctx) => {
          const s = ctx.source;
          if (!isDict(s)) return;
          if (ctx.sourceJson && !Object.hasOwn(s, '__proto__')) {
            Object.assign(ctx.target, s);
            return;
          }
          for (const k of Object.keys(s)) setProperty(ctx.target, k, sourceValue(ctx, s[k] as DtlValue));
        };
      }
      if (inc !== undefined && exc !== undefined) {
        return (ctx) => {
          const s = ctx.source;
          if (!isDict(s)) return;
          const t = ctx.target;
          const keys = Object.keys(s);
          const tick = matchTicks(ctx.run);
          for (let i = 0; i < keys.length; i++) {
            const k = keys[i] as string;
            if (inc(k, tick) && !exc(k, tick)) setProperty(t, k, sourceValue(ctx, s[k] as DtlValue));
          }
        };
      }
      return (ctx) => {
        const s = ctx.source;
        if (!isDict(s)) return;
        const i = include.static ?? (include.dynamic as (c: Ctx) => NameMatcher)(ctx);
        const x = exclude.static ?? (exclude.dynamic as (c: Ctx) => NameMatcher)(ctx);
        const tick = matchTicks(ctx.run);
        for (const k of Object.keys(s)) if (i(k, tick) && !x(k, tick)) setProperty(ctx.target, k, sourceValue(ctx, s[k] as DtlValue));
      };
    },
  }),

  transform({
    name: 'rename',
    family: FAMILY,
    params: [one('PROPERTY1', 'property'), one('PROPERTY2', 'property')],
    description: 'Copies one source property into the target under another name (no wildcards).',
    examples: [
      { expression: ['rename', 'age', 'current_age'], source: { _id: '1', age: 40 }, result: [{ _id: '1', current_age: 40 }] },
      {
        expression: ['rename', ['concat', 'in-', '_S.key'], ['concat', 'out-', '_S.key']],
        source: { _id: '1', key: 'a', 'in-a': 5 },
        result: [{ _id: '1', 'out-a': 5 }],
      },
    ],
    compile(b, cc) {
      const from = nameArg(cc, b.one('PROPERTY1'));
      const to = nameArg(cc, b.one('PROPERTY2'));
      const ns = cc.namespaces;
      if (ns) {
        // The source property in every namespace; an unqualified new name keeps each one's namespace, a qualified one
        // collects all their values.
        return (ctx) => {
          const s = ctx.source;
          if (!isDict(s)) return;
          const f = 'name' in from ? from.name : firstString(from.expr(ctx));
          const t = 'name' in to ? to.name : firstString(to.expr(ctx));
          if (f === undefined || t === undefined) return;
          const keys = matchingKeys(Object.keys(s), f, ns);
          if (keys.length === 0) return;
          if (!isQualified(t)) {
            for (const k of keys) setProperty(ctx.target, renamedKeepingNamespace(k, t), sourceValue(ctx, s[k] as DtlValue));
            return;
          }
          const values = keys.map((k) => sourceValue(ctx, s[k] as DtlValue));
          setProperty(ctx.target, exactName(t, ns), values.length === 1 ? (values[0] as DtlValue) : values.flatMap((v) => (Array.isArray(v) ? v : [v])));
        };
      }
      return (ctx) => {
        const s = ctx.source;
        if (!isDict(s)) return;
        const f = 'name' in from ? from.name : firstString(from.expr(ctx));
        if (f === undefined || !Object.hasOwn(s, f)) return;
        const t = 'name' in to ? to.name : firstString(to.expr(ctx));
        if (t !== undefined) setProperty(ctx.target, t, sourceValue(ctx, s[f] as DtlValue));
      };
    },
  }),

  transform({
    name: 'remove',
    family: FAMILY,
    params: [one('PROPERTY', 'wildcard-list')],
    description: 'Removes the target properties whose names match the pattern (* and ? allowed).',
    examples: [
      { expression: [['copy', '*'], ['remove', 'age']], source: { _id: '1', age: 3, name: 'x' }, result: [{ _id: '1', name: 'x' }] },
      { expression: [['copy', '*'], ['remove', 'temp_*']], source: { _id: '1', temp_a: 1, temp_b: 2, keep: 3 }, result: [{ _id: '1', keep: 3 }] },
      { expression: [['copy', '*'], ['remove', '_*']], source: { _id: '1', _hidden: 2, keep: 3 }, result: [{ _id: '1', keep: 3 }] },
    ],
    compile(b, cc) {
      const m = patternMatcher(cc, b, 'PROPERTY');
      if (m.names !== undefined && m.names.length === 1 && !hasWildcard(m.names[0] as string)) {
        const key = m.names[0] as string;
        return (ctx) => {
          if (Object.hasOwn(ctx.target, key)) delete ctx.target[key];
        };
      }
      // A pattern never takes the entity's identity with it: ["remove", "_*"] drops the other "_" properties and keeps
      // `_id`, as the service does (the target needs its `_id`); only ["remove", "_id"] by name removes it.
      return (ctx) => {
        const t = ctx.target;
        const match = m.static ?? (m.dynamic as (c: Ctx) => NameMatcher)(ctx);
        const tick = matchTicks(ctx.run);
        for (const k of Object.keys(t)) if (k !== '_id' && match(k, tick)) delete t[k];
      };
    },
  }),
];

// Transform functions: they change the target entity `_T` (or stop the rule set) and return no value.

import type { JsonObject, JsonValue } from '../../base/index.js';
import { propertyGetter, propertySetter } from '../access.js';
import { DtlRuntimeError, NOOP_TX, STOP_DISCARD, STOP_FILTER, type Ctx, type Expr, type Tx } from '../context.js';
import { one, oneOrMore, optional, transform, zeroOrMore, type BoundArgs, type CompileContext, type FunctionSpec } from '../registry.js';
import { asList, encode, firstOf, isDict, isPlainString, isTruthy, setProperty, toText, valuesEqual, type DtlDict, type DtlValue } from '../values.js';
import { compileWildcards, hasWildcard, type NameMatcher } from '../wildcard.js';
import { describeValue, distinctValues, dtlEquals, firstString, forEachString, nameArg, withCurrent } from './util.js';
import type { NamespaceSettings } from '../namespace-settings.js';
import { isPathString } from '../paths.js';
import { CHECK_EVERY, matchTicks, spend } from '../work-limit.js';
import { isQualified, matchingKeys, namespacedPatterns, renamedKeepingNamespace, writtenId, writtenName, exactName } from '../namespaced-names.js';

const FAMILY = 'transforms';

/** A transform that writes `value(ctx)` under the property named by `prop` (literal or computed names). */
function propertyWriter(cc: CompileContext, b: BoundArgs, param: string, write: (ctx: Ctx, t: DtlDict, key: string) => void): Tx {
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
function idAware(ns: NamespaceSettings | undefined, key: string, v: DtlValue): DtlValue {
  return ns !== undefined && key === '_id' ? (writtenId(v, ns) as DtlValue) : v;
}

/** Copy a source value into the target: encoded unless the source is known to be plain JSON. */
function sourceValue(ctx: Ctx, v: DtlValue): DtlValue {
  return ctx.sourceJson ? v : encode(v);
}

/** The patterns of a wildcard-list argument as a matcher; computed once when the patterns are literal. */
function patternMatcher(cc: CompileContext, b: BoundArgs, param: string): { static?: NameMatcher; names?: string[]; dynamic?: (ctx: Ctx) => NameMatcher } {
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

function checkEntity(ctx: Ctx, v: DtlValue, fn: string, at: string): v is DtlDict {
  if (isDict(v) && typeof v['_id'] === 'string') return true;
  if (v !== null && ctx.run.idRequired) {
    throw new DtlRuntimeError('error', `${fn}: ${describeValue(v)} is not an entity (a dict with a string "_id")`, at);
  }
  return false;
}

const SLEEP_CELL = new Int32Array(new SharedArrayBuffer(4));

/** fail! and trip!: stop the run with a message (trip! also trips the sink's circuit breaker, see the pump runner). */
function failingTransform(kind: 'fail' | 'trip', description: string, example: string): FunctionSpec {
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

export const transformFunctions: FunctionSpec[] = [
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

// Dictionaries: dict, apply, keys, values, items, key-values, has-key, is-dict, path, apply-ns, strip-ns.

import { childContext, type Ctx, type Expr } from '../context.js';
import { elementMatcher, isPathString, namespacedElement, traverse, traverseMatching } from '../paths.js';
import { expression, one, zeroOrMore, type FunctionSpec } from '../registry.js';
import { asList, firstOf, getProperty, isDict, isPlainString, setProperty, type DtlDict, type DtlValue } from '../values.js';
import { applyNamespaces, namespacesOf, stripNamespaces, type ApplyNamespaceOptions } from './identifiers.js';

const FAMILY = 'dictionaries';

/** The dicts among the values (a dict, or the dicts of a list). */
function dictsOf(v: DtlValue): DtlDict[] {
  const out: DtlDict[] = [];
  for (const x of asList(v)) if (isDict(x)) out.push(x);
  return out;
}

/** A function that makes one output per key/value pair of the dicts among its argument. */
function perPair(
  name: string,
  description: string,
  make: (key: string, value: DtlValue) => DtlValue,
  examples: FunctionSpec['examples'],
  singleUnwrap = false,
): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [one('DICTS', 'value')],
    description,
    examples,
    json: 'args',
    compile(b, cc) {
      const dicts = cc.expr(b.one('DICTS'));
      return (ctx) => {
        const v = dicts(ctx);
        const out: DtlValue[] = [];
        for (const d of dictsOf(v)) for (const k of Object.keys(d)) out.push(make(k, d[k] as DtlValue));
        return singleUnwrap && !Array.isArray(v) && out.length === 1 ? (out[0] as DtlValue) : out;
      };
    },
  });
}

/** Options of apply-ns from its literal first argument; errors are reported through `error`. */
function applyNsOptions(node: unknown, error: (msg: string) => void): ApplyNamespaceOptions | undefined {
  const base = { skipUnderscore: true, skipDollar: true, recursive: true };
  if (typeof node === 'string') return { ...base, propertyNamespace: node, identityNamespace: node };
  if (!isDict(node)) {
    error('NAMESPACE_OR_CONFIG of "apply-ns" must be a namespace (a literal string) or a literal dict of options');
    return undefined;
  }
  const d = node as DtlDict;
  const known = ['property_namespace', 'identity_namespace', 'skip_underscore', 'skip_dollar', 'recursive'];
  for (const k of Object.keys(d)) if (!known.includes(k)) error(`unknown apply-ns option "${k}"; the options are ${known.join(', ')}`);
  const ns = (k: string): string | null | undefined => {
    const v = getProperty(d, k);
    if (v === undefined || v === null) return v;
    if (typeof v === 'string') return v;
    error(`apply-ns option "${k}" must be a string or null`);
    return null;
  };
  const flag = (k: string, def: boolean): boolean => {
    const v = getProperty(d, k);
    if (v === undefined) return def;
    if (typeof v === 'boolean') return v;
    error(`apply-ns option "${k}" must be true or false`);
    return def;
  };
  const pns = ns('property_namespace');
  const ins = ns('identity_namespace');
  // Without the pipe's namespaces at hand, a namespace that is not given means none (see the report of the runner).
  return {
    propertyNamespace: pns ?? null,
    identityNamespace: ins ?? null,
    skipUnderscore: flag('skip_underscore', true),
    skipDollar: flag('skip_dollar', true),
    recursive: flag('recursive', true),
  };
}


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
      if (ref.joins !== undefined) {
        // The apply page: a rule set with hops must be run with apply-hops, so that dependency tracking sees the join.
        cc.error(b.one('RULE_ID'), `"apply" cannot run the rule set "${ref.name}": it calls "${ref.joins}"; use "apply-hops" to run a rule set with joins`);
      }
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

  perPair(
    'keys',
    'The keys of every dict among the values, in order (non-dicts are left out).',
    (k) => k,
    [
      { expression: ['keys', ['list', { A: 1, B: 2 }, { A: 1, C: 3 }]], result: ['A', 'B', 'A', 'C'] },
      { expression: ['keys', ['list', 'X', 123, { A: 1 }]], result: ['A'] },
    ],
  ),
  perPair(
    'values',
    'The values of every dict among the values, in key order (non-dicts are left out).',
    (_k, v) => v,
    [
      { expression: ['values', ['list', { A: 1, B: 2 }, { A: 1, C: 3 }]], result: [1, 2, 1, 3] },
      { expression: ['values', ['list', 'X', 123, { A: 1 }]], result: [1] },
    ],
  ),
  perPair(
    'items',
    'A [key, value] pair for every entry of every dict among the values (non-dicts are left out).',
    (k, v) => [k, v],
    [
      { expression: ['items', ['list', { A: 1, B: 2 }, { C: 3 }]], result: [['A', 1], ['B', 2], ['C', 3]] },
      { expression: ['items', ['list', 'X', 123, { A: 1 }]], result: [['A', 1]] },
    ],
  ),
  perPair(
    'key-values',
    'A {"key": ..., "value": ...} dict for every entry of every dict among the values; a single dict with one entry gives a single dict.',
    (k, v) => ({ key: k, value: v }),
    [
      {
        expression: ['key-values', ['list', { A: 1, B: 2 }, 123, { C: 3, A: 1 }]],
        result: [
          { key: 'A', value: 1 },
          { key: 'B', value: 2 },
          { key: 'C', value: 3 },
          { key: 'A', value: 1 },
        ],
      },
      { expression: ['key-values', { hello: 'world' }], result: { key: 'hello', value: 'world' } },
    ],
    true,
  ),

  expression({
    name: 'has-key',
    family: FAMILY,
    params: [one('KEY', 'value'), one('VALUES', 'value')],
    description: 'Whether the dict (or the first element of a list) has the key; null when that is not a dict or the key is not a string.',
    examples: [
      { expression: ['has-key', 'a', { a: 1 }], result: true },
      { expression: ['has-key', 'b', { a: 1 }], result: false },
      { expression: ['has-key', 'a', ['list', { a: 1 }, 123]], result: true },
      { expression: ['has-key', 'b', ['list', { a: 1 }, { b: 1 }]], result: false },
      { expression: ['has-key', 'a', ['list', 123, { a: 1 }]], result: null },
    ],
    json: 'yes',
    compile(b, cc) {
      const key = cc.expr(b.one('KEY'));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const d = firstOf(values(ctx));
        const k = firstOf(key(ctx));
        return isDict(d) && isPlainString(k) ? Object.hasOwn(d, k) : null;
      };
    },
  }),

  expression({
    name: 'is-dict',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'True when the value (or the first element of a list) is a dict.',
    examples: [
      { expression: ['is-dict', '_S.'], source: { _id: '1' }, result: true },
      { expression: ['is-dict', ['list', { a: 1 }, 123]], result: true },
      { expression: ['is-dict', ['list', 123, { a: 1 }]], result: false },
      { expression: ['is-dict', 'abc'], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => isDict(firstOf(values(ctx)));
    },
  }),

  expression({
    name: 'path',
    family: FAMILY,
    params: [one('PROPERTY_PATH', 'value'), one('VALUES', 'value')],
    description: 'Follows the property names (a string or a list of strings) from each value, mapping over lists; with namespaced identifiers on, unqualified names match every namespace.',
    examples: [
      { expression: ['path', 'age', ['list', { age: 23 }, { age: 24 }]], result: [23, 24] },
      { expression: ['path', 'age', { age: 24 }], result: 24 },
      { expression: ['path', 'foo', { bar: 123 }], result: null },
      { expression: ['path', ['list', 'a', 'b'], ['list', { a: { b: 1 } }, { a: [{ b: 2 }, { b: 3 }] }]], result: [1, 2, 3] },
    ],
    json: 'args',
    compile(b, cc) {
      const pathArg = b.one('PROPERTY_PATH');
      const values = cc.expr(b.one('VALUES'));
      const literal = cc.staticStrings(pathArg);
      // Strings such as "_S.keys" are paths to evaluate, not property names.
      const fixed = literal?.some(isPathString) === true ? undefined : literal;
      const pathExpr = fixed === undefined ? cc.expr(pathArg) : undefined;
      const keysOf = (v: DtlValue): string[] | undefined => {
        const keys: string[] = [];
        for (const k of asList(v)) {
          if (!isPlainString(k)) return undefined;
          keys.push(k);
        }
        return keys;
      };
      return (ctx) => {
        const keys = fixed ?? keysOf(pathExpr === undefined ? null : pathExpr(ctx));
        if (keys === undefined) return null;
        const v = values(ctx);
        const ns = namespacesOf(ctx.run);
        if (!ns.enabled) return traverse(v, keys);
        return traverseMatching(
          v,
          keys.map((k) => elementMatcher(namespacedElement(k, ns.propertyNamespace))),
        );
      };
    },
  }),

  expression({
    name: 'apply-ns',
    family: FAMILY,
    params: [one('NAMESPACE_OR_CONFIG', 'literal'), one('VALUES', 'value')],
    description: 'Each dict with namespaced property names and _id value, like a pipe\'s add_namespaces (options: property_namespace, identity_namespace, skip_underscore, skip_dollar, recursive).',
    examples: [
      { expression: ['apply-ns', 'myns', { _id: '123', foo: 1, $bar: { baz: 2 } }], result: { _id: 'myns:123', 'myns:foo': 1, $bar: { baz: 2 } } },
      {
        expression: [
          'apply-ns',
          { property_namespace: 'myns', identity_namespace: 'myns', skip_underscore: false, skip_dollar: false, recursive: true },
          { _id: '123', foo: 1, $bar: { baz: 2 } },
        ],
        result: { 'myns:_id': 'myns:123', 'myns:foo': 1, 'myns:$bar': { 'myns:baz': 2 } },
      },
      {
        expression: [
          'apply-ns',
          { property_namespace: 'myns', identity_namespace: null, skip_underscore: false, skip_dollar: false, recursive: false },
          { _id: '123', 'myns:foo': 1, $bar: { baz: 2 } },
        ],
        result: { 'myns:_id': '123', 'myns:foo': 1, 'myns:$bar': { baz: 2 } },
      },
    ],
    json: 'args',
    compile(b, cc) {
      const optArg = b.one('NAMESPACE_OR_CONFIG');
      const options = applyNsOptions(optArg.node, (msg) => cc.error(optArg, msg));
      const values = cc.expr(b.one('VALUES'));
      if (options === undefined) return () => null;
      return (ctx) => {
        const v = values(ctx);
        if (Array.isArray(v)) return v.map((x) => (isDict(x) ? applyNamespaces(x, options) : x));
        return isDict(v) ? applyNamespaces(v, options) : v;
      };
    },
  }),

  expression({
    name: 'strip-ns',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Each dict with the namespaces taken off its property names ("foo:bar" becomes "bar"), also in nested dicts; other values as they are.',
    examples: [
      { expression: ['strip-ns', { 'myns:foo': 1, 'other:bar': { 'x:baz': 2 }, _id: 'myns:1' }], result: { foo: 1, bar: { baz: 2 }, _id: 'myns:1' } },
      { expression: ['strip-ns', ['list', { 'a:x': 1 }, 5]], result: [{ x: 1 }, 5] },
    ],
    json: 'args',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => stripNamespaces(values(ctx));
    },
  }),
];

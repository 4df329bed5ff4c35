// Sets: union, intersection, difference, intersects.
//
// Null is the empty list, a single value a one-element list. Elements are the same when their canonical keys
// (`keyOf`) are, so 1, 1.0 and "~f1" are one element and a tagged string equals its typed value. `union` gives each
// distinct element once, in the order they first occur (VALUES1 before VALUES2). `intersection` and `difference` keep
// the elements of VALUES1 that do (do not) occur in VALUES2 where they stand, repeats included, as the documentation's
// examples show (["difference", ["list", "D", "A", "D", "E", "B"], ...] gives ["D", "D", "E"]). Null elements inside a
// list are elements like any other.

import type { Expr } from '../context.js';
import { expression, one, type BoundArgs, type CompileContext, type FunctionSpec } from '../registry.js';
import { asList, keyOf, type DtlValue } from '../values.js';

const FAMILY = 'sets';

/** The canonical keys of a value taken as a set. */
function keySet(v: DtlValue): Set<string> {
  const keys = new Set<string>();
  for (const x of asList(v)) keys.add(keyOf(x));
  return keys;
}

/** The values whose keys pass `keep`, each distinct value once, in order. */
function distinctWhere(values: readonly DtlValue[], keep: (key: string) => boolean, seen = new Set<string>(), out: DtlValue[] = []): DtlValue[] {
  for (const x of values) {
    const k = keyOf(x);
    if (seen.has(k) || !keep(k)) continue;
    seen.add(k);
    out.push(x);
  }
  return out;
}

function operands(b: BoundArgs, cc: CompileContext): [Expr, Expr] {
  return [cc.expr(b.one('VALUES1')), cc.expr(b.one('VALUES2'))];
}

const PARAMS = [one('VALUES1', 'value'), one('VALUES2', 'value')];
const always = (): boolean => true;

export const setFunctions: FunctionSpec[] = [
  expression({
    name: 'union',
    family: FAMILY,
    params: PARAMS,
    description: 'The distinct values found in either argument, those of VALUES1 first.',
    examples: [
      { expression: ['union', ['list', 'A', 'B'], ['list', 'B', 'C']], result: ['A', 'B', 'C'] },
      { expression: ['union', 'A', ['list', 'B', 'C']], result: ['A', 'B', 'C'] },
    ],
    json: 'args',
    compile(b, cc) {
      const [x, y] = operands(b, cc);
      return (ctx) => {
        const seen = new Set<string>();
        const out = distinctWhere(asList(x(ctx)), always, seen);
        return distinctWhere(asList(y(ctx)), always, seen, out);
      };
    },
  }),

  expression({
    name: 'intersection',
    family: FAMILY,
    params: PARAMS,
    description: 'The values of VALUES1 that also occur in VALUES2, where they stand in VALUES1 (repeats kept).',
    examples: [
      { expression: ['intersection', ['list', 'A', 'B'], ['list', 'B', 'C']], result: ['B'] },
      { expression: ['intersection', 'A', ['list', 'B', 'C']], result: [] },
      { expression: ['intersection', ['list', 'B', 'C', 'B', 'D', 'A'], ['list', 'A', 'F', 'F', 'B', 'E', 'B', 'C']], result: ['B', 'C', 'B', 'A'] },
    ],
    json: 'args',
    compile(b, cc) {
      const [x, y] = operands(b, cc);
      return (ctx) => {
        const first = asList(x(ctx));
        if (first.length === 0) return [];
        const other = keySet(y(ctx));
        return first.filter((v) => other.has(keyOf(v)));
      };
    },
  }),

  expression({
    name: 'difference',
    family: FAMILY,
    params: PARAMS,
    description: 'The values of VALUES1 that do not occur in VALUES2, where they stand in VALUES1 (repeats kept).',
    examples: [
      { expression: ['difference', ['list', 'A', 'B'], ['list', 'B']], result: ['A'] },
      { expression: ['difference', ['list', 'A', 'B', 'C', 'D'], ['list', 'A', 'B', 'E']], result: ['C', 'D'] },
      { expression: ['difference', ['list', 'D', 'A', 'D', 'E', 'B'], ['list', 'A', 'F', 'F', 'B', 'C']], result: ['D', 'D', 'E'] },
    ],
    json: 'args',
    compile(b, cc) {
      const [x, y] = operands(b, cc);
      return (ctx) => {
        const first = asList(x(ctx));
        if (first.length === 0) return [];
        const other = keySet(y(ctx));
        return first.filter((v) => !other.has(keyOf(v)));
      };
    },
  }),

  expression({
    name: 'intersects',
    family: FAMILY,
    params: PARAMS,
    description: 'True when the two arguments, taken as sets, have at least one value in common.',
    examples: [
      { expression: ['intersects', ['list', 'A', 'B'], ['list', 'B', 'C']], result: true },
      { expression: ['intersects', 'A', ['list', 'B', 'C']], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const [x, y] = operands(b, cc);
      return (ctx) => {
        const a = asList(x(ctx));
        if (a.length === 0) return false;
        const c = asList(y(ctx));
        if (c.length === 0) return false;
        const [small, large] = a.length <= c.length ? [a, c] : [c, a];
        const keys = new Set<string>();
        for (const v of small) keys.add(keyOf(v));
        for (const v of large) if (keys.has(keyOf(v))) return true;
        return false;
      };
    },
  }),
];

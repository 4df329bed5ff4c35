// A planned hops spec (aliases, steps, projection) and the helpers that read its where-clauses (see joins.ts).

import type { JsonValue } from '../../base/index.js';
import type { Expr } from '../context.js';
import { lookupKeys } from '../lookup.js';
import { isPathString, splitPathElements } from '../paths.js';
import type { ArgNode } from '../registry.js';
import { encode, keyOf, type DtlValue } from '../values.js';

/** The anchor of a side that refers to the hop's input or another context variable rather than an alias. */
export const SOURCE = '\u0000source';
/** The property of a row that holds the hop's input (aliases never start with "_"). */
export const INPUT = '_S';

export const SPEC_KEYS = ['datasets', 'where', 'return', 'recurse', 'exclude_root', 'max_depth', 'track-dependencies', 'trace', 'subsets', 'prefilters'];
export const DEFAULT_MAX_DEPTH = 10;

export function at(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return /^[A-Za-z_$][\w$:-]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

export function quoteElement(name: string): string {
  return `'${name.replace(/'/g, "''")}'`;
}

export interface Alias {
  readonly name: string;
  readonly dataset: string;
  /** JSON path of its entry in `datasets`. */
  readonly at: string;
}

export type Step =
  | { readonly kind: 'filter'; readonly test: Expr }
  | { readonly kind: 'overlap'; readonly left: Expr; readonly right: Expr }
  | {
      readonly kind: 'lookup';
      readonly alias: string;
      readonly dataset: string;
      readonly keys: readonly string[];
      readonly from: Expr;
      readonly subset: SubsetFilter | undefined;
      readonly at: string;
    }
  | {
      /** Bind an alias through any of several joins on plain paths (an `or` of joins): the union of the lookups. */
      readonly kind: 'lookup-any';
      readonly alias: string;
      readonly dataset: string;
      readonly arms: readonly { readonly keys: readonly string[]; readonly from: Expr }[];
      readonly subset: SubsetFilter | undefined;
      readonly at: string;
    }
  | {
      /**
       * Bind an alias to every entity of its dataset; the join conditions that follow keep the rows that match. For
       * joins no index can answer: a function applied to the alias' side (["lower", "o.email"]), an `or` of such.
       */
      readonly kind: 'scan';
      readonly alias: string;
      readonly dataset: string;
      readonly subset: SubsetFilter | undefined;
      readonly at: string;
      /**
       * For one join: `key`, its side on the alias (evaluated once per entity of the dataset into an index), and
       * `from`, its other side (evaluated per row); the rows are those whose values overlap.
       */
      readonly join?: { readonly key: Expr; readonly from: Expr };
    };

export interface SubsetFilter {
  readonly keys: readonly string[];
  readonly value: Expr;
}

export type Projection = { readonly kind: 'aliases'; readonly names: readonly string[] } | { readonly kind: 'expr'; readonly expr: Expr; readonly flatten: boolean };

export interface Spec {
  readonly steps: readonly Step[];
  /** The alias whose entities are the spec's output in a chain or a recursion (the last one declared). */
  readonly output: Alias;
  readonly projection: Projection;
  readonly recurse: boolean;
  readonly excludeRoot: boolean;
  readonly maxDepth: number | null;
}

/** What a (part of an) expression refers to: aliases, and SOURCE for context variables. */
export function anchorsOf(node: unknown, aliases: ReadonlyMap<string, Alias>, out = new Set<string>()): Set<string> {
  if (typeof node === 'string') {
    if (isPathString(node)) out.add(SOURCE);
    else {
      const alias = aliasOfPath(node, aliases);
      if (alias !== undefined) out.add(alias);
    }
  } else if (Array.isArray(node) && node[0] !== 'literal') {
    for (const x of node) anchorsOf(x, aliases, out);
  }
  return out;
}

/** The alias an "alias.path" string starts with, if any. */
export function aliasOfPath(s: string, aliases: ReadonlyMap<string, Alias>): string | undefined {
  const dot = s.indexOf('.');
  if (dot <= 0) return undefined;
  const name = s.slice(0, dot);
  return aliases.has(name) ? name : undefined;
}

/** The property names of a plain alias path ("o.a.b" gives ["a", "b"]), or undefined when the node is not one. */
export function plainAliasPath(node: unknown, alias: string): string[] | undefined {
  if (typeof node !== 'string' || !node.startsWith(alias + '.')) return undefined;
  const keys = splitPathElements(node.slice(alias.length + 1));
  return typeof keys === 'string' || keys.length === 0 ? undefined : keys;
}

/**
 * Rewrite an expression so that it runs against a row (a dict holding the input under "_S" and each bound alias'
 * entity under its name): "o.x" becomes "_S.'o'.x" and "_S.x" becomes "_S._S.x". JSON objects and the argument of
 * `literal` are constants and stay as they are.
 */
export function rewrite(node: unknown, aliases: ReadonlyMap<string, Alias>): unknown {
  if (typeof node === 'string') {
    if (node === '_S' || node === '_S.') return `_S.${INPUT}`;
    if (node.startsWith('_S.')) return `_S.${INPUT}.${node.slice(3)}`;
    const alias = aliasOfPath(node, aliases);
    if (alias === undefined) return node;
    const rest = node.slice(alias.length + 1);
    return rest === '' ? `_S.${quoteElement(alias)}` : `_S.${quoteElement(alias)}.${rest}`;
  }
  if (Array.isArray(node) && node[0] !== 'literal') return node.map((x) => rewrite(x, aliases));
  return node;
}

/** The conditions of a `where`: one expression, a list of them, or an `and` of them. */
export function conditionsOf(where: unknown, path: string, out: ArgNode[] = []): ArgNode[] {
  if (Array.isArray(where) && where.length > 0 && typeof where[0] === 'string') {
    if (where[0] === 'and') where.forEach((w, i) => i > 0 && conditionsOf(w, at(path, i), out));
    else out.push({ node: where, path });
  } else if (Array.isArray(where)) {
    where.forEach((w, i) => conditionsOf(w, at(path, i), out));
  } else {
    out.push({ node: where, path });
  }
  return out;
}

/** The distinct non-null values of a join side (one level of a list), as JSON for the lookup. */
export function joinValues(v: DtlValue): JsonValue[] {
  if (v === null) return [];
  if (!Array.isArray(v)) return [encode(v)];
  const seen = new Set<string>();
  const out: JsonValue[] = [];
  for (const x of v) {
    if (x === null) continue;
    const k = keyOf(x);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(encode(x));
  }
  return out;
}

/** True when two values share a value, as a join compares them. */
export function overlaps(a: DtlValue, b: DtlValue): boolean {
  const left = lookupKeys(a);
  if (left.length === 0) return false;
  const right = new Set(lookupKeys(b));
  return left.some((k) => right.has(k));
}


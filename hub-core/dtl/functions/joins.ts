// Joins: hops, apply-hops, lookup-entity. They reach other datasets only through the run's `DtlLookup`
// (`ctx.run.lookup`, see lookup.ts for how values match); without one, a join that has something to look up fails.
//
// A hops spec is checked and planned once, when the transform is compiled:
// - `datasets` declares aliases ("<dataset-id> <alias>"). In `where` and `return`, "o.x" is the path "x" of the
//   entity bound to alias "o" and "o." the whole entity; `_S` is the hop's input (the source entity, or one output
//   of the previous spec of a chain); `_T`, `_P`, `_R`, `_B` and `_` mean what they mean outside the hops.
// - `where` is one expression or a list of them (all must hold; a top-level `and` is split the same way). An
//   `["eq", A, B]` whose sides each refer to exactly one alias, different ones, is a join: it holds when the two sides
//   share any value (lists on either side; nulls never match). The source (`_S` or any other context variable)
//   counts as one alias. Everything else is a filter, evaluated with ordinary DTL semantics as soon as the aliases it
//   uses are bound.
// - The plan starts from the source and binds one alias at a time through a join whose other side is already known
//   and whose side on the new alias is a plain property path ("o.cust_id"): that is the dataset index looked up.
//   When no such join is left, a new alias may still be reached through an `or` whose arms are all joins to it (a
//   union of index lookups, or a scan when an arm applies a function to the alias' side), or through a join that
//   applies a function to the alias' side (["eq", ["lower", "_S.email"], ["lower", "p.email"]]): the alias' dataset
//   is read whole and indexed by that side (DtlLookup.entities; kept while DtlLookup.version says the dataset is
//   unchanged; such reads are not recorded for dependency tracking). An alias that cannot be reached by any join is a compile error (the docs: all aliases
//   must be navigable from the source).
// - Rows (one entity per alias) come in `_id` order per lookup, nested in the order the aliases are bound.
// - `return`: absent, the entities of the last alias in `datasets`; "a,c", the entities of those aliases; a path
//   string ("h.name"), the values of that path, flattened; any other expression, its value per row (nulls left out).
//   Entities are given once each (by alias and `_id`), also when several rows lead to them.
// - `recurse`: the spec is applied again to its own outputs (the last alias' entities) until nothing new comes or
//   `max_depth` levels were done (default 10; null for no limit). Each entity is visited once, so cycles end. The
//   result is the root input(s) (unless `exclude_root`) followed by the entities found, level by level.
// - Several specs are chained: each output of one is an input `_S` of the next.
// - `subsets` (or the older `prefilters`): {"<alias>": ["eq", "_S.<path>", <value>]} keeps only the alias' entities
//   whose path shares a value with <value>. `track-dependencies` (default true) is honoured by the pump runner's
//   dependency tracking (hub-core/pipes/dependency-tracking.ts); `trace` is accepted and checked but collects nothing.

import { isJsonObject, type JsonObject, type JsonValue } from '../../base/index.js';
import { DtlRuntimeError, childContext, Ctx, type Expr } from '../context.js';
import { lookupKeys, type DtlLookup } from '../lookup.js';
import { isPathString, namespacedElement, splitPathElements, traverseLookupPath } from '../paths.js';
import { expression, one, oneOrMore, type ArgNode, type CompileContext, type FunctionSpec } from '../registry.js';
import { encode, isDict, isTruthy, keyOf, setProperty, typedOf, type DtlDict, type DtlValue } from '../values.js';

const FAMILY = 'joins';

/** The anchor of a side that refers to the hop's input or another context variable rather than an alias. */
const SOURCE = '\u0000source';
/** The property of a row that holds the hop's input (aliases never start with "_"). */
const INPUT = '_S';

const SPEC_KEYS = ['datasets', 'where', 'return', 'recurse', 'exclude_root', 'max_depth', 'track-dependencies', 'trace', 'subsets', 'prefilters'];
const DEFAULT_MAX_DEPTH = 10;

function at(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return /^[A-Za-z_$][\w$:-]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

function quoteElement(name: string): string {
  return `'${name.replace(/'/g, "''")}'`;
}

interface Alias {
  readonly name: string;
  readonly dataset: string;
  /** JSON path of its entry in `datasets`. */
  readonly at: string;
}

type Step =
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

interface SubsetFilter {
  readonly keys: readonly string[];
  readonly value: Expr;
}

type Projection = { readonly kind: 'aliases'; readonly names: readonly string[] } | { readonly kind: 'expr'; readonly expr: Expr; readonly flatten: boolean };

interface Spec {
  readonly steps: readonly Step[];
  /** The alias whose entities are the spec's output in a chain or a recursion (the last one declared). */
  readonly output: Alias;
  readonly projection: Projection;
  readonly recurse: boolean;
  readonly excludeRoot: boolean;
  readonly maxDepth: number | null;
}

/** What a (part of an) expression refers to: aliases, and SOURCE for context variables. */
function anchorsOf(node: unknown, aliases: ReadonlyMap<string, Alias>, out = new Set<string>()): Set<string> {
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
function aliasOfPath(s: string, aliases: ReadonlyMap<string, Alias>): string | undefined {
  const dot = s.indexOf('.');
  if (dot <= 0) return undefined;
  const name = s.slice(0, dot);
  return aliases.has(name) ? name : undefined;
}

/** The property names of a plain alias path ("o.a.b" gives ["a", "b"]), or undefined when the node is not one. */
function plainAliasPath(node: unknown, alias: string): string[] | undefined {
  if (typeof node !== 'string' || !node.startsWith(alias + '.')) return undefined;
  const keys = splitPathElements(node.slice(alias.length + 1));
  return typeof keys === 'string' || keys.length === 0 ? undefined : keys;
}

/**
 * Rewrite an expression so that it runs against a row (a dict holding the input under "_S" and each bound alias'
 * entity under its name): "o.x" becomes "_S.'o'.x" and "_S.x" becomes "_S._S.x". JSON objects and the argument of
 * `literal` are constants and stay as they are.
 */
function rewrite(node: unknown, aliases: ReadonlyMap<string, Alias>): unknown {
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
function conditionsOf(where: unknown, path: string, out: ArgNode[] = []): ArgNode[] {
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
function joinValues(v: DtlValue): JsonValue[] {
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
function overlaps(a: DtlValue, b: DtlValue): boolean {
  const left = lookupKeys(a);
  if (left.length === 0) return false;
  const right = new Set(lookupKeys(b));
  return left.some((k) => right.has(k));
}

class SpecCompiler {
  private readonly aliases = new Map<string, Alias>();
  private failed = false;

  constructor(
    private readonly cc: CompileContext,
    private readonly node: unknown,
    private readonly path: string,
    private readonly last: boolean,
  ) {}

  private error(where: string, msg: string): void {
    this.failed = true;
    this.cc.error(where, msg);
  }

  /**
   * The path looked up in an alias' dataset: with namespaced identifiers on, an unqualified name matches the property
   * in every namespace there too (joins follow the DTL's path rules, see paths.ts).
   */
  private lookupPath(keys: readonly string[]): readonly string[] {
    const ns = this.cc.namespaces;
    return ns === undefined || !ns.enabled ? keys : keys.map((k) => namespacedElement(k, ns.propertyNamespace));
  }

  private expr(node: unknown, path: string): Expr {
    return this.cc.expr({ node: rewrite(node, this.aliases), path });
  }

  compile(): Spec | undefined {
    const s = this.node;
    if (!isJsonObject(s)) {
      this.error(this.path, 'a hops spec must be an object like {"datasets": ["<dataset-id> <alias>"], "where": [...]}');
      return undefined;
    }
    for (const key of Object.keys(s)) {
      if (!SPEC_KEYS.includes(key)) this.error(at(this.path, key), `unknown hops property "${key}"; known: ${SPEC_KEYS.join(', ')}`);
    }
    this.declareAliases(s['datasets'], at(this.path, 'datasets'));
    const recurse = this.flag(s, 'recurse', false);
    const excludeRoot = this.flag(s, 'exclude_root', false);
    this.flag(s, 'track-dependencies', true);
    if (s['trace'] !== undefined && typeof s['trace'] !== 'string') this.error(at(this.path, 'trace'), '"trace" must be a string');
    let maxDepth: number | null = DEFAULT_MAX_DEPTH;
    if (Object.hasOwn(s, 'max_depth')) {
      const m = s['max_depth'];
      if (m === null) maxDepth = null;
      else if (typeof m === 'number' && Number.isInteger(m) && m >= 0) maxDepth = m;
      else this.error(at(this.path, 'max_depth'), '"max_depth" must be a non-negative integer, or null for no limit');
      if (!recurse) this.cc.warn(at(this.path, 'max_depth'), '"max_depth" only matters with "recurse": true');
    }
    if (Object.hasOwn(s, 'exclude_root') && !recurse) this.cc.warn(at(this.path, 'exclude_root'), '"exclude_root" only matters with "recurse": true');
    if (this.aliases.size === 0) return undefined;
    const output = [...this.aliases.values()].pop() as Alias;
    const subsets = this.subsets(s);
    if (!Object.hasOwn(s, 'where')) {
      this.error(this.path, 'a hops spec needs "where": the joins from the source to every alias');
      return undefined;
    }
    const steps = this.plan(conditionsOf(s['where'], at(this.path, 'where')), subsets);
    let projection: Projection = { kind: 'aliases', names: [output.name] };
    if (Object.hasOwn(s, 'return')) {
      const r = at(this.path, 'return');
      if (!this.last) this.error(r, '"return" can only be given on the last hops spec of a chain');
      else if (recurse) this.error(r, '"return" cannot be combined with "recurse": true');
      else projection = this.projection(s['return'], r);
    }
    if (this.failed) return undefined;
    return { steps, output, projection, recurse, excludeRoot, maxDepth };
  }

  private flag(s: JsonObject, key: string, dflt: boolean): boolean {
    const v = s[key];
    if (v === undefined) return dflt;
    if (typeof v !== 'boolean') {
      this.error(at(this.path, key), `"${key}" must be true or false`);
      return dflt;
    }
    return v;
  }

  private declareAliases(datasets: unknown, path: string): void {
    if (!Array.isArray(datasets) || datasets.length === 0) {
      this.error(path, '"datasets" must be a non-empty list of "<dataset-id> <alias>" strings');
      return;
    }
    datasets.forEach((d: unknown, i) => {
      const p = at(path, i);
      const parts = typeof d === 'string' ? d.trim().split(/\s+/) : [];
      if (parts.length !== 2) {
        this.error(p, `write each dataset as "<dataset-id> <alias>", e.g. "orders o"; got ${JSON.stringify(d)}`);
        return;
      }
      const [dataset, name] = parts as [string, string];
      if (name.startsWith('_') || name.includes('.') || name.includes("'")) {
        this.error(p, `the alias "${name}" may not start with "_" or contain "." or "'"`);
      } else if (this.aliases.has(name)) {
        this.error(p, `the alias "${name}" is declared twice`);
      } else {
        this.aliases.set(name, { name, dataset, at: p });
      }
    });
  }

  private subsets(s: JsonObject): Map<string, SubsetFilter> {
    const out = new Map<string, SubsetFilter>();
    for (const key of ['subsets', 'prefilters']) {
      const v = s[key];
      if (v === undefined) continue;
      const path = at(this.path, key);
      if (!isJsonObject(v)) {
        this.error(path, `"${key}" must be an object {"<alias>": ["eq", "_S.<property>", <value>]}`);
        continue;
      }
      for (const [name, e] of Object.entries(v)) {
        const p = at(path, name);
        if (!this.aliases.has(name)) {
          this.error(p, `"${name}" is not one of the aliases (${[...this.aliases.keys()].join(', ')})`);
          continue;
        }
        const parsed = Array.isArray(e) && e.length === 3 && e[0] === 'eq' ? (subsetSides(e[1], e[2], 2) ?? subsetSides(e[2], e[1], 1)) : undefined;
        if (parsed === undefined) {
          this.error(p, 'a subset is written ["eq", "_S.<property>", <value>]');
          continue;
        }
        out.set(name, { keys: this.lookupPath(parsed.keys), value: this.cc.expr({ node: parsed.value, path: at(p, parsed.valueIndex) }) });
      }
    }
    return out;
  }

  private plan(conditions: ArgNode[], subsets: ReadonlyMap<string, SubsetFilter>): Step[] {
    interface Cond {
      readonly arg: ArgNode;
      readonly anchors: Set<string>;
      /** For a join: its two sides. */
      readonly sides?: readonly [ArgNode & { anchor: string }, ArgNode & { anchor: string }];
    }
    const pending: Cond[] = [];
    for (const arg of conditions) {
      const n = arg.node;
      if (Array.isArray(n) && n[0] === 'eq' && n.length === 3) {
        const a = anchorsOf(n[1], this.aliases);
        const b = anchorsOf(n[2], this.aliases);
        if (a.size === 1 && b.size === 1) {
          const x = [...a][0] as string;
          const y = [...b][0] as string;
          if (x !== y) {
            pending.push({
              arg,
              anchors: new Set([x, y]),
              sides: [
                { node: n[1], path: at(arg.path, 1), anchor: x },
                { node: n[2], path: at(arg.path, 2), anchor: y },
              ],
            });
            continue;
          }
        }
        this.warnPlainStrings(n, arg.path);
      }
      pending.push({ arg, anchors: anchorsOf(n, this.aliases) });
    }
    const bound = new Set<string>([SOURCE]);
    const steps: Step[] = [];
    const ready = (c: Cond): boolean => [...c.anchors].every((x) => bound.has(x));
    for (;;) {
      for (let i = 0; i < pending.length; ) {
        const c = pending[i] as Cond;
        if (!ready(c)) {
          i++;
          continue;
        }
        pending.splice(i, 1);
        if (c.sides === undefined) steps.push({ kind: 'filter', test: this.condition(c.arg.node, c.arg.path) });
        else steps.push({ kind: 'overlap', left: this.expr(c.sides[0].node, c.sides[0].path), right: this.expr(c.sides[1].node, c.sides[1].path) });
      }
      let next: { cond: Cond; from: ArgNode; alias: Alias; keys: string[] } | undefined;
      for (const c of pending) {
        if (c.sides === undefined) continue;
        for (const [from, to] of [c.sides, [c.sides[1], c.sides[0]] as const]) {
          const alias = this.aliases.get(to.anchor);
          if (!bound.has(from.anchor) || alias === undefined || bound.has(alias.name)) continue;
          const keys = plainAliasPath(to.node, alias.name);
          if (keys !== undefined) {
            next = { cond: c, from, alias, keys };
            break;
          }
        }
        if (next !== undefined) break;
      }
      if (next === undefined) {
        // No index lookup on a plain path reaches a new alias: an `or` of joins, or a join with a function on the
        // new alias' side.
        const other = this.joinBeyondIndexes(pending, bound);
        if (other === undefined) break;
        bound.add(other.alias.name);
        if (other.arms !== undefined) {
          pending.splice(pending.indexOf(other.cond), 1);
          steps.push({
            kind: 'lookup-any',
            alias: other.alias.name,
            dataset: other.alias.dataset,
            arms: other.arms.map((a) => ({ keys: this.lookupPath(a.keys), from: this.expr(a.from.node, a.from.path) })),
            subset: subsets.get(other.alias.name),
            at: other.cond.arg.path,
          });
        } else {
          const join = other.join && { key: this.expr(other.join.key.node, other.join.key.path), from: this.expr(other.join.from.node, other.join.from.path) };
          if (join) pending.splice(pending.indexOf(other.cond), 1);
          steps.push({ kind: 'scan', alias: other.alias.name, dataset: other.alias.dataset, subset: subsets.get(other.alias.name), at: other.cond.arg.path, ...(join ? { join } : {}) });
        }
        continue;
      }
      pending.splice(pending.indexOf(next.cond), 1);
      bound.add(next.alias.name);
      steps.push({
        kind: 'lookup',
        alias: next.alias.name,
        dataset: next.alias.dataset,
        keys: this.lookupPath(next.keys),
        from: this.expr(next.from.node, next.from.path),
        subset: subsets.get(next.alias.name),
        at: next.cond.arg.path,
      });
    }
    for (const alias of this.aliases.values()) {
      if (!bound.has(alias.name)) {
        this.error(
          alias.at,
          `alias "${alias.name}" is not joined to the source: "where" needs an ["eq", <value from _S or a joined alias>, "${alias.name}.<property>"] that reaches it`,
        );
      }
    }
    return steps;
  }

  /**
   * A filter condition. An `or` whose arms include joins (an eq with exactly one alias, a different one, on each side)
   * tests those arms as joins: the sides share a value, nulls never match (a plain eq would take null = null).
   */
  private condition(node: unknown, path: string): Expr {
    if (!Array.isArray(node) || node[0] !== 'or') return this.expr(node, path);
    const arms: Expr[] = node.slice(1).map((arm: unknown, i) => {
      const armPath = at(path, i + 1);
      if (Array.isArray(arm) && arm[0] === 'eq' && arm.length === 3) {
        const a = anchorsOf(arm[1], this.aliases);
        const b = anchorsOf(arm[2], this.aliases);
        if (a.size === 1 && b.size === 1 && [...a][0] !== [...b][0]) {
          const left = this.expr(arm[1], at(armPath, 1));
          const right = this.expr(arm[2], at(armPath, 2));
          return (ctx) => overlaps(left(ctx), right(ctx));
        }
      }
      return this.condition(arm, armPath);
    });
    return (ctx) => arms.some((arm) => isTruthy(arm(ctx)));
  }

  /**
   * A join the indexes cannot answer directly, binding one new alias: an `or` whose arms are all joins of that alias
   * to bound ones (with `arms` when every arm's side on the alias is a plain path: a union of lookups), or a join
   * whose side on the new alias applies a function (a scan of the alias' dataset).
   */
  private joinBeyondIndexes<C extends { readonly arg: ArgNode; readonly anchors: Set<string>; readonly sides?: readonly unknown[] }>(
    pending: readonly C[],
    bound: ReadonlySet<string>,
  ): { cond: C; alias: Alias; arms?: { keys: string[]; from: ArgNode }[]; join?: { key: ArgNode; from: ArgNode } } | undefined {
    const unboundAlias = (anchors: Iterable<string>): Alias | undefined => {
      const open = [...anchors].filter((x) => !bound.has(x));
      return open.length === 1 ? this.aliases.get(open[0] as string) : undefined;
    };
    // A condition that reaches one new alias only inside an `or`/`and` of other tests (["or", ["eq", "0", "m.x"],
    // ["and", ["eq", "n.a", "j._id"], ...]]): the alias is read whole and the condition filters it, as a last resort.
    let whole: { cond: C; alias: Alias } | undefined;
    for (const c of pending) {
      const n = c.arg.node;
      if (c.sides !== undefined) {
        const alias = unboundAlias(c.anchors);
        if (alias === undefined) continue;
        const sides = c.sides as readonly [ArgNode & { anchor: string }, ArgNode & { anchor: string }];
        const [key, from] = sides[0].anchor === alias.name ? [sides[0], sides[1]] : [sides[1], sides[0]];
        return { cond: c, alias, join: { key, from } };
      }
      const alias = unboundAlias(c.anchors);
      if (alias === undefined) continue;
      // Only a condition that also reaches what is bound connects the alias to the source ("hops must start from
      // the source entity", the DTL reference guide).
      if ([...c.anchors].some((x) => bound.has(x))) whole ??= { cond: c, alias };
      if (!Array.isArray(n) || n[0] !== 'or' || n.length < 2) continue;
      const arms: { keys: string[]; from: ArgNode }[] = [];
      let joins = true;
      n.slice(1).forEach((arm: unknown, i) => {
        const armPath = at(c.arg.path, i + 1);
        if (!Array.isArray(arm) || arm[0] !== 'eq' || arm.length !== 3) return void (joins = false);
        const a = anchorsOf(arm[1], this.aliases);
        const b = anchorsOf(arm[2], this.aliases);
        if (a.size !== 1 || b.size !== 1) return void (joins = false);
        const [x, y] = [[...a][0] as string, [...b][0] as string];
        const onAlias = x === alias.name ? 1 : y === alias.name ? 2 : 0;
        const otherAnchor = onAlias === 1 ? y : x;
        if (onAlias === 0 || x === y || !bound.has(otherAnchor)) return void (joins = false);
        const keys = plainAliasPath(arm[onAlias], alias.name);
        const fromIndex = onAlias === 1 ? 2 : 1;
        if (keys !== undefined) arms.push({ keys, from: { node: arm[fromIndex], path: at(armPath, fromIndex) } });
      });
      if (!joins) continue;
      return arms.length === n.length - 1 ? { cond: c, alias, arms } : { cond: c, alias };
    }
    if (whole !== undefined) {
      this.cc.warn(whole.cond.arg.path, `alias "${whole.alias.name}" is joined only inside this condition: dataset "${whole.alias.dataset}" is read whole for each source entity (slow on a large dataset); an ["eq", ..., "${whole.alias.name}.<property>"] of its own makes it an index lookup`);
    }
    return whole;
  }

  /** Warn about "x.y" strings in a non-join eq that look like paths of an undeclared alias. */
  private warnPlainStrings(eq: readonly unknown[], path: string): void {
    for (let i = 1; i <= 2; i++) {
      const s = eq[i];
      if (typeof s !== 'string' || isPathString(s)) continue;
      const m = /^([A-Za-z][\w-]*)\.[A-Za-z_$][\w$:-]*$/.exec(s);
      if (m !== null && !this.aliases.has(m[1] as string)) {
        this.cc.warn(at(path, i), `"${s}" is a plain string here: "${m[1] as string}" is not one of the aliases (${[...this.aliases.keys()].join(', ')})`);
      }
    }
  }

  private projection(r: unknown, path: string): Projection {
    if (typeof r === 'string' && !r.includes('.') && !isPathString(r)) {
      const names = r.split(',').map((x) => x.trim());
      for (const n of names) {
        if (!this.aliases.has(n)) this.error(path, `"return": "${n}" is not one of the aliases (${[...this.aliases.keys()].join(', ')})`);
      }
      return { kind: 'aliases', names };
    }
    return { kind: 'expr', expr: this.expr(r, path), flatten: typeof r === 'string' };
  }
}

function subsetSides(a: unknown, b: unknown, valueIndex: number): { keys: string[]; value: unknown; valueIndex: number } | undefined {
  if (typeof a !== 'string' || !a.startsWith('_S.')) return undefined;
  const keys = splitPathElements(a.slice(3));
  if (typeof keys === 'string' || keys.length === 0) return undefined;
  return { keys, value: b, valueIndex };
}

// ---------------------------------------------------------------------------------------------------------------------
// Running

function noLookup(fn: string, where: string): DtlRuntimeError {
  return new DtlRuntimeError(
    'error',
    `"${fn}" needs access to datasets, and none are available here (pipes have them; "datahub dtl run" takes --lookup)`,
    where,
  );
}

function rowContext(ctx: Ctx, row: DtlDict): Ctx {
  const c = new Ctx(row, ctx.target, ctx.parent, ctx.root, ctx.run, false);
  c.current = ctx.current;
  return c;
}

function lookupOf(ctx: Ctx, fn: string, where: string): DtlLookup {
  const lookup = ctx.run.lookup;
  if (lookup === undefined) throw noLookup(fn, where);
  return lookup;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

type ScanStep = Extract<Step, { kind: 'scan' }>;

/** A scan's entities, and for a join its index from join key to entities; kept while the dataset is unchanged. */
const SCANS = new WeakMap<ScanStep, { version: string; subset: string; all: JsonObject[]; index: Map<string, JsonObject[]> | undefined }>();

function scanned(ctx: Ctx, fn: string, step: ScanStep): { all: JsonObject[]; index: Map<string, JsonObject[]> | undefined } {
  const version = lookupOf(ctx, fn, step.at).version?.(step.dataset);
  // The subset's value may depend on the input: part of the cache key.
  const subset = step.subset === undefined ? '' : JSON.stringify(lookupKeys(step.subset.value(ctx)));
  const cached = SCANS.get(step);
  if (version !== undefined && cached !== undefined && cached.version === version && cached.subset === subset) return cached;
  const all = scanEntities(ctx, fn, step);
  let index: Map<string, JsonObject[]> | undefined;
  const join = step.join;
  if (join !== undefined) {
    // The alias' side of the join for each entity, once: an index from join key to entities.
    index = new Map();
    for (const entity of all) {
      const r: DtlDict = {};
      setProperty(r, step.alias, entity);
      for (const k of new Set(lookupKeys(join.key(rowContext(ctx, r))))) {
        const list = index.get(k);
        if (list === undefined) index.set(k, [entity]);
        else list.push(entity);
      }
    }
  }
  if (version !== undefined) SCANS.set(step, { version, subset, all, index });
  return { all, index };
}

/** Every live entity of a scanned alias' dataset (in its subset), in `_id` order. */
function scanEntities(ctx: Ctx, fn: string, step: { dataset: string; subset: SubsetFilter | undefined; at: string }): JsonObject[] {
  const lookup = lookupOf(ctx, fn, step.at);
  if (lookup.entities === undefined) {
    throw new DtlRuntimeError('error', `"${fn}": this join applies a function to a dataset's side, and the datasets here cannot be read whole`, step.at);
  }
  const subsetKeys = step.subset === undefined ? undefined : new Set(lookupKeys(step.subset.value(ctx)));
  const out: JsonObject[] = [];
  for (const e of lookup.entities(step.dataset)) {
    if (step.subset !== undefined && !lookupKeys(traverseLookupPath(e, step.subset.keys)).some((k) => subsetKeys?.has(k))) continue;
    out.push(e);
  }
  return out;
}

/** The rows of one spec for one input. */
function rowsOf(spec: Spec, ctx: Ctx, input: DtlValue, fn: string): DtlDict[] {
  const first: DtlDict = {};
  first[INPUT] = input;
  let rows: DtlDict[] = [first];
  for (const step of spec.steps) {
    const next: DtlDict[] = [];
    if (step.kind === 'scan') {
      const { all, index } = scanned(ctx, fn, step);
      const join = step.join;
      if (join === undefined || index === undefined) {
        for (const row of rows) {
          for (const entity of all) {
            const r: DtlDict = Object.assign({}, row);
            setProperty(r, step.alias, entity);
            next.push(r);
          }
        }
      } else {
        for (const row of rows) {
          const found = new Set<JsonObject>();
          for (const k of lookupKeys(join.from(rowContext(ctx, row)))) for (const e of index.get(k) ?? []) found.add(e);
          for (const entity of [...found].sort((a, b) => compareIds(a['_id'] as string, b['_id'] as string))) {
            const r: DtlDict = Object.assign({}, row);
            setProperty(r, step.alias, entity);
            next.push(r);
          }
        }
      }
      rows = next;
      if (rows.length === 0) break;
      continue;
    }
    for (const row of rows) {
      const rc = rowContext(ctx, row);
      if (step.kind === 'lookup-any') {
        const subsetKeys = step.subset === undefined ? undefined : new Set(lookupKeys(step.subset.value(ctx)));
        const found = new Map<string, JsonObject>();
        for (const arm of step.arms) {
          const keys = joinValues(arm.from(rc));
          if (keys.length === 0) continue;
          for (const entity of lookupOf(ctx, fn, step.at).lookupByIndex(step.dataset, arm.keys, keys)) {
            if (step.subset !== undefined && !lookupKeys(traverseLookupPath(entity, step.subset.keys)).some((k) => subsetKeys?.has(k))) continue;
            found.set(entity['_id'] as string, entity);
          }
        }
        for (const id of [...found.keys()].sort(compareIds)) {
          const r: DtlDict = Object.assign({}, row);
          setProperty(r, step.alias, found.get(id) as JsonObject);
          next.push(r);
        }
      } else if (step.kind === 'filter') {
        if (isTruthy(step.test(rc))) next.push(row);
      } else if (step.kind === 'overlap') {
        if (overlaps(step.left(rc), step.right(rc))) next.push(row);
      } else {
        const keys = joinValues(step.from(rc));
        if (keys.length === 0) continue;
        const subsetKeys = step.subset === undefined ? undefined : new Set(lookupKeys(step.subset.value(ctx)));
        for (const entity of lookupOf(ctx, fn, step.at).lookupByIndex(step.dataset, step.keys, keys)) {
          if (step.subset !== undefined && !lookupKeys(traverseLookupPath(entity, step.subset.keys)).some((k) => subsetKeys?.has(k))) continue;
          const r: DtlDict = Object.assign({}, row);
          setProperty(r, step.alias, entity);
          next.push(r);
        }
      }
    }
    rows = next;
    if (rows.length === 0) break;
  }
  return rows;
}

function entityKey(alias: string, e: DtlValue): string {
  const id = isDict(e) ? e['_id'] : undefined;
  return typeof id === 'string' ? `${alias}\u0000${id}` : `${alias}\u0000${keyOf(e)}`;
}

/** The entities of the output alias for each input, each once. */
function outputsOf(spec: Spec, ctx: Ctx, inputs: readonly DtlValue[], fn: string, seen: Set<string>): DtlValue[] {
  const out: DtlValue[] = [];
  const name = spec.output.name;
  for (const input of inputs) {
    for (const row of rowsOf(spec, ctx, input, fn)) {
      const e = row[name] as DtlValue;
      const k = entityKey(spec.output.dataset, e);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(e);
    }
  }
  return out;
}

function recurse(spec: Spec, ctx: Ctx, inputs: readonly DtlValue[], fn: string): DtlValue[] {
  const seen = new Set<string>();
  for (const input of inputs) seen.add(entityKey(spec.output.dataset, input));
  const out: DtlValue[] = spec.excludeRoot ? [] : [...inputs];
  let frontier = inputs;
  for (let depth = 0; frontier.length > 0 && (spec.maxDepth === null || depth < spec.maxDepth); depth++) {
    frontier = outputsOf(spec, ctx, frontier, fn, seen);
    for (const e of frontier) out.push(e);
  }
  return out;
}

function project(spec: Spec, ctx: Ctx, inputs: readonly DtlValue[], fn: string): DtlValue[] {
  const p = spec.projection;
  if (p.kind === 'aliases' && p.names.length === 1 && p.names[0] === spec.output.name) return outputsOf(spec, ctx, inputs, fn, new Set());
  const out: DtlValue[] = [];
  const seen = new Set<string>();
  for (const input of inputs) {
    for (const row of rowsOf(spec, ctx, input, fn)) {
      if (p.kind === 'aliases') {
        for (const name of p.names) {
          const e = row[name] as DtlValue;
          const k = entityKey(name, e);
          if (seen.has(k)) continue;
          seen.add(k);
          out.push(e);
        }
      } else {
        const v = p.expr(rowContext(ctx, row));
        if (v === null) continue;
        if (p.flatten && Array.isArray(v)) {
          for (const x of v) if (x !== null) out.push(x);
        } else {
          out.push(v);
        }
      }
    }
  }
  return out;
}

interface CompiledHops {
  run(ctx: Ctx): DtlValue[];
  /** True when the values are entities of the datasets (plain JSON), apart from a recursion's root input. */
  readonly entities: boolean;
}

/** Compile the HOPS_SPEC arguments into the function that runs the chain; undefined after errors. */
function compileHops(specArgs: readonly ArgNode[], cc: CompileContext, fn: string): CompiledHops | undefined {
  const specs: Spec[] = [];
  let ok = true;
  specArgs.forEach((a, i) => {
    const s = new SpecCompiler(cc, a.node, a.path, i === specArgs.length - 1).compile();
    if (s === undefined) ok = false;
    else specs.push(s);
  });
  if (!ok) return undefined;
  const last = specs[specs.length - 1] as Spec;
  return {
    entities: last.projection.kind === 'aliases',
    run(ctx) {
      let values: DtlValue[] = [ctx.source];
      specs.forEach((spec, i) => {
        if (values.length === 0) return;
        if (spec.recurse) values = recurse(spec, ctx, values, fn);
        else if (i === specs.length - 1) values = project(spec, ctx, values, fn);
        else values = outputsOf(spec, ctx, values, fn, new Set());
      });
      return values;
    },
  };
}

const ORDERS_EXAMPLE = { datasets: ['orders o'], where: ['eq', '_S.order_ids', 'o._id'] };

export const joinFunctions: FunctionSpec[] = [
  expression({
    name: 'hops',
    family: FAMILY,
    params: [oneOrMore('HOPS_SPEC', 'literal')],
    signature: 'HOPS_SPEC(dict{>=1})',
    description:
      'Joins the source with entities of other datasets: each spec declares "<dataset> <alias>" pairs and "where" joins (eq between aliases), and gives the last alias\' entities or its "return".',
    examples: [
      { expression: ['hops', ORDERS_EXAMPLE], source: { _id: 'c1', order_ids: [] }, result: [], note: 'no order ids: nothing to look up' },
      {
        expression: ['hops', { datasets: ['person p'], where: ['eq', '_S.children', 'p._id'], recurse: true }],
        source: { _id: 'ann' },
        result: [{ _id: 'ann' }],
        note: 'a recursion includes its root unless "exclude_root" is true; ann has no children',
      },
      {
        expression: ['hops', { datasets: ['orders o', 'product p'], where: ['eq', '_S._id', 'o.customer'] }],
        error: 'alias "p" is not joined to the source',
      },
    ],
    compile(b, cc) {
      const hops = compileHops(b.many('HOPS_SPEC'), cc, 'hops');
      return hops === undefined ? () => null : (ctx) => hops.run(ctx);
    },
  }),

  expression({
    name: 'apply-hops',
    family: FAMILY,
    params: [one('RULE_ID', 'rule-id'), oneOrMore('HOPS_SPEC', 'literal')],
    signature: 'RULE_ID(rule-id{1}), HOPS_SPEC(dict{>=1})',
    description: 'Runs hops and applies the named rule set to each entity found, giving the resulting targets (filtered ones left out).',
    examples: [
      {
        expression: ['apply-hops', 'order', ORDERS_EXAMPLE],
        source: { _id: 'c1' },
        rules: { order: [['copy', 'amount']] },
        result: [],
        note: 'no order ids: nothing to look up',
      },
      { expression: ['apply-hops', 'missing', ORDERS_EXAMPLE], rules: { order: [] }, error: 'unknown rule set "missing"' },
    ],
    compile(b, cc) {
      const ref = cc.ruleSet(b.one('RULE_ID'));
      const hops = compileHops(b.many('HOPS_SPEC'), cc, 'apply-hops');
      if (hops === undefined) return () => null;
      return (ctx) => {
        const out: DtlValue[] = [];
        for (const v of hops.run(ctx)) {
          const child = childContext(ctx, v, v === ctx.source ? ctx.sourceJson : hops.entities);
          if (!ref.run(child)) out.push(child.target);
        }
        return out;
      };
    },
  }),

  expression({
    name: 'lookup-entity',
    family: FAMILY,
    params: [one('DATASET_ID', 'string'), one('ENTITY_ID', 'value')],
    description:
      'The live entity of the dataset with this _id, or null; a list of ids gives the entities found. A namespaced identifier is looked up by its text ("~:ns:x" as "ns:x").',
    examples: [
      { expression: ['lookup-entity', 'code-table', '_S.code'], source: {}, result: null, note: 'no id: nothing to look up' },
      { expression: ['lookup-entity', 'code-table', ['list']], result: [] },
    ],
    json: 'yes',
    compile(b, cc) {
      const dataset = b.one('DATASET_ID').node as string;
      const ids = cc.expr(b.one('ENTITY_ID'));
      const where = b.at;
      const idOf = (v: DtlValue): string | undefined => {
        const t = typedOf(v);
        if (t === null) return typeof v === 'string' ? v : undefined;
        return t.kind === 'ni' ? t.text() : undefined;
      };
      return (ctx) => {
        const v = ids(ctx);
        if (v === null) return null;
        if (!Array.isArray(v)) {
          const id = idOf(v);
          return id === undefined ? null : (lookupOf(ctx, 'lookup-entity', where).entity(dataset, id) ?? null);
        }
        const out: DtlValue[] = [];
        for (const x of v) {
          const id = idOf(x);
          if (id === undefined) continue;
          const e = lookupOf(ctx, 'lookup-entity', where).entity(dataset, id);
          if (e !== undefined) out.push(e);
        }
        return out;
      };
    },
  }),
];

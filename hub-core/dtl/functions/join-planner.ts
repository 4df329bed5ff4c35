// Checking and planning a hops spec at compile time: aliases, join order, lookups, scans, subsets and return.

import { isJsonObject, type JsonObject } from '../../base/index.js';
import type { Expr } from '../context.js';
import { isPathString, namespacedElement, splitPathElements } from '../paths.js';
import type { ArgNode, CompileContext } from '../registry.js';
import { isTruthy } from '../values.js';
import { SOURCE, SPEC_KEYS, DEFAULT_MAX_DEPTH, at, type Alias, type Step, type SubsetFilter, type Projection, type Spec, anchorsOf, plainAliasPath, rewrite, conditionsOf, overlaps } from './join-spec.js';

export class SpecCompiler {
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

export function subsetSides(a: unknown, b: unknown, valueIndex: number): { keys: string[]; value: unknown; valueIndex: number } | undefined {
  if (typeof a !== 'string' || !a.startsWith('_S.')) return undefined;
  const keys = splitPathElements(a.slice(3));
  if (typeof keys === 'string' || keys.length === 0) return undefined;
  return { keys, value: b, valueIndex };
}

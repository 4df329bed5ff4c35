import type { JsonObject, JsonValue } from '../../base/index.js';
import { HubError } from '../../base/index.js';
import { compileExpression, decode, keyOf, type CompiledExpression, type DtlValue } from '../../dtl/index.js';
import type { NamespaceSettings } from '../../dtl/index.js';
import type { PumpSource, SourceContext } from './source.js';
import type { EffectivePipe } from '../../config/index.js';
import { readPage } from './dataset-offsets.js';
import { mergeContributors } from '../lineage-record.js';

/**
 * The merge source: entities of several datasets that equality rules find to be the same are merged into one.
 * Sameness is transitive. An equality rule `["eq", <left>, <right>]` has on each side an expression over one dataset
 * alias ("a.x", or a DTL expression such as ["lower", "c.f3"]); entities whose sides share a value are the same
 * (null and empty lists never match). `equality_sets` are written out as chains of such rules. Deleted entities are
 * never merged: each is given on its own, deleted.
 *
 * Left out: a stored identity graph. The source is read whole every run (not incremental), and ids that stop being
 * produced (a merged entity whose members changed) are deleted by the sink's deletion tracking rather than written
 * with `$replaced`; `max_merged` and merge version 1 semantics are not implemented.
 */
export function mergeSource(pipe: EffectivePipe, ctx: SourceContext): PumpSource {
  const config = parseMergeConfig(pipe.source, ctx.namespaces);
  return {
    incremental: false,
    async *batches(_since, batchSize) {
      const merged = mergeAll(config, ctx);
      for (let i = 0; i < merged.length; i += batchSize) yield { entities: merged.slice(i, i + batchSize) };
    },
  };
}

interface MergeDataset {
  id: string;
  alias: string;
}

interface RuleSide {
  dataset: number;
  expr: CompiledExpression;
}

interface MergeConfig {
  datasets: MergeDataset[];
  rules: [RuleSide, RuleSide][];
  identity: 'composite' | 'first';
  strategy: 'default' | 'compact' | 'list';
}

function bad(message: string, detail?: string): HubError {
  return new HubError(400, `merge source: ${message}`, detail);
}

function parseMergeConfig(source: JsonObject, namespaces?: NamespaceSettings): MergeConfig {
  const list = source['datasets'];
  if (!Array.isArray(list) || list.length === 0) throw bad('"datasets" must be a non-empty list of "<dataset id> <alias>" strings');
  const datasets = list.map((d, i) => {
    if (typeof d !== 'string' || d.trim() === '') throw bad(`"datasets"[${i}] must be a string "<dataset id> <alias>"`);
    const [id, alias] = d.trim().split(/\s+/);
    return { id: id!, alias: alias ?? id! };
  });
  const aliases = new Map(datasets.map((d, i) => [d.alias, i]));
  if (aliases.size !== datasets.length) throw bad('each dataset alias may appear only once in "datasets"');

  const side = (expr: JsonValue, where: string): RuleSide => {
    // The side's alias is the one its paths start with; the expression then reads that entity as _S.
    let found: number | undefined;
    const rewrite = (v: JsonValue): JsonValue => {
      if (typeof v === 'string') {
        const dot = v.indexOf('.');
        const alias = dot > 0 ? v.slice(0, dot) : undefined;
        const index = alias !== undefined ? aliases.get(alias) : undefined;
        if (index === undefined) return v;
        if (found !== undefined && found !== index) throw bad(`${where} refers to more than one dataset alias`);
        found = index;
        return `_S.${v.slice(dot + 1)}`;
      }
      return Array.isArray(v) ? v.map(rewrite) : v;
    };
    const rewritten = rewrite(expr);
    if (found === undefined) throw bad(`${where} refers to no dataset alias`, `the aliases are ${[...aliases.keys()].join(', ')}`);
    // "Merging follows the same rules as joins in hops" (the merge source page): with namespaced identifiers on, an
    // unqualified "a.email" matches the property in every namespace, as a hops join does.
    const compiled = compileExpression(rewritten, { path: where, ...(namespaces ? { namespaces } : {}) });
    const errors = compiled.errors.filter((e) => e.level === 'error');
    if (errors.length > 0) throw bad(`${where} does not compile`, errors.map((e) => e.msg).join('; '));
    return { dataset: found, expr: compiled };
  };

  const rules: [RuleSide, RuleSide][] = [];
  const equality = source['equality'] ?? [];
  if (!Array.isArray(equality)) throw bad('"equality" must be a list of ["eq", <left>, <right>] rules');
  equality.forEach((rule, i) => {
    const where = `$.source.equality[${i}]`;
    if (!Array.isArray(rule) || rule.length !== 3 || rule[0] !== 'eq') throw bad(`${where} must be ["eq", <left>, <right>]`);
    rules.push([side(rule[1]!, `${where}[1]`), side(rule[2]!, `${where}[2]`)]);
  });
  const sets = source['equality_sets'] ?? [];
  if (!Array.isArray(sets)) throw bad('"equality_sets" must be a list of lists of expressions');
  sets.forEach((set, i) => {
    const where = `$.source.equality_sets[${i}]`;
    if (!Array.isArray(set) || set.length === 0) throw bad(`${where} must be a non-empty list of expressions`);
    for (let j = 1; j < set.length; j++) rules.push([side(set[j - 1]!, `${where}[${j - 1}]`), side(set[j]!, `${where}[${j}]`)]);
  });

  const identity = source['identity'] ?? 'composite';
  if (identity !== 'composite' && identity !== 'first') throw bad(`unknown identity ${JSON.stringify(identity)}`, 'use "composite" or "first"');
  const strategy = source['strategy'] ?? 'default';
  if (strategy !== 'default' && strategy !== 'compact' && strategy !== 'list') {
    throw bad(`unknown strategy ${JSON.stringify(strategy)}`, 'use "default", "compact" or "list"');
  }
  return { datasets, rules, identity, strategy };
}

interface Node {
  dataset: number;
  entity: JsonObject;
  id: string;
}

function mergeAll(config: MergeConfig, ctx: SourceContext): JsonObject[] {
  // Every latest version of every dataset, in dataset order, then offset order.
  const nodes: Node[] = [];
  config.datasets.forEach((d, index) => {
    const ds = ctx.datasets.get(d.id);
    if (!ds) return;
    let since: number | undefined;
    for (;;) {
      const page = readPage(ds, since, 1000);
      if (page.length === 0) break;
      since = page[page.length - 1]!['_updated'] as number;
      for (const e of page) if (typeof e['_id'] === 'string') nodes.push({ dataset: index, entity: e, id: e['_id'] });
    }
  });

  const parent = nodes.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };

  const keysOf = (side: RuleSide, node: Node): string[] => {
    const v: DtlValue = side.expr.evaluate({ source: decode(node.entity) });
    const out: string[] = [];
    const add = (x: DtlValue): void => {
      if (Array.isArray(x)) x.forEach(add);
      else if (x !== null && x !== undefined) out.push(keyOf(x));
    };
    add(v);
    return out;
  };
  // Entities are the same when a value of one's left side equals a value of another's right side.
  const byKey = (side: RuleSide): Map<string, number[]> => {
    const map = new Map<string, number[]>();
    nodes.forEach((n, i) => {
      if (n.dataset !== side.dataset || n.entity['_deleted'] === true) return;
      for (const k of keysOf(side, n)) {
        const list = map.get(k);
        if (list) list.push(i);
        else map.set(k, [i]);
      }
    });
    return map;
  };
  for (const [left, right] of config.rules) {
    const rightKeys = byKey(right);
    for (const [k, ls] of byKey(left)) {
      const rs = rightKeys.get(k);
      if (rs) for (const x of [...ls, ...rs]) union(ls[0]!, x);
    }
  }

  const groups = new Map<number, Node[]>();
  nodes.forEach((n, i) => {
    const r = n.entity['_deleted'] === true ? -1 - i : find(i);
    const g = groups.get(r);
    if (g) g.push(n);
    else groups.set(r, [n]);
  });
  return [...groups.values()].map((members) => mergedEntity(members, config));
}

function mergedEntity(members: Node[], config: MergeConfig): JsonObject {
  members.sort((a, b) => a.dataset - b.dataset || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const first = members[0]!;
  const id = config.identity === 'first' ? first.id : members.map((m) => `${m.dataset}|${m.id}`).join('|');
  // `$ids` is always a list of namespaced identifiers (the entity data model): every member's own `$ids` (an already
  // merged entity), else its `_id` as an NI. The merge page's example shows plain ids; the data model's rule wins here.
  const ids: JsonValue[] = [];
  const seen = new Set<string>();
  const addId = (v: JsonValue): void => {
    const ni = typeof v === 'string' ? (v.startsWith('~:') ? v : `~:${v}`) : undefined;
    if (ni !== undefined && !seen.has(ni)) {
      seen.add(ni);
      ids.push(ni);
    }
  };
  for (const m of members) {
    const own = m.entity['$ids'];
    if (Array.isArray(own)) for (const v of own) addId(v);
    else addId(m.id);
  }
  const out: JsonObject = { _id: id };
  if (config.strategy === 'list') {
    out['$merged'] = members.map((m) => publicProperties(m.entity));
  } else {
    const values = new Map<string, JsonValue[]>();
    for (const m of members) {
      for (const [k, v] of Object.entries(publicProperties(m.entity))) {
        if (k === '$ids') continue;
        const list = values.get(k) ?? [];
        list.push(v);
        values.set(k, list);
      }
    }
    for (const [k, list] of values) {
      if (config.strategy === 'default') {
        out[k] = list.length === 1 ? list[0]! : list.flatMap((v) => (Array.isArray(v) ? v : [v]));
        continue;
      }
      const seen = new Set<string>();
      const compact: JsonValue[] = [];
      for (const v of list.flatMap((x) => (Array.isArray(x) ? x : [x]))) {
        const key = JSON.stringify(v);
        if (!seen.has(key)) {
          seen.add(key);
          compact.push(v);
        }
      }
      if (compact.length === 1) out[k] = compact[0]!;
      else if (compact.length > 1) out[k] = compact;
    }
  }
  out['$ids'] = ids;
  if (first.entity['_deleted'] === true) out['_deleted'] = true;
  mergeContributors.set(
    out,
    members.map((m) => [config.datasets[m.dataset]!.id, m.id, typeof m.entity['_updated'] === 'number' ? m.entity['_updated'] : -1] as const),
  );
  return out;
}

/** An entity without the properties its dataset maintains (`_id`, `_updated`, `_ts`, ...). */
function publicProperties(e: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(e)) if (!k.startsWith('_')) out[k] = v;
  return out;
}

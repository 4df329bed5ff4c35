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

import { childContext } from '../context.js';
import { expression, one, oneOrMore, type FunctionSpec } from '../registry.js';
import { typedOf, type DtlValue } from '../values.js';
import { lookupOf, compileHops } from './join-run.js';

const FAMILY = 'joins';

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

// Running planned hops specs: rows by lookup or scan, chains, recursion and the projection of the results.

import type { JsonObject } from '../../base/index.js';
import { DtlRuntimeError, Ctx } from '../context.js';
import { lookupKeys, type DtlLookup } from '../lookup.js';
import { traverseLookupPath } from '../paths.js';
import type { ArgNode, CompileContext } from '../registry.js';
import { isDict, isTruthy, keyOf, setProperty, type DtlDict, type DtlValue } from '../values.js';
import { INPUT, type Step, type SubsetFilter, type Spec, joinValues, overlaps } from './join-spec.js';
import { SpecCompiler } from './join-planner.js';

export function noLookup(fn: string, where: string): DtlRuntimeError {
  return new DtlRuntimeError(
    'error',
    `"${fn}" needs access to datasets, and none are available here (pipes have them; "datahub dtl run" takes --lookup)`,
    where,
  );
}

export function rowContext(ctx: Ctx, row: DtlDict): Ctx {
  const c = new Ctx(row, ctx.target, ctx.parent, ctx.root, ctx.run, false);
  c.current = ctx.current;
  return c;
}

export function lookupOf(ctx: Ctx, fn: string, where: string): DtlLookup {
  const lookup = ctx.run.lookup;
  if (lookup === undefined) throw noLookup(fn, where);
  return lookup;
}

export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export type ScanStep = Extract<Step, { kind: 'scan' }>;

/** A scan's entities, and for a join its index from join key to entities; kept while the dataset is unchanged. */
export const SCANS = new WeakMap<ScanStep, { version: string; subset: string; all: JsonObject[]; index: Map<string, JsonObject[]> | undefined }>();

export function scanned(ctx: Ctx, fn: string, step: ScanStep): { all: JsonObject[]; index: Map<string, JsonObject[]> | undefined } {
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
export function scanEntities(ctx: Ctx, fn: string, step: { dataset: string; subset: SubsetFilter | undefined; at: string }): JsonObject[] {
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
export function rowsOf(spec: Spec, ctx: Ctx, input: DtlValue, fn: string): DtlDict[] {
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

export function entityKey(alias: string, e: DtlValue): string {
  const id = isDict(e) ? e['_id'] : undefined;
  return typeof id === 'string' ? `${alias}\u0000${id}` : `${alias}\u0000${keyOf(e)}`;
}

/** The entities of the output alias for each input, each once. */
export function outputsOf(spec: Spec, ctx: Ctx, inputs: readonly DtlValue[], fn: string, seen: Set<string>): DtlValue[] {
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

export function recurse(spec: Spec, ctx: Ctx, inputs: readonly DtlValue[], fn: string): DtlValue[] {
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

export function project(spec: Spec, ctx: Ctx, inputs: readonly DtlValue[], fn: string): DtlValue[] {
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

export interface CompiledHops {
  run(ctx: Ctx): DtlValue[];
  /** True when the values are entities of the datasets (plain JSON), apart from a recursion's root input. */
  readonly entities: boolean;
}

/** Compile the HOPS_SPEC arguments into the function that runs the chain; undefined after errors. */
export function compileHops(specArgs: readonly ArgNode[], cc: CompileContext, fn: string): CompiledHops | undefined {
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

// What one pipe did to make one output entity from one source entity, worked out with the pipe's own traced transform
// (the trace of the preview, pipe-trace.ts): the look-ups it made, the emit_children parent, and per output property
// the step that set it and the source property it was taken from.

import type { PipeRuntime } from '../pipes/index.js';
import type { EntityTrace, TraceNode, TransformTrace } from '../dtl/index.js';
import { chainSteps } from '../preview/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';
import type { EntityRef, JoinedRef, PropertyOrigin } from './lineage-types.js';

export interface StepTrace {
  joined: JoinedRef[];
  parent: string | null;
  via: string;
  properties: Record<string, PropertyOrigin>;
  note?: string;
}

/** Trace how `runtime`'s pipe made the entity `output` (its stored version) from `source`. */
export function traceStep(runtime: PipeRuntime, source: JsonObject, sourceRef: EntityRef | null, output: JsonObject): StepTrace {
  const outId = output['_id'] as string;
  const props = Object.keys(output).filter((k) => !k.startsWith('_') || k === '_id');
  const fromSource = (property: string): PropertyOrigin['source'] => (sourceRef && Object.hasOwn(source, property) ? { ...sourceRef, property } : null);
  const traced = runtime.traced();
  if (traced === undefined) {
    const properties: Record<string, PropertyOrigin> = {};
    for (const p of props) properties[p] = { pipe: runtime.id, step: '(source)', at: null, source: fromSource(p) };
    return { joined: [], parent: null, via: 'passed', properties };
  }
  if (!traced.ok) return { joined: [], parent: null, via: 'transform', properties: {}, note: 'the transform does not compile now' };
  const fed = runtime.beforeTransforms(source);
  const run = traced.run(fed);
  const joined = lookups(run.trace);
  const parent = emitParent(runtime, fed, outId);
  // The trace of the entity that holds the output's properties: the parent for an emitted child.
  const holder = parent ?? outId;
  const transforms = runtime.config['transform'];
  const emitting = new Set(Array.isArray(transforms) ? transforms.flatMap((t, i) => (isJsonObject(t) && t['type'] === 'emit_children' ? [i] : [])) : []);
  const made = producing(run.trace, holder, emitting);
  const properties: Record<string, PropertyOrigin> = {};
  if (made === undefined) {
    return { joined, parent, via: parent ? 'emit_children' : 'transform', properties, note: `the transform does not make ${JSON.stringify(outId)} from this source entity now` };
  }
  const created = made.trace.created.find((c) => c._id === holder);
  for (const p of props) {
    const name = parent !== null ? '$children' : p;
    const events = made.trace.properties[name];
    const last = events?.[events.length - 1];
    if (created && !last) {
      properties[p] = { pipe: runtime.id, step: 'create', at: created.at, source: null };
      continue;
    }
    if (!last || last.step < 0) {
      properties[p] = { pipe: runtime.id, step: last?.name ?? '(source)', at: last?.at || null, source: fromSource(p) };
      continue;
    }
    const node = findNode(made.trace.steps, last.step);
    const sourceProperty = node ? sourcePropertyOf(node, name, stepConfig(runtime.config, last.at)) : undefined;
    properties[p] = {
      pipe: runtime.id,
      step: last.name,
      at: last.at,
      source: sourceRef && sourceProperty !== undefined && parent === null ? { ...sourceRef, property: sourceProperty } : null,
    };
  }
  return { joined, parent, via: parent ? 'emit_children' : created ? 'create' : 'transform', properties };
}

/** The look-ups of every entity trace (hops, apply-hops, lookup-entity), each once. */
function lookups(trace: TransformTrace): JoinedRef[] {
  const out: JoinedRef[] = [];
  const seen = new Set<string>();
  const walk = (nodes: readonly TraceNode[] | undefined): void => {
    for (const n of nodes ?? []) {
      if (n.lookup) {
        const key = JSON.stringify([n.lookup.dataset, n.lookup.by, n.lookup.keys]);
        if (!seen.has(key)) {
          seen.add(key);
          out.push({ dataset: n.lookup.dataset, by: n.lookup.by, keys: n.lookup.keys, entities: n.lookup.matched });
        }
      }
      walk(n.children);
    }
  };
  for (const e of trace.entities) walk(e.steps);
  return out;
}

/** The entity trace of the last DTL transform that output (or created) `id`. */
function producing(trace: TransformTrace, id: string, emitting: ReadonlySet<number>): { trace: EntityTrace } | undefined {
  for (let i = trace.entities.length - 1; i >= 0; i--) {
    const t = trace.entities[i]!;
    if (t.outcome !== 'output' && t.created.length === 0) continue;
    // An emit_children stage runs no rules: the entity's properties were set by the transform before it.
    if (emitting.has(t.transform)) continue;
    if (t.created.some((c) => c._id === id)) return { trace: t };
    const idEvents = t.properties['_id'];
    const finalId = idEvents?.[idEvents.length - 1]?.value ?? t.source;
    if (finalId === id && t.outcome === 'output') return { trace: t };
  }
  return undefined;
}

/** With an emit_children transform: the `_id` of the entity whose `$children` held `id`. */
function emitParent(runtime: PipeRuntime, fed: JsonObject, id: string): string | null {
  const transforms = runtime.config['transform'];
  if (!Array.isArray(transforms) || !transforms.some((t) => isJsonObject(t) && t['type'] === 'emit_children')) return null;
  const chain = runtime.chain;
  if (!chain) return null;
  const steps = chainSteps(chain, fed);
  for (let i = 1; i < steps.length; i++) {
    const t = transforms[i];
    const before = steps[i - 1]!;
    if (!isJsonObject(t) || t['type'] !== 'emit_children' || !('entities' in before)) continue;
    for (const e of before.entities) {
      const children = e['$children'];
      if (Array.isArray(children) && children.some((c) => isJsonObject(c) && c['_id'] === id)) return typeof e['_id'] === 'string' ? e['_id'] : null;
    }
  }
  return null;
}

/** The element of the pipe's configuration at a JSON path such as "$.transform[0].rules.default[2]". */
function stepConfig(config: JsonObject, at: string): JsonValue | undefined {
  let value: JsonValue | undefined = config;
  for (const m of at.slice(1).matchAll(/\.([^.[]+)|\[(\d+)\]/g)) {
    if (m[1] !== undefined) value = isJsonObject(value) ? value[m[1]] : undefined;
    else value = Array.isArray(value) ? value[Number(m[2])] : undefined;
  }
  return value;
}

function findNode(nodes: readonly TraceNode[] | undefined, id: number): TraceNode | undefined {
  for (const n of nodes ?? []) {
    if (n.id === id) return n;
    const inner = findNode(n.children, id);
    if (inner) return inner;
  }
  return undefined;
}

/** The source property a step read: `copy` keeps the name, `rename` names it first, else the first `_S.` path. */
function sourcePropertyOf(node: TraceNode, property: string, config: JsonValue | undefined): string | undefined {
  if (node.name === 'copy') return property;
  if (node.name === 'rename') return Array.isArray(config) && typeof config[1] === 'string' ? config[1] : undefined;
  const path = (nodes: readonly TraceNode[] | undefined): string | undefined => {
    for (const n of nodes ?? []) {
      if (n.kind === 'path' && n.name.startsWith('_S.')) return n.name.slice(3);
      const inner = path(n.children);
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  return path(node.children);
}

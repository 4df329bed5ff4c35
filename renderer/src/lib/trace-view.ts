// Reading a DTL trace (hub-core/dtl/trace-types.ts) for the Preview tab: which entity trace made which output
// entity, the steps by id or by a clicked place in the transform, and the properties a step touched.
import type { EntityTrace, TraceNode, TransformTrace } from '../../../hub-core/dtl/index';

/** One output entity of a sample entity: the trace of the transform run that made it, and `created` for a `create`. */
export interface OutputRef {
  entity: EntityTrace;
  created?: { _id: string; step: number; at: string };
}

/** The output entities of one sample entity, in output order, each with the trace that made it. */
export function outputsOf(trace: TransformTrace): OutputRef[] {
  const last = Math.max(...trace.entities.map((t) => t.transform));
  const out: OutputRef[] = [];
  for (const t of trace.entities) {
    if (t.transform !== last) continue;
    for (const c of t.created) out.push({ entity: t, created: c });
    if (t.outcome === 'output' || t.outcome === 'filtered') out.push({ entity: t });
  }
  return out;
}

export function walk(nodes: readonly TraceNode[], fn: (n: TraceNode, parent: TraceNode | null) => void, parent: TraceNode | null = null): void {
  for (const n of nodes) {
    fn(n, parent);
    walk(n.children ?? [], fn, n);
  }
}

export function nodeById(t: EntityTrace, id: number): TraceNode | undefined {
  let hit: TraceNode | undefined;
  walk(t.steps, (n) => {
    if (n.id === id) hit = n;
  });
  return hit;
}

/** The innermost step whose element contains the place at `path` (a hub JSON path), if any. */
export function stepAt(t: EntityTrace, path: string): TraceNode | undefined {
  let best: TraceNode | undefined;
  walk(t.steps, (n) => {
    if (n.kind !== 'step') return;
    const inside = path === n.at || path.startsWith(n.at + '[') || path.startsWith(n.at + '.');
    if (inside && (best === undefined || n.at.length >= best.at.length)) best = n;
  });
  return best;
}

/**
 * The properties a step changed (itself or through steps inside it), in order: for a step of the entity's own rule
 * sets those of the output entity (a filter's `_deleted` too), for a nested one those of the dict it built.
 */
export function touchedBy(t: EntityTrace, step: TraceNode): { property: string; action: 'set' | 'removed' }[] {
  const ids = new Set<number>();
  const changes: { property: string; action: 'set' | 'removed' }[] = [];
  const visit = (n: TraceNode): void => {
    if (n.kind === 'step' && n.level === step.level) {
      ids.add(n.id);
      for (const c of n.changes ?? []) changes.push({ property: c.property, action: c.action });
    }
    for (const c of n.children ?? []) visit(c);
  };
  visit(step);
  if (step.level > 0) return changes.filter((c, i) => changes.findIndex((x) => x.property === c.property) === i);
  const out: { property: string; action: 'set' | 'removed' }[] = [];
  for (const [property, events] of Object.entries(t.properties)) {
    const mine = events.filter((e) => ids.has(e.step));
    const last = mine[mine.length - 1];
    if (last) out.push({ property, action: last.action });
  }
  return out;
}

/** A value in one line for the trace panel. */
export function shortValue(v: unknown, max = 60): string {
  const text = JSON.stringify(v ?? null) ?? 'null';
  return text.length > max ? text.slice(0, max - 3) + '...' : text;
}

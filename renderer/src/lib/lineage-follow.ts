// Following one property through a lineage answer (GET .../lineage, hub-core/lineage/lineage-types.ts): upstream,
// from the entity asked about back through each step's property origins to the source property it started as.
import type { EntityRef, LineageStep, PropertyOrigin } from '../../../hub-core/lineage/index';

/** One hop of a followed property: in this step's output the property `property` was set by `origin`. */
export interface FollowedHop {
  step: LineageStep;
  property: string;
  origin: PropertyOrigin | null;
}

export const refKey = (r: Pick<EntityRef, 'dataset' | 'entity'>): string => `${r.dataset}/${r.entity}`;

/** The hops of `property` of `start` back through `steps` (the upstream walk), until no step made its source. */
export function followBack(steps: LineageStep[], start: Pick<EntityRef, 'dataset' | 'entity'>, property: string): FollowedHop[] {
  const hops: FollowedHop[] = [];
  let at = refKey(start);
  let name = property;
  const seen = new Set<string>();
  for (;;) {
    const step = steps.find((s) => refKey(s.output) === at);
    if (!step || seen.has(at)) return hops;
    seen.add(at);
    const origin = step.properties?.[name] ?? null;
    hops.push({ step, property: name, origin });
    if (!origin?.source) return hops;
    at = refKey(origin.source);
    name = origin.source.property;
  }
}

/** Where the followed property ends up: the last source property named, or null when it was made in a step. */
export function rootOf(hops: FollowedHop[]): (Pick<EntityRef, 'dataset' | 'entity'> & { property: string }) | null {
  const last = hops.at(-1);
  return last?.origin?.source ? { dataset: last.origin.source.dataset, entity: last.origin.source.entity, property: last.origin.source.property } : null;
}

/** The properties of a downstream entity (given its own upstream walk) that came from `property` of `root`. */
export function carriedInto(steps: LineageStep[], output: Pick<EntityRef, 'dataset' | 'entity'>, root: Pick<EntityRef, 'dataset' | 'entity'>, property: string): string[] {
  const top = steps.find((s) => refKey(s.output) === refKey(output));
  if (!top?.properties) return [];
  return Object.keys(top.properties).filter((p) => {
    const hops = followBack(steps, output, p);
    return hops.some((h) => h.origin?.source && refKey(h.origin.source) === refKey(root) && h.origin.source.property === property);
  });
}

/** A step's "how" in words. */
export function viaText(via: string): string {
  switch (via) {
    case 'transform': return 'transformed';
    case 'create': return 'created by a create rule';
    case 'emit_children': return 'emitted as a child';
    case 'passed': return 'passed through (no transform)';
    default: return via;
  }
}

/** Why a pipe processed the entity, in words. */
export function whyText(why: { reason: string; detail: unknown } | null): string {
  if (!why) return 'why it was processed is not recorded';
  switch (why.reason) {
    case 'new': return 'processed: new in the source';
    case 'changed': return 'processed: changed in the source';
    case 'read': return 'processed: the source is read whole every run';
    case 'deleted': return 'processed: deleted in the source';
    case 'rescan': return 'processed: the pipe read its source again from the start';
    case 'dependency': {
      const joined = (why.detail as { joined?: { dataset: string; ids?: string[] }[] } | null)?.joined ?? [];
      const names = joined.map((j) => `${j.dataset}${j.ids?.length ? ` (${j.ids.join(', ')})` : ''}`).join(', ');
      return `processed again: a joined entity changed${names ? ` in ${names}` : ''}`;
    }
    default: return `processed: ${why.reason}`;
  }
}

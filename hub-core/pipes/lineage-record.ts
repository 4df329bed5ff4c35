// What a pump run records per written entity for lineage (entity-lineage.ts): the source entity that made it (id and
// offset in the source dataset), the members of a merged source entity, and why the source entity was processed. A
// batch's records travel as one JSON text (cheap to hand from a pipe worker to the hub's thread) and are written by
// LineageStore with the batch, in its transaction.

import type { JsonObject } from '../base/index.js';

/** One member of a merged source entity: dataset, id, offset. */
export type Contributor = readonly [dataset: string, id: string, offset: number];

/** The members of each entity the merge source made (merge-source.ts), read when the entity is recorded. */
export const mergeContributors = new WeakMap<JsonObject, readonly Contributor[]>();

/** How the source entity stood: new in its dataset, a change of an entity it held, or a deletion. */
export const SOURCE_NEW = 0;
export const SOURCE_CHANGED = 1;
export const SOURCE_DELETED = 2;

/**
 * A batch's records, flat: per source entity [id, offset (-1: not from a dataset), state, contributors JSON or "",
 * output count, ...output ids].
 */
export class LineagePacker {
  private readonly parts: (string | number)[] = [];

  /** The source entity `e` made `out[from..]`. */
  source(e: JsonObject, out: readonly JsonObject[], from: number): void {
    const id = e['_id'];
    if (typeof id !== 'string') return;
    const offset = e['_updated'];
    const state = e['_deleted'] === true ? SOURCE_DELETED : e['_previous'] === null || e['_previous'] === undefined ? SOURCE_NEW : SOURCE_CHANGED;
    const members = mergeContributors.get(e);
    const parts = this.parts;
    parts.push(id, typeof offset === 'number' ? offset : -1, state, members ? JSON.stringify(members) : '', out.length - from);
    for (let i = from; i < out.length; i++) {
      const oid = out[i]!['_id'];
      parts.push(typeof oid === 'string' ? oid : '');
    }
  }

  finish(): string {
    return JSON.stringify(this.parts);
  }
}

/** One written entity's record, unpacked. */
export interface LineageEntry {
  out: string;
  src: string;
  offset: number | null;
  state: number;
  contributors: string;
}

/** The entries of a batch; with `sources`, one per source entity (its first output, or none: out ""). */
export function unpackLineage(text: string, sources = false): LineageEntry[] {
  const parts = JSON.parse(text) as (string | number)[];
  const entries: LineageEntry[] = [];
  for (let i = 0; i < parts.length; ) {
    const src = parts[i] as string;
    const offset = parts[i + 1] as number;
    const state = parts[i + 2] as number;
    const contributors = parts[i + 3] as string;
    const n = parts[i + 4] as number;
    i += 5;
    if (sources) {
      entries.push({ out: n > 0 ? (parts[i] as string) : '', src, offset: offset < 0 ? null : offset, state, contributors });
      i += n;
      continue;
    }
    for (let k = 0; k < n; k++, i++) {
      const out = parts[i] as string;
      if (out !== '') entries.push({ out, src, offset: offset < 0 ? null : offset, state, contributors });
    }
  }
  return entries;
}

// Two profiles side by side: the properties one has and the other lacks, and those whose coverage or mix of kinds
// changed. Pure, so it is the same for "another dataset" and "this dataset at an earlier offset".
import type { DatasetProfile } from '../../../hub-core/explore/index.js';
import type { PropertyProfile } from '../../../hub-core/explore/index.js';

export interface PropertyChange {
  path: string;
  /** Share of entities that have it, 0..1, before and now (null: not there). */
  before: number | null;
  after: number | null;
  /** Kinds whose share of the values changed by a percentage point or more, as "kind a% → b%". */
  kinds: string[];
}

export interface ProfileDiff {
  entities: [number, number];
  gained: PropertyChange[];
  lost: PropertyChange[];
  changed: PropertyChange[];
}

function share(p: PropertyProfile | undefined, entities: number): number | null {
  return p === undefined ? null : entities === 0 ? 0 : p.count / entities;
}

function kindShares(p: PropertyProfile | undefined): Map<string, number> {
  const out = new Map<string, number>();
  if (!p || p.values === 0) return out;
  for (const [k, n] of Object.entries(p.types)) out.set(k, (n ?? 0) / p.values);
  return out;
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** `before` is the reference (the other dataset, the earlier offset); `after` is the dataset now. */
export function diffProfiles(before: DatasetProfile, after: DatasetProfile): ProfileDiff {
  const a = new Map(before.properties.map((p) => [p.path, p]));
  const b = new Map(after.properties.map((p) => [p.path, p]));
  const paths = [...new Set([...a.keys(), ...b.keys()])].sort();
  const diff: ProfileDiff = { entities: [before.entities, after.entities], gained: [], lost: [], changed: [] };
  for (const path of paths) {
    const pa = a.get(path);
    const pb = b.get(path);
    const ka = kindShares(pa);
    const kb = kindShares(pb);
    const kinds: string[] = [];
    if (pa && pb) {
      for (const k of new Set([...ka.keys(), ...kb.keys()])) {
        const x = ka.get(k) ?? 0;
        const y = kb.get(k) ?? 0;
        if (Math.abs(x - y) >= 0.01) kinds.push(`${k} ${pct(x)} → ${pct(y)}`);
      }
    }
    const change: PropertyChange = { path, before: share(pa, before.entities), after: share(pb, after.entities), kinds };
    if (!pa) diff.gained.push(change);
    else if (!pb) diff.lost.push(change);
    else if (Math.abs(change.before! - change.after!) >= 0.01 || kinds.length > 0) diff.changed.push(change);
  }
  return diff;
}

// Compaction of a dataset's log, as the service documents it (features/compaction-feature.rst): every entity keeps
// its `keep_versions` newest versions (default 2) and older ones are removed. The latest version is never removed,
// so a deleted entity stays deleted and a reader behind a compaction still gets the latest version of every entity.
// The dataset sink compacts incrementally as it writes (`compaction.sink`). Compaction never goes past the lowest
// offset up to which a pipe doing dependency tracking on the dataset has seen its changes: such a pipe reads every
// version after that offset and the version each of them replaced.

import { isJsonObject } from './json.js';

export interface CompactionSettings {
  /** Versions of every entity to keep; 0 and 1 keep only the latest (it is never removed). */
  keepVersions: number;
  /** The dataset sink removes old versions of the entities it writes, as it writes them. */
  sink: boolean;
  /** The dataset is a candidate for compaction of the whole log. */
  automatic: boolean;
}

export const DEFAULT_COMPACTION: CompactionSettings = { keepVersions: 2, sink: true, automatic: true };

/**
 * A dataset no pipe's sink writes (entities posted to /datasets/<id>/entities) has no sink to compact it as it writes:
 * only the whole-log (automatic) compaction would, which this hub does not run yet, so such a dataset keeps its versions.
 */
export const UNPIPED_COMPACTION: CompactionSettings = { ...DEFAULT_COMPACTION, sink: false };

/** The settings of a pipe's `compaction` property (defaults for what it leaves out or gets wrong). */
export function compactionSettings(value: unknown): CompactionSettings {
  if (!isJsonObject(value)) return DEFAULT_COMPACTION;
  const keep = value['keep_versions'];
  return {
    keepVersions: typeof keep === 'number' && Number.isInteger(keep) && keep >= 0 ? keep : DEFAULT_COMPACTION.keepVersions,
    sink: typeof value['sink'] === 'boolean' ? value['sink'] : DEFAULT_COMPACTION.sink,
    automatic: typeof value['automatic'] === 'boolean' ? value['automatic'] : DEFAULT_COMPACTION.automatic,
  };
}

/** Problems of a pipe's `compaction` property: errors refuse the configuration, warnings are shown with it. */
export function compactionProblems(value: unknown): { errors: [string, string][]; warnings: [string, string][] } {
  const errors: [string, string][] = [];
  const warnings: [string, string][] = [];
  if (value === undefined) return { errors, warnings };
  if (!isJsonObject(value)) {
    errors.push(['$.compaction', '"compaction" must be an object']);
    return { errors, warnings };
  }
  const keep = value['keep_versions'];
  if (keep !== undefined) {
    if (typeof keep !== 'number' || !Number.isInteger(keep) || keep < 0) {
      errors.push(['$.compaction.keep_versions', '"keep_versions" must be an integer greater than or equal to 0']);
    } else if (keep === 0 && value['time_threshold_hours'] === undefined) {
      warnings.push([
        '$.compaction.keep_versions',
        'keep_versions 0 needs a time_threshold_hours; without one this hub keeps the latest version of every entity (as with 1), and dependency tracking on this dataset is best effort',
      ]);
    } else if (keep < 2) {
      warnings.push([
        '$.compaction.keep_versions',
        'with fewer than 2 versions kept, dependency tracking on this dataset is best effort and may miss entities to reprocess; run full or partial rescans as a counter measure',
      ]);
    }
  }
  for (const key of ['sink', 'automatic']) {
    const v = value[key];
    if (v !== undefined && typeof v !== 'boolean') errors.push([`$.compaction.${key}`, `"${key}" must be true or false`]);
  }
  return { errors, warnings };
}

/** What a dataset reports about its stored versions and compaction (GET /datasets/<id>). */
export interface CompactionInfo {
  'keep-versions': number;
  sink: boolean;
  automatic: boolean;
  /** When versions were last removed (ISO time), or null. */
  'last-run': string | null;
  /** Versions removed since the dataset was created. */
  'removed-versions': number;
}

/** The statements one entity's compaction needs (prepared once per dataset). */
export interface ChainStatements {
  /** The `prev` of the version at an offset, or undefined when that version is not stored. */
  prevOf(seq: number): number | null | undefined;
  /** Remove one (replaced) version. */
  remove(seq: number): void;
}

/**
 * Remove the versions of one entity beyond the `keep` newest, walking back from its newest version `newest` (whose
 * previous version is `prev`). A version is removed only when the version that replaced it lies at or before `floor`.
 * Returns how many versions were removed.
 */
export function compactChain(s: ChainStatements, newest: number, prev: number | null, keep: number, floor: number): number {
  const kept = Math.max(1, keep);
  let removed = 0;
  let successor = newest;
  let at = prev;
  for (let i = 1; at !== null; i++) {
    const before = s.prevOf(at);
    if (before === undefined) break;
    if (i >= kept && successor <= floor) {
      s.remove(at);
      removed++;
    }
    successor = at;
    at = before;
  }
  return removed;
}

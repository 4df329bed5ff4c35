// Compaction of a dataset's log, as the service documents it (features/compaction-feature.rst): every entity keeps
// its `keep_versions` newest versions (default 2) and older ones are removed. The latest version is never removed,
// so a deleted entity stays deleted and a reader behind a compaction still gets the latest version of every entity.
// The dataset sink compacts incrementally as it writes (`compaction.sink`). Compaction never goes past the lowest
// offset up to which a pipe doing dependency tracking on the dataset has seen its changes: such a pipe reads every
// version after that offset and the version each of them replaced. With `time_threshold_hours`, a version is removed
// only once it is that old.
//
// `keep_versions` 0 needs a time threshold (the configuration is refused without one): a version is then kept only
// while it is younger than the threshold, the latest one (a deletion too) included, so an entity that was not written
// for that long leaves the dataset. Offsets grow with time, so those versions are the start of the log: the sink
// removes them as it writes, the whole-log pass (and the `compact` operation) walks them; the dependency-tracking
// floor holds them off as it does any version.
//
// Whole-log ("automatic") compaction covers the datasets the sink does not compact as it writes: a dataset no pipe
// writes (entities posted to /datasets/<id>/entities) and a pipe's dataset with `compaction.sink` false, when
// `compaction.automatic` is on. It runs when the log has grown by `growth_threshold` (new offsets since the last
// compaction, relative to the offsets then) and walks, in small steps, every entity written since then.

import { isJsonObject } from '../base/index.js';

export interface CompactionSettings {
  /** Versions of every entity to keep; 1 keeps only the latest (never removed); 0 keeps versions by age alone. */
  keepVersions: number;
  /** The dataset sink removes old versions of the entities it writes, as it writes them. */
  sink: boolean;
  /** The dataset is a candidate for compaction of the whole log. */
  automatic: boolean;
  /** Versions younger than this many hours are kept (null: no age limit). */
  timeThresholdHours: number | null;
  /** Whole-log compaction runs once the offsets have grown by this factor since the last one (1.0: any growth). */
  growthThreshold: number;
}

export const DEFAULT_COMPACTION: CompactionSettings = { keepVersions: 2, sink: true, automatic: true, timeThresholdHours: null, growthThreshold: 1.0 };

/**
 * A dataset no pipe's sink writes (entities posted to /datasets/<id>/entities) has no sink to compact it as it writes:
 * the whole-log (automatic) compaction does, with the defaults (two versions of every entity).
 */
export const UNPIPED_COMPACTION: CompactionSettings = { ...DEFAULT_COMPACTION, sink: false };

/** Whether whole-log compaction looks after a dataset with these settings (the sink does not, and it is on). */
export function compactsWhole(c: CompactionSettings): boolean {
  return c.automatic && !c.sink;
}

/** keep_versions 0 with a time threshold: versions, the latest included, are kept only while they are young. */
export function expiresByAge(c: CompactionSettings): boolean {
  return c.keepVersions === 0 && c.timeThresholdHours !== null;
}

/** The `_ts` (microseconds) a version must be older than to be removed, now; +Infinity without a time threshold. */
export function ageCutoff(c: CompactionSettings, nowMs: number): number {
  return c.timeThresholdHours === null ? Number.POSITIVE_INFINITY : (nowMs - c.timeThresholdHours * 3_600_000) * 1000;
}

/** The settings of a pipe's `compaction` property (defaults for what it leaves out or gets wrong). */
export function compactionSettings(value: unknown): CompactionSettings {
  if (!isJsonObject(value)) return DEFAULT_COMPACTION;
  const keep = value['keep_versions'];
  const hours = value['time_threshold_hours'];
  const growth = value['growth_threshold'];
  const timeThresholdHours = typeof hours === 'number' && Number.isFinite(hours) && hours >= 0 ? hours : DEFAULT_COMPACTION.timeThresholdHours;
  const keepVersions = typeof keep === 'number' && Number.isInteger(keep) && keep >= 0 ? keep : DEFAULT_COMPACTION.keepVersions;
  return {
    // 0 without a threshold is refused; stored before that was, it keeps the latest version (as 1).
    keepVersions: keepVersions === 0 && timeThresholdHours === null ? 1 : keepVersions,
    sink: typeof value['sink'] === 'boolean' ? value['sink'] : DEFAULT_COMPACTION.sink,
    automatic: typeof value['automatic'] === 'boolean' ? value['automatic'] : DEFAULT_COMPACTION.automatic,
    timeThresholdHours,
    growthThreshold: typeof growth === 'number' && Number.isFinite(growth) && growth >= 1 ? growth : DEFAULT_COMPACTION.growthThreshold,
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
    } else if (keep === 0 && (value['time_threshold_hours'] === undefined || value['time_threshold_hours'] === null)) {
      errors.push([
        '$.compaction.keep_versions',
        '"keep_versions" 0 needs "time_threshold_hours": with 0, every version older than the threshold is removed, the latest one too',
      ]);
    } else if (keep < 2) {
      warnings.push([
        '$.compaction.keep_versions',
        'with fewer than 2 versions kept, dependency tracking on this dataset is best effort and may miss entities to reprocess; run full or partial rescans as a counter measure',
      ]);
    }
  }
  const hours = value['time_threshold_hours'];
  if (hours !== undefined && hours !== null && (typeof hours !== 'number' || !Number.isInteger(hours) || hours < 0)) {
    errors.push(['$.compaction.time_threshold_hours', '"time_threshold_hours" must be an integer number of hours (0 or more), or null']);
  }
  const growth = value['growth_threshold'];
  if (growth !== undefined && (typeof growth !== 'number' || !Number.isFinite(growth) || growth < 1)) {
    errors.push(['$.compaction.growth_threshold', '"growth_threshold" must be a number of at least 1.0']);
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
  'time-threshold-hours': number | null;
  'growth-threshold': number;
  /** Whether whole-log compaction looks after this dataset (the sink does not compact it as it writes). */
  'whole-log': boolean;
  /** Whole-log compaction will run on its next round (the log grew by the growth threshold since the last pass). */
  due: boolean;
  /** When versions were last removed (ISO time), or null. */
  'last-run': string | null;
  /** Versions removed since the dataset was created. */
  'removed-versions': number;
}

/** The statements one entity's compaction needs (prepared once per dataset). */
export interface ChainStatements {
  /** The `prev` and `_ts` of the version at an offset, or undefined when that version is not stored. */
  prevOf(seq: number): [number | null, number] | undefined;
  /** Remove one (replaced) version. */
  remove(seq: number): void;
}

/** What compactChain did: versions removed, and versions beyond `keep` it had to leave (floor or age). */
export interface ChainResult {
  removed: number;
  heldOff: number;
}

/**
 * Remove the versions of one entity beyond the `keep` newest, walking back from its newest version `newest` (whose
 * previous version is `prev`). A version is removed only when the version that replaced it lies at or before `floor`
 * and its own `_ts` is before `cutoff`.
 */
export function compactChain(s: ChainStatements, newest: number, prev: number | null, keep: number, floor: number, cutoff = Number.POSITIVE_INFINITY): ChainResult {
  const kept = Math.max(1, keep);
  let removed = 0;
  let heldOff = 0;
  let successor = newest;
  let at = prev;
  for (let i = 1; at !== null; i++) {
    const row = s.prevOf(at);
    if (row === undefined) break;
    if (i >= kept) {
      if (successor <= floor && row[1] < cutoff) {
        s.remove(at);
        removed++;
      } else heldOff++;
    }
    successor = at;
    at = row[0];
  }
  return { removed, heldOff };
}

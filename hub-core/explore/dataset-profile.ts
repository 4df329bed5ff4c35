// The profile of a dataset's latest entities: per property path (`a.b` for nested objects, `a[]` for list items) how
// many entities have it, the kinds of its values (JSON kinds and the typed values `~t`, `~f`, `~:`, `~b`, `~u`, `~r`),
// nulls, distinct and most frequent values, ranges and histograms. Entities are added and taken away one at a time,
// so a cached profile can be brought up to date from the log; what a sketch cannot take back exactly marks the
// profile stale, and it is then computed again.

import { parseJson } from '../base/index.js';
import { DateTime, Decimal, parseTagged, type TypedKind } from '../dtl/index.js';
import { DyadicHistogram, ValueCounter, type HistogramBin } from './profile-sketches.js';

/** Property paths a profile tracks; values of further paths are only counted. */
export const MAX_PATHS = 500;
const TOP_SHOWN = 10;

export type ProfileKind = 'null' | 'boolean' | 'integer' | 'float' | 'string' | 'list' | 'dict' | TypedKind;

export interface RangeProfile {
  min: string | number | bigint;
  max: string | number | bigint;
  histogram?: { width: number; bins: HistogramBin[] };
}

export interface PropertyProfile {
  path: string;
  /** Entities that have the property (once per entity, however many list items hold it). */
  count: number;
  /** Values of the property: `count` plus the extra items of lists. */
  values: number;
  nulls: number;
  types: Partial<Record<ProfileKind, number>>;
  distinct: number;
  'distinct-exact': boolean;
  top: { value: string | number | bigint | boolean; count: number }[];
  'top-exact': boolean;
  /** Ranges per ordered kind; numbers include decimals, their histogram bins are 2^k wide. */
  number?: RangeProfile;
  datetime?: RangeProfile;
  string?: RangeProfile;
  /** The namespaces of namespaced identifiers (`~:ns:id`), with counts. */
  namespaces?: Record<string, number>;
}

interface Extreme<T> {
  value: T;
  text: string | number | bigint;
}

class PathStats {
  count = 0;
  values = 0;
  nulls = 0;
  types = new Map<ProfileKind, number>();
  readonly counter = new ValueCounter();
  /** The entity (by serial) that last counted towards `count`, so list items count once per entity. */
  mark = 0;
  numHist: DyadicHistogram | undefined;
  nonIntegers = 0;
  /** Integers beyond ±2^53 are kept as bigints: `<` and `>` compare them with numbers exactly. */
  numMin: Extreme<number | bigint> | undefined;
  numMax: Extreme<number | bigint> | undefined;
  dtHist: DyadicHistogram | undefined;
  dtMin: Extreme<DateTime> | undefined;
  dtMax: Extreme<DateTime> | undefined;
  strMin: string | undefined;
  strMax: string | undefined;
  namespaces: Map<string, number> | undefined;
  /** The paths below, by key (`a.b` under `a`) and for list items (`a[]`): found without building the path text. */
  children: Map<string, PathStats> | undefined;
  items: PathStats | undefined;

  constructor(readonly path: string) {}
}

/** The mutable profile; `add` and `remove` take entity bodies (the stored JSON without `_id` and bookkeeping). */
export class ProfileState {
  entities = 0;
  deleted = 0;
  /** Values whose path was not tracked because MAX_PATHS was reached. */
  untracked = 0;
  /** Set when a removal could not be made exactly: the profile must be computed again. */
  stale = false;
  private readonly paths = new Map<string, PathStats>();
  private readonly top = new Map<string, PathStats>();
  private serial = 0;
  /** Paths that lost a value at an end of one of their ranges, rebuilt once the entity is taken away. */
  private readonly rebuild = new Set<PathStats>();

  addBody(body: string, deleted: boolean): void {
    if (deleted) {
      this.deleted++;
      return;
    }
    this.entities++;
    this.walkEntity(parseJson(body) as Record<string, unknown>, 1);
  }

  removeBody(body: string, deleted: boolean): void {
    if (deleted) {
      this.deleted--;
      return;
    }
    this.entities--;
    this.walkEntity(parseJson(body) as Record<string, unknown>, -1);
    for (const s of this.rebuild) rebuildRanges(s);
    this.rebuild.clear();
  }

  private walkEntity(entity: Record<string, unknown>, sign: 1 | -1): void {
    const serial = ++this.serial;
    for (const key of Object.keys(entity)) this.walk(entity[key], this.child(this.top, key, key), serial, sign);
  }

  private child(children: Map<string, PathStats>, key: string, path: string): PathStats | undefined {
    let s = children.get(key);
    if (s === undefined) {
      // A key with a dot in it may spell the same path as a nested key: they share the stats.
      s = this.paths.get(path);
      if (s === undefined) {
        if (this.paths.size >= MAX_PATHS) return undefined;
        s = new PathStats(path);
        this.paths.set(path, s);
      }
      children.set(key, s);
    }
    return s;
  }

  private walk(v: unknown, s: PathStats | undefined, serial: number, sign: 1 | -1): void {
    if (s === undefined) {
      this.untracked += sign;
      return;
    }
    if (s.mark !== serial) {
      s.mark = serial;
      s.count += sign;
    }
    s.values += sign;
    const kind = this.value(s, v, sign);
    s.types.set(kind, (s.types.get(kind) ?? 0) + sign);
    if (kind === 'list') {
      const list = v as unknown[];
      if (list.length === 0) return;
      if (s.items === undefined) s.items = this.child(new Map(), '[]', s.path + '[]');
      for (const item of list) this.walk(item, s.items, serial, sign);
    } else if (kind === 'dict') {
      const obj = v as Record<string, unknown>;
      s.children ??= new Map();
      for (const key of Object.keys(obj)) this.walk(obj[key], this.child(s.children, key, s.path + '.' + key), serial, sign);
    }
  }

  /** Count one scalar value into the stats (or take it away) and return its kind. */
  private value(s: PathStats, v: unknown, sign: 1 | -1): ProfileKind {
    switch (typeof v) {
      case 'number': {
        const integer = Number.isInteger(v);
        this.count(s, '#' + v, sign);
        if (!integer) s.nonIntegers += sign;
        this.number(s, v, v, sign);
        return integer ? 'integer' : 'float';
      }
      case 'bigint':
        this.count(s, '#' + v, sign);
        this.number(s, v, v, sign);
        return 'integer';
      case 'boolean':
        this.count(s, v ? '!true' : '!false', sign);
        return 'boolean';
      case 'string': {
        this.count(s, '"' + v, sign);
        const typed = v.length > 1 && v.charCodeAt(0) === 126 ? parseTagged(v) : null;
        if (typed === null) {
          this.string(s, v, sign);
          return 'string';
        }
        if (typed instanceof DateTime) this.datetime(s, typed, v, sign);
        else if (typed instanceof Decimal) this.number(s, Number(typed.text()), v, sign);
        else if (typed.kind === 'ni') {
          const body = typed.text();
          const colon = body.indexOf(':');
          const ns = colon > 0 ? body.slice(0, colon) : '';
          s.namespaces ??= new Map();
          const n = (s.namespaces.get(ns) ?? 0) + sign;
          if (n <= 0) s.namespaces.delete(ns);
          else s.namespaces.set(ns, n);
        }
        return typed.kind;
      }
      case 'object':
        if (v === null) {
          s.nulls += sign;
          return 'null';
        }
        return Array.isArray(v) ? 'list' : 'dict';
      default:
        return 'null';
    }
  }

  private count(s: PathStats, key: string, sign: 1 | -1): void {
    if (sign > 0) s.counter.add(key);
    else if (!s.counter.remove(key)) this.stale = true;
  }

  private number(s: PathStats, n: number | bigint, text: string | number | bigint, sign: 1 | -1): void {
    if (typeof n === 'number' && !Number.isFinite(n)) return;
    s.numHist ??= new DyadicHistogram();
    s.numHist.add(Number(n), sign);
    if (sign > 0) {
      if (s.numMin === undefined || n < s.numMin.value) s.numMin = { value: n, text };
      if (s.numMax === undefined || n > s.numMax.value) s.numMax = { value: n, text };
    } else if ((s.numMin && sameNumber(n, s.numMin.value)) || (s.numMax && sameNumber(n, s.numMax.value))) this.lostEnd(s);
  }

  private datetime(s: PathStats, t: DateTime, text: string, sign: 1 | -1): void {
    s.dtHist ??= new DyadicHistogram();
    s.dtHist.add(t.epochMs, sign);
    if (sign > 0) {
      if (s.dtMin === undefined || t.compare(s.dtMin.value) < 0) s.dtMin = { value: t, text };
      if (s.dtMax === undefined || t.compare(s.dtMax.value) > 0) s.dtMax = { value: t, text };
    } else if ((s.dtMin && t.compare(s.dtMin.value) === 0) || (s.dtMax && t.compare(s.dtMax.value) === 0)) this.lostEnd(s);
  }

  private string(s: PathStats, v: string, sign: 1 | -1): void {
    if (sign > 0) {
      if (s.strMin === undefined || v < s.strMin) s.strMin = v;
      if (s.strMax === undefined || v > s.strMax) s.strMax = v;
    } else if (v === s.strMin || v === s.strMax) this.lostEnd(s);
  }

  /** A range may have shrunk: with exact counts it is rebuilt from them, else the profile must be made again. */
  private lostEnd(s: PathStats): void {
    if (s.counter.isExact) this.rebuild.add(s);
    else this.stale = true;
  }

  properties(): PropertyProfile[] {
    const out: PropertyProfile[] = [];
    for (const s of [...this.paths.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
      if (s.values <= 0) continue;
      const types: Partial<Record<ProfileKind, number>> = {};
      for (const [k, n] of [...s.types].sort((a, b) => b[1] - a[1])) if (n > 0) types[k] = n;
      const p: PropertyProfile = {
        path: s.path,
        count: s.count,
        values: s.values,
        nulls: s.nulls,
        types,
        distinct: s.counter.distinct(),
        'distinct-exact': s.counter.isExact,
        top: s.counter.mostFrequent(TOP_SHOWN).map((t) => ({ value: keyValue(t.key), count: t.count })),
        'top-exact': s.counter.isExact,
      };
      if (s.numMin && s.numMax) {
        const histogram = s.numHist?.output(s.nonIntegers > 0 ? undefined : 0) ?? undefined;
        p.number = { min: s.numMin.text, max: s.numMax.text, ...(histogram ? { histogram } : {}) };
      }
      if (s.dtMin && s.dtMax) {
        const histogram = s.dtHist?.output(0) ?? undefined;
        p.datetime = { min: s.dtMin.text, max: s.dtMax.text, ...(histogram ? { histogram } : {}) };
      }
      if (s.strMin !== undefined && s.strMax !== undefined) p.string = { min: s.strMin, max: s.strMax };
      if (s.namespaces && s.namespaces.size > 0) p.namespaces = Object.fromEntries([...s.namespaces].sort((a, b) => b[1] - a[1]));
      out.push(p);
    }
    return out;
  }
}

/** Ranges and histograms from the exact value counts, as a fresh pass would make them. */
function rebuildRanges(s: PathStats): void {
  const entries = s.counter.entries();
  if (!entries) return;
  s.numMin = s.numMax = s.dtMin = s.dtMax = s.strMin = s.strMax = undefined;
  s.numHist = s.numHist ? new DyadicHistogram() : undefined;
  s.dtHist = s.dtHist ? new DyadicHistogram() : undefined;
  for (const [key, count] of entries) {
    const tag = key.charCodeAt(0);
    if (tag === 35) {
      const n = numberKey(key);
      addNumber(s, n, n, count);
    } else if (tag === 34) {
      const v = key.slice(1);
      const typed = v.length > 1 && v.charCodeAt(0) === 126 ? parseTagged(v) : null;
      if (typed === null) {
        if (s.strMin === undefined || v < s.strMin) s.strMin = v;
        if (s.strMax === undefined || v > s.strMax) s.strMax = v;
      } else if (typed instanceof Decimal) addNumber(s, Number(typed.text()), v, count);
      else if (typed instanceof DateTime) {
        s.dtHist ??= new DyadicHistogram();
        s.dtHist.add(typed.epochMs, count);
        if (s.dtMin === undefined || typed.compare(s.dtMin.value) < 0) s.dtMin = { value: typed, text: v };
        if (s.dtMax === undefined || typed.compare(s.dtMax.value) > 0) s.dtMax = { value: typed, text: v };
      }
    }
  }
}

function addNumber(s: PathStats, n: number | bigint, text: string | number | bigint, count: number): void {
  if (typeof n === 'number' && !Number.isFinite(n)) return;
  s.numHist ??= new DyadicHistogram();
  s.numHist.add(Number(n), count);
  if (s.numMin === undefined || n < s.numMin.value) s.numMin = { value: n, text };
  if (s.numMax === undefined || n > s.numMax.value) s.numMax = { value: n, text };
}

/** The value a counter key stands for ('#' numbers, '!' booleans, '"' strings). */
function keyValue(key: string): string | number | bigint | boolean {
  const tag = key.charCodeAt(0);
  if (tag === 35) return numberKey(key);
  if (tag === 33) return key === '!true';
  return key.slice(1);
}

/** The number of a '#' counter key: a bigint when its digits are an integer beyond ±2^53. */
function numberKey(key: string): number | bigint {
  const n = Number(key.slice(1));
  return Number.isInteger(n) && !Number.isSafeInteger(n) && /^-?\d+$/.test(key.slice(1)) ? BigInt(key.slice(1)) : n;
}

function sameNumber(a: number | bigint, b: number | bigint): boolean {
  return !(a < b) && !(a > b);
}

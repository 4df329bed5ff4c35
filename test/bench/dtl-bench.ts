/*
 * DTL transform benchmark, in-process (part of `npm run bench`; also runs alone: `node out/test/bench/dtl-bench.js`).
 *
 * One realistic rule set - a filter, a copy and five adds using concat / if / lower / datetime-parse - is compiled
 * once with compileTransform and run over every entity (the hub bench's generated entities, ~150 bytes of JSON
 * each). The same work is done by a hand-written TypeScript function on the same data (copying every property
 * generically, as ["copy", "*"] does, and parsing the date string); the outputs must be equal. Reported: entities/s of
 * each and the ratio DTL / hand-written (target >= 0.3x); also, as info, the ratio to a hand-written function that
 * spells out this one entity shape instead of copying generically. Each runs a checked warm-up pass and then
 * DTL_BENCH_ROUNDS timed passes (default 3), alternating; the best pass of each counts.
 */
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { JsonObject } from '../../hub-core/base/index.js';
import { compileTransform } from '../../hub-core/dtl/index.js';
import { benchEntityStream } from './bench-data.js';

export const DTL_TARGET_RATIO = 0.3;

/** The rule set measured. */
export const DTL_BENCH_RULES: JsonObject = {
  default: [
    ['filter', '_S.active'],
    ['copy', '*'],
    ['add', 'display_name', ['concat', '_S.name', ' <', '_S.email', '>']],
    ['add', 'name_lower', ['lower', '_S.name']],
    ['add', 'city_key', ['lower', ['concat', 'city:', '_S.city']]],
    ['add', 'segment', ['if', ['gte', '_S.age', 67], 'senior', ['if', ['gte', '_S.age', 30], 'adult', 'young']]],
    ['add', 'member_since', ['datetime-parse', '%d.%m.%y', ['concat', '01.01.', ['string', '_S.age']]]],
  ],
};

const DATE = /^(\d{2})\.(\d{2})\.(\d{2})$/;

/** strptime "%d.%m.%y" (two-digit years 69-99 are 19xx, 00-68 20xx) written as a tagged datetime, by hand. */
function parseDayMonthYear(text: string): string | undefined {
  const m = DATE.exec(text);
  if (m === null) return undefined;
  const yy = Number(m[3]);
  const ms = Date.UTC(yy < 69 ? 2000 + yy : 1900 + yy, Number(m[2]) - 1, Number(m[1]));
  const iso = new Date(ms).toISOString(); // "2018-01-01T00:00:00.000Z"
  return '~t' + (iso.endsWith('.000Z') ? iso.slice(0, -5) + 'Z' : iso);
}

function segmentOf(age: number): string {
  return age >= 67 ? 'senior' : age >= 30 ? 'adult' : 'young';
}

/**
 * The same work as DTL_BENCH_RULES, written by hand: filter, copy every property (whatever the entity holds, as
 * ["copy", "*"] does), five adds. This is the function the target is judged against.
 */
export function handWritten(e: JsonObject): JsonObject {
  if (e['active'] !== true) return { _id: e['_id'] as string, _deleted: true, _filtered: true };
  const out: JsonObject = {};
  for (const k in e) out[k] = e[k] as JsonObject[string];
  const name = e['name'] as string;
  const age = e['age'] as number;
  out['display_name'] = `${name} <${e['email'] as string}>`;
  out['name_lower'] = name.toLowerCase();
  out['city_key'] = `city:${e['city'] as string}`.toLowerCase();
  out['segment'] = segmentOf(age);
  const since = parseDayMonthYear(`01.01.${age}`);
  if (since !== undefined) out['member_since'] = since;
  return out;
}

/** The same again, for this one entity shape only (every property spelled out): a lower bound, reported as info. */
export function handWrittenFixedShape(e: JsonObject): JsonObject {
  if (e['active'] !== true) return { _id: e['_id'] as string, _deleted: true, _filtered: true };
  const name = e['name'] as string;
  const age = e['age'] as number;
  const out: JsonObject = {
    _id: e['_id'] as string,
    name,
    email: e['email'] as string,
    age,
    city: e['city'] as string,
    tags: e['tags'] as string[],
    active: true,
    display_name: `${name} <${e['email'] as string}>`,
    name_lower: name.toLowerCase(),
    city_key: `city:${e['city'] as string}`.toLowerCase(),
    segment: segmentOf(age),
  };
  const since = parseDayMonthYear(`01.01.${age}`);
  if (since !== undefined) out['member_since'] = since;
  return out;
}

export interface DtlBenchResult {
  entities: number;
  rounds: number;
  /** Output entities kept (not filtered). */
  kept: number;
  dtl: { seconds: number; rate: number; compileMs: number };
  /** The judged comparison: generic copy, like ["copy", "*"]. */
  handWritten: { seconds: number; rate: number };
  /** Info: the same work for this entity shape only (no generic copy). */
  handWrittenFixedShape: { seconds: number; rate: number; ratio: number };
  /** DTL rate / hand-written rate. */
  ratio: number;
  target: number;
  pass: boolean;
  /** The DTL output equals the hand-written output for every entity. */
  identical: boolean;
  problems: string[];
}

const now = (): number => performance.now();

function rounds(): number {
  const raw = process.env['DTL_BENCH_ROUNDS'];
  const n = raw === undefined || raw === '' ? 3 : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : 3;
}

/** Measure the rule set on `entities` (plain JSON objects with the hub bench's shape). */
export function runDtlBench(input: readonly object[]): DtlBenchResult {
  const entities = input as readonly JsonObject[];
  const problems: string[] = [];
  const c0 = now();
  const transform = compileTransform({ type: 'dtl', rules: DTL_BENCH_RULES });
  const compileMs = now() - c0;
  if (!transform.ok) throw new Error(`the bench rules do not compile: ${JSON.stringify(transform.errors)}`);
  const run = transform.run;

  const dtlPass = (from: number, to: number): { seconds: number; out: JsonObject[] } => {
    const out = new Array<JsonObject>(to - from);
    const t0 = now();
    for (let i = from; i < to; i++) out[i - from] = run(entities[i] as JsonObject).entities[0] as JsonObject;
    return { seconds: (now() - t0) / 1000, out };
  };
  const handPassOf =
    (fn: (e: JsonObject) => JsonObject) =>
    (from: number, to: number): { seconds: number; out: JsonObject[] } => {
      const out = new Array<JsonObject>(to - from);
      const t0 = now();
      for (let i = from; i < to; i++) out[i - from] = fn(entities[i] as JsonObject);
      return { seconds: (now() - t0) / 1000, out };
    };
  const handPass = handPassOf(handWritten);
  const fixedPass = handPassOf(handWrittenFixedShape);

  // Same output, entity by entity (also the warm-up of both).
  const count = entities.length;
  const d = dtlPass(0, count);
  const h = handPass(0, count);
  const f = fixedPass(0, count);
  let identical = true;
  let kept = 0;
  for (let i = 0; i < count; i++) {
    if (d.out[i]?.['_deleted'] !== true) kept++;
    if (identical && !(isDeepStrictEqual(d.out[i], h.out[i]) && isDeepStrictEqual(d.out[i], f.out[i]))) {
      identical = false;
      problems.push(`DTL bench: entity #${i} differs: DTL ${JSON.stringify(d.out[i])}, hand-written ${JSON.stringify(h.out[i])}, fixed shape ${JSON.stringify(f.out[i])}`);
    }
  }

  const n = rounds();
  let bestDtl = Infinity;
  let bestHand = Infinity;
  let bestFixed = Infinity;
  for (let r = 0; r < n; r++) {
    bestDtl = Math.min(bestDtl, dtlPass(0, count).seconds);
    bestHand = Math.min(bestHand, handPass(0, count).seconds);
    bestFixed = Math.min(bestFixed, fixedPass(0, count).seconds);
  }
  const dtlRate = count / bestDtl;
  const handRate = count / bestHand;
  const fixedRate = count / bestFixed;
  const ratio = dtlRate / handRate;
  return {
    entities: count,
    rounds: n,
    kept,
    dtl: { seconds: bestDtl, rate: dtlRate, compileMs },
    handWritten: { seconds: bestHand, rate: handRate },
    handWrittenFixedShape: { seconds: bestFixed, rate: fixedRate, ratio: dtlRate / fixedRate },
    ratio,
    target: DTL_TARGET_RATIO,
    pass: ratio >= DTL_TARGET_RATIO,
    identical,
    problems,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Standalone run, with the hub bench's entity shape

/** Entities of the hub bench's shape (~150 bytes of JSON each), from a fixed seed: the same as bench-data.ts streams. */
export function generateBenchEntities(count: number): JsonObject[] {
  return Array.from(benchEntityStream(count), (e): JsonObject => ({ ...e }));
}

export function formatDtlBench(r: DtlBenchResult): string {
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  return (
    `DTL transform: ${r.dtl.seconds.toFixed(2)} s, ${fmt(r.dtl.rate)} entities/s (compiled in ${r.dtl.compileMs.toFixed(1)} ms); ` +
    `hand-written TS: ${r.handWritten.seconds.toFixed(2)} s, ${fmt(r.handWritten.rate)} entities/s; ` +
    `ratio ${r.ratio.toFixed(2)}x (target >= ${r.target}x) ${r.pass ? 'PASS' : 'MISS'}; ` +
    `fixed-shape hand-written (info): ${fmt(r.handWrittenFixedShape.rate)} entities/s, ratio ${r.handWrittenFixedShape.ratio.toFixed(2)}x; ` +
    `${fmt(r.kept)} of ${fmt(r.entities)} kept; outputs ${r.identical ? 'identical' : 'DIFFER'}`
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const raw = process.env['BENCH_ENTITIES'];
  const count = raw === undefined || raw === '' ? 200_000 : Number(raw.replace(/_/g, ''));
  const result = runDtlBench(generateBenchEntities(count));
  console.log(formatDtlBench(result));
  for (const p of result.problems) console.error(p);
  process.exitCode = result.problems.length > 0 ? 1 : 0;
}

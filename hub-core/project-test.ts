// A project's tests: node/expected/<name>.test.json names a pipe and the file of entities it is expected to produce
// (node/expected/<name>.json). Both sides are normalised the same way before they are compared: properties starting
// with "_" (except "_id") and blacklisted paths are removed, integral floats become ints, keys and entities are sorted.

import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { badRequest } from './errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from './json.js';
import { PIPE_STAGES, pipeStageEntities, type PipeStage } from './pipe-stages.js';
import type { Hub } from './hub.js';

export interface TestSpec {
  /** The test's name: the expected file name without ".test.json". */
  name: string;
  pipe: string;
  file: string;
  ignore: boolean;
  blacklist: string[];
  stage: PipeStage;
  endpoint: string;
  ignoreDeletes: boolean;
  fieldsToSortBy: string[];
}

/** A spec's `file`, which must stay inside expected/ (cloned projects are untrusted: --update writes there). */
function insideExpected(name: string, file: string): string {
  const parts = file.split(/[\\/]/);
  if (isAbsolute(file) || /^[a-zA-Z]:/.test(file) || parts.includes('..') || file.includes('\0')) {
    throw badRequest(`${name}.test.json: "file" must name a file inside expected/, not ${JSON.stringify(file)}`);
  }
  return file;
}

/** Read and check one test spec; a malformed spec is a HubError (400). */
export function parseTestSpec(name: string, value: unknown): TestSpec {
  if (!isJsonObject(value)) throw badRequest(`${name}.test.json must hold a JSON object (it may be {})`);
  const str = (key: string, fallback: string): string => {
    const v = value[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'string' || v === '') throw badRequest(`${name}.test.json: "${key}" must be a non-empty string`);
    return v;
  };
  const strings = (key: string, fallback: string[]): string[] => {
    const v = value[key];
    if (v === undefined) return fallback;
    if (!Array.isArray(v) || !v.every((x): x is string => typeof x === 'string')) throw badRequest(`${name}.test.json: "${key}" must be a list of strings`);
    return v;
  };
  const bool = (key: string, fallback: boolean): boolean => {
    const v = value[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') throw badRequest(`${name}.test.json: "${key}" must be true or false`);
    return v;
  };
  const stage = str('stage', 'sink');
  if (!(PIPE_STAGES as readonly string[]).includes(stage)) throw badRequest(`${name}.test.json: "stage" must be one of ${PIPE_STAGES.join(', ')}`);
  return {
    name,
    pipe: str('pipe', name),
    file: insideExpected(name, str('file', `${name}.json`)),
    ignore: bool('ignore', false),
    blacklist: strings('blacklist', []),
    stage: stage as PipeStage,
    endpoint: str('endpoint', 'json'),
    ignoreDeletes: bool('ignore_deletes', true),
    fieldsToSortBy: strings('fields_to_sort_by', ['_id']),
  };
}

/** The test specs of a node folder, by name. */
export function readTestSpecs(nodeDir: string): TestSpec[] {
  const dir = join(nodeDir, 'expected');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.test.json'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -'.test.json'.length);
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      } catch (e) {
        throw badRequest(`expected/${f} is not valid JSON`, e instanceof Error ? e.message : String(e));
      }
      return parseTestSpec(name, parsed);
    });
}

/** -0 and integral floats are plain ints (JSON.parse already reads "1.0" as 1; this covers computed values). */
function normaliseValue(v: JsonValue): JsonValue {
  if (typeof v === 'number') return Object.is(v, -0) ? 0 : v;
  if (Array.isArray(v)) return v.map(normaliseValue);
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort()) out[k] = normaliseValue(v[k]!);
    return out;
  }
  return v;
}

/**
 * Remove a dotted path ("a.b.c"; "*" matches every key, or every element of a list) from a value. A list met where
 * the path names a key is looked through: the rest of the path applies to each element.
 */
function removePath(v: JsonValue, path: readonly string[]): void {
  if (path.length === 0) return;
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(v)) {
    if (head === '*') {
      if (rest.length === 0) v.length = 0;
      else for (const item of v) removePath(item, rest);
    } else for (const item of v) removePath(item, path);
    return;
  }
  if (!isJsonObject(v)) return;
  const keys = head === '*' ? Object.keys(v) : Object.hasOwn(v, head) ? [head] : [];
  for (const k of keys) {
    if (rest.length === 0) delete v[k];
    else removePath(v[k]!, rest);
  }
}

const TYPE_ORDER = ['null', 'boolean', 'number', 'string', 'array', 'object'];

function typeRank(v: JsonValue | undefined): number {
  if (v === undefined || v === null) return 0;
  return TYPE_ORDER.indexOf(Array.isArray(v) ? 'array' : typeof v);
}

/** Order of sort-field values: by type (null, booleans, numbers, strings, lists, objects), numbers numerically. */
function compareValues(a: JsonValue | undefined, b: JsonValue | undefined): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = typeof a === 'string' ? a : JSON.stringify(a ?? null);
  const y = typeof b === 'string' ? b : JSON.stringify(b ?? null);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The normalised form of a list of entities, as compared and as written by `--update`. */
export function normaliseEntities(entities: readonly JsonObject[], spec: Pick<TestSpec, 'blacklist' | 'ignoreDeletes' | 'fieldsToSortBy'>): JsonObject[] {
  const out: JsonObject[] = [];
  for (const e of entities) {
    if (e['_deleted'] === true && spec.ignoreDeletes) continue;
    const copy = structuredClone(e);
    for (const k of Object.keys(copy)) {
      if (k.startsWith('_') && k !== '_id' && !(k === '_deleted' && copy[k] === true)) delete copy[k];
    }
    for (const path of spec.blacklist) removePath(copy, path.split('.'));
    out.push(normaliseValue(copy) as JsonObject);
  }
  const keyed = out.map((e) => ({ e, all: JSON.stringify(e) }));
  keyed.sort((a, b) => {
    for (const f of spec.fieldsToSortBy) {
      const c = compareValues(a.e[f], b.e[f]);
      if (c !== 0) return c;
    }
    return a.all < b.all ? -1 : a.all > b.all ? 1 : 0;
  });
  return keyed.map((k) => k.e);
}

/** Stable text of an expected file: sorted keys (normaliseEntities sorts them), two-space indents, final newline. */
export function expectedFileText(entities: readonly JsonObject[]): string {
  return `${JSON.stringify(entities, null, 2)}\n`;
}

/**
 * The text of a test spec file (expected/<name>.test.json): only the keys that differ from their defaults, two-space
 * indents, a final newline (the layout of the expected files).
 */
export function testSpecFileText(spec: Pick<TestSpec, 'name' | 'pipe' | 'file' | 'stage' | 'blacklist' | 'ignore' | 'ignoreDeletes' | 'fieldsToSortBy'>): string {
  const out: JsonObject = {};
  if (spec.pipe !== spec.name) out['pipe'] = spec.pipe;
  if (spec.file !== `${spec.name}.json`) out['file'] = spec.file;
  if (spec.stage !== 'sink') out['stage'] = spec.stage;
  if (spec.blacklist.length > 0) out['blacklist'] = [...spec.blacklist];
  if (spec.ignore) out['ignore'] = true;
  if (!spec.ignoreDeletes) out['ignore_deletes'] = false;
  if (spec.fieldsToSortBy.length !== 1 || spec.fieldsToSortBy[0] !== '_id') out['fields_to_sort_by'] = [...spec.fieldsToSortBy];
  return `${JSON.stringify(out, null, 2)}\n`;
}

export interface EntityDiff {
  id: string;
  kind: 'missing' | 'unexpected' | 'changed';
  /** For "missing" and "unexpected": the entity. */
  entity?: JsonObject;
  /** For "changed": the differing properties (dotted paths). */
  changes: { path: string; expected: JsonValue | undefined; actual: JsonValue | undefined }[];
}

function diffValues(path: string, a: JsonValue | undefined, b: JsonValue | undefined, out: EntityDiff['changes']): void {
  if (isJsonObject(a) && isJsonObject(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) diffValues(path ? `${path}.${k}` : k, a[k], b[k], out);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path, expected: a, actual: b });
}

/** Differences per entity id between normalised expected and actual entities (ids not strings are keyed by JSON). */
export function diffEntities(expected: readonly JsonObject[], actual: readonly JsonObject[]): EntityDiff[] {
  const idOf = (e: JsonObject): string => (typeof e['_id'] === 'string' ? e['_id'] : JSON.stringify(e['_id'] ?? null));
  const group = (list: readonly JsonObject[]): Map<string, JsonObject[]> => {
    const m = new Map<string, JsonObject[]>();
    for (const e of list) m.set(idOf(e), [...(m.get(idOf(e)) ?? []), e]);
    return m;
  };
  const exp = group(expected);
  const act = group(actual);
  const diffs: EntityDiff[] = [];
  for (const id of [...new Set([...exp.keys(), ...act.keys()])].sort()) {
    const a = exp.get(id) ?? [];
    const b = act.get(id) ?? [];
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const x = a[i];
      const y = b[i];
      if (x === undefined) diffs.push({ id, kind: 'unexpected', entity: y!, changes: [] });
      else if (y === undefined) diffs.push({ id, kind: 'missing', entity: x, changes: [] });
      else {
        const changes: EntityDiff['changes'] = [];
        diffValues('', x, y, changes);
        if (changes.length > 0) diffs.push({ id, kind: 'changed', changes });
      }
    }
  }
  return diffs;
}

export interface TestResult {
  spec: TestSpec;
  status: 'passed' | 'failed' | 'ignored';
  /** Why the test could not compare (missing file, unknown pipe, ...). */
  error: string | null;
  diffs: EntityDiff[];
  /** The normalised actual entities (what `--update` writes). */
  actual: JsonObject[];
}

/**
 * Run one test against a hub whose pipes have run. With `update`, the expected file is rewritten from the output.
 * `pipeError` is why the pipe's last run failed: its output is then not trusted and the test fails.
 */
export async function runTest(hub: Hub, nodeDir: string, spec: TestSpec, options: { update?: boolean; pipeError?: string | null } = {}): Promise<TestResult> {
  const update = options.update === true;
  const result: TestResult = { spec, status: 'passed', error: null, diffs: [], actual: [] };
  if (spec.ignore) return { ...result, status: 'ignored' };
  const fail = (error: string): TestResult => ({ ...result, status: 'failed', error });
  if (spec.endpoint !== 'json') return fail(`endpoint "${spec.endpoint}" is not supported by this hub; only json output can be tested`);
  if (hub.pipes.get(spec.pipe) === undefined) return fail(`pipe ${JSON.stringify(spec.pipe)} does not exist`);
  if (options.pipeError) return fail(`pipe ${JSON.stringify(spec.pipe)} failed: ${options.pipeError}`);
  let actual: JsonObject[];
  try {
    actual = normaliseEntities(await pipeStageEntities(hub, spec.pipe, spec.stage), spec);
  } catch (e) {
    return fail(`reading the output of pipe ${JSON.stringify(spec.pipe)} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const file = join(nodeDir, 'expected', spec.file);
  if (update) {
    writeFileSync(file, expectedFileText(actual));
    return { ...result, actual };
  }
  if (!existsSync(file)) return { ...fail(`expected/${spec.file} does not exist (write it with --update)`), actual };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return { ...fail(`expected/${spec.file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`), actual };
  }
  if (!Array.isArray(parsed) || !parsed.every(isJsonObject)) return { ...fail(`expected/${spec.file} must hold a JSON array of entities`), actual };
  const expected = normaliseEntities(parsed, spec);
  const diffs = diffEntities(expected, actual);
  return { ...result, status: diffs.length > 0 ? 'failed' : 'passed', diffs, actual };
}

/** A readable diff: one block per entity id, expected vs actual per property. */
export function formatDiffs(diffs: readonly EntityDiff[]): string[] {
  const lines: string[] = [];
  const show = (v: JsonValue | undefined): string => (v === undefined ? '(absent)' : JSON.stringify(v));
  for (const d of diffs) {
    if (d.kind === 'missing') lines.push(`${d.id}: missing (expected, but not in the output)`, `    - expected ${show(d.entity)}`);
    else if (d.kind === 'unexpected') lines.push(`${d.id}: unexpected (in the output, but not expected)`, `    + actual   ${show(d.entity)}`);
    else {
      lines.push(`${d.id}: differs`);
      for (const c of d.changes) {
        lines.push(`    ${c.path}:`);
        lines.push(`      - expected ${show(c.expected)}`);
        lines.push(`      + actual   ${show(c.actual)}`);
      }
    }
  }
  return lines;
}

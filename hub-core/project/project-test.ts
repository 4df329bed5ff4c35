// A project's tests: node/expected/<name>.test.json names a pipe and the file of entities it is expected to produce
// (node/expected/<name>.json). They are judged as the service's command-line client (`sesam verify`) judges them:
//   - properties starting with "_" are dropped at every depth, except `_id` and `_deleted: true`;
//   - blacklist entries are shell-style patterns over dotted property paths (a list's elements are looked through;
//     "a[].b" is "a.*.b", "*" matches across dots, "\." is a dot inside a name);
//   - with `ignore_deletes` (the default) a deleted entity of the output counts only when the expected file has it
//     deleted too; integral decimals are ints; entities are sorted by `fields_to_sort_by`, then by their content;
//   - `endpoint` other than json compares the pipe's published output (csv, xml) with the expected file's bytes;
//   - an output pipe (a sink that is not a dataset) whose configuration is invalid cannot be verified: a failure;
//     so is an expected file naming a pipe that does not exist, and an output pipe no test names.
// Deliberately kinder than the client: the expected side is filtered the same way (a blacklisted or "_" property
// left in an expected file is not compared), and tests may name pipes with a dataset sink as well.

import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { badRequest } from '../base/index.js';
import { anyChar, anyRun, compileGlob, literalAtom, type GlobAtom, type TextMatcher } from '../base/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';
import { PIPE_STAGES, pipeStageEntities, type PipeStage } from '../preview/index.js';
import type { Hub } from '../hub.js';
import { parseJson, readTextFile } from '../base/index.js';

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
  /** Bound parameters for a published endpoint (`parameters`). */
  parameters: JsonObject;
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
    parameters: isJsonObject(value['parameters']) ? value['parameters'] : {},
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
        parsed = JSON.parse(readTextFile(join(dir, f)));
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
 * A shell-style pattern (fnmatch: `*`, `?`, `[seq]`, `[!seq]`) as a whole-string test over code points, matched
 * without backtracking (issue 32); a `[seq]` is tested as the one-character class of a regular expression.
 */
function fnmatchTest(pattern: string): TextMatcher {
  const atoms: GlobAtom[] = [];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '*') atoms.push(anyRun);
    else if (c === '?') atoms.push(anyChar);
    else if (c === '[') {
      const close = chars.indexOf(']', i + 2);
      if (close < 0) atoms.push(literalAtom('['));
      else {
        let body = chars.slice(i + 1, close).join('');
        const negate = body.startsWith('!');
        if (negate) body = body.slice(1);
        const cls = new RegExp(`^[${negate ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]$`, 'u');
        atoms.push({ star: false, test: (ch) => cls.test(ch) });
        i = close;
      }
    } else atoms.push(literalAtom(c));
  }
  return compileGlob(atoms);
}

/** A blacklist as a test of a property's dotted path (`lists`: the same path with a segment per list level). */
export type PathTest = (path: string, indexed: string) => boolean;

/** The blacklist's patterns: "a[].b" is "a.*.b" (and, lists being looked through, "a.b"), "\." a dot in a name. */
export function blacklistTest(blacklist: readonly string[]): PathTest {
  const tests: TextMatcher[] = [];
  for (const raw of blacklist) {
    const p = raw.replace(/\\\./g, '.');
    tests.push(fnmatchTest(p.replace(/\[\]\./g, '.*.')));
    if (p.includes('[].')) tests.push(fnmatchTest(p.replace(/\[\]\./g, '.')));
  }
  return (path, indexed) => tests.some((t) => t(path) || t(indexed));
}

/**
 * An entity as the client compares it: "_" properties dropped at every depth except `_id` and `_deleted: true`,
 * blacklisted paths dropped (a list's elements keep their list's path; `indexed` also gives them a segment), integral
 * numbers as ints, keys sorted.
 */
function filterItem(v: JsonValue, path: string, indexed: string, blacklisted: PathTest | undefined): JsonValue {
  if (Array.isArray(v)) return v.map((x, i) => filterItem(x, path, indexed === '' ? String(i) : `${indexed}.${i}`, blacklisted));
  if (!isJsonObject(v)) return normaliseValue(v);
  const out: JsonObject = {};
  for (const k of Object.keys(v).sort()) {
    const value = v[k]!;
    const p = path === '' ? k : `${path}.${k}`;
    const ip = indexed === '' ? k : `${indexed}.${k}`;
    if (blacklisted?.(p, ip)) continue;
    if (k.startsWith('_') && k !== '_id' && !(k === '_deleted' && value === true)) continue;
    out[k] = filterItem(value, p, ip, blacklisted);
  }
  return out;
}

/**
 * The normalised form of a list of entities, as compared and as written by `--update`. A deleted entity is kept when
 * `keepDeleted` says so (default: only with ignore_deletes off).
 */
export function normaliseEntities(
  entities: readonly JsonObject[],
  spec: Pick<TestSpec, 'blacklist' | 'ignoreDeletes' | 'fieldsToSortBy'>,
  keepDeleted: (id: JsonValue | undefined) => boolean = () => !spec.ignoreDeletes,
): JsonObject[] {
  const blacklisted = spec.blacklist.length > 0 ? blacklistTest(spec.blacklist) : undefined;
  const out: JsonObject[] = [];
  for (const e of entities) {
    if (e['_deleted'] === true && !keepDeleted(e['_id'])) continue;
    out.push(filterItem(e, '', '', blacklisted) as JsonObject);
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

const TYPE_ORDER = ['null', 'boolean', 'number', 'string', 'array', 'object'];

function typeRank(v: JsonValue | undefined): number {
  if (v === undefined || v === null) return 0;
  return TYPE_ORDER.indexOf(Array.isArray(v) ? 'array' : typeof v === 'bigint' ? 'number' : typeof v);
}

/** Order of sort-field values: by type (null, booleans, numbers, strings, lists, objects), numbers numerically. */
function compareValues(a: JsonValue | undefined, b: JsonValue | undefined): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = typeof a === 'string' ? a : JSON.stringify(a ?? null);
  const y = typeof b === 'string' ? b : JSON.stringify(b ?? null);
  return x < y ? -1 : x > y ? 1 : 0;
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
  /** For "changed": the differing properties (dotted paths; `keys`: the same path as its property names, unambiguous). */
  changes: { path: string; keys: string[]; expected: JsonValue | undefined; actual: JsonValue | undefined; /** Why, where a namespace explains it. */ note?: string }[];
}

function diffValues(path: string, keys: string[], a: JsonValue | undefined, b: JsonValue | undefined, out: EntityDiff['changes']): void {
  if (isJsonObject(a) && isJsonObject(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const at = path ? `${path}.${k}` : k;
      const before = out.length;
      diffValues(at, [...keys, k], a[k], b[k], out);
      // A property absent (or null) on one side that the other side has under another namespace: say so.
      const change = out[before];
      if (change !== undefined && change.path === at) {
        const missingIn = a[k] === undefined || a[k] === null ? a : b[k] === undefined || b[k] === null ? b : undefined;
        const note = missingIn === undefined ? undefined : namespaceNote(k, missingIn, missingIn === a ? 'the expected entity' : 'the output');
        if (note !== undefined) change.note = note;
      }
    }
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path, keys, expected: a, actual: b });
}

/** The local name of a namespaced name ("crm:name" -> "name"; a name without a namespace is its own). */
const localName = (name: string): string => name.slice(name.lastIndexOf(':') + 1);

/** When `dict` lacks `name` but holds it under other namespaces (or without one), a note that says so. */
function namespaceNote(name: string, dict: JsonObject, side: string): string | undefined {
  const local = localName(name);
  const others = Object.keys(dict).filter((k) => k !== name && localName(k) === local && dict[k] !== undefined);
  if (others.length === 0) return undefined;
  return `${side} has it as ${others.map((k) => JSON.stringify(k)).join(', ')}: a namespace differs (namespaced identifiers)`;
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
        diffValues('', [], x, y, changes);
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

/** The published output of a pipe in a format other than JSON (csv, xml), as bytes; the host supplies it. */
export type PublishedOutput = (pipe: string, endpoint: string, parameters: JsonObject) => Promise<Buffer>;

/** Output pipes as the client sorts pipes: a sink that is not a dataset (endpoints included), a source not embedded. */
export function isOutputPipe(hub: Hub, pipeId: string): boolean {
  const config = hub.pipes.get(pipeId);
  if (config === undefined) return false;
  const pipe = hub.pumps.runtimes.of(config).pipe;
  return pipe.source.type !== 'embedded' && pipe.sink.type !== 'dataset';
}

/** Why a pipe cannot be verified (its configuration errors), or undefined when it can. */
function cannotVerify(hub: Hub, pipeId: string): string | undefined {
  const config = hub.pipes.get(pipeId);
  if (config === undefined) return undefined;
  const runtime = hub.pumps.runtimes.of(config);
  if (runtime.isValid) return undefined;
  const errors = runtime.errors.filter((e) => e.level === 'error').map((e) => `${e.elements}: ${e.msg}`);
  return `pipe ${JSON.stringify(pipeId)} has an invalid config, cannot verify it: ${errors.join('; ')}`;
}

/** XML compared as the client does when it can: the same document whatever the whitespace between elements. */
function xmlText(b: Buffer): string {
  return b.toString('utf8').replace(/>\s+</g, '><').trim();
}

/**
 * Run one test against a hub whose pipes have run. With `update`, the expected file is rewritten from the output.
 * `pipeError` is why the pipe's last run failed: its output is then not trusted and the test fails. `published` gives
 * the output of a published endpoint (tests with an `endpoint` other than json).
 */
export async function runTest(
  hub: Hub,
  nodeDir: string,
  spec: TestSpec,
  options: { update?: boolean; pipeError?: string | null; /** Why the pipe was not run (an unset variable). */ pipeNotRun?: string | null; published?: PublishedOutput } = {},
): Promise<TestResult> {
  const update = options.update === true;
  const result: TestResult = { spec, status: 'passed', error: null, diffs: [], actual: [] };
  if (spec.ignore) return { ...result, status: 'ignored' };
  const fail = (error: string): TestResult => ({ ...result, status: 'failed', error });
  if (hub.pipes.get(spec.pipe) === undefined) return fail(`expected/${spec.name}.test.json names pipe ${JSON.stringify(spec.pipe)}, which does not exist`);
  const invalid = cannotVerify(hub, spec.pipe);
  if (invalid !== undefined) return fail(invalid);
  if (options.pipeError) return fail(`pipe ${JSON.stringify(spec.pipe)} failed: ${options.pipeError}`);
  if (options.pipeNotRun) return fail(`pipe ${JSON.stringify(spec.pipe)} was ${options.pipeNotRun}`);
  const file = join(nodeDir, 'expected', spec.file);
  if (spec.endpoint !== 'json' && spec.endpoint !== 'excel') {
    if (!options.published) return fail(`endpoint "${spec.endpoint}" cannot be read here`);
    let bytes: Buffer;
    try {
      bytes = await options.published(spec.pipe, spec.endpoint, spec.parameters);
    } catch (e) {
      return fail(`reading the ${spec.endpoint} output of pipe ${JSON.stringify(spec.pipe)} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (update) {
      writeFileSync(file, bytes);
      return result;
    }
    if (!existsSync(file)) return fail(`expected/${spec.file} does not exist (write it with --update)`);
    const expected = readFileSync(file);
    const same = spec.endpoint === 'xml' ? xmlText(expected) === xmlText(bytes) : expected.equals(bytes);
    if (same) return result;
    return fail(`the ${spec.endpoint} output of pipe ${JSON.stringify(spec.pipe)} differs from expected/${spec.file}:\n--- expected\n${expected.toString('utf8')}\n+++ actual\n${bytes.toString('utf8')}`);
  }
  let raw: JsonObject[];
  try {
    raw = await pipeStageEntities(hub, spec.pipe, spec.stage);
  } catch (e) {
    return fail(`reading the output of pipe ${JSON.stringify(spec.pipe)} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (update) {
    const actual = normaliseEntities(raw, spec);
    writeFileSync(file, expectedFileText(actual));
    return { ...result, actual };
  }
  if (!existsSync(file)) return { ...fail(`expected/${spec.file} does not exist (write it with --update)`), actual: normaliseEntities(raw, spec) };
  let parsed: unknown;
  try {
    // Integers beyond ±2^53 (hash128's 128-bit hashes) are read exactly, as the output holds them (exact-json.ts).
    parsed = parseJson(readTextFile(file));
  } catch (e) {
    return { ...fail(`expected/${spec.file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`), actual: normaliseEntities(raw, spec) };
  }
  if (!Array.isArray(parsed) || !parsed.every(isJsonObject)) return { ...fail(`expected/${spec.file} must hold a JSON array of entities`), actual: normaliseEntities(raw, spec) };
  // The expected file's deletes all count; a delete in the output counts when expected (or with ignore_deletes off).
  const expectedDeletes = new Set(parsed.filter((e) => e['_deleted'] === true).map((e) => JSON.stringify(e['_id'] ?? null)));
  const expected = normaliseEntities(parsed, spec, () => true);
  const actual = normaliseEntities(raw, spec, (id) => !spec.ignoreDeletes || expectedDeletes.has(JSON.stringify(id ?? null)));
  const diffs = diffEntities(expected, actual);
  return { ...result, status: diffs.length > 0 ? 'failed' : 'passed', diffs, actual };
}

/** A check of the project as a whole (not of one expected file), reported like a test. */
export interface ProjectCheck {
  name: string;
  pipe: string;
  status: 'failed' | 'warning';
  error: string;
}

/**
 * What the client reports about the project beyond each expected file: an output pipe whose configuration is invalid
 * cannot be verified (a failure); an output pipe that no test names is a warning here (the client fails it).
 */
export function projectChecks(hub: Hub, specs: readonly TestSpec[]): ProjectCheck[] {
  const named = new Set(specs.map((s) => s.pipe));
  const out: ProjectCheck[] = [];
  for (const id of hub.pipes.ids()) {
    if (!isOutputPipe(hub, id)) continue;
    const invalid = cannotVerify(hub, id);
    if (invalid !== undefined && !named.has(id)) out.push({ name: id, pipe: id, status: 'failed', error: invalid });
    else if (!named.has(id)) out.push({ name: id, pipe: id, status: 'warning', error: `no test names output pipe ${JSON.stringify(id)} (add expected/${id}.test.json)` });
  }
  return out;
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
        if (c.note !== undefined) lines.push(`      (${c.note})`);
      }
    }
  }
  return lines;
}

// Accepting a test's actual output into its expected file (`datahub test --accept <test> [--entity <id>]`): the whole
// output, or one entity of it (changed, added, or removed when the output no longer has it). Entities the accept does
// not touch, and those whose content is the same as the output's, stay exactly as written (with their own key order,
// "_" and blacklisted properties); the file keeps its own layout (json-format.ts `updatedFileText`), and a new file
// gets the layout `--update` writes. The Tests view also accepts one property of an entity, and ignores a property
// from then on by adding it to the test's `blacklist` (its `.test.json` keeps its layout).

import { badRequest } from '../base/index.js';
import { canonicalJson, isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';
import { parseJson } from '../base/index.js';
import { updatedFileText } from '../config/index.js';
import { expectedFileText, normaliseEntities, type TestSpec } from './project-test.js';

/** An entity's id as diffs name it (ids that are not strings by their JSON). */
export function entityKey(e: JsonObject): string {
  return typeof e['_id'] === 'string' ? e['_id'] : JSON.stringify(e['_id'] ?? null);
}

function group(list: readonly JsonObject[]): Map<string, JsonObject[]> {
  const m = new Map<string, JsonObject[]>();
  for (const e of list) m.set(entityKey(e), [...(m.get(entityKey(e)) ?? []), e]);
  return m;
}

/**
 * The expected file's entities after accepting the actual output (`actual`: normalised, as runTest gives it) for every
 * entity, or only for the entity `only`. Entities keep their place; new ones go where their id sorts when the file's
 * ids are in order, else at the end.
 */
export function acceptedEntities(
  expected: readonly JsonObject[],
  actual: readonly JsonObject[],
  spec: Pick<TestSpec, 'blacklist' | 'ignoreDeletes' | 'fieldsToSortBy'>,
  only?: string,
): JsonObject[] {
  const inScope = (id: string): boolean => only === undefined || id === only;
  const same = (raw: JsonObject, a: JsonObject): boolean => canonicalJson(normaliseEntities([raw], spec, () => true)[0] as JsonValue) === canonicalJson(a);
  const expectedBy = group(expected);
  const actualBy = group(actual);
  const out: JsonObject[] = [];
  const done = new Set<string>();
  for (const e of expected) {
    const id = entityKey(e);
    if (!inScope(id)) {
      out.push(e);
      continue;
    }
    if (done.has(id)) continue;
    done.add(id);
    const exp = expectedBy.get(id)!;
    (actualBy.get(id) ?? []).forEach((a, i) => out.push(exp[i] !== undefined && same(exp[i], a) ? exp[i] : a));
  }
  const sorted = out.every((e, i) => i === 0 || entityKey(out[i - 1]!) <= entityKey(e));
  for (const [id, list] of actualBy) {
    if (!inScope(id) || done.has(id)) continue;
    const at = sorted ? out.findIndex((e) => entityKey(e) > id) : -1;
    out.splice(at < 0 ? out.length : at, 0, ...list);
  }
  return out;
}

/**
 * The text of an expected file holding `entities`, given its text now (undefined: a new file): a file in the layout
 * `--update` writes stays in it; any other keeps its own layout, only the changed values rewritten.
 */
export function expectedFileUpdate(previous: string | undefined, entities: readonly JsonObject[]): string {
  if (previous === undefined) return expectedFileText(entities);
  const bom = previous.startsWith('\uFEFF') ? '\uFEFF' : '';
  const crlf = previous.includes('\r\n');
  const text = (bom ? previous.slice(1) : previous).replace(/\r\n/g, '\n');
  try {
    if (text === expectedFileText(parseJson(text) as JsonObject[])) {
      const out = expectedFileText(entities);
      return bom + (crlf ? out.replace(/\n/g, '\r\n') : out);
    }
  } catch {
    // Not JSON: updatedFileText writes it anew.
  }
  return updatedFileText(previous, entities);
}

/** The value at a path of property names (undefined where a step is not an object or lacks the name). */
function valueAt(v: JsonValue | undefined, keys: readonly string[]): JsonValue | undefined {
  let at = v;
  for (const k of keys) {
    if (!isJsonObject(at)) return undefined;
    at = at[k];
  }
  return at;
}

/**
 * The expected file's entities after accepting one property (`keys`: its path as property names, as the diff gives
 * it) of entity `id` from the actual output: set to the output's value, or removed where the output lacks it. The
 * rest of the entity, and every other entity, stay as written. Refused (400) when the id is not on both sides once,
 * or when the property's parent is not an object on both sides.
 */
export function acceptedProperty(
  expected: readonly JsonObject[],
  actual: readonly JsonObject[],
  spec: Pick<TestSpec, 'blacklist' | 'ignoreDeletes' | 'fieldsToSortBy'>,
  id: string,
  keys: readonly string[],
): JsonObject[] {
  if (keys.length === 0) throw badRequest('name a property to accept');
  const at = expected.flatMap((e, i) => (entityKey(e) === id ? [i] : []));
  const out = actual.filter((e) => entityKey(e) === id);
  if (at.length === 0 || out.length === 0) {
    throw badRequest(`entity ${JSON.stringify(id)} is not both expected and in the output`, 'a missing or unexpected entity is accepted whole: accept the entity');
  }
  if (at.length > 1 || out.length > 1) throw badRequest(`entity ${JSON.stringify(id)} is there more than once`, 'accept the entity or the whole output');
  const raw = expected[at[0]!]!;
  const theirs = valueAt(out[0], keys);
  const ours = valueAt(normaliseEntities([raw], spec, () => true)[0], keys);
  if (theirs === undefined && ours === undefined) throw badRequest(`entity ${JSON.stringify(id)} has no property ${keys.join('.')} on either side`, 'name a property of the diff');
  if (canonicalJson(theirs ?? null) === canonicalJson(ours ?? null) && (theirs === undefined) === (ours === undefined)) return [...expected];
  const copy = structuredClone(raw);
  const parent = valueAt(copy, keys.slice(0, -1));
  const name = keys[keys.length - 1]!;
  if (!isJsonObject(parent) || (theirs !== undefined && !isJsonObject(valueAt(out[0], keys.slice(0, -1))))) {
    throw badRequest(`${keys.join('.')} of entity ${JSON.stringify(id)} is not a property of an object on both sides`, 'accept the property that holds it, or the entity');
  }
  if (theirs === undefined) delete parent[name];
  else parent[name] = structuredClone(theirs);
  return expected.map((e, i) => (i === at[0] ? copy : e));
}

/**
 * A blacklist pattern that matches exactly one property path (`keys`: its property names): the characters the
 * patterns treat specially are put in brackets, a dot in a name is "\.".
 */
export function blacklistPatternOf(keys: readonly string[]): string {
  return keys.map((k) => k.replace(/[[*?]/g, (c) => `[${c}]`).replace(/\./g, '\\.')).join('.');
}

/**
 * The text of a `.test.json` file with `pattern` added to its `blacklist` (created when it has none), the file's
 * layout kept; the same text when the pattern is there already. A file that is not a JSON object is refused (400).
 */
export function blacklistedSpecText(previous: string, pattern: string, file: string): string {
  let parsed: unknown;
  try {
    parsed = parseJson(previous.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw badRequest(`${file} is not valid JSON`, e instanceof Error ? e.message : String(e));
  }
  if (!isJsonObject(parsed)) throw badRequest(`${file} must hold a JSON object`);
  const list = parsed['blacklist'] ?? [];
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) throw badRequest(`${file}: "blacklist" must be a list of strings`);
  if (list.includes(pattern)) return previous;
  return updatedFileText(previous, { ...parsed, blacklist: [...list, pattern] });
}

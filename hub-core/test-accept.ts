// Accepting a test's actual output into its expected file (`datahub test --accept <test> [--entity <id>]`): the whole
// output, or one entity of it (changed, added, or removed when the output no longer has it). Entities the accept does
// not touch, and those whose content is the same as the output's, stay exactly as written (with their own key order,
// "_" and blacklisted properties); the file keeps its own layout (json-format.ts `updatedFileText`), and a new file
// gets the layout `--update` writes.

import { canonicalJson, type JsonObject, type JsonValue } from './json.js';
import { updatedFileText } from './json-format.js';
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
    if (text === expectedFileText(JSON.parse(text) as JsonObject[])) {
      const out = expectedFileText(entities);
      return bom + (crlf ? out.replace(/\n/g, '\r\n') : out);
    }
  } catch {
    // Not JSON: updatedFileText writes it anew.
  }
  return updatedFileText(previous, entities);
}

// Pinning a sample of a pipe's input in its configuration file: the pipe's source becomes (or stays) a conditional
// source whose "test" alternative embeds the entities and whose other alternative is the real source, picked by
// "$ENV(node-env)" — the shape the service's docs teach for test data (Learn Sesam, "Testing & Testdata": alternatives
// "prod" and "test", condition "$ENV(node-env)") and that its client's `sesam init` writes. The file keeps its own
// layout everywhere else (json-format.ts `updatedFileText`); test-env.json gets `"node-env": "test"` when it lacks it.

import { badRequest } from '../base/index.js';
import { updatedFileText } from '../config/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';
import { withoutBom } from '../base/index.js';
import { parseJson } from '../base/index.js';

export const SAMPLE_CONDITION = '$ENV(node-env)';
export const TEST_ALTERNATIVE = 'test';

/** The real (non-test) alternative of a pipe's source: the source itself, or the one other alternative of a conditional. */
export function realSource(pipe: JsonObject): JsonObject {
  const source = isJsonObject(pipe['source']) ? pipe['source'] : {};
  if (source['type'] !== 'conditional') return source;
  const alternatives = isJsonObject(source['alternatives']) ? source['alternatives'] : {};
  const others = Object.keys(alternatives).filter((k) => k !== TEST_ALTERNATIVE);
  const name = others.length === 1 ? others[0]! : others.includes('prod') ? 'prod' : undefined;
  const chosen = name === undefined ? undefined : alternatives[name];
  if (!isJsonObject(chosen)) {
    throw badRequest(`pipe ${JSON.stringify(pipe['_id'])} has a conditional source whose real alternative is not clear`, `its alternatives: ${Object.keys(alternatives).join(', ') || 'none'}; name it "prod"`);
  }
  return chosen;
}

/** The pipe with `entities` as its source's test alternative (a conditional source made around the real one when needed). */
export function withSampleSource(pipe: JsonObject, entities: readonly JsonObject[]): JsonObject {
  const source = isJsonObject(pipe['source']) ? pipe['source'] : undefined;
  if (source !== undefined && source['type'] === 'conditional') {
    const alternatives = isJsonObject(source['alternatives']) ? source['alternatives'] : {};
    const before = alternatives[TEST_ALTERNATIVE];
    // An embedded test alternative keeps its other settings; anything else is replaced by an embedded one.
    const test: JsonObject = isJsonObject(before) && before['type'] === 'embedded' ? { ...before, entities: [...entities] } : { type: 'embedded', entities: [...entities] };
    return { ...pipe, source: { ...source, alternatives: { ...alternatives, [TEST_ALTERNATIVE]: test } } };
  }
  const conditional: JsonObject = {
    type: 'conditional',
    alternatives: { prod: source ?? { type: 'dataset', dataset: pipe['_id'] ?? null }, [TEST_ALTERNATIVE]: { type: 'embedded', entities: [...entities] } },
    condition: SAMPLE_CONDITION,
  };
  // The source keeps its place among the pipe's keys.
  const out: JsonObject = {};
  if (source === undefined) {
    for (const [k, v] of Object.entries(pipe)) {
      out[k] = v;
      if (k === 'type') out['source'] = conditional;
    }
    if (!('source' in out)) out['source'] = conditional;
    return out;
  }
  for (const [k, v] of Object.entries(pipe)) out[k] = k === 'source' ? conditional : v;
  return out;
}

/**
 * The new text of a configuration file holding pipe `pipeId` (one entity, or a list of them) with the sample pinned:
 * only the source changes, in the file's own layout.
 */
export function sampleFileText(text: string, pipeId: string, entities: readonly JsonObject[]): string {
  const parsed: unknown = parseJson(withoutBom(text));
  const isPipe = (v: unknown): v is JsonObject => isJsonObject(v) && v['_id'] === pipeId && (v['type'] === 'pipe' || v['type'] === undefined);
  let next: unknown;
  if (Array.isArray(parsed)) {
    const i = parsed.findIndex(isPipe);
    if (i < 0) throw badRequest(`the file holds no pipe ${JSON.stringify(pipeId)}`);
    next = parsed.map((v: JsonValue, j) => (j === i ? withSampleSource(v as JsonObject, entities) : v));
  } else if (isPipe(parsed)) {
    next = withSampleSource(parsed, entities);
  } else throw badRequest(`the file holds no pipe ${JSON.stringify(pipeId)}`);
  return updatedFileText(text, next);
}

/** test-env.json with `"node-env": "test"` added when it is not set (undefined when nothing needs to change). */
export function testEnvWithNodeEnv(text: string | undefined): { text: string; note: string } | undefined {
  if (text === undefined) return { text: updatedFileText(undefined, { 'node-env': 'test' }), note: 'wrote test-env.json with "node-env": "test"' };
  const parsed: unknown = parseJson(withoutBom(text));
  if (!isJsonObject(parsed)) throw badRequest('test-env.json must hold a JSON object');
  if (parsed['node-env'] !== undefined) return undefined;
  return { text: updatedFileText(text, { ...parsed, 'node-env': 'test' }), note: 'added "node-env": "test" to test-env.json' };
}

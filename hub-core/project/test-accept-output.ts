// One accept of a test's output into its expected file, after its pipes ran: the whole output, one entity, or one
// property of one entity (test-accept.ts says how the file's entities and layout are kept). Shared by `datahub test
// --accept` (main/cli/project.ts) and the Tests view (main/server/desktop/workspace-test-accept.ts); each writes one
// file, atomically, and nothing else, so git alone undoes it. A published format (csv, xml) is accepted as a whole:
// its bytes as they are.

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hub } from '../hub.js';
import { HubError, badRequest } from '../base/index.js';
import { isJsonObject, type JsonObject } from '../base/index.js';
import { parseJson } from '../base/index.js';
import { runTest, type EntityDiff, type PublishedOutput, type TestResult, type TestSpec } from './project-test.js';
import { acceptedEntities, acceptedProperty, entityKey, expectedFileUpdate } from './test-accept.js';

export interface AcceptWhat {
  /** Only this entity (by its id as the diff names it). */
  entity?: string;
  /** Only this property of `entity`: its path as property names. */
  property?: string[];
}

/** How the test's pipe did in the run before the accept (as runTest takes it). */
export interface AcceptRun {
  pipeError: string | null;
  pipeNotRun: string | null;
  published: PublishedOutput;
}

export interface AcceptOutcome {
  /** The file, relative to node/ ("expected/x.json"). */
  file: string;
  /** False when the file held that already (nothing written). */
  written: boolean;
  /** The file did not exist before. */
  created: boolean;
  /** The differences the accept took in (of the one entity, with one). */
  diffs: EntityDiff[];
  /** The test against the file as it is now. */
  result: TestResult;
}

function writeAtomically(path: string, text: string | Buffer): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/**
 * Write the test's output (or the part `what` names) into its expected file. Throws HubError: 400 for a request that
 * does not fit the test (an entity of a csv test, an entity in neither file nor output, a property without its entity,
 * an expected file that is not a list of entities), 409 when the output cannot be trusted (the pipe failed or did not
 * run): nothing is written then.
 */
export async function acceptTestOutput(hub: Hub, nodeDir: string, test: TestSpec, what: AcceptWhat, run: AcceptRun): Promise<AcceptOutcome> {
  const spec: TestSpec = { ...test, ignore: false };
  const file = `expected/${spec.file}`;
  const path = join(nodeDir, 'expected', spec.file);
  const check = (): Promise<TestResult> => runTest(hub, nodeDir, spec, run);
  const untrusted = (why: string): HubError => new HubError(409, 'nothing accepted: the output cannot be trusted', why);
  if (what.property !== undefined && what.entity === undefined) throw badRequest('a property is accepted of one entity: name the entity too');
  const exists = existsSync(path);
  if (spec.endpoint !== 'json' && spec.endpoint !== 'excel') {
    if (what.entity !== undefined) throw badRequest(`test ${spec.name} compares the ${spec.endpoint} output as a whole`, 'accept the whole output');
    if (run.pipeError) throw untrusted(`pipe ${JSON.stringify(spec.pipe)} failed: ${run.pipeError}`);
    if (run.pipeNotRun) throw untrusted(`pipe ${JSON.stringify(spec.pipe)} was ${run.pipeNotRun}`);
    const bytes = await run.published(spec.pipe, spec.endpoint, spec.parameters);
    const written = !exists || !readFileSync(path).equals(bytes);
    if (written) writeAtomically(path, bytes);
    return { file, written, created: !exists, diffs: [], result: await check() };
  }
  const r = await check();
  const fileProblem = r.error !== null && !exists && r.error.startsWith(`${file} does not exist`);
  if (r.error !== null && !fileProblem) throw untrusted(r.error);
  // The text as it is, byte order mark included (expectedFileUpdate keeps it).
  const previous = exists ? readFileSync(path, 'utf8') : undefined;
  let expected: JsonObject[] = [];
  if (previous !== undefined) {
    const parsed: unknown = parseJson(previous.replace(/^\uFEFF/, ''));
    if (!Array.isArray(parsed) || !parsed.every(isJsonObject)) throw badRequest(`${file} must hold a JSON array of entities`);
    expected = parsed;
  }
  const id = what.entity;
  const diffs = id === undefined ? r.diffs : r.diffs.filter((d) => d.id === id);
  if (id !== undefined && !r.actual.some((e) => entityKey(e) === id) && !expected.some((e) => entityKey(e) === id)) {
    throw badRequest(`entity ${JSON.stringify(id)} is neither in ${file} nor in the output of pipe ${spec.pipe}`);
  }
  const next = what.property !== undefined && id !== undefined ? acceptedProperty(expected, r.actual, spec, id, what.property) : acceptedEntities(expected, r.actual, spec, id);
  const text = expectedFileUpdate(previous, next);
  if (text === previous) return { file, written: false, created: false, diffs, result: r };
  writeAtomically(path, text);
  return { file, written: true, created: previous === undefined, diffs, result: await check() };
}

// Review and accept from the Tests view: write a test's actual output — all of it, one entity, or one property of one
// entity — into its expected file, or ignore a property from now on (added to the `blacklist` of its .test.json).
// Each is one file written on disk and nothing else, so git alone undoes it; the file keeps its own layout
// (hub-core/project/test-accept.ts). The test's pipe and the pipes upstream of it run first in a fresh temporary hub (as
// `datahub test --accept` runs them), so what is accepted is what the pipes produce now; the answer is the test's
// result against the file as written.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_ROUNDS, runProject } from '../../../hub-core/project/index.js';
import { readTestSpecs, runTest, type TestResult, type TestSpec } from '../../../hub-core/project/index.js';
import { acceptTestOutput, blacklistPatternOf, blacklistedSpecText, type AcceptWhat } from '../../../hub-core/project/index.js';
import { workspaceNodeDir } from '../../../hub-core/project/index.js';
import { badRequest } from '../../../hub-core/base/index.js';
import { publishedOutput } from '../published-output.js';
import type { WorkspaceTestResult } from '../../../hub-core/desktop-types.js';
import { resultOf } from './workspace-test-run.js';

export interface AcceptRequest {
  test: string;
  /** Only this entity (by its id as the diff names it). */
  entity?: string;
  /** Only this property of `entity`: its path as property names. */
  property?: string[];
}

export interface IgnoreRequest {
  test: string;
  /** The property to leave out of the comparison: its path as property names. */
  property: string[];
}

export interface AcceptAnswer {
  /** The file written, relative to node/ ("expected/x.json"). */
  file: string;
  /** False when the file held that already (nothing written). */
  written: boolean;
  /** What was done, in words. */
  message: string;
  /** The blacklist pattern added (ignore only). */
  pattern?: string;
  /** The test's result against the file as it is now. */
  result: WorkspaceTestResult;
}

function writeAtomically(path: string, text: string | Buffer): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

function specOf(dir: string, name: string): TestSpec {
  const specs = readTestSpecs(workspaceNodeDir(dir));
  const spec = specs.find((s) => s.name === name);
  if (spec === undefined) throw badRequest(`no test ${JSON.stringify(name)} in the workspace`, `its tests: ${specs.map((s) => s.name).join(', ') || 'none'}`);
  return spec;
}


/** Run the test's pipe (and those upstream) and hand the run to `work`; the run is closed after. */
async function withRun<T>(dir: string, spec: TestSpec, maxRounds: number | undefined, work: (check: (s: TestSpec) => Promise<TestResult>, published: ReturnType<typeof publishedOutput>) => Promise<T>): Promise<T> {
  const run = await runProject(dir, { maxRounds: maxRounds ?? DEFAULT_MAX_ROUNDS, only: [spec.pipe], onlyKnown: true });
  try {
    const pipe = run.pipes.find((p) => p.pipe === spec.pipe);
    const pipeError = pipe?.status === 'failed' ? pipe.error : null;
    const pipeNotRun = pipe?.status === 'skipped' && pipe.error?.startsWith('not run:') === true ? pipe.error : null;
    const published = publishedOutput(run.hub);
    return await work((s) => runTest(run.hub, run.nodeDir, s, { pipeError, pipeNotRun, published }), published);
  } finally {
    run.close();
  }
}

export async function acceptWorkspaceTest(dir: string, req: AcceptRequest, maxRounds?: number): Promise<AcceptAnswer> {
  if (req.property !== undefined && req.entity === undefined) throw badRequest('a property is accepted of one entity: name the entity too');
  const spec = { ...specOf(dir, req.test), ignore: false };
  const json = spec.endpoint === 'json' || spec.endpoint === 'excel';
  if (!json && req.entity !== undefined) throw badRequest(`test ${spec.name} compares the ${spec.endpoint} output as a whole`, 'accept the whole output');
  // The same accept as `datahub test --accept` (hub-core/project/test-accept-output.ts).
  const run = await runProject(dir, { maxRounds: maxRounds ?? DEFAULT_MAX_ROUNDS, only: [spec.pipe], onlyKnown: true });
  try {
    const pipe = run.pipes.find((p) => p.pipe === spec.pipe);
    const pipeError = pipe?.status === 'failed' ? pipe.error : null;
    const pipeNotRun = pipe?.status === 'skipped' && pipe.error?.startsWith('not run:') === true ? pipe.error : null;
    const what: AcceptWhat = { ...(req.entity !== undefined ? { entity: req.entity } : {}), ...(req.property !== undefined ? { property: req.property } : {}) };
    const done = await acceptTestOutput(run.hub, run.nodeDir, spec, what, { pipeError, pipeNotRun, published: publishedOutput(run.hub) });
    const id = req.entity;
    const shown = done.file;
    if (!json) return { file: shown, written: done.written, message: `Accepted the ${spec.endpoint} output of pipe ${spec.pipe} into ${shown}`, result: resultOf(done.result) };
    const text = req.property !== undefined ? `property ${req.property.join('.')} of entity ${id}` : id !== undefined ? `entity ${id}` : `the output of pipe ${spec.pipe}`;
    if (!done.written) return { file: shown, written: false, message: `Nothing to accept: ${shown} already holds ${text} as output`, result: resultOf(done.result) };
    return { file: shown, written: true, message: `Accepted ${text} into ${shown}${done.created ? ' (a new file)' : ''}`, result: resultOf(done.result) };
  } finally {
    run.close();
  }
}

export async function ignoreWorkspaceProperty(dir: string, req: IgnoreRequest, maxRounds?: number): Promise<AcceptAnswer> {
  if (req.property.length === 0 || req.property.some((k) => k === '')) throw badRequest('name the property to ignore by its path of property names');
  const spec = specOf(dir, req.test);
  const shown = `expected/${spec.name}.test.json`;
  const path = join(workspaceNodeDir(dir), 'expected', `${spec.name}.test.json`);
  const pattern = blacklistPatternOf(req.property);
  const previous = readFileSync(path, 'utf8');
  const text = blacklistedSpecText(previous, pattern, shown);
  const written = text !== previous;
  if (written) writeAtomically(path, text);
  const now = specOf(dir, req.test);
  return withRun(dir, now, maxRounds, async (check) => ({
    file: shown,
    written,
    pattern,
    message: written ? `Ignoring ${req.property.join('.')} from now on: "${pattern}" added to the blacklist of ${shown}` : `${shown} ignores ${req.property.join('.')} already`,
    result: resultOf(await check(now)),
  }));
}

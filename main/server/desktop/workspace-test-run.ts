// One `datahub test` run as data instead of printed lines: the same project runner, isolated groups and test comparison
// as the CLI (main/cli/project.ts), returning per-test results with their per-entity diffs and the pipes each ran. Runs in a worker thread
// (workspace-test-worker.ts) so a run of several seconds never holds up the host's event loop.
import { DEFAULT_MAX_ROUNDS, runProject } from '../../../hub-core/project/index.js';
import { formatDiffs, projectChecks, readTestSpecs, runTest, type ProjectCheck, type TestResult, type TestSpec } from '../../../hub-core/project/index.js';
import type { PipeRunSummary } from '../../../hub-core/project/index.js';
import { effectivePipeConfig } from '../../../hub-core/pipes/index.js';
import { planGroups, projectPipes, runIsolated, testPipes } from '../../cli/test-isolated.js';
import { runWarm } from '../../cli/test-warm.js';
import type { TestSession } from '../../../hub-core/project/index.js';
import { publishedOutput } from '../published-output.js';
import { workspaceNodeDir } from '../../../hub-core/project/index.js';
import { HubError, badRequest } from '../../../hub-core/base/index.js';
import type { WorkspaceTestReport, WorkspaceTestResult } from '../../../hub-core/desktop-types.js';

export type { WorkspaceTestReport, WorkspaceTestResult };

export interface WorkspaceTestOptions {
  update?: boolean;
  maxRounds?: number;
  /** Only these tests (by name): their pipes and the pipes upstream of them run, as `datahub test --filter`. */
  names?: readonly string[];
}

/** The specs a run checks: all, or those named (an unknown name is a 400). */
function selectSpecs(dir: string, names: readonly string[] | undefined): { specs: TestSpec[]; only: string[] | undefined } {
  if (names === undefined) return { specs: readTestSpecs(workspaceNodeDir(dir)), only: undefined };
  const all = readTestSpecs(workspaceNodeDir(dir));
  const unknown = names.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length > 0) throw badRequest(`no test ${unknown.map((n) => JSON.stringify(n)).join(', ')} in the workspace`, `its tests: ${all.map((s) => s.name).join(', ') || 'none'}`);
  const specs = all.filter((s) => names.includes(s.name));
  return { specs, only: [...new Set(specs.map((s) => s.pipe))] };
}

export interface WorkspaceTestFailure {
  status: number;
  error: string;
  detail: string | null;
}

/** A test's pipes as the report gives them. */
const pipesOf = (list: readonly PipeRunSummary[]): NonNullable<WorkspaceTestResult['pipes']> => list.map((p) => ({ pipe: p.pipe, ms: p.ms ?? 0, runs: p.runs, status: p.status }));

/** A test's result as the Tests view shows it; with the pipes its run ran when they are known. */
export const resultOf = (r: TestResult, pipes?: readonly PipeRunSummary[]): WorkspaceTestResult => ({
  name: r.spec.name,
  pipe: r.spec.pipe,
  file: r.spec.file,
  stage: r.spec.stage,
  status: r.status,
  error: r.error,
  diffs: r.diffs,
  diffText: formatDiffs(r.diffs),
  ...(pipes !== undefined ? { pipes: pipesOf(pipes) } : {}),
});

function reportOf(update: boolean, started: number, run: { rounds: number; converged: boolean; pipes: PipeRunSummary[] }, tests: WorkspaceTestResult[], groups?: WorkspaceTestReport['groups']): WorkspaceTestReport {
  const count = (s: WorkspaceTestResult['status']): number => tests.filter((t) => t.status === s).length;
  return {
    update,
    rounds: run.rounds,
    converged: run.converged,
    pipes: run.pipes,
    tests,
    passed: count('passed'),
    failed: count('failed'),
    ignored: count('ignored'),
    durationMs: Date.now() - started,
    ...(groups !== undefined ? { groups } : {}),
  };
}

/** An output pipe whose configuration is invalid cannot be verified: a failed check of its own. */
const checkResults = (checks: readonly ProjectCheck[]): WorkspaceTestResult[] =>
  checks.filter((c) => c.status === 'failed').map((c) => ({ name: c.name, pipe: c.pipe, file: '', stage: 'sink', status: 'failed', error: c.error, diffs: [], diffText: [] }));

/**
 * Run a project's tests (or, with `update`, rewrite its expected files). Throws HubError when it cannot load. Tests
 * whose pipes share nothing run apart, side by side, with the isolated-groups runner of `datahub test`
 * (main/cli/test-isolated.ts); every test says which pipes it ran and how long each took. With a `session` (the
 * loop's warm hub) the groups run one after another in it, as `datahub test --watch` runs them.
 */
export async function runWorkspaceTests(dir: string, options: WorkspaceTestOptions = {}, session?: TestSession): Promise<WorkspaceTestReport> {
  const started = Date.now();
  const update = options.update === true;
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  const { specs, only } = selectSpecs(dir, options.names);
  const nodeDir = workspaceNodeDir(dir);
  const groups = planGroups(nodeDir, specs, only);
  if (groups.length > 1 || session !== undefined) {
    const how = { maxRounds, update, checks: update ? undefined : specs };
    const run = session !== undefined ? await runWarm(session, groups, how) : await runIsolated(dir, nodeDir, groups, how);
    const { pipes } = projectPipes(nodeDir);
    const tests = specs.map((spec) => resultOf(run.results.get(spec.name)!, testPipes(pipes, spec, run.pipes)));
    tests.push(...checkResults(run.checks));
    return reportOf(update, started, run, tests, run.groups.map((g) => ({ tests: g.tests, pipes: g.pipes.map((p) => p.pipe), ms: g.ms })));
  }
  const run = await runProject(dir, { maxRounds, ...(only !== undefined ? { only } : {}) });
  try {
    const tests: WorkspaceTestResult[] = [];
    const published = publishedOutput(run.hub);
    const effective = new Map(run.hub.pipes.ids().map((id) => [id, effectivePipeConfig(run.hub.pipes.require(id))]));
    for (const spec of specs) {
      const pipe = run.pipes.find((p) => p.pipe === spec.pipe);
      const r = await runTest(run.hub, run.nodeDir, spec, { update, pipeError: pipe?.status === 'failed' ? pipe.error : null, published });
      tests.push(resultOf(r, testPipes(effective, spec, run.pipes)));
    }
    if (!update) tests.push(...checkResults(projectChecks(run.hub, specs)));
    return reportOf(update, started, run, tests);
  } finally {
    run.close();
  }
}

/** An error of a run as the `{error, detail}` the API answers: a HubError keeps its status, anything else is a 500. */
export function failureOf(e: unknown): WorkspaceTestFailure {
  if (e instanceof HubError) return { status: e.status, error: e.message, detail: e.detail ?? null };
  return { status: 500, error: 'the test run crashed', detail: e instanceof Error ? e.message : String(e) };
}

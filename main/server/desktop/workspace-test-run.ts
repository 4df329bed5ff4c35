// One `datahub test` run as data instead of printed lines: the same project runner and test comparison as the CLI
// (main/cli/project.ts), returning per-test results with their per-entity diffs. Runs in a worker thread
// (workspace-test-worker.ts) so a run of several seconds never holds up the host's event loop.
import { DEFAULT_MAX_ROUNDS, runProject } from '../../../hub-core/project/index.js';
import { formatDiffs, projectChecks, readTestSpecs, runTest, type TestSpec } from '../../../hub-core/project/index.js';
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

/** Run a project's tests (or, with `update`, rewrite its expected files). Throws HubError when it cannot load. */
export async function runWorkspaceTests(dir: string, options: WorkspaceTestOptions = {}): Promise<WorkspaceTestReport> {
  const started = Date.now();
  const update = options.update === true;
  const { specs, only } = selectSpecs(dir, options.names);
  const run = await runProject(dir, { maxRounds: options.maxRounds ?? DEFAULT_MAX_ROUNDS, ...(only !== undefined ? { only } : {}) });
  try {
    const tests: WorkspaceTestResult[] = [];
    const published = publishedOutput(run.hub);
    for (const spec of specs) {
      const pipe = run.pipes.find((p) => p.pipe === spec.pipe);
      const r = await runTest(run.hub, run.nodeDir, spec, { update, pipeError: pipe?.status === 'failed' ? pipe.error : null, published });
      tests.push({ name: spec.name, pipe: spec.pipe, file: spec.file, stage: spec.stage, status: r.status, error: r.error, diffs: r.diffs, diffText: formatDiffs(r.diffs) });
    }
    // An output pipe whose configuration is invalid cannot be verified: a failed check of its own.
    if (!update) {
      for (const c of projectChecks(run.hub, specs)) {
        if (c.status === 'failed') tests.push({ name: c.name, pipe: c.pipe, file: '', stage: 'sink', status: 'failed', error: c.error, diffs: [], diffText: [] });
      }
    }
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
    };
  } finally {
    run.close();
  }
}

/** An error of a run as the `{error, detail}` the API answers: a HubError keeps its status, anything else is a 500. */
export function failureOf(e: unknown): WorkspaceTestFailure {
  if (e instanceof HubError) return { status: e.status, error: e.message, detail: e.detail ?? null };
  return { status: 500, error: 'the test run crashed', detail: e instanceof Error ? e.message : String(e) };
}

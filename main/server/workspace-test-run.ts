// One `datahub test` run as data instead of printed lines: the same project runner and test comparison as the CLI
// (main/cli/project.ts), returning per-test results with their per-entity diffs. Runs in a worker thread
// (workspace-test-worker.ts) so a run of several seconds never holds up the host's event loop.
import { DEFAULT_MAX_ROUNDS, runProject } from '../../hub-core/project-runner.js';
import { formatDiffs, projectChecks, readTestSpecs, runTest } from '../../hub-core/project-test.js';
import { publishedOutput } from './published-output.js';
import { HubError } from '../../hub-core/errors.js';
import type { WorkspaceTestReport, WorkspaceTestResult } from '../../hub-core/desktop-types.js';

export type { WorkspaceTestReport, WorkspaceTestResult };

export interface WorkspaceTestFailure {
  status: number;
  error: string;
  detail: string | null;
}

/** Run a project's tests (or, with `update`, rewrite its expected files). Throws HubError when it cannot load. */
export async function runWorkspaceTests(dir: string, options: { update?: boolean; maxRounds?: number } = {}): Promise<WorkspaceTestReport> {
  const started = Date.now();
  const update = options.update === true;
  const run = await runProject(dir, { maxRounds: options.maxRounds ?? DEFAULT_MAX_ROUNDS });
  try {
    const specs = readTestSpecs(run.nodeDir);
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

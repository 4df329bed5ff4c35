// `datahub test --watch` runs the tests a save affects in a hub it keeps between saves (hub-core/project/test-session.ts):
// no hub to start, no project to load, the compiled configuration of every unchanged pipe reused. The files are read
// again first, and each group of tests with no pipe or dataset in common runs on its own (its pipes afresh, their own
// rounds), one after another, so its result is the one `datahub test` gives in a fresh hub.

import type { ProjectCheck, TestGroup, TestResult, TestSpec } from '../../hub-core/project/index.js';
import type { TestSession } from '../../hub-core/project/index.js';
import type { IsolatedRun } from './test-isolated.js';

export async function runWarm(session: TestSession, groups: readonly TestGroup[], options: { maxRounds: number; update: boolean; checks: TestSpec[] | undefined }): Promise<IsolatedRun> {
  session.refresh();
  const results = new Map<string, TestResult>();
  const outcomes: IsolatedRun['groups'] = [];
  for (const g of groups) {
    const run = await session.runGroup(g.pipes, g.tests, options);
    for (const r of run.results) results.set(r.spec.name, r);
    outcomes.push({ pipes: run.pipes, tests: g.tests.map((t) => t.name), rounds: run.rounds, converged: run.converged, ms: run.ms, cpuMs: run.cpuMs });
  }
  const checks: ProjectCheck[] = options.checks === undefined ? [] : session.checks(options.checks);
  return {
    groups: outcomes,
    pipes: outcomes.flatMap((o) => o.pipes),
    rounds: Math.max(0, ...outcomes.map((o) => o.rounds)),
    converged: outcomes.every((o) => o.converged),
    results,
    checks,
    parallel: 1,
    workerCpuMs: [],
    pipeFile: (id) => session.pipeFile(id),
  };
}

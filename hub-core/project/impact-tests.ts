// Which of a workspace's tests (node/expected/*.test.json) a draft pipe configuration would make start or stop
// failing: the tests of the pipe and of the pipes downstream of it are run the way `datahub test --pipe` runs them
// (project-runner.ts: a fresh temporary hub per run, the upstream closure only; project-test.ts judges), once on the
// workspace's files and once with the draft in place of the pipe's file.

import type { Hub } from '../hub.js';
import type { ConfigEntity } from '../config/index.js';
import { runProject, DEFAULT_MAX_ROUNDS } from './project-runner.js';
import { readTestSpecs, runTest, type TestSpec } from './project-test.js';
import { readConfigFiles } from '../config/index.js';
import { workspaceNodeDir } from './workspace.js';
import { downstreamPipes, type ImpactTest, type ImpactTests, type TestStatus } from '../preview/index.js';

export type { ImpactTest, ImpactTests };
import { HubError } from '../base/index.js';

function message(e: unknown): string {
  if (e instanceof HubError) return e.detail ? `${e.message}: ${e.detail}` : e.message;
  return e instanceof Error ? e.message : String(e);
}

/** Run the selected tests on the project, with `replace` in place of the files' pipe configurations. */
async function judge(dir: string, specs: readonly TestSpec[], replace: ConfigEntity[]): Promise<Map<string, { status: TestStatus; error: string | null; diffs: number }>> {
  const only = [...new Set(specs.map((s) => s.pipe))];
  const run = await runProject(dir, { maxRounds: DEFAULT_MAX_ROUNDS, only, replace });
  try {
    const out = new Map<string, { status: TestStatus; error: string | null; diffs: number }>();
    for (const spec of specs) {
      const pipe = run.pipes.find((p) => p.pipe === spec.pipe);
      const r = await runTest(run.hub, run.nodeDir, spec, { pipeError: pipe?.status === 'failed' ? pipe.error : null });
      out.set(spec.name, { status: r.status, error: r.error, diffs: r.diffs.length });
    }
    return out;
  } finally {
    run.close();
  }
}

/** The tests a draft of `pipeId` may turn (those of the pipe and of the pipes downstream), or why none is judged. */
export function testsToJudge(hub: Hub, dir: string | undefined, pipeId: string, draft: ConfigEntity): { names: string[] } | { reason: string } {
  if (dir === undefined) return { reason: 'no workspace is open, so there are no expected/*.test.json files to judge' };
  const nodeDir = workspaceNodeDir(dir);
  if (!readConfigFiles(nodeDir).entities.some((e) => e.entity.type === 'pipe' && e.entity._id === pipeId)) {
    return { reason: `the workspace files hold no pipe ${JSON.stringify(pipeId)}` };
  }
  let specs: TestSpec[];
  try {
    specs = readTestSpecs(nodeDir);
  } catch (e) {
    return { reason: `the tests cannot be read: ${message(e)}` };
  }
  const affected = new Set([pipeId, ...downstreamPipes(hub, pipeId, draftSinkDataset(hub, pipeId, draft)).map((d) => d.pipe)]);
  const names = specs.filter((s) => affected.has(s.pipe)).map((s) => s.name);
  return names.length > 0 ? { names } : { reason: `no test checks pipe ${pipeId} or a pipe downstream of it` };
}

/** Run the named tests on the workspace's files and again with the draft in place of its pipe's file. */
export async function judgeDraft(dir: string, names: readonly string[], draft: ConfigEntity): Promise<ImpactTests> {
  const none = (reason: string): ImpactTests => ({ judged: false, reason, tests: [] });
  try {
    const relevant = readTestSpecs(workspaceNodeDir(dir)).filter((s) => names.includes(s.name));
    const before = await judge(dir, relevant, []);
    const after = await judge(dir, relevant, [draft]);
    const tests = relevant.map((spec): ImpactTest => {
      const b = before.get(spec.name)!;
      const a = after.get(spec.name)!;
      const change: ImpactTest['change'] =
        a.status === 'ignored' ? 'ignored' : a.status === 'failed' ? (b.status === 'failed' ? 'still-failing' : 'starts-failing') : b.status === 'failed' ? 'stops-failing' : 'still-passing';
      return { name: spec.name, pipe: spec.pipe, before: b.status, after: a.status, change, error: a.error, diffs: a.diffs };
    });
    return { judged: true, reason: null, tests };
  } catch (e) {
    return none(`the workspace could not be run: ${message(e)}`);
  }
}

function draftSinkDataset(hub: Hub, pipeId: string, draft: ConfigEntity): string {
  const runtime = hub.pumps.runtimes.draft(draft);
  const ds = runtime.pipe.sink['dataset'];
  return typeof ds === 'string' ? ds : pipeId;
}

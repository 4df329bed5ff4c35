// `datahub test` and `datahub run`: run a project's pipes in a throwaway hub, then (test) compare every
// expected/<name>.test.json with the pipes' output. Exit codes: 0 ok, 1 a test failed, 2 usage or load error.

import { parseArgs } from 'node:util';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { workspaceNodeDir } from '../../hub-core/workspace.js';
import { DEFAULT_MAX_ROUNDS, runProject, type ProjectRun } from '../../hub-core/project-runner.js';
import { formatDiffs, readTestSpecs, runTest } from '../../hub-core/project-test.js';
import { HubError } from '../../hub-core/errors.js';

export const PROJECT_TEST_USAGE = `  datahub test [<project dir>] [--update] [--max-rounds <n>]
      Run the project's pipes (from its node/ folder, or the folder itself) in a temporary hub until nothing
      changes, then check every node/expected/<name>.test.json against its expected file. --update rewrites
      the expected files from the actual output instead. Exit code 1 when a test fails, 2 when the project
      cannot be loaded.
`;
export const PROJECT_RUN_USAGE = `  datahub run [<project dir>] [--max-rounds <n>]
      Run the project's pipes the same way and print what each pipe did, without verifying anything.
`;

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function summary(run: ProjectRun): void {
  out(`Ran ${run.pipes.length} pipe(s) in ${run.rounds} round(s)${run.converged ? '' : ` — still changing after ${run.rounds} rounds (--max-rounds)`}`);
  for (const p of run.pipes) {
    const what = p.status === 'skipped' ? `skipped: ${p.error ?? ''}` : `${p.runs} run(s), ${p.processed} processed, ${p.changes} changed${p.status === 'failed' ? `, FAILED: ${p.error ?? ''}` : ''}`;
    out(`  ${p.pipe}: ${what}`);
  }
}

/** Run `datahub test` or `datahub run`; resolves to the process exit code. */
export async function projectCommand(command: 'test' | 'run', args: string[]): Promise<number> {
  let dir: string;
  let update: boolean;
  let maxRounds: number;
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { update: { type: 'boolean' }, 'max-rounds': { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length > 1) throw new Error('give at most one project folder');
    update = values.update === true;
    if (update && command === 'run') throw new Error('--update belongs to "datahub test"');
    const rounds = values['max-rounds'];
    maxRounds = rounds === undefined ? DEFAULT_MAX_ROUNDS : /^\d{1,4}$/.test(rounds) ? Number(rounds) : NaN;
    if (!Number.isInteger(maxRounds) || maxRounds < 1) throw new Error('--max-rounds must be a positive integer');
    dir = resolve(positionals[0] ?? '.');
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
    const nodeDir = workspaceNodeDir(dir);
    if (!['pipes', 'node-metadata.conf.json'].some((f) => existsSync(join(nodeDir, f)))) {
      throw new Error(`${dir} is not a project: it has neither node/pipes/ nor node/node-metadata.conf.json`);
    }
  } catch (e) {
    process.stderr.write(`datahub ${command}: ${e instanceof Error ? e.message : String(e)} (run "datahub ${command} --help" for usage)\n`);
    return 2;
  }

  let run: ProjectRun;
  try {
    run = await runProject(dir, { maxRounds });
  } catch (e) {
    const detail = e instanceof HubError && e.detail ? `: ${e.detail}` : '';
    process.stderr.write(`datahub ${command}: ${e instanceof Error ? e.message : String(e)}${detail}\n`);
    return 2;
  }
  try {
    summary(run);
    if (command === 'run') return run.pipes.some((p) => p.status === 'failed') ? 1 : 0;
    let specs;
    try {
      specs = readTestSpecs(run.nodeDir);
    } catch (e) {
      const detail = e instanceof HubError && e.detail ? `: ${e.detail}` : '';
      process.stderr.write(`datahub test: ${e instanceof Error ? e.message : String(e)}${detail}\n`);
      return 2;
    }
    let passed = 0;
    let failed = 0;
    let ignored = 0;
    for (const spec of specs) {
      const pipe = run.pipes.find((p) => p.pipe === spec.pipe);
      const pipeError = pipe?.status === 'failed' ? pipe.error : null;
      const r = await runTest(run.hub, run.nodeDir, spec, { update, pipeError });
      if (r.status === 'ignored') {
        ignored++;
        out(`- ${spec.name} (ignored)`);
      } else if (r.status === 'passed') {
        passed++;
        out(`✔ ${spec.name}${update ? ` (wrote expected/${spec.file})` : ''}`);
      } else {
        failed++;
        out(`✘ ${spec.name}`);
        if (r.error) out(`    ${r.error}`);
        else {
          out(`    expected/${spec.file} vs the ${spec.stage} output of pipe ${spec.pipe}:`);
          for (const line of formatDiffs(r.diffs)) out(`    ${line}`);
        }
      }
    }
    out(`${passed} passed, ${failed} failed${ignored > 0 ? `, ${ignored} ignored` : ''}`);
    return failed > 0 ? 1 : 0;
  } finally {
    run.close();
  }
}

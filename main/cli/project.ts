// `datahub test` and `datahub run`: run a project's pipes in a throwaway hub, then (test) compare every
// expected/<name>.test.json with the pipes' output. Exit codes: 0 ok, 1 a test failed, 2 usage or load error.

import { parseArgs } from 'node:util';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { workspaceNodeDir } from '../../hub-core/project/index.js';
import { DEFAULT_MAX_ROUNDS, runProject, type PipeRunSummary, type ProjectRun } from '../../hub-core/project/index.js';
import { formatDiffs, projectChecks, readTestSpecs, runTest, type ProjectCheck, type TestResult, type TestSpec } from '../../hub-core/project/index.js';
import { effectivePipeConfig, WORKERS_ENV } from '../../hub-core/pipes/index.js';
import { planGroups, projectPipes, runIsolated, testPipes, type GroupOutcome, type IsolatedRun } from './test-isolated.js';
import { publishedOutput } from '../server/published-output.js';
import { junitReport, type JunitCase } from './junit.js';
import { HubError } from '../../hub-core/base/index.js';
import { compileGlob, literalAtom, type CharTest, type GlobAtom } from '../../hub-core/base/index.js';
import { setPipeWorkers } from './pipe-workers-option.js';
import { problemLine } from './config-location.js';
import { affectedTests, isConfigFilePath, type AffectedSelection, type AffectedTest } from '../../hub-core/project/index.js';
import { changedSince, GitError } from './git-changes.js';
import { watchTests } from './test-watch.js';
import { runWarm } from './test-warm.js';
import { TestSession } from '../../hub-core/project/index.js';
import { acceptTestOutput } from '../../hub-core/project/index.js';


/** Does a test's name match --filter: the text anywhere in it, or a whole-name pattern with * and ?. */
export function nameMatches(name: string, filter: string): boolean {
  if (!/[*?]/.test(filter)) return name.includes(filter);
  // As the regular expression `^filter$` with `*` as `.*` and `?` as `.` would (UTF-16 units, no line breaks),
  // but without backtracking (issue 32).
  const notLineBreak: CharTest = (c) => c !== '\n' && c !== '\r' && c !== '\u2028' && c !== '\u2029';
  const atoms = filter.split('').map((c): GlobAtom => (c === '*' ? { star: true, test: notLineBreak } : c === '?' ? { star: false, test: notLineBreak } : literalAtom(c)));
  return compileGlob(atoms, { unicode: false })(name);
}

let quiet = false;

function out(line: string): void {
  if (!quiet) process.stdout.write(`${line}\n`);
}

/** Where a failed pipe's problem is: "pipes/x.conf.json:12" (its file, and the line of the path its error names). */
/** What the summary of a run needs: a project run, or isolated groups' runs put together. */
type RunView = Pick<ProjectRun, 'pipes' | 'rounds' | 'converged' | 'nodeDir' | 'pipeFile'>;

function pipeLocation(run: RunView, p: PipeRunSummary): string | undefined {
  const file = run.pipeFile(p.pipe);
  if (file === undefined) return undefined;
  const line = problemLine(join(run.nodeDir, file), p.pipe, p.error ?? '');
  return line === undefined ? file : `${file}:${line}`;
}

function summary(run: RunView): void {
  out(`Ran ${run.pipes.length} pipe(s) in ${run.rounds} round(s)${run.converged ? '' : ` — still changing after ${run.rounds} rounds (--max-rounds)`}`);
  for (const p of run.pipes) {
    if (p.status === 'failed') p.location = pipeLocation(run, p) ?? null;
    const counts = `${p.runs} run(s), ${p.processed} processed, ${p.changes} changed`;
    const what =
      p.status === 'skipped'
        ? p.error?.startsWith('not run:') === true
          ? p.error
          : `skipped: ${p.error ?? ''}`
        : p.status === 'offline'
          ? `${p.runs > 0 ? `${counts}, ` : ''}offline: ${p.error ?? ''}`
          : `${counts}${p.status === 'failed' ? `, FAILED${p.location ? ` (${p.location})` : ''}: ${p.error ?? ''}` : ''}`;
    out(`  ${p.pipe}: ${what}`);
  }
}

/**
 * The last line of `datahub test`: the tests, then the pipes that failed during the run (named: they fail the command
 * even when no test reads them) or could not run, so that the line and the exit code always agree.
 */
function closingLine(passed: number, failed: number, ignored: number, pipesFailed: readonly PipeRunSummary[], notRun: readonly PipeRunSummary[]): string {
  const names = (list: readonly PipeRunSummary[]): string => {
    const shown = list.slice(0, 5).map((p) => p.pipe).join(', ');
    return list.length > 5 ? `${shown}, … ${list.length - 5} more` : shown;
  };
  const parts = [`${passed} passed`, `${failed} failed`];
  if (ignored > 0) parts.push(`${ignored} ignored`);
  let line = parts.join(', ');
  const pipes: string[] = [];
  if (pipesFailed.length > 0) pipes.push(`${pipesFailed.length} pipe(s) failed during the run (${names(pipesFailed)})`);
  if (notRun.length > 0) pipes.push(`${notRun.length} not run for an unset variable (${names(notRun)})`);
  if (pipes.length > 0) line += `; ${pipes.join(', ')}`;
  return line;
}

/** When a test's output is empty, say so first (with why, when its pipe failed or is offline), before what is missing. */
function emptyOutputLines(r: TestResult, pipe: PipeRunSummary | undefined): string[] {
  if (r.actual === undefined || r.actual.length > 0 || r.diffs.length === 0) return [];
  const expected = r.diffs.filter((d) => d.kind === 'missing').length;
  const why = pipe && pipe.status !== 'ok' && pipe.error ? ` (pipe ${pipe.pipe} is ${pipe.status === 'skipped' ? 'not run' : pipe.status}: ${pipe.error})` : '';
  return [`output empty: 0 of ${expected}${why}`];
}

/** What `datahub test`/`datahub run` was asked for (after the project folder is checked). */
export interface ProjectOptions {
  command: 'test' | 'run';
  dir: string;
  /** The file of a single-file export (relative to its folder), else undefined. */
  single: string | undefined;
  update: boolean;
  maxRounds: number;
  onlyPipes: string[] | undefined;
  filter: string | undefined;
  json: boolean;
  junit: string | undefined;
  changed: string | undefined;
  watch: boolean;
  accept: string | undefined;
  entity: string | undefined;
}

function loadError(command: string, e: unknown): number {
  const detail = e instanceof HubError && e.detail ? `: ${e.detail}` : '';
  process.stderr.write(`datahub ${command}: ${e instanceof Error ? e.message : String(e)}${detail}\n`);
  return 2;
}

/** The tests --pipe and --filter keep. */
export function pickTests(specs: readonly TestSpec[], o: Pick<ProjectOptions, 'onlyPipes' | 'filter'>): TestSpec[] {
  return specs.filter((s) => (o.onlyPipes === undefined || o.onlyPipes.includes(s.pipe)) && (o.filter === undefined || nameMatches(s.name, o.filter)));
}

/** The tests of a selection with why each is in it, one line per test. */
export function selectionLines(tests: readonly AffectedTest[]): string[] {
  return tests.map((t) => `  ${t.spec.name}: ${t.reasons.join('; ')}`);
}

/** Run `datahub test` or `datahub run`; resolves to the process exit code. */
export async function projectCommand(command: 'test' | 'run', args: string[]): Promise<number> {
  let o: ProjectOptions;
  try {
    const { values, positionals } = parseArgs({
      args,
      options: {
        update: { type: 'boolean' },
        'max-rounds': { type: 'string' },
        pipe: { type: 'string', multiple: true },
        filter: { type: 'string' },
        json: { type: 'boolean' },
        junit: { type: 'string' },
        workers: { type: 'string' },
        changed: { type: 'string' },
        watch: { type: 'boolean' },
        accept: { type: 'string' },
        entity: { type: 'string' },
      },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length > 1) throw new Error('give at most one project folder');
    const update = values.update === true;
    if (update && command === 'run') throw new Error('--update belongs to "datahub test"');
    for (const option of ['filter', 'json', 'junit', 'changed', 'watch', 'accept', 'entity'] as const) {
      if (values[option] !== undefined && command === 'run') throw new Error(`--${option} belongs to "datahub test"`);
    }
    const onlyPipes = values.pipe;
    if (onlyPipes?.some((p) => p.trim() === '')) throw new Error('--pipe needs a pipe id');
    const filter = values.filter;
    if (filter === '') throw new Error('--filter needs a text to match test names with');
    if (values.changed !== undefined && values.changed.trim() === '') throw new Error('--changed needs a git commit (a branch, tag or hash)');
    const watch = values.watch === true;
    if (watch) {
      for (const option of ['update', 'json', 'junit', 'changed', 'accept'] as const) {
        if (values[option] !== undefined) throw new Error(`--watch does not combine with --${option}`);
      }
    }
    if (values.accept !== undefined) {
      if (values.accept === '') throw new Error('--accept needs the name of a test');
      for (const option of ['update', 'json', 'junit', 'changed', 'pipe', 'filter'] as const) {
        if (values[option] !== undefined) throw new Error(`--accept does not combine with --${option}`);
      }
    }
    if (values.entity !== undefined && values.accept === undefined) throw new Error('--entity belongs to --accept');
    if (values.entity === '') throw new Error('--entity needs an entity id');
    if (values.workers !== undefined) setPipeWorkers(values.workers);
    const rounds = values['max-rounds'];
    const maxRounds = rounds === undefined ? DEFAULT_MAX_ROUNDS : /^\d{1,4}$/.test(rounds) ? Number(rounds) : NaN;
    if (!Number.isInteger(maxRounds) || maxRounds < 1) throw new Error('--max-rounds must be a positive integer');
    const dir = resolve(positionals[0] ?? '.');
    // A folder in the service's layout, or a single-file export (a JSON list of components; its folder's expected/
    // and test-env.json count).
    if (!existsSync(dir) || !(statSync(dir).isDirectory() || statSync(dir).isFile())) throw new Error(`${dir} is not a folder (nor a single-file export)`);
    const nodeDir = workspaceNodeDir(dir);
    if (statSync(dir).isDirectory() && !['pipes', 'node-metadata.conf.json'].some((f) => existsSync(join(nodeDir, f)))) {
      throw new Error(`${dir} is not a project: it has neither node/pipes/ nor node/node-metadata.conf.json`);
    }
    o = {
      command,
      dir,
      single: statSync(dir).isFile() ? basename(dir) : undefined,
      update,
      maxRounds,
      onlyPipes,
      filter,
      json: values.json === true,
      junit: values.junit === undefined ? undefined : resolve(values.junit),
      changed: values.changed,
      watch,
      accept: values.accept,
      entity: values.entity,
    };
  } catch (e) {
    process.stderr.write(`datahub ${command}: ${e instanceof Error ? e.message : String(e)} (run "datahub ${command} --help" for usage)\n`);
    return 2;
  }

  quiet = o.json;
  // A test run's pipes run on the hub's own thread unless --workers (or DATAHUB_PIPE_WORKERS) says otherwise: on test
  // data starting workers and handing batches over costs more than the pipes (the 6-pipe sample workspace: 1.2–1.3 s
  // with two workers, 0.6 s without; the real projects of clean-run: 13.4–13.8 s against 12.5–13.1 s).
  if (command === 'test' && process.env[WORKERS_ENV] === undefined) process.env[WORKERS_ENV] = '1';
  if (o.watch) {
    const nodeDir = workspaceNodeDir(o.dir);
    // One hub for the whole watch, kept warm between saves; a change of anything but pipes and tests starts a new one.
    let session: TestSession | undefined;
    try {
      return await watchTests({
        nodeDir,
        single: o.single,
        pick: (specs) => pickTests(specs, o),
        narrowed: o.onlyPipes !== undefined || o.filter !== undefined,
        run: (selected, selection, changed) => {
          // The first run, too, so that the first save finds the hub and the code warm.
          if (o.single !== undefined) return runAndReport(o, selected, selection);
          if (session === undefined || changed?.some((f) => !/^(pipes|expected)\//.test(f)) === true) {
            session?.close();
            session = new TestSession(o.dir, publishedOutput);
          }
          return runAndReport(o, selected, selection, session);
        },
        specs: () => readTestSpecs(nodeDir),
        print: out,
      });
    } finally {
      session?.close();
    }
  }
  if (o.accept !== undefined) return acceptCommand(o, o.accept, o.entity);
  // Which tests to check decides which pipes to run: those of the tests --changed, --pipe and --filter pick.
  let selected: TestSpec[] | undefined;
  let selection: AffectedSelection | undefined;
  if (command === 'test' && (o.onlyPipes !== undefined || o.filter !== undefined || o.changed !== undefined)) {
    const nodeDir = workspaceNodeDir(o.dir);
    try {
      selected = readTestSpecs(nodeDir);
      if (o.changed !== undefined) {
        const diff = changedSince(nodeDir, o.changed, (f) => isConfigFilePath(f, o.single));
        selection = affectedTests(nodeDir, { files: diff.files, before: diff.before }, o.single !== undefined ? { single: o.single } : {});
        const names = new Set(selection.tests.map((t) => t.spec.name));
        selected = selected.filter((s) => names.has(s.name));
        out(`${diff.files.length} file(s) changed since ${o.changed} (${diff.commit.slice(0, 12)}); ${selection.tests.length} test(s) affected${selection.tests.length > 0 ? ':' : ''}`);
        for (const line of selectionLines(selection.tests)) out(line);
        if (selection.unrelated.length > 0) out(`  (affecting no test: ${selection.unrelated.slice(0, 10).join(', ')}${selection.unrelated.length > 10 ? `, … ${selection.unrelated.length - 10} more` : ''})`);
      }
      const before = selected.length;
      selected = pickTests(selected, o);
      if (o.changed !== undefined && (o.onlyPipes !== undefined || o.filter !== undefined)) out(`--pipe/--filter keep ${selected.length} of them`);
      if (o.changed !== undefined && selected.length === 0) {
        out(before === 0 ? `No test is affected by the changes since ${o.changed}: nothing to run` : 'No affected test is left by --pipe/--filter: nothing to run');
        if (o.json) process.stdout.write(`${JSON.stringify({ passed: 0, failed: 0, ignored: 0, tests: [], selection: selectionJson(selection) }, null, 2)}\n`);
        return 0;
      }
    } catch (e) {
      if (e instanceof GitError) {
        process.stderr.write(`datahub test: ${e.message}\n`);
        return 2;
      }
      return loadError(command, e);
    }
    if (selected.length === 0) {
      process.stderr.write(`datahub test: no test matches${o.onlyPipes ? ` --pipe ${o.onlyPipes.join(', ')}` : ''}${o.filter !== undefined ? ` --filter ${JSON.stringify(o.filter)}` : ''}\n`);
      return 2;
    }
  }
  return runAndReport(o, selected, selection);
}

function selectionJson(selection: AffectedSelection | undefined): unknown {
  if (selection === undefined) return undefined;
  return { all: selection.all, changed_pipes: selection.changedPipes, unrelated: selection.unrelated, tests: selection.tests.map((t) => ({ name: t.spec.name, reasons: t.reasons })) };
}

/**
 * Run the project's pipes (only those the selected tests need, when there is a selection) and check the selected tests
 * (every test when undefined); prints the results and resolves to the exit code.
 */
export async function runAndReport(o: ProjectOptions, selected: TestSpec[] | undefined, selection?: AffectedSelection, session?: TestSession): Promise<number> {
  const { command, dir, update, maxRounds } = o;
  const started = Date.now();
  const only = selected ? [...new Set(selected.map((s) => s.pipe))] : o.onlyPipes;

  // Tests whose pipes share nothing run side by side, each group in a hub of its own (test-isolated.ts).
  if (command === 'test' && o.single === undefined) {
    const nodeDir = workspaceNodeDir(dir);
    let specs: TestSpec[] | undefined;
    try {
      specs = selected ?? readTestSpecs(nodeDir);
    } catch {
      specs = undefined; // the run below says what is wrong with them
    }
    const groups = specs === undefined ? [] : planGroups(nodeDir, specs, only);
    // The watch's own hub, kept warm between saves (test-warm.ts); else groups side by side when there are several.
    if (specs !== undefined && (groups.length > 1 || session !== undefined)) {
      let isolated: IsolatedRun;
      const checks = selected === undefined && !update ? specs : undefined;
      try {
        isolated = session !== undefined ? await runWarm(session, groups, { maxRounds, update, checks }) : await runIsolated(dir, nodeDir, groups, { maxRounds, update, checks });
      } catch (e) {
        return loadError(command, e);
      }
      const { pipes } = projectPipes(nodeDir);
      const how = session !== undefined ? 'one after another in the watch\'s hub' : 'side by side';
      return report(o, { ...isolated, nodeDir, how, pipeWorkers: { isolated_groups: groups.length, side_by_side: isolated.parallel } }, specs, selected, selection, started, {
        result: async (spec) => isolated.results.get(spec.name)!,
        checks: () => isolated.checks,
        testPipes: (spec) => testPipes(pipes, spec, isolated.pipes),
      });
    }
  }
  let run: ProjectRun;
  try {
    // The pipes of the selected tests: one a test names that is gone is that test's failure, not the run's.
    run = await runProject(dir, { maxRounds, ...(only !== undefined ? { only, onlyKnown: selected !== undefined && o.onlyPipes === undefined } : {}) });
  } catch (e) {
    const detail = e instanceof HubError && e.detail ? `: ${e.detail}` : '';
    process.stderr.write(`datahub ${command}: ${e instanceof Error ? e.message : String(e)}${detail}\n`);
    return 2;
  }
  try {
    summary(run);
    if (command === 'run') return run.pipes.some((p) => p.status === 'failed') ? 1 : 0;
    let specs: TestSpec[];
    try {
      specs = selected ?? readTestSpecs(run.nodeDir);
    } catch (e) {
      const detail = e instanceof HubError && e.detail ? `: ${e.detail}` : '';
      process.stderr.write(`datahub test: ${e instanceof Error ? e.message : String(e)}${detail}\n`);
      return 2;
    }
    const published = publishedOutput(run.hub);
    const hub = run.hub;
    const effective = new Map(hub.pipes.ids().map((id) => [id, effectivePipeConfig(hub.pipes.require(id))]));
    const ran = run.pipes;
    return await report(o, { ...run, pipeWorkers: hub.pumps.workers.status() }, specs, selected, selection, started, {
      result: (spec) => {
        const pipe = ran.find((p) => p.pipe === spec.pipe);
        const pipeError = pipe?.status === 'failed' ? pipe.error : null;
        const pipeNotRun = pipe?.status === 'skipped' && pipe.error?.startsWith('not run:') === true ? pipe.error : null;
        return runTest(hub, run.nodeDir, spec, { update, pipeError, pipeNotRun, published });
      },
      checks: (all) => projectChecks(hub, all),
      testPipes: (spec) => testPipes(effective, spec, ran),
    });
  } finally {
    run.close();
  }
}

/** How `report` gets a test's result, the project checks and the pipes a test ran. */
interface Judge {
  result(spec: TestSpec): Promise<TestResult>;
  checks(specs: TestSpec[]): ProjectCheck[];
  testPipes(spec: TestSpec): PipeRunSummary[];
}

/** Print (and write, with --junit/--json) the results of a test run; resolves to the exit code. */
async function report(
  o: ProjectOptions,
  run: RunView & { pipeWorkers: unknown; groups?: GroupOutcome[]; /** How the groups ran. */ how?: string },
  specs: TestSpec[],
  selected: TestSpec[] | undefined,
  selection: AffectedSelection | undefined,
  started: number,
  judge: Judge,
): Promise<number> {
  const { update, json, junit } = o;
    if (run.groups !== undefined) summary(run);
    if (run.groups !== undefined && run.groups.length > 1) out(`${run.groups.length} groups of tests with no pipe or dataset in common ran apart, ${run.how ?? 'side by side'}`);
    let passed = 0;
    let failed = 0;
    let ignored = 0;
    const results: { spec: TestSpec; result: TestResult; lines: string[] }[] = [];
    for (const spec of specs) {
      const pipe = run.pipes.find((p) => p.pipe === spec.pipe);
      const r = await judge.result(spec);
      const lines = r.status !== 'failed' ? [] : r.error ? [r.error] : [`expected/${spec.file} vs the ${spec.stage} output of pipe ${spec.pipe}:`, ...emptyOutputLines(r, pipe), ...formatDiffs(r.diffs)];
      results.push({ spec, result: r, lines });
      if (r.status === 'ignored') {
        ignored++;
        out(`- ${spec.name} (ignored)`);
      } else if (r.status === 'passed') {
        passed++;
        out(`✔ ${spec.name}${update ? ` (wrote expected/${spec.file})` : ''}`);
      } else {
        failed++;
        out(`✘ ${spec.name}`);
        for (const line of lines) out(`    ${line}`);
      }
    }
    // The project as a whole, when every test ran: output pipes that cannot be verified fail, untested ones warn.
    const checks = selected === undefined && !update ? judge.checks(specs) : [];
    for (const c of checks) {
      if (c.status === 'failed') {
        failed++;
        out(`✘ ${c.name}`);
        out(`    ${c.error}`);
      } else out(`! ${c.error}`);
    }
    const pipesFailed = run.pipes.filter((p) => p.status === 'failed');
    const pipesNotRun = run.pipes.filter((p) => p.status === 'skipped' && p.error?.startsWith('not run:') === true);
    const pipesOffline = run.pipes.filter((p) => p.status === 'offline');
    for (const p of pipesNotRun) out(`! pipe ${p.pipe} ${p.error ?? ''}`);
    if (pipesOffline.length > 0) out(`${pipesOffline.length} pipe(s) offline, needing outside systems (their reasons above): ${pipesOffline.map((p) => p.pipe).join(', ')}`);
    // A failed pipe whose own test failed is counted there already; the others are named on the closing line.
    const failedTests = new Set(results.filter((x) => x.result.status === 'failed').map((x) => x.spec.pipe));
    out(closingLine(passed, failed, ignored, pipesFailed.filter((p) => !failedTests.has(p.pipe)), pipesNotRun.filter((p) => !failedTests.has(p.pipe))));
    const seconds = (Date.now() - started) / 1000;
    if (junit !== undefined) {
      const cases: JunitCase[] = results.map(({ spec, result, lines }) => ({ name: spec.name, classname: `pipe ${spec.pipe}`, status: result.status, failure: lines, pipes: judge.testPipes(spec) }));
      for (const c of checks) if (c.status === 'failed') cases.push({ name: c.name, classname: `pipe ${c.pipe}`, status: 'failed', failure: [c.error] });
      writeFileSync(junit, junitReport('datahub test', cases, seconds));
      out(`JUnit report: ${junit}`);
    }
    if (json) {
      const report = {
        passed,
        failed,
        ignored,
        seconds,
        rounds: run.rounds,
        converged: run.converged,
        pipe_workers: run.pipeWorkers,
        pipes: run.pipes,
        ...(run.groups !== undefined ? { groups: run.groups.map((g) => ({ tests: g.tests, pipes: g.pipes.map((p) => p.pipe), rounds: g.rounds, converged: g.converged, ms: g.ms })) } : {}),
        pipes_failed: pipesFailed.map((p) => p.pipe),
        pipes_offline: pipesOffline.map((p) => p.pipe),
        pipes_not_run: pipesNotRun.map((p) => p.pipe),
        tests: results.map(({ spec, result }) => ({
          name: spec.name,
          pipe: spec.pipe,
          stage: spec.stage,
          file: `expected/${spec.file}`,
          status: result.status,
          error: result.error,
          diffs: result.diffs,
          pipes: judge.testPipes(spec).map((p) => ({ pipe: p.pipe, ms: p.ms ?? 0, runs: p.runs, status: p.status })),
        })),
        checks,
        ...(selection !== undefined ? { selection: selectionJson(selection) } : {}),
      };
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    }
    // A pipe that failed is an error of the project even when no test reads its output (the closing line names it).
    return failed > 0 || pipesFailed.length > 0 ? 1 : 0;
}

/**
 * `datahub test --accept <test> [--entity <id>]`: run the test's pipe (and those upstream), then write its actual
 * output, or the one entity, into its expected file; that file is the only one written. Exit 0 when written (or when
 * there was nothing to accept), 1 when the output cannot be trusted (the pipe failed), 2 for a usage or load error.
 */
async function acceptCommand(o: ProjectOptions, name: string, entity: string | undefined): Promise<number> {
  const nodeDir = workspaceNodeDir(o.dir);
  let spec: TestSpec | undefined;
  try {
    const specs = readTestSpecs(nodeDir);
    spec = specs.find((s) => s.name === name);
    if (spec === undefined) {
      process.stderr.write(`datahub test: no test named ${JSON.stringify(name)} (its tests: ${specs.map((s) => s.name).join(', ') || 'none'})\n`);
      return 2;
    }
  } catch (e) {
    return loadError('test', e);
  }
  const test: TestSpec = { ...spec, ignore: false };
  if (entity !== undefined && test.endpoint !== 'json' && test.endpoint !== 'excel') {
    process.stderr.write(`datahub test: test ${name} compares the ${test.endpoint} output as a whole; --entity needs a JSON test\n`);
    return 2;
  }
  let run: ProjectRun;
  try {
    run = await runProject(o.dir, { maxRounds: o.maxRounds, only: [test.pipe] });
  } catch (e) {
    return loadError('test', e);
  }
  try {
    const pipe = run.pipes.find((p) => p.pipe === test.pipe);
    const pipeError = pipe?.status === 'failed' ? pipe.error : null;
    const pipeNotRun = pipe?.status === 'skipped' && pipe.error?.startsWith('not run:') === true ? pipe.error : null;
    const done = await acceptTestOutput(run.hub, run.nodeDir, test, entity === undefined ? {} : { entity }, { pipeError, pipeNotRun, published: publishedOutput(run.hub) });
    if (test.endpoint !== 'json' && test.endpoint !== 'excel') {
      out(`Accepted the ${test.endpoint} output of pipe ${test.pipe} into ${done.file}`);
      return 0;
    }
    if (!done.written) {
      out(`Nothing to accept: ${done.file} already holds ${entity === undefined ? 'the output' : `entity ${entity} as output`} of pipe ${test.pipe}`);
      return 0;
    }
    const counts = (kind: string): number => done.diffs.filter((d) => d.kind === kind).length;
    const what = entity === undefined ? `the output of pipe ${test.pipe}` : `entity ${entity} of the output of pipe ${test.pipe}`;
    out(`Accepted ${what} into ${done.file}${done.created ? ' (a new file)' : `: ${counts('changed')} changed, ${counts('unexpected')} added, ${counts('missing')} removed`}`);
    return 0;
  } catch (e) {
    // A request that does not fit the test is a usage error; an output that cannot be trusted, a failure.
    if (e instanceof HubError && e.status === 400) {
      process.stderr.write(`datahub test: ${e.message}\n`);
      return 2;
    }
    const why = e instanceof HubError && e.status === 409 ? (e.detail ?? e.message) : e instanceof Error ? e.message : String(e);
    process.stderr.write(`datahub test: nothing accepted: ${why}\n`);
    return 1;
  } finally {
    run.close();
  }
}

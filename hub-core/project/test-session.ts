// A hub kept for runs of a project's tests, one group of tests after another: an isolated group's worker thread
// (main/cli/test-group-worker.ts) and `datahub test --watch`, which keeps it warm between saves. It holds only the
// pipes of the groups run so far (with the systems they name): a group's pipes are loaded when the group comes. A run
// of a group in a session that ran before starts its pipes afresh (reset, their datasets deleted) after the files are
// read again, so its result is the one a fresh hub would give; what stays warm is the hub itself and the compiled
// configuration of every pipe that did not change.

import type { Hub } from '../hub.js';
import type { PipeRunSummary } from '../pipes/index.js';
import { loadProject, projectRunOptions } from './project-runner.js';
import { projectChecks, runTest, type ProjectCheck, type PublishedOutput, type TestResult, type TestSpec } from './project-test.js';

export interface GroupRun {
  rounds: number;
  converged: boolean;
  pipes: PipeRunSummary[];
  results: TestResult[];
  /** Wall time and the CPU time of this thread, in milliseconds. */
  ms: number;
  cpuMs: number;
}

const threadCpu = (since?: NodeJS.CpuUsage): number => {
  const used = process.threadCpuUsage(since);
  return Math.round((used.user + used.system) / 1000);
};

export class TestSession {
  private loaded: ReturnType<typeof loadProject> | undefined;
  /** The pipes loaded so far (all: every pipe was needed). */
  private pipesLoaded: Set<string> | 'all' = new Set();
  /** Groups have run in this hub: the next run resets its pipes first. */
  private ran = false;

  constructor(
    readonly dir: string,
    /** The published output (csv, xml) of a hub's pipes, for tests with an `endpoint`; the host supplies it. */
    private readonly published: (hub: Hub) => PublishedOutput,
  ) {}

  get hub(): Hub | undefined {
    return this.loaded?.hub;
  }

  /** The file (relative to the node folder) a pipe was read from. */
  pipeFile(id: string): string | undefined {
    return this.loaded?.workspace.fileOf('pipe', id);
  }

  /** Load these pipes too (every pipe when undefined); a project that cannot be loaded throws HubError (400). */
  include(pipes: readonly string[] | undefined): void {
    if (this.pipesLoaded === 'all') return;
    const wanted = pipes === undefined ? undefined : new Set([...this.pipesLoaded, ...pipes]);
    if (wanted !== undefined && this.loaded !== undefined && wanted.size === this.pipesLoaded.size) return;
    const options = wanted === undefined ? {} : { pipes: wanted };
    if (this.loaded === undefined) this.loaded = loadProject(this.dir, options);
    else this.loaded.workspace.load(options);
    this.pipesLoaded = wanted ?? 'all';
  }

  /**
   * Read the files again (the pipes loaded so far, changed ones replaced) and delete every dataset no pipe writes any
   * more (a pipe removed or renamed): a fresh hub would not have it.
   */
  refresh(): void {
    const loaded = this.loaded;
    if (loaded === undefined) return;
    const load = loaded.workspace.load(this.pipesLoaded === 'all' ? {} : { pipes: this.pipesLoaded });
    if (load.problems.length > 0) {
      // As a fresh load would say: the project cannot be run as it is.
      const pipes = this.pipesLoaded === 'all' ? undefined : [...this.pipesLoaded];
      this.close();
      this.include(pipes);
    }
    const { hub } = this.loaded!;
    const written = new Set<string>();
    for (const id of hub.pipes.ids()) {
      const sink = hub.pipes.effective(id).sink;
      if (sink.type === 'dataset' && typeof sink['dataset'] === 'string') written.add(sink['dataset']);
    }
    for (const name of hub.datasets.names()) if (!written.has(name)) hub.datasets.delete(name);
  }

  /** Run a group's pipes until they settle (at most `maxRounds` rounds), then its tests. */
  async runGroup(pipes: readonly string[], tests: readonly TestSpec[], options: { maxRounds: number; update: boolean }): Promise<GroupRun> {
    const began = performance.now();
    const cpu = process.threadCpuUsage();
    this.include(pipes);
    const { hub, workspace } = this.loaded!;
    // A hub that ran before: the group's pipes start afresh, their datasets (and their input pipes') deleted.
    const afresh = this.ran ? { resetPipesAndDeleteSinkDatasets: true, deleteInputDatasets: true } : {};
    this.ran = true;
    const run = hub.runAll.start({ ...projectRunOptions(options.maxRounds, pipes), ...afresh });
    await run.done;
    const published = this.published(hub);
    const results: TestResult[] = [];
    for (const spec of tests) {
      const pipe = run.pipes.find((p) => p.pipe === spec.pipe);
      const pipeError = pipe?.status === 'failed' ? pipe.error : null;
      const pipeNotRun = pipe?.status === 'skipped' && pipe.error?.startsWith('not run:') === true ? pipe.error : null;
      results.push(await runTest(hub, workspace.nodeDir, spec, { update: options.update, pipeError, pipeNotRun, published }));
    }
    return { rounds: run.rounds, converged: run.converged, pipes: run.pipes, results, ms: Math.round(performance.now() - began), cpuMs: threadCpu(cpu) };
  }

  /** The checks of the project as a whole (output pipes no test names, or that cannot be verified): every pipe loaded. */
  checks(specs: readonly TestSpec[]): ProjectCheck[] {
    this.include(undefined);
    return projectChecks(this.loaded!.hub, specs);
  }

  close(): void {
    this.loaded?.close();
    this.loaded = undefined;
    this.pipesLoaded = new Set();
    this.ran = false;
  }
}

/** The CPU time of this thread since it started, in milliseconds. */
export function threadCpuMs(): number {
  return threadCpu();
}

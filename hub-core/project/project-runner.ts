// Runs a project (its node/ folder) in a throwaway hub: load the configuration and test env into a fresh data dir,
// then pump every pipe, upstream pipes first, round after round until a whole round changes nothing (the run-all
// engine of run-all-pipes.ts, which also serves POST /pipes/run-all-pipes). What a pipe produces at each stage is
// computed by pipe-stages.ts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hub } from '../hub.js';
import { Workspace, type WorkspaceLoad } from './workspace.js';
import { HubError } from '../base/index.js';
import type { ConfigEntity } from '../config/index.js';
import { RUN_ALL_DEFAULTS, type PipeRunSummary, type RunAllOptions } from '../pipes/index.js';

export { pipeRunOrder, type PipeRunSummary } from '../pipes/index.js';

export const DEFAULT_MAX_ROUNDS = 20;

export interface ProjectRun {
  hub: Hub;
  nodeDir: string;
  load: WorkspaceLoad;
  rounds: number;
  /** The last round changed nothing. */
  converged: boolean;
  /** Per pipe, in the order they were run. */
  pipes: PipeRunSummary[];
  /** The file (relative to nodeDir) a pipe was read from. */
  pipeFile(id: string): string | undefined;
  /** Close the hub and remove its temporary data dir. */
  close(): void;
}

/**
 * Load a project into a fresh hub on a temporary data dir; throws HubError (400) when the project cannot load. With
 * `pipes`, only those pipes (and the systems they name) go into the hub (Workspace.load).
 */
export function loadProject(dir: string, options: { pipes?: ReadonlySet<string> } = {}): { hub: Hub; workspace: Workspace; load: WorkspaceLoad; close(): void } {
  const dataDir = mkdtempSync(join(tmpdir(), 'datahub-project-'));
  const hub = new Hub(dataDir, { durable: false });
  const close = (): void => {
    hub.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const workspace = new Workspace(hub, dir);
    const load = workspace.load(options);
    if (load.problems.length > 0) {
      throw new HubError(400, `the project ${workspace.nodeDir} cannot be loaded`, load.problems.map((p) => `${p.file}: ${p.msg}`).join('; '));
    }
    return { hub, workspace, load, close };
  } catch (e) {
    close();
    throw e;
  }
}

/** How a project's pipes are run: a fresh hub, nothing to reset; every pipe's failure counts; the first round that changes nothing ends it. */
export function projectRunOptions(maxRounds: number, only: readonly string[] | undefined): RunAllOptions {
  return {
    ...RUN_ALL_DEFAULTS,
    extraZeroRuns: 1,
    maxRuns: maxRounds,
    maxRunTime: null,
    resetPipesAndDeleteSinkDatasets: false,
    deleteInputDatasets: false,
    checkInputPipes: true,
    ...(only !== undefined ? { only } : {}),
  };
}

/** Load the project and run its pipes until nothing changes (at most `maxRounds` rounds), with the run-all engine. */
export async function runProject(
  dir: string,
  options: {
    maxRounds?: number;
    only?: readonly string[];
    /** Pipes of `only` that the project lacks are left out (a test naming a pipe that is gone) instead of an error. */
    onlyKnown?: boolean;
    /** Pipe configurations that replace the files' (a draft being tried). */
    replace?: readonly ConfigEntity[];
  } = {},
): Promise<ProjectRun> {
  const loaded = loadProject(dir);
  const { hub } = loaded;
  try {
    if (options.replace !== undefined && options.replace.length > 0) hub.pipes.save(hub.pipes.validate(options.replace, true));
    const unknown = (options.only ?? []).filter((id) => hub.pipes.get(id) === undefined);
    const only = options.onlyKnown === true ? options.only?.filter((id) => hub.pipes.get(id) !== undefined) : options.only;
    if (unknown.length > 0 && options.onlyKnown !== true) throw new HubError(400, `no pipe ${unknown.map((id) => JSON.stringify(id)).join(', ')} in the project`, `its pipes: ${hub.pipes.ids().join(', ')}`);
    const run = hub.runAll.start(projectRunOptions(options.maxRounds ?? DEFAULT_MAX_ROUNDS, only));
    await run.done;
    return {
      hub,
      nodeDir: loaded.workspace.nodeDir,
      load: loaded.load,
      rounds: run.rounds,
      converged: run.converged,
      pipes: run.pipes,
      pipeFile: (id) => loaded.workspace.fileOf('pipe', id),
      close: loaded.close,
    };
  } catch (e) {
    loaded.close();
    throw e;
  }
}

// Runs a project (its node/ folder) in a throwaway hub: load the configuration and test env into a fresh data dir,
// then pump every pipe, upstream pipes first, round after round until a whole round changes nothing. What a pipe
// produces at each stage is computed by pipe-stages.ts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hub } from './hub.js';
import { Workspace, type WorkspaceLoad } from './workspace.js';
import { effectivePipeConfig, pipeDependencies, type EffectivePipe } from './pipe-config.js';
import { isPumpable } from './pump-runner.js';
import { HubError } from './errors.js';
import { isJsonObject, type JsonValue } from './json.js';

export const DEFAULT_MAX_ROUNDS = 20;

export interface PipeRunSummary {
  pipe: string;
  /** Runs of the pipe over all rounds (0: the hub cannot pump it). */
  runs: number;
  processed: number;
  changes: number;
  status: 'ok' | 'failed' | 'skipped';
  /** The reason of the last failure, or why the pipe was skipped. */
  error: string | null;
}

export interface ProjectRun {
  hub: Hub;
  nodeDir: string;
  load: WorkspaceLoad;
  rounds: number;
  /** The last round changed nothing. */
  converged: boolean;
  /** Per pipe, in the order they were run. */
  pipes: PipeRunSummary[];
  /** Close the hub and remove its temporary data dir. */
  close(): void;
}

/** Load a project into a fresh hub on a temporary data dir; throws HubError (400) when the project cannot load. */
export function loadProject(dir: string): { hub: Hub; workspace: Workspace; load: WorkspaceLoad; close(): void } {
  const dataDir = mkdtempSync(join(tmpdir(), 'datahub-project-'));
  const hub = new Hub(dataDir);
  const close = (): void => {
    hub.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const workspace = new Workspace(hub, dir);
    const load = workspace.load();
    if (load.problems.length > 0) {
      throw new HubError(400, `the project ${workspace.nodeDir} cannot be loaded`, load.problems.map((p) => `${p.file}: ${p.msg}`).join('; '));
    }
    return { hub, workspace, load, close };
  } catch (e) {
    close();
    throw e;
  }
}

/** Pipe ids ordered so that a pipe reading (or hopping into) a dataset comes after the pipes writing it. */
export function pipeRunOrder(pipes: ReadonlyMap<string, EffectivePipe>): string[] {
  const writers = new Map<string, string[]>();
  for (const [id, p] of pipes) {
    const ds = p.sink.type === 'dataset' && typeof p.sink['dataset'] === 'string' ? p.sink['dataset'] : undefined;
    if (ds !== undefined) writers.set(ds, [...(writers.get(ds) ?? []), id]);
  }
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string): void => {
    if (state.has(id)) return; // done, or a cycle: the repeated rounds settle cycles
    state.set(id, 'visiting');
    const p = pipes.get(id)!;
    for (const ds of [...pipeDependencies(p), ...transformDatasets(p['transform'])].sort()) {
      for (const w of writers.get(ds) ?? []) if (w !== id) visit(w);
    }
    state.set(id, 'done');
    order.push(id);
  };
  for (const id of [...pipes.keys()].sort()) visit(id);
  return order;
}

/** Datasets a transform or source reaches into: `datasets` of hops specs and multi-dataset sources ("name alias"). */
function transformDatasets(value: JsonValue | undefined): string[] {
  const out: string[] = [];
  const walk = (v: JsonValue | undefined): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isJsonObject(v)) {
      const ds = v['datasets'];
      if (Array.isArray(ds)) for (const d of ds) if (typeof d === 'string') out.push(d.trim().split(/\s+/)[0]!);
      // A source that names one dataset (for example a conditional source's dataset alternative).
      if (typeof v['dataset'] === 'string' && v['type'] === 'dataset') out.push(v['dataset']);
      Object.values(v).forEach(walk);
    }
  };
  walk(value);
  return out;
}

/** Wait for a pipe's runs to end. */
async function settled(hub: Hub, id: string): Promise<void> {
  while (hub.pumps.isRunning(id)) await new Promise((r) => setTimeout(r, 2));
}

/** Load the project and run its pipes until nothing changes (at most `maxRounds` rounds). */
export async function runProject(dir: string, options: { maxRounds?: number } = {}): Promise<ProjectRun> {
  const loaded = loadProject(dir);
  const { hub } = loaded;
  try {
    const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
    const effective = new Map<string, EffectivePipe>();
    for (const id of hub.pipes.ids()) effective.set(id, effectivePipeConfig(hub.pipes.require(id)));
    const order = pipeRunOrder(effective);
    const summaries = new Map<string, PipeRunSummary>();
    for (const id of order) {
      const p = effective.get(id)!;
      const pumpable = isPumpable(p);
      summaries.set(id, {
        pipe: id,
        runs: 0,
        processed: 0,
        changes: 0,
        status: pumpable ? 'ok' : 'skipped',
        error: pumpable ? null : `this hub does not pump a ${p.source.type} source into a ${p.sink.type} sink`,
      });
    }
    // A pipe with a dataset source reads only what is new, so it runs every round. A pipe whose source is read
    // another way runs again only when a dataset its source or transform reaches into has changed since its last run:
    // otherwise its output cannot differ, and values like ["now"] would keep the rounds going for ever.
    const hopMarks = new Map<string, string>();
    const marks = (names: readonly string[]): string => JSON.stringify(names.map((n) => hub.datasets.get(n)?.row().max_updated ?? -1));
    const allMarks = (): string => marks(hub.datasets.names().filter((n) => !n.startsWith('system:')).sort());
    let rounds = 0;
    let converged = false;
    while (rounds < maxRounds && !converged) {
      rounds++;
      const before = allMarks();
      for (const id of order) {
        const s = summaries.get(id)!;
        if (s.status === 'skipped') continue;
        const p = effective.get(id)!;
        // A source read whole (embedded, merge, union, conditional, ...) reruns when what it reads or joins changed.
        const hops = [...transformDatasets(p['transform']), ...transformDatasets(p.source)];
        if (p.source.type !== 'dataset' && hopMarks.get(id) === marks(hops)) continue;
        await settled(hub, id);
        hub.pumps.runner.start(id, 'incremental', 'manual');
        await settled(hub, id);
        hopMarks.set(id, marks(hops));
        const last = hub.pumps.state.get(id).lastRun;
        s.runs++;
        if (!last) continue;
        s.processed += last.processed;
        s.changes += last.changes;
        if (last.status === 'failed') {
          s.status = 'failed';
          s.error = last.reason_why_stopped ?? 'the run failed';
        } else {
          s.status = 'ok';
          s.error = null;
        }
      }
      converged = allMarks() === before;
    }
    return {
      hub,
      nodeDir: loaded.workspace.nodeDir,
      load: loaded.load,
      rounds,
      converged,
      pipes: order.map((id) => summaries.get(id)!),
      close: loaded.close,
    };
  } catch (e) {
    loaded.close();
    throw e;
  }
}

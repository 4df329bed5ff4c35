// Runs a project (its node/ folder) in a throwaway hub: load the configuration and test env into a fresh data dir,
// then pump every pipe, upstream pipes first, round after round until a whole round changes nothing. Also computes
// what a pipe would produce at each stage (source, before/after transforms, sink) without writing anything.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hub } from './hub.js';
import { Workspace, type WorkspaceLoad } from './workspace.js';
import { effectivePipeConfig, pipeDependencies, type EffectivePipe } from './pipe-config.js';
import { isPumpable } from './pump-runner.js';
import { SOURCES } from './sources/index.js';
import { compileTransform } from './dtl/transform.js';
import { DatasetLookup } from './dataset-lookup.js';
import { HubError, badRequest } from './errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from './json.js';
import type { Dataset, ReadOptions } from './dataset-log.js';

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

export const PIPE_STAGES = ['source', 'before-transforms', 'after-transforms', 'sink'] as const;
export type PipeStage = (typeof PIPE_STAGES)[number];

export interface StageOptions {
  /** At most this many entities. */
  limit?: number;
  /** Where to start: the source's position (a dataset offset), or for a dataset sink an offset in the sink dataset. */
  since?: string;
}

/**
 * For the `sink` stage of a pipe with a dataset sink: the sink dataset (undefined while it does not exist) and how to
 * read it (latest versions, deletes included), so that a caller can stream it. Undefined for any other stage or sink.
 */
export function sinkDatasetRead(hub: Hub, pipeId: string, stage: PipeStage, options: StageOptions = {}): { dataset: Dataset | undefined; read: ReadOptions } | undefined {
  const pipe = effectivePipeConfig(hub.pipes.require(pipeId));
  if (stage !== 'sink' || pipe.sink.type !== 'dataset') return undefined;
  const name = pipe.sink['dataset'];
  let since: number | undefined;
  if (options.since !== undefined && options.since !== '') {
    since = Number(options.since);
    if (!Number.isInteger(since) || since < 0) throw badRequest(`invalid since value ${JSON.stringify(options.since)}`, 'a dataset sink is read from an integer offset');
  }
  const read: ReadOptions = { history: false, deleted: true, ...(since !== undefined ? { since } : {}), ...(options.limit !== undefined ? { limit: options.limit } : {}) };
  return { dataset: typeof name === 'string' ? hub.datasets.get(name) : undefined, read };
}

/**
 * The entities of a pipe at one stage, computed by reading its source and running its transform; nothing is written.
 * A dataset sink's `sink` stage is what the sink dataset holds (latest versions, deletes included).
 */
export async function pipeStageEntities(hub: Hub, pipeId: string, stage: PipeStage, options: StageOptions = {}): Promise<JsonObject[]> {
  const config = hub.pipes.require(pipeId);
  const pipe = effectivePipeConfig(config);
  const limit = options.limit ?? Infinity;
  const out: JsonObject[] = [];
  if (limit <= 0) return out;
  const sink = sinkDatasetRead(hub, pipeId, stage, options);
  if (sink) {
    if (!sink.dataset) return out;
    for (const page of sink.dataset.readJson(sink.read)) for (const text of page) out.push(JSON.parse(text) as JsonObject);
    return out;
  }
  const factory = SOURCES.get(pipe.source.type);
  if (!factory) throw badRequest(`this hub cannot read a ${pipe.source.type} source`, `readable source types: ${[...SOURCES.keys()].join(', ')}`);
  const source = factory(pipe, { datasets: hub.datasets, env: (name) => hub.env.get(name) });
  let transform: ReturnType<typeof compileTransform> | undefined;
  if ((stage === 'after-transforms' || stage === 'sink') && config['transform'] !== undefined) {
    const namespaces = hub.namespaceSettings(pipeId);
    transform = compileTransform(config['transform'], {
      lookup: new DatasetLookup(hub.datasets),
      ...(namespaces ? { namespaces } : {}),
      ...(source.previousVersion ? { previousVersion: (e: JsonObject) => source.previousVersion!(e) } : {}),
    });
    if (!transform.ok) {
      throw badRequest('the transform does not compile', transform.errors.filter((e) => e.level === 'error').map((e) => `${e.elements}: ${e.msg}`).join('; '));
    }
  }
  const since = options.since === undefined || options.since === '' ? undefined : options.since;
  for await (const batch of source.batches(since, 1000)) {
    for (const e of batch.entities) {
      const produced = transform ? transform.run(e).entities : [e];
      for (const p of produced) {
        out.push(p);
        if (out.length >= limit) return out;
      }
    }
  }
  return out;
}

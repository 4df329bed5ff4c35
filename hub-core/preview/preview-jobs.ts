// The DTL evaluations of the previews, each a job on a pipe runtime with plain JSON in and out, so that it can run
// where a deadline can stop it (a preview worker, preview-pool.ts) as well as on the calling thread: the DTL preview
// (POST /dtl/preview), a pipe preview's sample (with its traces and chains), the search for the source entity of an
// output entity, a step-through, the impact's run of the pipe over the source, and the entities of a stored pipe at a
// stage after its transform (GET /pipes/<id>/entities?stage=).

import type { PipeRuntime } from '../pipes/index.js';
import { DtlRuntimeError, type StepRecording } from '../dtl/index.js';
import { EntityError, badRequest, prepareEntity, type ConfigError, type HubError, type JsonObject, type PreparedEntity } from '../base/index.js';
import { MAX_TRACED_ENTITIES, traceSample } from './pipe-trace.js';
import { chainSteps, runError, type PreviewResult } from './preview-chain.js';

export const PIPE_STAGES = ['source', 'before-transforms', 'after-transforms', 'sink'] as const;
export type PipeStage = (typeof PIPE_STAGES)[number];

/** A runtime failure of the transform on one entity, as a 400 that names the entity. */
function transformFailure(e: DtlRuntimeError, entity: JsonObject): HubError {
  const id = typeof entity['_id'] === 'string' ? entity['_id'] : '(no _id)';
  return badRequest(`the transform failed on entity ${JSON.stringify(id)}`, `${e.kind}: ${e.message}${e.elements ? ` (${e.elements})` : ''}`);
}

/** What one source entity becomes at a stage: a dry run of the pump's processing. */
export function atStage(run: PipeRuntime, stage: PipeStage, entity: JsonObject): JsonObject[] {
  if (stage === 'source') return [entity];
  if (stage === 'before-transforms') return [run.beforeTransforms(entity)];
  try {
    return stage === 'sink' ? run.process([entity]) : run.afterTransforms(entity);
  } catch (e) {
    if (e instanceof DtlRuntimeError) throw transformFailure(e, entity);
    throw e;
  }
}

export type PreviewJob =
  | { readonly kind: 'dtl'; readonly entities: JsonObject[]; readonly trace: boolean }
  | { readonly kind: 'sample'; readonly sample: JsonObject[]; readonly trace: boolean }
  | { readonly kind: 'source-of'; readonly entities: JsonObject[]; readonly outputId: string }
  | { readonly kind: 'steps'; readonly entity: JsonObject; readonly condition: unknown; readonly maxSteps?: number; readonly conditionsAt?: Readonly<Record<string, unknown>> }
  | { readonly kind: 'process'; readonly entities: JsonObject[]; readonly firstIndex: number }
  /** The same for a dataset source read by the job itself, whole batches from `since` until `group` entities are read. */
  | { readonly kind: 'process-source'; readonly since?: string; readonly batchSize: number; readonly group: number; readonly firstIndex: number }
  | { readonly kind: 'stage'; readonly stage: PipeStage; readonly entities: JsonObject[] };

export interface DtlPreview {
  ok: boolean;
  errors: ConfigError[];
  results: unknown[];
}

/** What the impact's run gives the sink for each source entity, in order; `failure`: the entity the run fails on. */
export interface ProcessedBatch {
  outputs: PreparedEntity[][];
  failure?: { index: number; message: string; detail: string | undefined };
}

/** A `process-source` job's answer: also the size of each source batch read, where the next job goes on, and whether the source ended. */
export interface SourceProcessed extends ProcessedBatch {
  batches: number[];
  position?: string;
  ended: boolean;
}

export interface PreviewJobResults {
  dtl: DtlPreview;
  sample: PreviewResult[];
  /** The index of the first entity that makes the output entity, or -1. */
  'source-of': number;
  steps: StepRecording | null;
  process: ProcessedBatch;
  'process-source': SourceProcessed;
  /** Per source entity, what it becomes at the stage. */
  stage: JsonObject[][];
}

export type PreviewJobResult<J extends PreviewJob> = PreviewJobResults[J['kind']];

/** The DTL preview's answer: each entity through the transform, with the chain's steps and traces asked for. */
function dtlPreview(runtime: PipeRuntime, entities: JsonObject[], trace: boolean): DtlPreview {
  const compiled = runtime.transform!;
  if (!compiled.ok) return { ok: false, errors: compiled.errors, results: [] };
  // A chain of transforms also answers what each of its transforms produced (results[k].stages).
  const chain = runtime.chain;
  const traced = trace ? runtime.traced() : undefined;
  const results = entities.map((entity, i) => {
    const fed = runtime.beforeTransforms(entity);
    const trace = traced && i < MAX_TRACED_ENTITIES ? { trace: traced.run(fed).trace } : {};
    const stages = { ...(chain ? { stages: chainSteps(chain, fed) } : {}), ...trace };
    try {
      return { entities: runtime.afterTransforms(entity), ...stages };
    } catch (e) {
      if (e instanceof DtlRuntimeError) return { error: { kind: e.kind, msg: e.message, elements: e.elements ?? null }, ...stages };
      throw e;
    }
  });
  return { ok: true, errors: compiled.errors, results };
}

/** A pipe preview's results for its sample (the transform compiles): stages, chains and traces per entity. */
function sampleResults(run: PipeRuntime, sample: JsonObject[], trace: boolean): PreviewResult[] {
  const traces = trace ? traceSample(run, sample) : [];
  return sample.map((entity, i) => {
    const result: PreviewResult = { 'after-transforms': [], sink: [], error: null };
    try {
      const stages = run.stages(entity);
      result['after-transforms'] = stages.afterTransforms;
      result.sink = stages.sink;
    } catch (e) {
      if (!(e instanceof DtlRuntimeError)) throw e;
      result.error = runError(e);
    }
    if (run.chain) result.chain = chainSteps(run.chain, run.beforeTransforms(entity));
    const t = traces[i];
    if (t !== undefined) result.trace = t;
    return result;
  });
}

/** The first entity the pipe turns into the output entity `outputId` (after the transforms or at the sink), or -1. */
function sourceOf(run: PipeRuntime, entities: JsonObject[], outputId: string): number {
  return entities.findIndex((e) => {
    let stages: { afterTransforms: JsonObject[]; sink: JsonObject[] };
    try {
      stages = run.stages(e);
    } catch {
      return false; // an entity the transform fails on makes no output
    }
    return stages.afterTransforms.some((o) => o['_id'] === outputId) || stages.sink.some((o) => o['_id'] === outputId);
  });
}

/** A transform failing on an entity, as the run would fail: a 400 naming the entity. */
export function runFailure(e: unknown, entity: JsonObject): HubError | undefined {
  const id = typeof entity['_id'] === 'string' ? entity['_id'] : '(no _id)';
  if (e instanceof DtlRuntimeError) {
    return badRequest(`a run would fail: the transform fails on entity ${JSON.stringify(id)}`, `${e.kind}: ${e.message}${e.elements ? ` (${e.elements})` : ''}`);
  }
  if (e instanceof EntityError) return badRequest('a run would fail: the sink refuses an entity', `${e.message} (from source entity ${JSON.stringify(id)})`);
  return undefined;
}

/** What a run gives the sink for each entity, prepared as the sink prepares it; stops at the first that fails. */
function processBatch(run: PipeRuntime, entities: JsonObject[], firstIndex: number): ProcessedBatch {
  const outputs: PreparedEntity[][] = [];
  let index = firstIndex;
  for (const [i, entity] of entities.entries()) {
    try {
      const prepared: PreparedEntity[] = [];
      for (const o of run.process([entity])) prepared.push(prepareEntity(o, index++));
      outputs.push(prepared);
    } catch (e) {
      const error = runFailure(e, entity);
      if (error === undefined) throw e;
      return { outputs, failure: { index: i, message: error.message, detail: error.detail } };
    }
  }
  return { outputs };
}

/**
 * Read whole batches of the pipe's source from `since` until `group` entities are read, and process them as a run does.
 * The pipe's source is read where the job runs: in a preview worker, through its own read-only connection, so that
 * the hub's thread neither reads, parses nor sends the entities.
 */
async function processSource(run: PipeRuntime, job: Extract<PreviewJob, { kind: 'process-source' }>): Promise<SourceProcessed> {
  const reader = run.openSource().batches(job.since, job.batchSize);
  const entities: JsonObject[] = [];
  const batches: number[] = [];
  let position = job.since;
  let ended = true;
  try {
    for (;;) {
      if (entities.length >= job.group) {
        ended = false;
        break;
      }
      const next = await reader.next();
      if (next.done) break;
      batches.push(next.value.entities.length);
      for (const e of next.value.entities) entities.push(e);
      position = next.value.position;
      if (position === undefined) throw new Error('the source cannot be read on from where a batch ended');
    }
  } finally {
    await reader.return(undefined);
  }
  return { ...processBatch(run, entities, job.firstIndex), batches, ...(position === undefined ? {} : { position }), ended };
}

/** Run one job on the runtime (on whatever thread this is), the jobs that read a source among them. */
export async function runPreviewJobAsync<J extends PreviewJob>(run: PipeRuntime, job: J): Promise<PreviewJobResult<J>> {
  if (job.kind === 'process-source') return (await processSource(run, job)) as PreviewJobResult<J>;
  return runPreviewJob(run, job);
}

/** Run one job that reads no source on the runtime (on whatever thread this is). */
export function runPreviewJob<J extends PreviewJob>(run: PipeRuntime, job: J): PreviewJobResult<J> {
  const out = (v: unknown): PreviewJobResult<J> => v as PreviewJobResult<J>;
  switch (job.kind) {
    case 'dtl':
      return out(dtlPreview(run, job.entities, job.trace));
    case 'sample':
      return out(sampleResults(run, job.sample, job.trace));
    case 'source-of':
      return out(sourceOf(run, job.entities, job.outputId));
    case 'steps':
      return out(run.recordSteps(run.beforeTransforms(job.entity), job.condition, job.maxSteps === undefined ? undefined : { maxSteps: job.maxSteps }, job.conditionsAt) ?? null);
    case 'process':
      return out(processBatch(run, job.entities, job.firstIndex));
    case 'stage':
      return out(job.entities.map((e) => atStage(run, job.stage, e)));
    case 'process-source':
      throw new Error('a job that reads a source runs with runPreviewJobAsync');
  }
  throw new Error('unknown preview job');
}

// What a pipe produces at each stage (source, before-transforms, after-transforms, sink; see pipe-runtime.ts), computed
// by a dry run of the pipe's runtime (the pump's own source, transform and sink step): nothing is written and no pump
// state moves. Serves
// GET /pipes/<id>/entities?stage=, `datahub test`, and the preview of a draft configuration on sample entities.

import type { Hub } from '../hub.js';
import type { ConfigEntity } from '../config/index.js';
import type { PipeRuntime } from '../pipes/index.js';
import { parseOffset } from '../pipes/index.js';
import { pipeConfigErrors } from '../pipes/index.js';
import { hasErrors, type ConfigError } from '../base/index.js';
import { sourceEntityOf } from './pipe-trace.js';
import type { PreviewResult } from './preview-chain.js';
import { atStage, type PipeStage } from './preview-jobs.js';
import { localEvaluator, type PreviewEvaluator } from './preview-pool.js';
import { HubError, badRequest } from '../base/index.js';
import { isJsonObject, type JsonObject } from '../base/index.js';
import { maskJson } from '../security/index.js';

export { PIPE_STAGES, type PipeStage } from './preview-jobs.js';

export interface StageOptions {
  /** At most this many entities. */
  limit?: number;
  /** Where the source starts: its own position format (a dataset offset, a JSON Pull token). */
  since?: string;
}

const READ_BATCH = 1000;

/**
 * The entities of a stored pipe at one stage, one by one. Problems that make the stage unreadable (an unknown source
 * type, a transform that does not compile, a bad `since`) are thrown before the first entity; a transform failing on
 * an entity is a HubError (400) naming it. The stages after the transform are evaluated by `evaluator` a read batch
 * at a time (the API's: in a preview worker, where a deadline stops a runaway rule).
 */
export async function* pipeStageStream(hub: Hub, pipeId: string, stage: PipeStage, options: StageOptions = {}, evaluator: PreviewEvaluator = localEvaluator, signal?: AbortSignal): AsyncGenerator<JsonObject, void, undefined> {
  const run = hub.pumps.runtimes.of(hub.pipes.require(pipeId));
  const since = options.since === undefined || options.since === '' ? undefined : options.since;
  if (since !== undefined && run.pipe.source.type === 'dataset' && parseOffset(since) === undefined) {
    throw badRequest(`invalid since value ${JSON.stringify(since)}`, 'a dataset source is read from an integer offset');
  }
  if (stage === 'after-transforms' || stage === 'sink') {
    const problem = run.transformProblem();
    if (problem) throw problem;
  }
  const limit = options.limit ?? Infinity;
  if (limit <= 0) return;
  const source = run.openSource();
  let n = 0;
  for await (const batch of source.batches(since, Math.min(READ_BATCH, limit))) {
    let from = 0;
    while (from < batch.entities.length) {
      // No more source entities than outputs still wanted (each gives at least one, or none when filtered).
      const entities = batch.entities.slice(from, from + Math.max(1, Math.min(READ_BATCH, limit - n)));
      from += entities.length;
      const outputs = stage === 'source' || stage === 'before-transforms' ? entities.map((e) => atStage(run, stage, e)) : await evaluator.evaluate(run, { kind: 'stage', stage, entities }, signal);
      for (const list of outputs) {
        for (const out of list) {
          yield out;
          if (++n >= limit) return;
        }
      }
    }
  }
}

/** The entities of a stored pipe at one stage, collected (for `datahub test` and schema sampling). */
export async function pipeStageEntities(hub: Hub, pipeId: string, stage: PipeStage, options: StageOptions = {}, evaluator: PreviewEvaluator = localEvaluator, signal?: AbortSignal): Promise<JsonObject[]> {
  const out: JsonObject[] = [];
  for await (const e of pipeStageStream(hub, pipeId, stage, options, evaluator, signal)) out.push(e);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------------
// The preview of a draft configuration

export const PREVIEW_MAX_ENTITIES = 1000;
export const PREVIEW_DEFAULT_LIMIT = 10;
export { chainSteps } from './preview-chain.js';
export type { PreviewChainStep, PreviewResult, PreviewRunError } from './preview-chain.js';

export interface PreviewRequest {
  /** The draft configuration (default: the stored one). */
  config?: unknown;
  /** Sample entities (default: read up to `limit` from the configuration's source). */
  entities?: unknown[];
  /** How many entities to read from the source when no sample is given. */
  limit?: number;
  /** Record how each sample entity went through the transform (`results[k].trace`). */
  trace?: boolean;
  /** The sample is the one source entity that makes this output entity (`_id`), e.g. to trace it. */
  'source-of'?: string;
}

export interface PipePreview {
  /** The draft's problems, as the hub reports them for a stored configuration (JSON paths in `elements`). */
  'config-errors': ConfigError[];
  'is-valid-config': boolean;
  /** False when the transform does not compile: after-transforms and sink are then empty. */
  'transform-compiles': boolean;
  /** Where the sample came from: the request, or the configuration's source. */
  sample: 'request' | 'source';
  /** Why the source could not be read (in words), when the sample was to come from it. */
  'source-error': string | null;
  /** The source has more entities than were read. */
  'more-in-source': boolean;
  stages: Record<PipeStage, JsonObject[]>;
  /** Per sample entity, in order. */
  results: PreviewResult[];
}

/** The draft as a configuration entity that runs as pipe `pipeId`; not an object is a 400. */
function draftConfig(pipeId: string, value: unknown): ConfigEntity {
  if (!isJsonObject(value)) {
    throw badRequest('the draft configuration must be a JSON object', `got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
  }
  return { ...value, _id: pipeId, type: typeof value['type'] === 'string' ? value['type'] : 'pipe' } as ConfigEntity;
}

function errorText(e: unknown): string {
  if (e instanceof HubError) return e.detail ? `${e.message}: ${e.detail}` : e.message;
  return e instanceof Error ? e.message : String(e);
}

/** Read up to `limit` entities from the source, and whether it had more. */
async function readSample(run: PipeRuntime, limit: number): Promise<{ entities: JsonObject[]; more: boolean }> {
  const entities: JsonObject[] = [];
  if (limit <= 0) return { entities, more: false };
  const source = run.openSource();
  for await (const batch of source.batches(undefined, Math.min(READ_BATCH, limit + 1))) {
    for (const e of batch.entities) {
      if (entities.length >= limit) return { entities, more: true };
      entities.push(e);
    }
  }
  return { entities, more: false };
}

/**
 * Every stage of a draft configuration for a sample at once, with the draft's problems: a dry run of the pump's own
 * processing that writes nothing. A malformed request is a HubError (400); problems of the draft itself (it does not
 * compile, its source cannot be read, the transform fails on an entity) are part of the answer, in words.
 */
export async function previewPipe(hub: Hub, pipeId: string, request: PreviewRequest, evaluator: PreviewEvaluator = localEvaluator, signal?: AbortSignal): Promise<PipePreview> {
  const stored = request.config === undefined ? hub.pipes.require(pipeId) : undefined;
  const config = stored ?? draftConfig(pipeId, request.config);
  const run = stored ? hub.pumps.runtimes.of(stored) : hub.pumps.runtimes.draft(config);
  // A draft's problems are those of the configuration as sent (without the pipe's id filled in).
  const errors = stored ? run.errors : pipeConfigErrors(request.config as ConfigEntity, hub.pumps.variables());
  const limit = request.limit ?? PREVIEW_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 0 || limit > PREVIEW_MAX_ENTITIES) {
    throw badRequest('invalid limit', `read between 0 and ${PREVIEW_MAX_ENTITIES} entities from the source`);
  }
  let sample: JsonObject[];
  if (request.entities !== undefined) {
    if (request.entities.length > PREVIEW_MAX_ENTITIES) throw badRequest('too many sample entities', `send at most ${PREVIEW_MAX_ENTITIES}`);
    request.entities.forEach((e, i) => {
      if (!isJsonObject(e)) throw badRequest(`sample entity #${i + 1} is not a JSON object`);
    });
    sample = request.entities as JsonObject[];
  } else sample = [];
  let sourceError: string | null = null;
  let more = false;
  if (request['source-of'] !== undefined && request.entities !== undefined) throw badRequest('send either sample entities or "source-of", not both');
  if (request['source-of'] !== undefined) {
    sample = [await sourceEntityOf(run, request['source-of'], (entities, outputId) => evaluator.evaluate(run, { kind: 'source-of', entities, outputId }, signal))];
  }
  else if (request.entities === undefined) {
    try {
      ({ entities: sample, more } = await readSample(run, limit));
    } catch (e) {
      // Whatever the source raises (a type this hub does not read, a missing variable, an unreachable system) is a
      // problem of the draft, reported in words.
      sourceError = errorText(e);
    }
  }
  const compiles = !run.transform || run.transform.ok;
  const evaluated: PreviewResult[] =
    compiles && sample.length > 0
      ? await evaluator.evaluate(run, { kind: 'sample', sample, trace: request.trace === true }, signal)
      : sample.map(() => ({ 'after-transforms': [], sink: [], error: null }));
  const results: PreviewResult[] = [];
  const after: JsonObject[] = [];
  const sink: JsonObject[] = [];
  for (const result of evaluated) {
    after.push(...result['after-transforms']);
    sink.push(...result.sink);
    results.push(result);
  }
  // A source's error may quote a remote's answer that repeats the URL and headers it was sent (built from secrets):
  // everything the preview shows is masked before it leaves the engine.
  const preview: PipePreview = {
    'config-errors': errors,
    'is-valid-config': !hasErrors(errors),
    'transform-compiles': compiles,
    sample: request.entities === undefined || request['source-of'] !== undefined ? 'source' : 'request',
    'source-error': sourceError,
    'more-in-source': more,
    stages: { source: sample, 'before-transforms': sample.map((e) => run.beforeTransforms(e)), 'after-transforms': after, sink },
    results,
  };
  return maskJson(preview as unknown as JsonObject, (text) => hub.secrets.mask(text)) as unknown as PipePreview;
}

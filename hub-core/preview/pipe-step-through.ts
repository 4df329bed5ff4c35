// Step-through of a pipe's (draft) transform for one sample entity (POST /pipes/<id>/step-through): the entity is
// picked from the pipe's source by `_id` (or the source's first one) or sent as is, and run once through the traced
// transform with every step recorded (hub-core/dtl/step-through.ts). Nothing is written.

import type { Hub } from '../hub.js';
import type { ConfigEntity } from '../config/index.js';
import type { PipeRuntime } from '../pipes/index.js';
import type { StepRecording } from '../dtl/index.js';
import { HubError, badRequest, isJsonObject, type JsonObject } from '../base/index.js';
import { maskJson } from '../security/index.js';
import { SOURCE_OF_MAX_SCAN } from './pipe-trace.js';
import { localEvaluator, type PreviewEvaluator } from './preview-pool.js';

export interface StepThroughRequest {
  /** The draft configuration (default: the stored one). */
  config?: unknown;
  /** The sample entity, as sent. */
  entity?: unknown;
  /** The sample entity: the source entity with this `_id`. Without either, the source's first entity. */
  'entity-id'?: string;
  /** A conditional breakpoint: a DTL expression evaluated just before each step. */
  condition?: unknown;
  /** Conditions of line breakpoints: by a step's JSON path, a DTL expression evaluated just before that step. */
  'conditions-at'?: Record<string, unknown>;
  /** At most this many steps are recorded. */
  'max-steps'?: number;
}

export interface StepThrough extends StepRecording {
  /** The source entity the steps start from, and what the first transform was fed. */
  entity: JsonObject;
  /** Where the entity came from. */
  sample: 'request' | 'source';
}

/**
 * The source entity with `_id` `id` (or the first one when id is undefined); a 404 when there is none. The hub's thread
 * answers other requests between the batches it reads (a dataset source reads each batch at once).
 */
async function sourceEntity(run: PipeRuntime, id: string | undefined): Promise<JsonObject> {
  const source = run.openSource();
  let n = 0;
  for await (const batch of source.batches(undefined, id === undefined ? 1 : 1000)) {
    for (const e of batch.entities) {
      if (id === undefined || e['_id'] === id) return e;
      if (++n >= SOURCE_OF_MAX_SCAN) break;
    }
    if (n >= SOURCE_OF_MAX_SCAN) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (id === undefined) throw new HubError(404, 'the pipe\'s source has no entities', 'send a sample entity ("entity") to step through');
  throw new HubError(404, `the pipe's source has no entity ${JSON.stringify(id)}`, n >= SOURCE_OF_MAX_SCAN ? `looked at the first ${SOURCE_OF_MAX_SCAN} source entities` : `looked at all ${n} source entities`);
}

export async function stepThroughPipe(hub: Hub, pipeId: string, request: StepThroughRequest, evaluator: PreviewEvaluator = localEvaluator, signal?: AbortSignal): Promise<StepThrough> {
  let run: PipeRuntime;
  if (request.config === undefined) run = hub.pumps.runtimes.of(hub.pipes.require(pipeId));
  else {
    const value = request.config;
    if (!isJsonObject(value)) throw badRequest('the draft configuration must be a JSON object');
    run = hub.pumps.runtimes.draft({ ...value, _id: pipeId, type: typeof value['type'] === 'string' ? value['type'] : 'pipe' } as ConfigEntity);
  }
  if (request.entity !== undefined && request['entity-id'] !== undefined) throw badRequest('send either "entity" or "entity-id", not both');
  if (request.entity !== undefined && !isJsonObject(request.entity)) throw badRequest('"entity" must be a JSON object');
  const problem = run.transformProblem();
  if (problem) throw problem;
  const entity = isJsonObject(request.entity) ? request.entity : await sourceEntity(run, request['entity-id']);
  const maxSteps = request['max-steps'];
  const conditionsAt = request['conditions-at'];
  const job = { kind: 'steps', entity, condition: request.condition, ...(maxSteps === undefined ? {} : { maxSteps }), ...(conditionsAt === undefined ? {} : { conditionsAt }) } as const;
  const recording = await evaluator.evaluate(run, job, signal);
  if (recording === null) throw badRequest('the pipe has no transform to step through');
  const result: StepThrough = { entity, sample: request.entity !== undefined ? 'request' : 'source', ...recording };
  return maskJson(result as unknown as JsonObject, (text) => hub.secrets.mask(text)) as unknown as StepThrough;
}

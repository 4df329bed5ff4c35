// POST /pipes/<id>/step-through: one sample entity through a pipe's (draft) transform with every step recorded, for
// the Config tab's step-through (hub-core/preview/pipe-step-through.ts). Like a preview, nothing is written, and the
// transform is bounded by the same work limit (dtl/work-limit.ts: a runaway rule is a 422 in words).
import type { FastifyInstance } from 'fastify';
import { clientGone, type RouteContext } from '../route-context.js';
import { anyObject, int, str, replies } from '../schemas.js';
import { stepThroughPipe, type StepThroughRequest } from '../../../hub-core/preview/index.js';
import { MAX_STEPS } from '../../../hub-core/dtl/index.js';

const runError = { type: 'object', required: ['msg', 'elements'], properties: { msg: str, elements: { type: ['string', 'null'] } } } as const;

const hitCount = { type: 'object', required: ['hits', 'errors'], properties: { hits: int, errors: int } } as const;

const stepThroughReply = {
  type: 'object',
  required: ['entity', 'sample', 'steps', 'values', 'cut', 'limits', 'trace', 'output', 'error', 'condition', 'conditionsAt'],
  properties: {
    entity: { ...anyObject, description: 'the sample entity the steps start from' },
    sample: { type: 'string', enum: ['request', 'source'] },
    steps: {
      type: 'array',
      description: 'every step of every rule set (and call of apply, hops, apply-hops) in the order it ran; _S, _T and _P are indices into "values"',
      items: anyObject,
    },
    values: { type: 'array', items: {}, description: 'the distinct snapshots the steps refer to' },
    cut: { type: ['string', 'null'], description: 'why the recording stopped before the run ended, in words' },
    limits: anyObject,
    trace: { ...anyObject, description: 'the trace of the same run (see "Tracing")' },
    output: { type: 'array', items: anyObject },
    error: { anyOf: [{ type: 'null' }, runError] },
    condition: { anyOf: [{ type: 'null' }, hitCount] },
    conditionsAt: { type: 'object', additionalProperties: hitCount, description: 'per line breakpoint with a condition (by JSON path): how often it held and failed' },
  },
} as const;

export async function pipeStepThroughRoutes(app: FastifyInstance, { hub, previews }: RouteContext): Promise<void> {
  app.post<{ Params: { pipe_id: string }; Body: StepThroughRequest | null }>('/pipes/:pipe_id/step-through', {
    schema: {
      tags: ['pipes'],
      summary: 'Step through the transform for one sample entity: every step recorded with _S, _T and _P before and after it',
      params: { type: 'object', required: ['pipe_id'], properties: { pipe_id: str } },
      body: {
        type: ['object', 'null'],
        additionalProperties: false,
        properties: {
          config: { description: 'the draft pipe configuration (a JSON object); default: the stored one' },
          entity: { description: 'the sample entity (a JSON object)' },
          'entity-id': { ...str, minLength: 1, description: 'the sample entity is the source entity with this _id (default: the first one)' },
          condition: { description: 'a conditional breakpoint: a DTL expression; steps where it is true just before they run are marked "hit"' },
          'conditions-at': {
            type: 'object',
            additionalProperties: { description: 'a DTL expression' },
            description: 'conditions of line breakpoints, by the step\'s JSON path ("$.transform.rules.default[2]"); that step is marked "breakHit" where its condition is true just before it runs',
          },
          'max-steps': { ...int, minimum: 1, maximum: MAX_STEPS, description: `record at most this many steps (default 2000, at most ${MAX_STEPS})` },
        },
      },
      response: replies({ 200: stepThroughReply, 422: { $ref: 'Error#' } }),
    },
    handler: async (req, reply) => stepThroughPipe(hub, req.params.pipe_id, req.body ?? {}, previews, clientGone(reply)),
  });
}

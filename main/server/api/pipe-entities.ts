// What a pipe produces at each stage, computed on demand by a dry run of the pump without writing anything
// (hub-core/preview/pipe-stages.ts), and a schema description sampled from its sink-stage entities.
import type { FastifyInstance } from 'fastify';
import { clientGone, type RouteContext } from '../route-context.js';
import { anyObject, bool, int, str, replies } from '../schemas.js';
import { PIPE_STAGES, pipeStageEntities, pipeStageStream, type PipeStage } from '../../../hub-core/preview/index.js';
import { sendJsonStream } from '../json-pull.js';
import { sampleSchema } from '../../../hub-core/explore/index.js';

const pipeParams = { type: 'object', required: ['pipe_id'], properties: { pipe_id: str } } as const;
const DEFAULT_SAMPLE_SIZE = 1000;

export async function pipeEntityRoutes(app: FastifyInstance, { hub, previews }: RouteContext): Promise<void> {
  const tags = ['pipes'];

  app.get<{ Params: { pipe_id: string }; Querystring: { stage?: PipeStage; limit?: number; since?: string } }>('/pipes/:pipe_id/entities', {
    schema: {
      tags,
      summary: 'Entities of a pipe at one stage (source, before-transforms, after-transforms, sink), computed without writing',
      params: pipeParams,
      querystring: {
        type: 'object',
        properties: { stage: { type: 'string', enum: [...PIPE_STAGES], default: 'sink' }, limit: { ...int, minimum: 0 }, since: str },
      },
      response: replies({ 200: { type: 'array', items: anyObject } }),
    },
    handler: async (req, reply) => {
      const q = req.query;
      const options = { ...(q.limit !== undefined ? { limit: q.limit } : {}), ...(q.since !== undefined ? { since: q.since } : {}) };
      // Streamed: what makes the stage unreadable is found before the first byte and answered as a 4xx. The transform
      // runs in a preview worker, where a deadline stops a runaway rule.
      return sendJsonStream(reply, pipeStageStream(hub, req.params.pipe_id, q.stage ?? 'sink', options, previews, clientGone(reply)));
    },
  });

  app.get<{ Params: { pipe_id: string }; Querystring: { sample_size?: number; keys_only?: boolean } }>('/pipes/:pipe_id/generate-schema-definition', {
    schema: {
      tags,
      summary: 'Describe the properties of a sample of the entities the pipe produces (its sink stage)',
      params: pipeParams,
      querystring: { type: 'object', properties: { sample_size: { ...int, minimum: 1 }, keys_only: bool } },
      response: replies({ 200: anyObject }),
    },
    handler: async (req, reply) => {
      const entities = await pipeStageEntities(hub, req.params.pipe_id, 'sink', { limit: req.query.sample_size ?? DEFAULT_SAMPLE_SIZE }, previews, clientGone(reply));
      return sampleSchema(entities, req.query.keys_only === true);
    },
  });
}

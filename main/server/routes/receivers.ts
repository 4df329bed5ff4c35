import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { entityBatchValidator, useEntityBodyParser } from '../entity-parser-pool.js';
import type { PreparedEntities } from '../../../hub-core/entity.js';
import { anyObject, bool, str, replies } from '../schemas.js';
import { entitiesBody } from './datasets.js';

interface PushQuery {
  sequence_id?: string;
  is_full?: boolean;
  request_id?: string;
  previous_request_id?: string;
  is_first?: boolean;
  is_last?: boolean;
  force?: boolean;
}

export async function receiverRoutes(app: FastifyInstance, { hub, entityParser }: RouteContext): Promise<void> {
  useEntityBodyParser(app, entityParser);
  app.post<{ Params: { pipe_id: string }; Querystring: PushQuery; Body: PreparedEntities }>('/receivers/:pipe_id/entities', {
    schema: {
      tags: ['receivers'],
      summary: 'JSON Push: write entities into a pipe with an http_endpoint source',
      params: { type: 'object', required: ['pipe_id'], properties: { pipe_id: str } },
      querystring: {
        type: 'object',
        properties: { sequence_id: str, is_full: bool, request_id: str, previous_request_id: str, is_first: bool, is_last: bool, force: bool },
      },
      body: entitiesBody,
      response: replies({ 200: anyObject, 409: { $ref: 'Error#' }, 413: { $ref: 'Error#' } }),
    },
    validatorCompiler: entityBatchValidator,
    handler: async (req) => {
      const q = req.query;
      const result = hub.receiver.receive(req.params.pipe_id, req.body, {
        ...(q.sequence_id !== undefined ? { sequenceId: q.sequence_id } : {}),
        ...(q.request_id !== undefined ? { requestId: q.request_id } : {}),
        ...(q.previous_request_id !== undefined ? { previousRequestId: q.previous_request_id } : {}),
        isFull: q.is_full === true,
        isFirst: q.is_first === true,
        isLast: q.is_last === true,
        force: q.force === true,
      });
      return result;
    },
  });
}

import type { FastifyInstance } from 'fastify';
import { clientGone, type RouteContext } from '../route-context.js';
import { PushBody, pushBodyValidator, readPushBody, usePushBodyParser, DEFAULT_PUSH_LIMIT } from '../push-body.js';
import { anyObject, bool, str, replies } from '../schemas.js';
import { entitiesBody } from './datasets.js';
import type { PushParams } from '../../../hub-core/pipes/index.js';

interface PushQuery {
  sequence_id?: string;
  is_full?: boolean;
  request_id?: string;
  previous_request_id?: string;
  is_first?: boolean;
  is_last?: boolean;
  force?: boolean;
}

export async function receiverRoutes(app: FastifyInstance, { hub, entityParser, pushLimit }: RouteContext): Promise<void> {
  // Bodies reach the handler unread: a large one is streamed (see push-body.ts).
  usePushBodyParser(app);
  app.post<{ Params: { pipe_id: string }; Querystring: PushQuery; Body: PushBody }>('/receivers/:pipe_id/entities', {
    schema: {
      tags: ['receivers'],
      summary: 'JSON Push: write entities into a pipe with an http_endpoint source',
      description:
        'The body is a JSON array of entities (or one entity), or JSON lines (Content-Type application/x-ndjson). A body larger than the ' +
        'body limit is read as it arrives and written in parts at the end, readers seeing it all at once (all or nothing), up to the push limit.',
      params: { type: 'object', required: ['pipe_id'], properties: { pipe_id: str } },
      querystring: {
        type: 'object',
        properties: { sequence_id: str, is_full: bool, request_id: str, previous_request_id: str, is_first: bool, is_last: bool, force: bool },
      },
      body: entitiesBody,
      response: replies({ 200: anyObject, 409: { $ref: 'Error#' }, 413: { $ref: 'Error#' } }),
    },
    validatorCompiler: pushBodyValidator,
    handler: async (req, reply) => {
      const q = req.query;
      const pipeId = req.params.pipe_id;
      const params: PushParams = {
        ...(q.sequence_id !== undefined ? { sequenceId: q.sequence_id } : {}),
        ...(q.request_id !== undefined ? { requestId: q.request_id } : {}),
        ...(q.previous_request_id !== undefined ? { previousRequestId: q.previous_request_id } : {}),
        isFull: q.is_full === true,
        isFirst: q.is_first === true,
        isLast: q.is_last === true,
        force: q.force === true,
      };
      const limits = { bodyLimit: app.initialConfig.bodyLimit ?? DEFAULT_PUSH_LIMIT, pushLimit: pushLimit ?? DEFAULT_PUSH_LIMIT };
      // A large push is read and written over many turns of the event loop: a client that goes away meanwhile has it
      // taken back, also when it left after its last byte, while the hub was still reading what had arrived.
      const gone = clientGone(reply);
      const body = await readPushBody(req.body, entityParser, limits, () => hub.receiver.staged(pipeId));
      if ('whole' in body) return hub.receiver.receiveInTurn(pipeId, body.whole, params);
      return body.staged.commit(params, gone);
    },
  });
}

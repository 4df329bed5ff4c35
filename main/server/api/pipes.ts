import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { tagListAnswer } from '../list-etag.js';
import { anyObject, bool, str, replies, emptyReply } from '../schemas.js';
import { badRequest, conflict } from '../../../hub-core/base/index.js';
import { isJsonObject } from '../../../hub-core/base/index.js';

const pipeParams = { type: 'object', required: ['pipe_id'], properties: { pipe_id: str } } as const;
const forceQuery = { type: 'object', properties: { force: bool } } as const;
const configArray = {
  type: 'array',
  items: { type: 'object', required: ['_id', 'type'], properties: { _id: str, type: str }, additionalProperties: true },
} as const;

export async function pipeRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  const tags = ['pipes'];

  app.get<{ Querystring: { verbose?: boolean } }>('/pipes', {
    schema: { tags, summary: 'List pipes', querystring: { type: 'object', properties: { verbose: bool } }, response: replies({ 200: { type: 'array', items: anyObject } }) },
    handler: async () => hub.pipes.ids().map((id) => hub.pipes.info(id)),
    // Polled every 2 s by the workbench: 304 while unchanged.
    onSend: tagListAnswer,
  });

  app.post<{ Querystring: { force?: boolean }; Body: unknown[] }>('/pipes', {
    schema: { tags, summary: 'Create pipes', querystring: forceQuery, body: configArray, response: replies({ 200: { type: 'array', items: anyObject }, 409: { $ref: 'Error#' } }) },
    handler: async (req) => {
      const entities = hub.pipes.validate(req.body, req.query.force === true);
      const existing = entities.filter((e) => hub.pipes.get(e._id) !== undefined || hub.config.get('system', e._id) !== undefined);
      if (existing.length > 0) {
        throw conflict(`pipe ${JSON.stringify(existing[0]!._id)} already exists`, 'use PUT /pipes/<pipe_id>/config to change an existing pipe');
      }
      hub.pipes.save(entities);
      return entities.map((e) => hub.pipes.info(e._id));
    },
  });

  app.get<{ Params: { pipe_id: string } }>('/pipes/:pipe_id', {
    schema: { tags, summary: 'Pipe information', params: pipeParams, response: replies({ 200: anyObject }) },
    handler: async (req) => hub.pipes.info(req.params.pipe_id),
  });

  app.delete<{ Params: { pipe_id: string } }>('/pipes/:pipe_id', {
    schema: { tags, summary: 'Delete a pipe (its datasets are kept)', params: pipeParams, response: replies({ 200: emptyReply }) },
    handler: async (req, reply) => {
      // Its pump state and push state go with it (PumpService, JsonPushReceiver).
      hub.pipes.delete(req.params.pipe_id);
      return reply.code(200).send();
    },
  });

  app.get<{ Params: { pipe_id: string } }>('/pipes/:pipe_id/config', {
    schema: { tags, summary: 'Pipe configuration as stored', params: pipeParams, response: replies({ 200: anyObject }) },
    handler: async (req) => hub.pipes.require(req.params.pipe_id),
  });

  app.put<{ Params: { pipe_id: string }; Querystring: { force?: boolean }; Body: unknown }>('/pipes/:pipe_id/config', {
    schema: { tags, summary: 'Replace a pipe configuration', params: pipeParams, querystring: forceQuery, body: anyObject, response: replies({ 200: anyObject }) },
    handler: async (req) => {
      const id = req.params.pipe_id;
      hub.pipes.require(id);
      if (!isJsonObject(req.body)) throw badRequest('the body must be a pipe configuration object');
      const body = { ...req.body };
      if (body['_id'] === undefined) body['_id'] = id;
      if (body['_id'] !== id) throw badRequest('the "_id" in the body does not match the URL', `URL: ${JSON.stringify(id)}, body: ${JSON.stringify(body['_id'])}`);
      const [entity] = hub.pipes.validate([body], req.query.force === true);
      hub.pipes.save([entity!]);
      return hub.pipes.info(id);
    },
  });
}

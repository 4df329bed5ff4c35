import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { anyObject, bool, str, replies, emptyReply, entityArray, limitParam, sinceParam } from '../schemas.js';
import { eager, sendJsonText } from '../json-pull.js';
import { executionLogName } from '../../../hub-core/pipes/index.js';
import { PUMP_OPERATIONS } from '../../../hub-core/pipes/index.js';
import { badRequest } from '../../../hub-core/base/index.js';
import { isJsonObject } from '../../../hub-core/base/index.js';

const pipeParams = { type: 'object', required: ['pipe_id'], properties: { pipe_id: { type: 'string', description: 'pipe id (may contain ":")' } } } as const;

interface LogQuery {
  limit?: number;
  since?: number;
  history?: boolean;
  reverse?: boolean;
  deleted?: boolean;
}

/** Pumps: pump information and operations, the execution log, the webhook. (The serving host starts the pumps.) */
export async function pumpRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  const tags = ['pumps'];

  app.get<{ Params: { pipe_id: string } }>('/pipes/:pipe_id/pump', {
    schema: { tags, summary: 'Pump information', params: pipeParams, response: replies({ 200: anyObject }) },
    handler: async (req) => hub.pumps.info(req.params.pipe_id),
  });

  app.post<{ Params: { pipe_id: string }; Body: Record<string, unknown> | undefined }>('/pipes/:pipe_id/pump', {
    schema: {
      tags,
      summary: 'Run a pump operation',
      description: `Form field \`operation\`: ${PUMP_OPERATIONS.join(', ')}. \`update-last-seen\` takes the form field \`last-seen\` (empty clears it).`,
      params: pipeParams,
      body: {
        type: 'object',
        properties: { operation: { ...str, enum: [...PUMP_OPERATIONS] as string[] }, 'last-seen': str, profiler: str },
        additionalProperties: true,
      },
      response: replies({ 200: anyObject }),
    },
    // The operation is checked in the handler, after the pipe: an unknown pipe is 404 whatever the form says.
    attachValidation: true,
    handler: async (req) => {
      const id = req.params.pipe_id;
      hub.pipes.require(id);
      // A JSON body with a field of the wrong type (`"operation": 5`) is refused, never converted.
      if (req.validationError) throw badRequest('invalid request', `body${req.validationError.message.replace(/^body/, '')}`);
      const form = isJsonObject(req.body) ? (req.body as Record<string, unknown>) : {};
      const operation = form['operation'];
      if (typeof operation !== 'string' || operation === '') {
        throw badRequest('the form field "operation" is required', `one of: ${PUMP_OPERATIONS.join(', ')}`);
      }
      return hub.pumps.operate(id, operation, form);
    },
  });

  app.post<{ Params: { pipe_id: string }; Body: unknown }>('/pipes/:pipe_id/webhook', {
    schema: {
      tags,
      summary: "Schedule a pump run (with the pipe's webhook token)",
      params: pipeParams,
      body: { type: 'object', properties: { token: str }, additionalProperties: true },
      response: replies({ 200: emptyReply }),
    },
    attachValidation: true,
    handler: async (req, reply) => {
      const token = isJsonObject(req.body) ? req.body['token'] : undefined;
      hub.pumps.webhook(req.params.pipe_id, token);
      return reply.code(200).send();
    },
  });

  app.get<{ Params: { pipe_id: string }; Querystring: LogQuery }>('/pipes/:pipe_id/log', {
    schema: {
      tags,
      summary: 'The pipe execution log (dataset system:pump_execution:<pipe_id>)',
      params: pipeParams,
      querystring: {
        type: 'object',
        properties: { limit: limitParam, since: sinceParam, history: bool, reverse: bool, deleted: bool },
      },
      response: replies({ 200: entityArray }),
    },
    handler: async (req, reply) => {
      hub.pipes.require(req.params.pipe_id);
      const q = req.query;
      const ds = hub.datasets.get(executionLogName(req.params.pipe_id));
      if (!ds) return sendJsonText(reply, []);
      const pages = ds.readJsonText({
        ...(q.since !== undefined ? { since: q.since } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
        history: q.history ?? true,
        deleted: q.deleted ?? true,
        reverse: q.reverse ?? false,
      });
      return sendJsonText(reply, eager(pages));
    },
  });
}

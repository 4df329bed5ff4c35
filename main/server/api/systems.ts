import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { anyObject, bool, str, replies, emptyReply, stringValuesOnly } from '../schemas.js';
import { badRequest, conflict } from '../../../hub-core/base/index.js';
import { isJsonObject } from '../../../hub-core/base/index.js';

const systemParams = { type: 'object', required: ['system_id'], properties: { system_id: str } } as const;
const secretsBody = { type: 'object', additionalProperties: { type: 'string' } } as const;

interface SystemParams {
  system_id: string;
}

export async function systemRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  const tags = ['systems'];

  app.get<{ Querystring: { verbose?: boolean } }>('/systems', {
    schema: { tags, summary: 'List systems', querystring: { type: 'object', properties: { verbose: bool } }, response: replies({ 200: { type: 'array', items: anyObject } }) },
    handler: async () => hub.systems.ids().map((id) => hub.systems.info(id)),
  });

  app.post<{ Querystring: { force?: boolean }; Body: unknown[] }>('/systems', {
    schema: {
      tags,
      summary: 'Create systems',
      querystring: { type: 'object', properties: { force: bool } },
      body: { type: 'array', items: { type: 'object', required: ['_id'], additionalProperties: true } },
      response: replies({ 200: { type: 'array', items: anyObject }, 409: { $ref: 'Error#' } }),
    },
    handler: async (req) => {
      const entities = hub.systems.validate(req.body, req.query.force === true);
      const dup = entities.find((e) => hub.config.get('system', e._id) !== undefined);
      if (dup) throw conflict(`system ${JSON.stringify(dup._id)} already exists`, 'use PUT /systems/<system_id>/config to change it');
      hub.systems.save(entities);
      return entities.map((e) => hub.systems.info(e._id));
    },
  });

  app.get<{ Params: SystemParams }>('/systems/:system_id', {
    schema: { tags, summary: 'System information', params: systemParams, response: replies({ 200: anyObject }) },
    handler: async (req) => hub.systems.info(req.params.system_id),
  });

  app.delete<{ Params: SystemParams }>('/systems/:system_id', {
    schema: { tags, summary: 'Delete a system and its secrets', params: systemParams, response: replies({ 200: emptyReply }) },
    handler: async (req, reply) => {
      hub.systems.delete(req.params.system_id);
      return reply.code(200).send();
    },
  });

  app.get<{ Params: SystemParams }>('/systems/:system_id/config', {
    schema: { tags, summary: 'System configuration', params: systemParams, response: replies({ 200: anyObject }) },
    handler: async (req) => hub.systems.require(req.params.system_id),
  });

  app.put<{ Params: SystemParams; Querystring: { force?: boolean }; Body: unknown }>('/systems/:system_id/config', {
    schema: {
      tags,
      summary: 'Replace a system configuration',
      params: systemParams,
      querystring: { type: 'object', properties: { force: bool } },
      body: anyObject,
      response: replies({ 200: anyObject }),
    },
    handler: async (req) => {
      const id = req.params.system_id;
      hub.systems.require(id);
      if (!isJsonObject(req.body)) throw badRequest('the body must be a system configuration object');
      const body = { ...req.body };
      if (body['_id'] === undefined) body['_id'] = id;
      if (body['_id'] !== id) throw badRequest('the "_id" in the body does not match the URL');
      const [entity] = hub.systems.validate([body], req.query.force === true);
      hub.systems.save([entity!]);
      return hub.systems.require(id);
    },
  });

  app.get<{ Params: SystemParams }>('/systems/:system_id/secrets', {
    schema: { tags, summary: 'Names of the system secrets (never values)', params: systemParams, response: replies({ 200: { type: 'array', items: str } }) },
    handler: async (req) => {
      hub.systems.require(req.params.system_id);
      return hub.secrets.names(req.params.system_id);
    },
  });

  for (const method of ['put', 'post'] as const) {
    app[method]<{ Params: SystemParams; Body: Record<string, string> }>('/systems/:system_id/secrets', {
      schema: {
        tags,
        summary: method === 'put' ? 'Replace the system secrets' : 'Add or overwrite system secrets',
        params: systemParams,
        body: secretsBody,
        response: replies({ 200: emptyReply }),
      },
      preValidation: stringValuesOnly,
      handler: async (req, reply) => {
        hub.systems.require(req.params.system_id);
        hub.secrets.set(req.body, method === 'put', req.params.system_id);
        return reply.code(200).send();
      },
    });
  }

  // Not in instance-api.md (which only replaces or merges); added so one system secret can be removed by name.
  app.delete<{ Params: SystemParams & { secret_key: string } }>('/systems/:system_id/secrets/:secret_key', {
    schema: {
      tags,
      summary: 'Delete one system secret',
      params: { type: 'object', required: ['system_id', 'secret_key'], properties: { system_id: str, secret_key: str } },
      response: replies({ 200: emptyReply }),
    },
    handler: async (req, reply) => {
      hub.systems.require(req.params.system_id);
      hub.secrets.delete(req.params.secret_key, req.params.system_id);
      return reply.code(200).send();
    },
  });

  const micro = (operation: string) => async (req: { params: SystemParams }) => hub.systems.requireMicroservice(req.params.system_id, operation);
  app.get<{ Params: SystemParams }>('/systems/:system_id/logs', {
    schema: { tags, summary: 'Microservice logs (not available on the desktop hub)', params: systemParams, querystring: { type: 'object', properties: { since: str } } },
    handler: micro('logs'),
  });
  app.get<{ Params: SystemParams }>('/systems/:system_id/status', {
    schema: { tags, summary: 'Microservice status (not available on the desktop hub)', params: systemParams },
    handler: micro('status'),
  });
  app.post<{ Params: SystemParams }>('/systems/:system_id/reload', {
    schema: { tags, summary: 'Reload a microservice (not available on the desktop hub)', params: systemParams },
    handler: micro('reload'),
  });
  app.route<{ Params: SystemParams }>({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/systems/:system_id/proxy/*',
    schema: { tags, summary: 'Microservice proxy (not available on the desktop hub)' },
    handler: micro('proxy'),
  });
}

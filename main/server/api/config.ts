import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { anyObject, bool, isTrue, pyBool, str, replies, emptyReply, limitParam, sinceParam } from '../schemas.js';
import { configFromZip, configToZip } from '../config-zip.js';

const configArray = { type: 'array', items: { type: 'object', required: ['_id', 'type'], additionalProperties: true } } as const;

function wantsZip(req: FastifyRequest): boolean {
  // The original API names the header "Accepts"; browsers and tools send "Accept".
  const h = `${String(req.headers['accepts'] ?? '')},${String(req.headers['accept'] ?? '')}`;
  return h.includes('application/zip');
}

function bodyEntities(body: unknown): unknown {
  return Buffer.isBuffer(body) ? configFromZip(new Uint8Array(body)) : body;
}

export async function configRoutes(app: FastifyInstance, ctx: RouteContext): Promise<void> {
  const { hub } = ctx;
  const tags = ['config'];
  const configBody = { description: 'an array of configuration entities, or a zip archive of *.conf.json files (Content-Type: application/zip)' };

  app.get('/config', {
    schema: { tags, summary: 'Default-group configuration (JSON array, or zip with Accept: application/zip)', response: replies({ 200: configArray }) },
    handler: async (req, reply) => {
      const entities = hub.groupConfig('');
      if (wantsZip(req)) {
        return reply.type('application/zip').header('Content-Disposition', 'attachment; filename="datahub-config.zip"').send(Buffer.from(configToZip(entities, ctx.workspaceDir)));
      }
      return entities;
    },
  });

  app.put<{ Querystring: { force?: string }; Body: unknown }>('/config', {
    schema: {
      tags,
      summary: 'Replace all default-group configuration',
      description: 'Without force, configuration with errors is refused as a whole: the 400 answer lists each entity with errors under validation_errors.',
      querystring: { type: 'object', properties: { force: pyBool } },
      body: configBody,
      response: replies({ 200: emptyReply }),
    },
    handler: async (req, reply) => {
      hub.replaceGroupConfig('', bodyEntities(req.body), isTrue(req.query.force));
      return reply.code(200).send();
    },
  });

  app.get<{ Params: { group: string } }>('/config/:group', {
    schema: {
      tags,
      summary: 'Configuration of one config group',
      params: { type: 'object', required: ['group'], properties: { group: str } },
      querystring: { type: 'object', properties: { force: bool } },
      response: replies({ 200: configArray }),
    },
    handler: async (req, reply) => {
      const entities = hub.groupConfig(req.params.group);
      if (wantsZip(req)) return reply.type('application/zip').send(Buffer.from(configToZip(entities, ctx.workspaceDir)));
      return entities;
    },
  });

  app.put<{ Params: { group: string }; Querystring: { force?: string }; Body: unknown }>('/config/:group', {
    schema: {
      tags,
      summary: 'Replace the configuration of one config group',
      params: { type: 'object', required: ['group'], properties: { group: str } },
      querystring: { type: 'object', properties: { force: pyBool } },
      body: configBody,
      response: replies({ 200: emptyReply }),
    },
    handler: async (req, reply) => {
      hub.replaceGroupConfig(req.params.group, bodyEntities(req.body), isTrue(req.query.force));
      return reply.code(200).send();
    },
  });

  app.get<{ Querystring: { entity_id: string; limit?: number; since?: number; reverse?: boolean } }>('/config-history/entity', {
    schema: {
      tags,
      summary: 'Every stored version of one configuration entity',
      querystring: { type: 'object', required: ['entity_id'], properties: { entity_id: str, limit: limitParam, since: sinceParam, reverse: bool } },
      response: replies({ 200: { type: 'array', items: anyObject } }),
    },
    handler: async (req) =>
      hub.config.history(req.query.entity_id, {
        ...(req.query.limit !== undefined ? { limit: req.query.limit } : {}),
        ...(req.query.since !== undefined ? { since: req.query.since } : {}),
        reverse: req.query.reverse === true,
      }),
  });
}

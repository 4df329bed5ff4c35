import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { ADMIN } from '../auth.js';
import { anyObject, bool, int, str, replies, entityArray, limitParam, sinceParam } from '../schemas.js';
import { eager, sendJsonText, setPullHeaders } from '../json-pull.js';
import { sessionCookieName, sessionToken } from '../ui.js';
import { DatasetRegistry, PREVIEW_SIZE } from '../../../hub-core/registry/index.js';
import { notFound } from '../../../hub-core/base/index.js';

const tags = ['registry'];

const entryParams = {
  type: 'object',
  required: ['instance_id', 'dataset_id'],
  properties: {
    instance_id: { type: 'string', description: "the hub's instance id (its node id)" },
    dataset_id: { type: 'string', description: 'a published dataset id (may contain ":")' },
  },
} as const;

const nullableStr = { type: ['string', 'null'] } as const;
const entrySchema = {
  type: 'object',
  required: ['instance_id', 'dataset_id', 'name', 'keywords', 'license', 'first_published', 'last_published', 'entities', 'links'],
  properties: {
    instance_id: str,
    dataset_id: str,
    name: str,
    description: nullableStr,
    keywords: { type: 'array', items: str },
    license: nullableStr,
    pipe: nullableStr,
    first_published: str,
    last_published: nullableStr,
    entities: int,
    links: {
      type: 'object',
      description: 'paths relative to the registry address (http://<host>:<port>/registry)',
      properties: { preview: str, data: str },
    },
  },
} as const;

interface EntryParams {
  instance_id: string;
  dataset_id: string;
}

/** The listing's query: text, keyword and licence filters, and a page (the desktop's registry routes take the same). */
export interface ListQuery {
  q?: string;
  keyword?: string;
  license?: string;
  offset?: number;
  limit?: number;
}

interface DataQuery {
  since?: number;
  limit?: number;
  history?: boolean;
  deleted?: boolean;
  reverse?: boolean;
}

/**
 * The registry (`/registry/...`, outside /api): the datasets this hub publishes, a preview of each and its data as
 * JSON Pull. The admin token always answers; without a token only when node metadata says `registry.share: true`.
 */
export async function registryRoutes(app: FastifyInstance, { hub, tokens }: RouteContext): Promise<void> {
  const registry = new DatasetRegistry(hub);
  const cookie = sessionCookieName(tokens);

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization;
    const bearer = header ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
    const token = bearer ?? (header === undefined ? sessionToken(request, cookie) : undefined);
    const shared = registry.settings().share;
    if (header !== undefined && bearer === undefined) {
      return reply.code(401).header('WWW-Authenticate', 'Bearer').send({ error: 'authentication required', detail: 'send "Authorization: Bearer <token>"' });
    }
    if (!token) {
      if (shared) return undefined;
      return reply
        .code(401)
        .header('WWW-Authenticate', 'Bearer')
        .send({ error: 'authentication required', detail: 'this registry is not shared: send the admin token, or set registry.share: true in the node metadata' });
    }
    const result = await tokens.verify(token);
    if ('refused' in result) {
      return reply.code(401).header('WWW-Authenticate', 'Bearer error="invalid_token"').send({ error: 'invalid token', detail: result.refused });
    }
    if (result.kind === 'user' && !hub.users.exists(result.sub)) {
      return reply.code(401).send({ error: 'invalid token', detail: 'the user of this token no longer exists' });
    }
    if (!shared && !result.principals.includes(ADMIN)) {
      return reply.code(403).send({ error: 'forbidden', detail: 'this registry is not shared: only the admin token may read it' });
    }
    request.claims = result;
    return undefined;
  });

  app.get('/', {
    schema: {
      tags,
      summary: 'What this registry is: its instance id and its paths',
      response: replies({ 200: { type: 'object', required: ['instance_id', 'entries'], properties: { instance_id: str, entries: str, data: str, shared: bool } } }),
    },
    handler: async () => ({ instance_id: registry.instanceId, entries: '/entries', data: '/data/<instance_id>/<dataset_id>', shared: registry.settings().share }),
  });

  app.get<{ Querystring: ListQuery }>('/entries', {
    schema: {
      tags,
      summary: 'The published datasets (paged, filtered)',
      querystring: {
        type: 'object',
        properties: {
          q: { type: 'string', description: 'text in the id, name, description or keywords (any case)' },
          keyword: { type: 'string', description: 'entries with this keyword' },
          license: { type: 'string', description: 'entries with this licence' },
          offset: { ...int, minimum: 0 },
          limit: { ...int, minimum: 0, maximum: 1000 },
        },
      },
      response: replies({
        200: {
          type: 'object',
          required: ['instance_id', 'total', 'offset', 'limit', 'entries'],
          properties: { instance_id: str, total: int, offset: int, limit: int, entries: { type: 'array', items: entrySchema } },
        },
      }),
    },
    handler: async (req) => registry.list(req.query),
  });

  app.get<{ Params: EntryParams }>('/entries/:instance_id/:dataset_id', {
    schema: {
      tags,
      summary: `One published dataset with a preview of its first ${PREVIEW_SIZE} entities`,
      params: entryParams,
      response: replies({ 200: { ...entrySchema, properties: { ...entrySchema.properties, preview: { type: 'array', items: anyObject } } } }),
    },
    handler: async (req) => registry.entry(req.params.instance_id, req.params.dataset_id),
  });

  app.get<{ Params: EntryParams; Querystring: DataQuery }>('/data/:instance_id/:dataset_id', {
    schema: {
      tags,
      summary: 'The data of a published dataset (JSON Pull)',
      params: entryParams,
      querystring: {
        type: 'object',
        properties: { since: sinceParam, limit: limitParam, history: bool, deleted: bool, reverse: bool },
      },
      response: replies({ 200: entityArray }),
    },
    handler: async (req, reply) => {
      const q = req.query;
      const ds = registry.dataset(req.params.instance_id, req.params.dataset_id);
      const pages = ds.readJsonText({
        ...(q.since !== undefined ? { since: q.since } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
        history: q.history ?? true,
        deleted: q.deleted ?? true,
        reverse: q.reverse ?? false,
      });
      const stream = eager(pages);
      setPullHeaders(reply, ds);
      return sendJsonText(reply, stream);
    },
  });

  // Anything else under /registry: a JSON 404, never the UI page.
  app.all('/*', {
    schema: { hide: true },
    handler: async () => {
      throw notFound('registry path', 'the registry answers /registry/entries, /registry/entries/<instance_id>/<dataset_id> and /registry/data/<instance_id>/<dataset_id>');
    },
  });
}

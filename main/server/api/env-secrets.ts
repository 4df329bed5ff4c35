import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { str, replies, emptyReply, anyObject, stringValuesOnly } from '../schemas.js';
import { badRequest, notFound } from '../../../hub-core/base/index.js';
import { isJsonObject } from '../../../hub-core/base/index.js';

/** Accepts `{"name": "value", ...}`, `{"name": ..., "value": ...}`, or a list of either. */
function envVariables(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (v: unknown): void => {
    if (!isJsonObject(v)) throw badRequest('an environment variable is a JSON object', 'send {"name": "value"} or [{"name": "n", "value": "v"}]');
    const keys = Object.keys(v);
    if (keys.length === 2 && typeof v['name'] === 'string' && 'value' in v) {
      out[v['name']] = stringValue(v['name'], v['value']);
      return;
    }
    for (const [k, val] of Object.entries(v)) out[k] = stringValue(k, val);
  };
  if (Array.isArray(body)) body.forEach(add);
  else add(body);
  return out;
}

function stringValue(name: string, v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw badRequest(`environment variable ${JSON.stringify(name)} must be a string, number or boolean`);
}

export async function envSecretRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  const envBody = { anyOf: [anyObject, { type: 'array', items: anyObject }] } as const;

  app.get('/env', {
    schema: { tags: ['env'], summary: 'All environment variables', response: replies({ 200: { type: 'object', additionalProperties: { type: 'string' } } }) },
    handler: async () => hub.env.all(),
  });
  app.get<{ Params: { env_var: string } }>('/env/:env_var', {
    schema: { tags: ['env'], summary: 'One environment variable', params: { type: 'object', properties: { env_var: str } }, response: replies({ 200: str }) },
    handler: async (req, reply) => {
      const v = hub.env.get(req.params.env_var);
      if (v === undefined) throw notFound(`environment variable ${JSON.stringify(req.params.env_var)}`);
      return reply.type('application/json').send(JSON.stringify(v));
    },
  });
  for (const method of ['put', 'post', 'patch'] as const) {
    app[method]<{ Body: unknown }>('/env', {
      schema: {
        tags: ['env'],
        summary: method === 'put' ? 'Replace all environment variables' : 'Add or overwrite environment variables',
        body: envBody,
        response: replies({ 200: emptyReply }),
      },
      handler: async (req, reply) => {
        hub.env.set(envVariables(req.body), method === 'put');
        return reply.code(200).send();
      },
    });
  }
  app.delete<{ Params: { env_var: string } }>('/env/:env_var', {
    schema: { tags: ['env'], summary: 'Delete an environment variable', params: { type: 'object', properties: { env_var: str } }, response: replies({ 200: emptyReply }) },
    handler: async (req, reply) => {
      hub.env.delete(req.params.env_var);
      return reply.code(200).send();
    },
  });

  const secretsBody = { type: 'object', additionalProperties: { type: 'string' } } as const;
  app.get('/secrets', {
    schema: { tags: ['secrets'], summary: 'Names of the node secrets (values are never returned)', response: replies({ 200: { type: 'array', items: str } }) },
    handler: async () => hub.secrets.names(),
  });
  for (const method of ['put', 'post'] as const) {
    app[method]<{ Body: Record<string, string> }>('/secrets', {
      schema: {
        tags: ['secrets'],
        summary: method === 'put' ? 'Replace all node secrets' : 'Add or overwrite secrets, keeping others',
        body: secretsBody,
        response: replies({ 200: emptyReply }),
      },
      preValidation: stringValuesOnly,
      handler: async (req, reply) => {
        hub.secrets.set(req.body, method === 'put');
        return reply.code(200).send();
      },
    });
  }
  app.delete<{ Params: { secret_key: string } }>('/secrets/:secret_key', {
    schema: { tags: ['secrets'], summary: 'Delete a secret', params: { type: 'object', properties: { secret_key: str } }, response: replies({ 200: emptyReply }) },
    handler: async (req, reply) => {
      hub.secrets.delete(req.params.secret_key);
      return reply.code(200).send();
    },
  });
}

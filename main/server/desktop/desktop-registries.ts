// /desktop/registries: the dataset registries the Registry view lists — this hub's own ("local") and others the user
// added by address (another local hub, a remote instance), saved like the other connections (kind "registry", the
// token, if any, in the OS keychain). The host reads remote registries itself, so the renderer only talks to us.
//   GET    /desktop/registries                           the registries
//   POST   /desktop/registries                           add one (checked to be a registry first)
//   DELETE /desktop/registries/<reg>                     remove one
//   GET    /desktop/registries/<reg>/entries             its listing (q, keyword, license, offset, limit)
//   GET    /desktop/registries/<reg>/entries/<iid>/<ds>  one entry with its preview
//   POST   /desktop/registries/<reg>/enrich              the system, json source and DTL pipe of §1.7: all or none
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DesktopContext } from './desktop-context.js';
import { DatasetRegistry } from '../../../hub-core/registry/index.js';
import { HubError, notFound } from '../../../hub-core/base/index.js';
import { RegistryClient, registryAddress } from '../../remote/registry-client.js';
import { checkTransport } from '../../remote/portal-client.js';
import { upstream } from './desktop-connections.js';
import { SecretStoreUnavailable } from '../../secrets/secret-store.js';
import { anyObject, replies, str } from '../schemas.js';
import { enrich, type EnrichRequest } from '../registry-enrich.js';
import type { ListQuery } from '../api/registry.js';

export const LOCAL_REGISTRY = 'local';

const tags = ['desktop'];
const regParams = { type: 'object', required: ['reg'], properties: { reg: str } } as const;
const entryParams = { type: 'object', required: ['reg', 'instance_id', 'dataset_id'], properties: { reg: str, instance_id: str, dataset_id: str } } as const;
const registrySchema = {
  type: 'object',
  required: ['id', 'label', 'url', 'local'],
  properties: { id: str, label: str, url: str, local: { type: 'boolean' }, token: { type: 'boolean', description: 'a token is stored for it' }, created: str },
} as const;
const moreErrors = { 403: { $ref: 'Error#' }, 409: { $ref: 'Error#' }, 502: { $ref: 'Error#' }, 503: { $ref: 'Error#' } } as const;

/** This hub's own registry address, as the caller reached the hub. */
export function localRegistryUrl(req: FastifyRequest): string {
  return `${req.protocol}://${req.headers.host ?? req.hostname}/registry`;
}

/** A saved registry connection and its client (the token from the keychain, or none). */
export async function remoteRegistry(ctx: DesktopContext, id: string): Promise<RegistryClient> {
  const c = ctx.connections.get(id);
  if (!c || c.kind !== 'registry') throw notFound(`registry ${JSON.stringify(id)}`, 'add it on the Registry view first');
  let token: string | null;
  try {
    token = await ctx.connections.token(c.id);
  } catch (e) {
    if (e instanceof SecretStoreUnavailable) throw new HubError(503, 'the OS keychain is not available', e.message);
    throw e;
  }
  return new RegistryClient(c.url, token, c.label);
}

function queryString(q: ListQuery): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}

export async function registryConnectionRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  const local = new DatasetRegistry(ctx.hub);

  app.get('/registries', {
    schema: { tags, summary: "The dataset registries the Registry view lists: this hub's own first, then the added ones", response: replies({ 200: { type: 'array', items: registrySchema } }) },
    handler: async (req) => [
      { id: LOCAL_REGISTRY, label: 'This hub', url: localRegistryUrl(req), local: true },
      ...ctx.connections
        .list()
        .filter((c) => c.kind === 'registry')
        .map((c) => ({ id: c.id, label: c.label, url: c.url, local: false, created: c.created })),
    ],
  });

  app.post<{ Body: { label: string; url: string; token?: string; allowInsecure?: boolean } }>('/registries', {
    schema: {
      tags,
      summary: 'Add a registry by address (a hub, its /api root or its /registry address); it is read once to check it is one',
      body: {
        type: 'object',
        required: ['label', 'url'],
        additionalProperties: false,
        properties: {
          label: { type: 'string', minLength: 1, maxLength: 200 },
          url: { type: 'string', minLength: 1, maxLength: 2000 },
          token: { type: 'string', maxLength: 20000, description: 'a token of that hub, for a registry that is not shared' },
          allowInsecure: { type: 'boolean', description: 'the user confirmed sending the token over plain http:// to a host off this computer' },
        },
      },
      response: { ...replies({ 201: registrySchema }), ...moreErrors },
    },
    handler: async (req, reply) => {
      const url = registryAddress(req.body.url);
      const token = (req.body.token ?? '').trim();
      if (/\s/.test(token)) throw new HubError(400, 'a token has no spaces', 'paste only the token, without "Bearer"');
      if (token !== '') await upstream(async () => checkTransport(url, req.body.allowInsecure));
      const label = req.body.label.trim();
      if (ctx.connections.list().some((c) => c.kind === 'registry' && c.url === url)) throw new HubError(409, `the registry ${url} is added already`);
      await new RegistryClient(url, token === '' ? null : token, label).entries('?limit=1');
      const saved = await upstream(() => ctx.connections.add({ kind: 'registry', label, url, token }));
      return reply.code(201).send({ id: saved.id, label: saved.label, url: saved.url, local: false, token: token !== '', created: saved.created });
    },
  });

  app.delete<{ Params: { reg: string } }>('/registries/:reg', {
    schema: { tags, summary: 'Remove an added registry (and its token)', params: regParams, response: { ...replies({ 204: { type: 'null' } }), ...moreErrors } },
    handler: async (req, reply) => {
      const c = ctx.connections.get(req.params.reg);
      if (!c || c.kind !== 'registry') throw notFound(`registry ${JSON.stringify(req.params.reg)}`);
      await upstream(() => ctx.connections.remove(c.id));
      return reply.code(204).send();
    },
  });

  app.get<{ Params: { reg: string }; Querystring: ListQuery }>('/registries/:reg/entries', {
    schema: {
      tags,
      summary: "A registry's entries (as GET /registry/entries answers them)",
      params: regParams,
      querystring: {
        type: 'object',
        properties: { q: str, keyword: str, license: str, offset: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 0, maximum: 1000 } },
      },
      response: { ...replies({ 200: anyObject }), ...moreErrors },
    },
    handler: async (req) => {
      if (req.params.reg === LOCAL_REGISTRY) return local.list(req.query);
      return (await remoteRegistry(ctx, req.params.reg)).entries(queryString(req.query));
    },
  });

  app.get<{ Params: { reg: string; instance_id: string; dataset_id: string } }>('/registries/:reg/entries/:instance_id/:dataset_id', {
    schema: { tags, summary: 'One registry entry with the preview of its first 10 entities', params: entryParams, response: { ...replies({ 200: anyObject }), ...moreErrors } },
    handler: async (req) => {
      const { reg, instance_id: iid, dataset_id: ds } = req.params;
      if (reg === LOCAL_REGISTRY) return local.entry(iid, ds);
      return (await remoteRegistry(ctx, reg)).entry(iid, ds);
    },
  });

  app.post<{ Params: { reg: string }; Body: EnrichRequest }>('/registries/:reg/enrich', {
    schema: {
      tags,
      summary: 'Enrich a registry entry: a system:url for the registry, a json source pipe reading the entry and a DTL pipe that publishes — all three or none',
      description:
        'Checks first that the ids are free, the registry answers as one and lists the entry, and that every configuration is valid; ' +
        'then stores the three. If storing fails part way, what was stored is taken away again.',
      params: regParams,
      body: {
        type: 'object',
        required: ['instance_id', 'dataset_id', 'pipe_id'],
        additionalProperties: false,
        properties: {
          instance_id: { type: 'string', minLength: 1, maxLength: 500 },
          dataset_id: { type: 'string', minLength: 1, maxLength: 500 },
          pipe_id: { type: 'string', minLength: 1, maxLength: 200, description: 'the DTL pipe; the source pipe is <pipe_id>-source, the system <pipe_id>-registry' },
          name: { type: 'string', maxLength: 500 },
          description: { type: 'string', maxLength: 5000 },
          keywords: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 100 },
          license: { type: 'string', maxLength: 500 },
        },
      },
      response: {
        ...replies({
          201: {
            type: 'object',
            required: ['system', 'source', 'pipe', 'warnings'],
            properties: { system: str, source: str, pipe: str, warnings: { type: 'array', items: str } },
          },
        }),
        ...moreErrors,
      },
    },
    handler: async (req, reply) => {
      const reg = req.params.reg;
      const target =
        reg === LOCAL_REGISTRY
          ? { kind: 'local' as const, url: localRegistryUrl(req), registry: local, dataDir: ctx.dataDir }
          : { kind: 'remote' as const, client: await remoteRegistry(ctx, reg), token: await ctx.connections.token(reg) };
      const made = await enrich(ctx.hub, target, req.body);
      return reply.code(201).send(made);
    },
  });
}

// /desktop/connections: saved portal and instance connections. A token is checked against its portal
// (GET /api/profile) or instance (GET /api/status) before it is stored, and only in the OS keychain;
// no answer ever carries it.
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from './desktop-context.js';
import { HubError } from '../../../hub-core/base/index.js';
import type { Connection, NewConnection } from '../../remote/connections.js';
import { PortalClient, PortalError } from '../../remote/portal-client.js';
import { addVerified } from '../../remote/verify-connection.js';
import { SecretStoreUnavailable } from '../../secrets/secret-store.js';
import { replies, str } from '../schemas.js';

export const connectionSchema = {
  type: 'object',
  required: ['id', 'kind', 'label', 'url', 'created'],
  additionalProperties: false,
  properties: {
    id: str,
    kind: { type: 'string', enum: ['portal', 'instance', 'registry'] },
    label: str,
    url: str,
    created: str,
    subscription: str,
    portal: str,
    session: { type: 'boolean', description: 'kept for this session only: the token is in memory, never saved' },
  },
} as const;

export const moreErrors = { 403: { $ref: 'Error#' }, 409: { $ref: 'Error#' }, 502: { $ref: 'Error#' }, 503: { $ref: 'Error#' }, 504: { $ref: 'Error#' } } as const;

/** Runs a portal or keychain step, turning its failures into the hub's {error, detail} answers. */
export async function upstream<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    if (e instanceof PortalError) throw new HubError(e.status, e.message, e.detail ?? undefined);
    if (e instanceof SecretStoreUnavailable) throw new HubError(503, 'the OS keychain is not available', e.message);
    throw e;
  }
}

/** Check the transport and the token, then store (token in the keychain, the rest in connections.json). */
export async function addVerifiedConnection(ctx: DesktopContext, input: NewConnection, allowInsecure?: boolean): Promise<Connection> {
  return upstream(() => addVerified(ctx.connections, input, allowInsecure));
}

export async function connectionRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  app.get('/keychain', {
    schema: {
      tags: ['desktop'],
      summary: 'Whether the OS keychain can keep tokens (without one, connections are for the session only)',
      response: replies({
        200: {
          type: 'object',
          required: ['available', 'backend', 'problem'],
          properties: { available: { type: 'boolean' }, backend: str, problem: { type: ['string', 'null'] } },
        },
      }),
    },
    handler: async () => {
      const backend = ctx.connections.secrets.backend;
      try {
        await ctx.connections.secrets.get('connection:keychain-probe');
        return { available: true, backend, problem: null };
      } catch (e) {
        if (e instanceof SecretStoreUnavailable) return { available: false, backend, problem: e.message };
        return { available: true, backend, problem: null };
      }
    },
  });

  app.get('/connections', {
    schema: { tags: ['desktop'], summary: 'Saved portal and instance connections (never their tokens)', response: replies({ 200: { type: 'array', items: connectionSchema } }) },
    handler: async () => ctx.connections.list(),
  });

  app.post<{ Body: NewConnection & { allowInsecure?: boolean } }>('/connections', {
    schema: {
      tags: ['desktop'],
      summary: 'Verify a token against its portal or instance, then save the connection with the token in the OS keychain',
      body: {
        type: 'object',
        required: ['kind', 'label', 'url', 'token'],
        additionalProperties: false,
        properties: {
          kind: { type: 'string', enum: ['portal', 'instance'] },
          label: { type: 'string', minLength: 1, maxLength: 200 },
          url: { type: 'string', minLength: 1, maxLength: 2000 },
          token: { type: 'string', minLength: 1, maxLength: 20000 },
          subscription: { type: 'string', minLength: 1, maxLength: 500 },
          portal: { type: 'string', minLength: 1, maxLength: 100 },
          allowInsecure: { type: 'boolean', description: 'the user confirmed sending the token over plain http:// to a host off this computer' },
          session: { type: 'boolean', description: 'keep the connection for this session only: the token stays in memory (for a computer without an OS keychain)' },
        },
      },
      response: { ...replies({ 201: connectionSchema }), ...moreErrors },
    },
    handler: async (req, reply) => {
      const { allowInsecure, ...body } = req.body;
      if (body.portal !== undefined && ctx.connections.get(body.portal)?.kind !== 'portal') {
        throw new HubError(400, 'unknown portal connection', `no saved portal connection ${JSON.stringify(body.portal)}`);
      }
      const token = body.token.trim();
      if (/\s/.test(token)) throw new HubError(400, 'a token has no spaces', 'paste only the token, without "Bearer"');
      const saved = await addVerifiedConnection(ctx, { ...body, label: body.label.trim(), token }, allowInsecure);
      return reply.code(201).send(saved);
    },
  });

  app.patch<{ Params: { id: string }; Body: { portal: string | null; subscription: string | null } }>('/connections/:id', {
    schema: {
      tags: ['desktop'],
      summary: "Link an instance connection to a portal subscription (for its alert badges), or unlink it with nulls",
      params: { type: 'object', required: ['id'], properties: { id: str } },
      body: {
        type: 'object',
        required: ['portal', 'subscription'],
        additionalProperties: false,
        properties: { portal: { type: ['string', 'null'], minLength: 1, maxLength: 100 }, subscription: { type: ['string', 'null'], minLength: 1, maxLength: 500 } },
      },
      response: { ...replies({ 200: connectionSchema }), ...moreErrors },
    },
    handler: async (req) => {
      const { portal, subscription } = req.body;
      const target = ctx.connections.get(req.params.id);
      if (!target) throw new HubError(404, 'connection not found', `no saved connection ${JSON.stringify(req.params.id)}`);
      if (target.kind !== 'instance') throw new HubError(400, 'only an instance connection can be linked to a subscription');
      if ((portal === null) !== (subscription === null)) throw new HubError(400, 'name both the portal and the subscription, or neither');
      if (portal === null || subscription === null) return ctx.connections.link(target.id, null);
      if (ctx.connections.get(portal)?.kind !== 'portal') throw new HubError(400, 'unknown portal connection', `no saved portal connection ${JSON.stringify(portal)}`);
      // The subscription must exist and be visible with the portal's token.
      await upstream(() => PortalClient.forConnection(ctx.connections, portal).subscription(subscription));
      return ctx.connections.link(target.id, { portal, subscription });
    },
  });

  app.delete<{ Params: { id: string } }>('/connections/:id', {
    schema: {
      tags: ['desktop'],
      summary: 'Remove a connection and delete its token from the OS keychain',
      params: { type: 'object', required: ['id'], properties: { id: str } },
      response: { ...replies({ 204: { type: 'null' } }), ...moreErrors },
    },
    handler: async (req, reply) => {
      const removed = await upstream(() => ctx.connections.remove(req.params.id));
      if (!removed) throw new HubError(404, 'connection not found', `no saved connection ${JSON.stringify(req.params.id)}`);
      return reply.code(204).send();
    },
  });
}

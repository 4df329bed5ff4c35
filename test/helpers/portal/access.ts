// Who calls: every request but the open ones (/api, login) needs a portal user's token or an API token; errors are
// {error, detail} JSON.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { PortalError, type PortalContext } from './context.js';
import type { Json } from './types.js';

export function accessHooks(app: FastifyInstance, ctx: PortalContext): void {
  const { users, byToken, subs, seenAuthorization, principals } = ctx;
  app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, _req, reply) => {
    if (err instanceof PortalError) return reply.code(err.status).send({ error: err.error, detail: err.detail });
    if (err.validation !== undefined || err.statusCode === 400) return reply.code(400).send({ error: 'invalid request', detail: err.message });
    return reply.code(500).send({ error: 'internal error', detail: err.message });
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: 'not found', detail: `no route ${req.method} ${req.url.split('?')[0]}` }));

  app.addHook('onRequest', async (req, reply: FastifyReply) => {
    const path = req.url.split('?')[0]!;
    const open = path === '/api' || path.startsWith('/api/login') || path === '/api/sso';
    const header = req.headers.authorization;
    if (header !== undefined) seenAuthorization.push(header);
    if (open) return;
    const token = header ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
    if (!token) {
      await reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'authentication required', detail: 'send Authorization: Bearer <token>' });
      return;
    }
    const user = byToken.get(token);
    if (user) {
      principals.set(req, { user });
      return;
    }
    for (const [id, sub] of subs) {
      const rec = sub.tokens.find((t) => t.jwt === token);
      const owner = rec ? users.get(String((rec.public['payload'] as Json)['user_id'])) : undefined;
      if (rec && owner) {
        principals.set(req, { user: owner, onlySubscription: id });
        return;
      }
    }
    await reply.code(401).header('www-authenticate', 'Bearer error="invalid_token"').send({ error: 'invalid token', detail: 'the token is unknown, expired or revoked' });
  });
}

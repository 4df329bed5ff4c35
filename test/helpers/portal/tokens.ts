// A subscription's API tokens (JWTs): listed without their secret, created with it once, deleted.
import type { FastifyInstance } from 'fastify';
import { randomBytes, randomUUID } from 'node:crypto';
import { PortalError, type P, type PortalContext } from './context.js';
import { knownRoles } from './members.js';
import type { Json } from './types.js';

export function tokenRoutes(app: FastifyInstance, ctx: PortalContext): void {
  const { mint, person, now, memberOf, subFor, userOnly, body } = ctx;
  // API tokens
  app.get<P>('/api/subscriptions/:sub/api_json_web_tokens', async (req) => subFor(req, req.params['sub']!).tokens.map((t) => t.public));
  app.post<P>('/api/subscriptions/:sub/api_json_web_tokens', async (req) => {
    const subId = req.params['sub']!;
    const sub = subFor(req, subId);
    const u = userOnly(req);
    const b = body(req);
    const exp = b['exp'];
    if (typeof exp !== 'number' || !Number.isFinite(exp)) throw new PortalError(400, 'invalid request', 'exp (seconds since the epoch) is required');
    if (exp <= Date.now() / 1000) throw new PortalError(400, 'invalid request', 'exp is in the past');
    // The spec leaves the default principals open; here a token gets its creator's roles when none are named.
    const principalsList = b['principals'] === undefined ? (memberOf(sub, u.user_id)?.['roles'] as string[]) : knownRoles(sub, b['principals']);
    const refresh = b['refresh_interval'];
    if (refresh !== undefined && (typeof refresh !== 'number' || !Number.isFinite(refresh) || refresh <= 0)) {
      throw new PortalError(400, 'invalid request', 'refresh_interval must be a positive number of seconds');
    }
    const id = randomUUID();
    const iat = Math.floor(Date.now() / 1000);
    const payload: Json = {
      api_token_id: id,
      // With a refresh interval the JWT lives one interval; the client refreshes it with its client_id/secret.
      exp: refresh === undefined ? exp : Math.min(exp, iat + Math.ceil(refresh)),
      iat,
      principals: { [subId]: principalsList },
      user_id: u.user_id,
      user_principal: 'group:Everyone',
      user_profile: { email: u.email, name: u.name, picture: '' },
    };
    const ts = now();
    const record: Json = {
      id,
      name: typeof b['name'] === 'string' ? b['name'] : '',
      description: typeof b['description'] === 'string' ? b['description'] : '',
      ...(refresh !== undefined ? { refresh_interval: refresh, client_id: `client-${randomBytes(8).toString('hex')}` } : {}),
      payload,
      audit: { created_by: person(u), last_modified_by: person(u), created_ts: ts, last_modified_ts: ts },
      'supported-operations': { delete_api_jwt_token: true },
    };
    const jwt = mint(payload);
    sub.tokens.push({ public: record, jwt, subscription: subId });
    return { ...record, jwt_string: jwt, ...(refresh !== undefined ? { client_secret: randomBytes(24).toString('base64url') } : {}) };
  });
  app.delete<P>('/api/subscriptions/:sub/api_json_web_tokens/:token', async (req, reply) => {
    const sub = subFor(req, req.params['sub']!);
    const before = sub.tokens.length;
    sub.tokens = sub.tokens.filter((t) => t.public['id'] !== req.params['token']);
    if (sub.tokens.length === before) throw new PortalError(404, 'API token not found', `no API token ${JSON.stringify(req.params['token'])}`);
    return reply.code(200).send();
  });
}

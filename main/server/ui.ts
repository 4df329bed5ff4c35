import { existsSync } from 'node:fs';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { ADMIN, type TokenService } from './auth.js';
import { HubError } from '../../hub-core/base/index.js';
import { CONTENT_SECURITY_POLICY } from './csp.js';

/** The session cookie's name for one hub: `datahub_session_<hub id>`, so hubs on one host keep separate sessions. */
export function sessionCookieName(tokens: Pick<TokenService, 'hubId'>): string {
  return `datahub_session_${tokens.hubId}`;
}
const SESSION_SECONDS = 12 * 3600;
const CODE_SECONDS = 10 * 60;

/** Where `vite build` writes the renderer (out/renderer, beside the compiled main/). */
export const RENDERER_DIR = fileURLToPath(new URL('../../renderer/', import.meta.url));

/**
 * One-time login codes, the way notebook servers do it: the CLI prints a URL with a code, the browser
 * trades it once for an HttpOnly session cookie, and the long-lived token never appears in a URL.
 */
export class LoginCodes {
  private readonly codes = new Map<string, number>();

  create(): string {
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, Date.now() + CODE_SECONDS * 1000);
    return code;
  }

  /** True once per valid, unexpired code. */
  redeem(code: string): boolean {
    const now = Date.now();
    for (const [c, exp] of this.codes) if (exp < now) this.codes.delete(c);
    for (const c of this.codes.keys()) {
      const a = Buffer.from(c);
      const b = Buffer.from(code);
      if (a.length === b.length && timingSafeEqual(a, b)) {
        this.codes.delete(c);
        return true;
      }
    }
    return false;
  }
}

/** The same policy the desktop shell sets (csp.ts). */
export const CSP = CONTENT_SECURITY_POLICY;

export async function uiPlugin(app: FastifyInstance, opts: { tokens: TokenService; codes: LoginCodes }): Promise<void> {
  const cookie = sessionCookieName(opts.tokens);
  app.get<{ Querystring: { code?: string } }>('/login', {
    schema: { hide: true, querystring: { type: 'object', properties: { code: { type: 'string' } } } },
    handler: async (req, reply) => {
      if (!req.query.code || !opts.codes.redeem(req.query.code)) {
        return reply
          .code(401)
          .type('text/html; charset=utf-8')
          .send('<!doctype html><html lang="en"><title>Login link used</title><p>This login link is invalid, expired or already used. ' +
            'Run <code>npx datahub login-url</code> or restart <code>npx datahub serve</code> for a new one.</p>');
      }
      const session = await opts.tokens.issue({ sub: 'browser-session', principals: [ADMIN] }, `${SESSION_SECONDS}s`);
      return reply
        .setCookie(cookie, session, { httpOnly: true, sameSite: 'strict', path: '/', maxAge: SESSION_SECONDS, secure: false })
        .redirect('/', 303);
    },
  });

  app.post('/api/login-url', {
    schema: {
      tags: ['auth'],
      summary: 'A new one-time link that signs a browser in to the UI',
      response: { 200: { type: 'object', properties: { url: { type: 'string' } } } },
    },
    handler: async (req) => {
      // A login link yields an admin session, so only an admin may ask for one.
      if (!req.claims?.principals.includes(ADMIN)) throw new HubError(403, 'forbidden', 'only a group:Admin token may create login links');
      return { url: `${req.protocol}://${req.headers.host ?? ''}/login?code=${opts.codes.create()}` };
    },
  });

  app.post('/logout', { schema: { hide: true } }, async (req, reply) => {
    const session = sessionToken(req, cookie);
    if (session !== undefined) await opts.tokens.revoke(session);
    return reply.clearCookie(cookie, { path: '/' }).code(204).send();
  });

  const built = existsSync(`${RENDERER_DIR}index.html`);
  if (built) {
    await app.register(fastifyStatic, { root: RENDERER_DIR, prefix: '/', index: ['index.html'], wildcard: false });
  }
  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload) => {
    if (!req.url.startsWith('/api/')) {
      reply.header('Content-Security-Policy', CSP);
      reply.header('Referrer-Policy', 'no-referrer');
    }
    return payload;
  });
  if (!built) {
    app.get('/', { schema: { hide: true } }, async (_req, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .send('<!doctype html><html lang="en"><title>Datahub Desktop</title><p>The hub is running; the UI is not built. Run <code>npm run build</code>.</p>'),
    );
  }
}

/** The session cookie's token, if the request carries one. */
export function sessionToken(req: FastifyRequest, cookie: string): string | undefined {
  const cookies = (req as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies;
  return cookies?.[cookie];
}

import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import type { RouteContext } from '../route-context.js';
import { requireAdmin } from '../route-context.js';
import { anyObject, bool, str, replies, emptyReply } from '../schemas.js';
import { badRequest, HubError } from '../../../hub-core/base/index.js';
import { NODE_VERSION } from '../../../hub-core/hub.js';
import { isJsonObject, type JsonObject } from '../../../hub-core/base/index.js';
import { DEVELOPER } from '../auth.js';
import { LoginLimiter } from '../login-limiter.js';

const DEFAULT_NAMESPACES: Record<string, string> = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  owl: 'http://www.w3.org/2002/07/owl#',
  foaf: 'http://xmlns.com/foaf/0.1/',
  dcterms: 'http://purl.org/dc/terms/',
};

export async function nodeRoutes(app: FastifyInstance, { hub, tokens, previews }: RouteContext): Promise<void> {
  const logins = new LoginLimiter();
  app.get<{ Querystring: { aggregated?: boolean } }>('/', {
    schema: { tags: ['node'], summary: 'Service information', querystring: { type: 'object', properties: { aggregated: bool } }, response: replies({ 200: anyObject }) },
    // The hosted service's command-line client refuses most commands unless status.developer_mode is true, and waits
    // for node_start_time to change after a restart: a desktop hub is always a developer's node.
    handler: async () => ({
      status: {
        'git-revision': process.env['DATAHUB_GIT_REVISION'] ?? 'unknown',
        'ci-buildnumber': process.env['DATAHUB_BUILD'] ?? 'local',
        developer_mode: true,
        node_id: hub.nodeId,
        node_version: NODE_VERSION,
        node_start_time: hub.startTime.toISOString(),
      },
      node_id: hub.nodeId,
      node_version: NODE_VERSION,
      node_start_time: hub.startTime.toISOString(),
      api: '/api',
    }),
  });

  app.get('/health', {
    schema: { tags: ['node'], summary: 'Health (no token needed)', security: [], response: { 200: anyObject, 503: anyObject } },
    handler: async (_req, reply) => {
      try {
        hub.checkDatabase();
        return { status: 'ok' };
      } catch (e) {
        return reply.code(503).send({ status: 'unhealthy', detail: e instanceof Error ? e.message : String(e) });
      }
    },
  });

  app.get('/status', {
    schema: {
      tags: ['diagnostics'],
      summary: 'Node status and memory',
      description: 'pipe_workers: the workers pump runs use; preview_workers: those previews, traces, step-throughs, impacts and stage reads evaluate DTL in (busy, jobs, workers restarted after a deadline)',
      response: replies({ 200: anyObject }),
    },
    // Without a preview pool (DATAHUB_PREVIEW_WORKERS=0) the evaluations run on the hub's own thread.
    handler: async () => ({ ...hub.status(), preview_workers: previews?.status?.() ?? { count: 0, on_hub_thread: true } }),
  });

  app.get('/status/heap', {
    schema: { tags: ['diagnostics'], summary: 'Memory use (plain text)' },
    handler: async (_req, reply) => {
      const m = process.memoryUsage();
      const lines = Object.entries(m).map(([k, v]) => `${k.padEnd(14)} ${(v / 1048576).toFixed(1)} MiB`);
      return reply.type('text/plain; charset=utf-8').send(lines.join('\n') + '\n');
    },
  });

  app.get('/status/debugmallocstats', {
    schema: { tags: ['diagnostics'], summary: 'Allocator statistics (plain text)' },
    handler: async (_req, reply) => {
      const { heap, resourceUsage } = process.report.getReport() as unknown as { heap: Record<string, unknown>; resourceUsage: Record<string, unknown> };
      return reply.type('text/plain; charset=utf-8').send(JSON.stringify({ heap, resourceUsage }, null, 2) + '\n');
    },
  });

  app.get('/status/stacktrace', {
    schema: { tags: ['diagnostics'], summary: 'Stack traces (group:Admin only)', response: { 403: { $ref: 'Error#' } } },
    handler: async (req, reply) => {
      requireAdmin(req);
      const report = process.report.getReport() as unknown as { javascriptStack?: { message?: string; stack?: string[] }; nativeStack?: { symbol?: string }[] };
      const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
      const js = (report.javascriptStack?.stack ?? []).map(esc).join('\n');
      const native = (report.nativeStack ?? []).map((f) => esc(f.symbol ?? '')).join('\n');
      return reply
        .type('text/html; charset=utf-8')
        .send(`<!doctype html><title>Stack traces</title><h1>Main thread (JavaScript)</h1><pre>${js}</pre><h1>Native</h1><pre>${native}</pre>`);
    },
  });

  app.post<{ Body: { loglevel: string; logger_name?: string } }>('/logs', {
    schema: {
      tags: ['diagnostics'],
      summary: 'Change the log level',
      body: {
        type: 'object',
        required: ['loglevel'],
        // A misspelt field ("logger" for logger_name) would be dropped while the answer said it took effect.
        additionalProperties: false,
        properties: { loglevel: { type: 'string', enum: ['DEBUG', 'INFO', 'WARNING', 'WARN', 'ERROR', 'CRITICAL', 'debug', 'info', 'warning', 'warn', 'error', 'critical'] }, logger_name: str },
      },
      response: replies({ 200: { type: 'object', properties: { msg: str } } }),
    },
    handler: async (req) => {
      const map: Record<string, string> = { debug: 'debug', info: 'info', warning: 'warn', warn: 'warn', error: 'error', critical: 'fatal' };
      const level = map[req.body.loglevel.toLowerCase()]!;
      app.log.level = level;
      hub.kv.set('log_level', level);
      return { msg: `log level of ${req.body.logger_name ?? 'the hub'} set to ${req.body.loglevel.toUpperCase()}` };
    },
  });

  app.get('/namespaces', {
    schema: { tags: ['node'], summary: 'Namespaces, defaults included', response: replies({ 200: { type: 'object', additionalProperties: { type: 'string' } } }) },
    handler: async () => {
      const md = hub.metadata();
      const ns = isJsonObject(md['namespaces']) ? md['namespaces'] : {};
      const out: Record<string, string> = { ...DEFAULT_NAMESPACES };
      const defaults = isJsonObject(ns['default']) ? ns['default'] : ns;
      for (const [k, v] of Object.entries(defaults)) if (typeof v === 'string') out[k] = v;
      return out;
    },
  });

  app.get('/metadata', {
    schema: { tags: ['node'], summary: 'Service metadata', response: replies({ 200: anyObject }) },
    handler: async () => hub.metadata(),
  });
  app.put<{ Body: JsonObject }>('/metadata', {
    schema: { tags: ['node'], summary: 'Replace service metadata', body: anyObject, response: replies({ 200: anyObject }) },
    handler: async (req) => hub.setMetadata(req.body),
  });
  app.delete('/metadata', {
    schema: { tags: ['node'], summary: 'Remove all service metadata', response: replies({ 200: anyObject }) },
    handler: async () => {
      hub.deleteMetadata();
      return hub.metadata();
    },
  });

  app.get('/license', {
    schema: { tags: ['node'], summary: 'The installed license (its claims, never the key)', response: replies({ 200: anyObject }) },
    handler: async () => {
      const key = hub.kv.get('license');
      if (!key) return { licensed: false, detail: 'no license installed; the desktop hub runs without one' };
      return { licensed: true, ...licenseClaims(key) };
    },
  });
  app.put<{ Body: unknown }>('/license', {
    schema: { tags: ['node'], summary: 'Replace the license key', body: { description: 'the license key (a JWT) as text or JSON string' }, response: replies({ 200: emptyReply }) },
    handler: async (req, reply) => {
      const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : req.body;
      const key = typeof raw === 'string' ? raw.trim().replace(/^"|"$/g, '') : '';
      const claims = licenseClaims(key);
      if (typeof claims['exp'] === 'number' && claims['exp'] * 1000 < Date.now()) throw badRequest('the license has expired', `it expired at ${new Date(claims['exp'] * 1000).toISOString()}`);
      hub.kv.set('license', key);
      return reply.code(200).send();
    },
  });

  app.post<{ Body: { email?: string; password?: string } }>('/jwt', {
    schema: {
      tags: ['auth'],
      summary: 'Get a token for a configured user (form fields email, password)',
      security: [],
      body: { type: 'object', required: ['email', 'password'], properties: { email: str, password: str } },
      response: { 200: { type: 'string' }, 400: { $ref: 'Error#' }, 401: { $ref: 'Error#' }, 429: { $ref: 'Error#' } },
    },
    handler: async (req, reply) => {
      const email = req.body.email ?? '';
      const user = await logins.attempt(email, () => hub.users.authenticate(email, req.body.password ?? ''));
      if (!user) throw new HubError(401, 'invalid email or password', null as unknown as undefined);
      const token = await tokens.issue({ sub: user.email, principals: user.principals, kind: 'user' }, '12h');
      return reply.type('text/plain; charset=utf-8').send(token);
    },
  });

  app.get('/users', {
    schema: { tags: ['auth'], summary: 'Users who may get tokens (group:Admin only)', response: replies({ 200: { type: 'array', items: anyObject } }) },
    handler: async (req) => {
      requireAdmin(req);
      return hub.users.list();
    },
  });
  app.put<{ Params: { email: string }; Body: { password: string; principals?: string[] } }>('/users/:email', {
    schema: {
      tags: ['auth'],
      summary: 'Create or update a user (group:Admin only)',
      params: { type: 'object', properties: { email: str } },
      // A misspelt "principal" would leave the user a Developer without a word: unknown fields are named instead.
      body: { type: 'object', required: ['password'], additionalProperties: false, properties: { password: str, principals: { type: 'array', items: str } } },
      response: replies({ 200: anyObject }),
    },
    handler: async (req) => {
      requireAdmin(req);
      return hub.users.set(req.params.email, req.body.password, req.body.principals ?? [DEVELOPER]);
    },
  });
  app.delete<{ Params: { email: string } }>('/users/:email', {
    schema: { tags: ['auth'], summary: 'Delete a user (group:Admin only)', params: { type: 'object', properties: { email: str } }, response: replies({ 200: emptyReply }) },
    handler: async (req, reply) => {
      requireAdmin(req);
      hub.users.delete(req.params.email);
      return reply.code(200).send();
    },
  });
}

function licenseClaims(key: string): Record<string, unknown> {
  if (!/^[\w-]+\.[\w-]+\.[\w-]*$/.test(key)) throw badRequest('invalid license key', 'a license key is a signed token of three base64url parts');
  try {
    const claims = decodeJwt(key);
    return { ...claims };
  } catch {
    throw badRequest('invalid license key', 'its claims could not be read');
  }
}

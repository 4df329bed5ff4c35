import { join } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Hub } from '../../hub-core/hub.js';
import { TokenService, type TokenClaims } from './auth.js';
import { installErrorHandling, errorSchema } from './http-errors.js';
import { allowedHosts, installHostGuard } from './host-guard.js';
import { datasetRoutes } from './api/datasets.js';
import { datasetProfileRoutes } from './api/dataset-profile.js';
import { entityLineageRoutes } from './api/entity-lineage.js';
import { receiverRoutes } from './api/receivers.js';
import { publisherRoutes } from './api/publishers.js';
import { pipeRoutes } from './api/pipes.js';
import { pipeEntityRoutes } from './api/pipe-entities.js';
import { outboxRoutes } from './api/outbox.js';
import { pipePreviewRoutes } from './api/pipe-preview.js';
import { pipeStepThroughRoutes } from './api/pipe-step-through.js';
import { pipeImpactRoutes } from './api/pipe-impact.js';
import { pipeAlertRoutes } from './api/pipe-alerts.js';
import { pumpRoutes } from './api/pumps.js';
import { runAllRoutes } from './api/run-all-pipes.js';
import { nodeMaintenanceRoutes } from './api/node-maintenance.js';
import { systemRoutes } from './api/systems.js';
import { configRoutes } from './api/config.js';
import { envSecretRoutes } from './api/env-secrets.js';
import { dtlRoutes } from './api/dtl.js';
import { configSchemaRoutes } from './api/config-schema.js';
import { configSearchRoutes } from './api/config-search.js';
import { nodeRoutes } from './api/node.js';
import { registryRoutes } from './api/registry.js';
import { NODE_VERSION } from '../../hub-core/hub.js';
import { HubError } from '../../hub-core/base/index.js';
import { bigIntegerReviver, hasLongDigitRun, jsonTextProblem } from '../../hub-core/base/index.js';
import sjson from 'secure-json-parse';
import { parseConfigText } from '../../hub-core/base/index.js';

import { decodeContentEncoding } from './content-encoding.js';
import { loneSurrogateProblem, utf8Problem } from './json-bytes.js';
import { parseFormBody } from './form-body.js';
import { guardServingThread } from '../../hub-core/dtl/index.js';
import { buildSerializer, buildValidator } from './validators.js';
import { LoginCodes, sessionCookieName, sessionToken, uiPlugin } from './ui.js';
import { releaseHeapWhenIdle } from './heap-release.js';
import { EntityParserPool } from './entity-parser-pool.js';
import { PreviewPool, previewDeadlineMs } from '../../hub-core/preview/index.js';
import { workerMemoryMb, workerNice } from '../../hub-core/pipes/index.js';
import type { RouteContext } from './route-context.js';
import { desktopPlugin, type DesktopContext } from './desktop/desktop.js';

/** Routes whose JSON bodies are configuration (pipes, the whole config, DTL tried out). */
const CONFIG_ROUTE = /^\/api\/(pipes|config|dtl)(\/|\?|$)/;

declare module 'fastify' {
  interface FastifyRequest {
    claims: TokenClaims | null;
  }
}

export interface ServerOptions {
  hub: Hub;
  tokens: TokenService;
  host: string;
  /** Largest request body in bytes. */
  bodyLimit?: number;
  /** Largest streamed JSON Push body in bytes (a push larger than bodyLimit is read as it arrives). */
  pushLimit?: number;
  /** Milliseconds a client has to send a whole request (a stalled upload is answered 408 and closed). */
  requestTimeout?: number;
  logger?: boolean;
  /** Extra Host header values to accept (for example a name in /etc/hosts the user chose). */
  extraHosts?: string[];
  /** One-time login codes for the browser UI. */
  loginCodes?: LoginCodes;
  /** The desktop host's routes (/desktop/...); left out, the server is a plain instance API. */
  desktop?: Omit<DesktopContext, 'hub' | 'workspaceDir'>;
}

export const DEFAULT_BODY_LIMIT = 64 * 1024 * 1024;
export const DEFAULT_REQUEST_TIMEOUT = 120_000;

/** Routes anyone may call without a token. */
const PUBLIC = new Set(['GET /api/health', 'POST /api/jwt']);

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  // No transform holds this thread (previews, traces, runs that stay here) past a bound (dtl/work-limit.ts).
  guardServingThread();
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
  const app = Fastify({
    logger: options.logger ? { level: 'info' } : false,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    requestTimeout,
    // Node checks the timeouts of open requests at this interval (30 s by default).
    http: { headersTimeout: Math.min(60_000, requestTimeout), connectionsCheckingInterval: Math.min(30_000, Math.max(250, requestTimeout / 4)) },
    routerOptions: { maxParamLength: 2048 },
    ajv: { customOptions: { coerceTypes: 'array', allErrors: false } },
    // Query strings are text and coerced; JSON bodies are checked as sent (validators.ts).
    schemaController: { compilersFactory: { buildValidator: buildValidator as never, buildSerializer: buildSerializer as never } },
    forceCloseConnections: true,
    // Paths the router cannot take answer in the hub's error shape.
    frameworkErrors: (error, _req, reply) => {
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const body = { error: tooLong ? 'URI too long' : 'invalid URL', detail: tooLong ? 'a path part is longer than 2048 characters' : error.message };
      void (reply as unknown as FastifyReply).code(tooLong ? 414 : 400).type('application/json; charset=utf-8').send(body);
    },
  });
  app.decorateRequest('claims', null);
  const entityParser = new EntityParserPool();
  // After a burst (large pushes, large reads, runs), an idle hub gives back the heap the burst grew.
  const stopHeapRelease = releaseHeapWhenIdle();
  app.addHook('onClose', async () => stopHeapRelease());
  app.addHook('onClose', async () => entityParser.close());
  // Previews, traces, step-throughs and impacts evaluate DTL in these workers, each job with a deadline.
  // DATAHUB_PREVIEW_WORKERS=0 evaluates them on the hub's thread, as before (to measure the difference).
  const previews =
    process.env['DATAHUB_PREVIEW_WORKERS'] === '0'
      ? undefined
      : new PreviewPool(join(options.hub.dataDir, 'hub.db'), options.hub.datasets, options.hub.pumps.runtimes, 2, workerMemoryMb(), workerNice(), previewDeadlineMs());
  app.addHook('onClose', async () => previews?.close());
  let hosts = new Set<string>();
  app.addHook('onListen', async () => {
    const addr = app.server.address();
    if (addr && typeof addr === 'object') hosts = allowedHosts(options.host, addr.port);
  });
  installHostGuard(app, () => hosts, options.extraHosts ?? []);
  installErrorHandling(app, (text) => options.hub.secrets.mask(text));
  // Every response, API and pages alike (errors too): a browser must never sniff a CSV or JSON answer into HTML.
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    return payload;
  });
  app.addSchema(errorSchema);
  // JSON that parsing would silently change (or that would exhaust the stack later) is refused before it is parsed.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // Read as bytes: decoding to a string first would turn bytes that are not UTF-8 into U+FFFD without a word.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const badBytes = utf8Problem(bytes);
    if (badBytes) return done(new HubError(400, 'malformed JSON', badBytes), undefined);
    let text = bytes.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a byte order mark
    const problem = jsonTextProblem(text) ?? loneSurrogateProblem(text);
    if (problem) done(new HubError(400, 'malformed JSON', problem), undefined);
    else if (CONFIG_ROUTE.test(req.url) && !text.includes('__proto__') && !text.includes('"constructor"')) {
      // Configuration keeps the float literals of its transforms as written (1.0 stays a float for DTL).
      try {
        done(null, parseConfigText(text));
      } catch (e) {
        done(new HubError(400, 'malformed JSON', e instanceof Error ? e.message : String(e)), undefined);
      }
    } else if (hasLongDigitRun(text)) {
      // Integers beyond ±2^53 are read exactly, as BigInts (exact-json.ts); the same checks as the default parser.
      try {
        done(null, sjson.parse(text, bigIntegerReviver, { protoAction: 'error', constructorAction: 'error' }));
      } catch (e) {
        done(new HubError(400, 'malformed JSON', e instanceof Error ? e.message : String(e)), undefined);
      }
    } else defaultJson(req, text, done);
  });
  app.addHook('preParsing', async (request, _reply, payload) => decodeContentEncoding(request.headers['content-encoding'], payload));
  // Forms (the pump's operations) are read as bytes too, so that bytes that are not UTF-8 are refused (form-body.ts).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_req, body, done) => {
    try {
      done(null, parseFormBody(typeof body === 'string' ? Buffer.from(body) : body));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  await app.register(cookie);
  // Any other body type reaches the routes as a Buffer; routes that take one declare it.
  app.addContentTypeParser(['application/zip', 'application/octet-stream', 'text/plain'], { parseAs: 'buffer' }, (_req, body, done) =>
    done(null, body),
  );

  const sessionCookie = sessionCookieName(options.tokens);
  app.addHook('onRequest', async (request, reply) => {
    // Decide by the route that matched, never by the raw URL: the router decodes the path, so
    // "/%61pi/pipes" reaches the /api/pipes handler although its raw URL does not start with /api.
    const route = request.routeOptions.url;
    const path = route ?? request.url;
    if (!path.startsWith('/api') && !path.startsWith('/desktop')) return undefined;
    const key = `${request.method} ${route ?? ''}`;
    if (PUBLIC.has(key)) return undefined;
    const header = request.headers.authorization;
    const bearer = header ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
    // The browser UI authenticates with an HttpOnly, SameSite=Strict session cookie instead.
    const token = bearer ?? (header === undefined ? sessionToken(request, sessionCookie) : undefined);
    if (!token) {
      return reply
        .code(401)
        .header('WWW-Authenticate', 'Bearer')
        .send({ error: 'authentication required', detail: 'send "Authorization: Bearer <token>"; the hub writes one to <data>/access-token' });
    }
    const result = await options.tokens.verify(token);
    if ('refused' in result) {
      return reply.code(401).header('WWW-Authenticate', 'Bearer error="invalid_token"').send({ error: 'invalid token', detail: result.refused });
    }
    if (result.kind === 'user' && !options.hub.users.exists(result.sub)) {
      return reply.code(401).send({ error: 'invalid token', detail: 'the user of this token no longer exists' });
    }
    request.claims = result;
    return undefined;
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Datahub Desktop instance API', version: NODE_VERSION, description: 'The API of the embedded hub, served on loopback.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/reference', uiConfig: { docExpansion: 'list' } });

  await app.register(
    async (api) => {
      const workspaces = options.desktop?.workspaces;
      const ctx: RouteContext = {
        hub: options.hub,
        tokens: options.tokens,
        entityParser,
        previews,
        pushLimit: options.pushLimit,
        get workspaceDir() {
          return workspaces?.dir;
        },
      };
      await api.register(nodeRoutes, ctx);
      await api.register(datasetRoutes, ctx);
      await api.register(datasetProfileRoutes, ctx);
      await api.register(entityLineageRoutes, ctx);
      await api.register(receiverRoutes, ctx);
      await api.register(publisherRoutes, ctx);
      await api.register(pipeRoutes, ctx);
      await api.register(pipeEntityRoutes, ctx);
      await api.register(outboxRoutes, ctx);
      await api.register(pipePreviewRoutes, ctx);
      await api.register(pipeStepThroughRoutes, ctx);
      await api.register(pipeImpactRoutes, ctx);
      await api.register(pipeAlertRoutes, ctx);
      await api.register(pumpRoutes, ctx);
      await api.register(runAllRoutes, ctx);
      await api.register(nodeMaintenanceRoutes, ctx);
      await api.register(systemRoutes, ctx);
      await api.register(configRoutes, ctx);
      await api.register(envSecretRoutes, ctx);
      await api.register(dtlRoutes, ctx);
      await api.register(configSchemaRoutes);
      await api.register(configSearchRoutes, ctx);
    },
    { prefix: '/api' },
  );
  // The dataset registry lives outside /api (its address is http://<host>:<port>/registry) and checks tokens itself.
  await app.register(registryRoutes, { prefix: '/registry', hub: options.hub, tokens: options.tokens, entityParser });

  if (options.desktop) {
    const { dataDir, connections, workspaces } = options.desktop;
    const desktop: DesktopContext = {
      hub: options.hub,
      dataDir,
      connections,
      workspaces,
      get workspaceDir() {
        return workspaces.dir;
      },
    };
    await app.register(async (scope) => desktopPlugin(scope, desktop), { prefix: '/desktop' });
  }

  await app.register(uiPlugin, { tokens: options.tokens, codes: options.loginCodes ?? new LoginCodes() });
  return app;
}

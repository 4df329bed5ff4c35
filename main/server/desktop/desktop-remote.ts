// Remote instances seen through the host: /desktop/remote/<conn>/api/* forwards to the instance with the
// connection's keychain token (the renderer never holds it), and /desktop/remote/<conn>/sync/* moves
// configuration between the instance and a local workspace folder.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import type { DesktopContext } from './desktop-context.js';
import type { Connection } from '../../remote/connections.js';
import { forward } from '../../remote/instance-proxy.js';
import { InstanceClient, diff, fetchRemote, readLocal, syncFolder, writeDownload } from '../../remote/config-sync.js';
import { upload, type UploadChoice } from '../../remote/sync-upload.js';
import { HubError, badRequest, notFound } from '../../../hub-core/base/index.js';
import { bool, replies, str } from '../schemas.js';
import { SecretStoreUnavailable } from '../../secrets/secret-store.js';

const connParams = { type: 'object', required: ['conn'], properties: { conn: str } } as const;
const gatewayErrors = { 502: { $ref: 'Error#' }, 503: { $ref: 'Error#' } } as const;

interface ConnParams {
  conn: string;
}

export async function instanceOf(ctx: DesktopContext, id: string): Promise<{ connection: Connection; token: string }> {
  const connection = ctx.connections.get(id);
  if (!connection || connection.kind !== 'instance') throw notFound(`instance connection ${JSON.stringify(id)}`, 'add the instance under Remote first');
  let token: string | null;
  try {
    token = await ctx.connections.token(id);
  } catch (e) {
    if (e instanceof SecretStoreUnavailable) throw new HubError(503, 'the OS keychain is not available', e.message);
    throw e;
  }
  if (token === null) throw new HubError(409, `no token is stored for ${connection.label}`, 'the keychain has no secret for this connection; remove it and add it again');
  return { connection, token };
}

function sendError(reply: FastifyReply, status: number, error: string, detail: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ error, detail });
}

async function proxyRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  // Leave every body unread so it streams to the remote as it arrives; no body limit applies here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));

  app.route<{ Params: ConnParams & { '*': string } }>({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/remote/:conn/api/*',
    schema: {
      tags: ['desktop'],
      summary: 'The instance API of a saved remote instance, forwarded with its stored token',
      params: { type: 'object', required: ['conn'], properties: { conn: str, '*': str } },
      response: { 404: { $ref: 'Error#' }, 409: { $ref: 'Error#' }, ...gatewayErrors },
    },
    handler: async (req, reply) => {
      const { connection, token } = await instanceOf(ctx, req.params.conn);
      // The raw URL keeps the path's percent-encoding (ids with "/" or ":") and the query string.
      const raw = req.raw.url ?? '/';
      const q = raw.indexOf('?');
      const segments = (q === -1 ? raw : raw.slice(0, q)).split('/'); // ['', 'desktop', 'remote', conn, 'api', ...rest]
      const rest = `/${segments.slice(5).join('/')}${q === -1 ? '' : raw.slice(q)}`;
      const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
      const abort = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) abort.abort();
      });
      const result = await forward({
        method: req.method,
        apiRoot: connection.url,
        path: rest,
        headers: req.headers,
        body: hasBody ? (req.raw as Readable) : undefined,
        token,
        signal: abort.signal,
      });
      if (result.kind === 'unreachable') {
        return sendError(reply, 502, `the remote instance ${connection.label} cannot be reached`, result.reason);
      }
      if (result.kind === 'unauthorized') {
        return sendError(reply, 502, 'the remote instance rejected the stored token', `${connection.label} answered 401; store a new token for this connection`);
      }
      void reply.code(result.status).headers(result.headers);
      return reply.send(result.body);
    },
  });
}

const folderProp = { ...str, description: 'absolute path of the local folder; default: the workspace the hub was opened on' };
const hash = { type: ['string', 'null'], maxLength: 200 } as const;
const itemRef = {
  type: 'object',
  required: ['kind', 'id', 'remoteHash', 'localHash'],
  additionalProperties: false,
  properties: {
    kind: { type: 'string', enum: ['pipe', 'system', 'metadata', 'env'] },
    id: str,
    remoteHash: { ...hash, description: 'remoteHash of the item as compared (null: the remote did not have it)' },
    localHash: { ...hash, description: 'localHash of the item as compared (null: the folder did not have it)' },
    confirmDelete: { ...bool, description: 'the user confirmed that this upload deletes on the remote' },
  },
} as const;
const diffItem = {
  type: 'object',
  required: ['kind', 'id', 'status', 'local', 'remote', 'localHash', 'remoteHash'],
  properties: {
    kind: { type: 'string', enum: ['pipe', 'system', 'metadata', 'env'] },
    id: str,
    status: { type: 'string', enum: ['added', 'removed', 'changed', 'same'] },
    local: { type: ['string', 'null'] },
    remote: { type: ['string', 'null'] },
    localHash: hash,
    remoteHash: hash,
    removes: { type: 'array', items: str, description: 'env only: variables an upload deletes on the remote' },
  },
} as const;

async function syncRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  const tags = ['desktop'];
  const clientOf = async (conn: string): Promise<{ client: InstanceClient; connection: Connection }> => {
    const { connection, token } = await instanceOf(ctx, conn);
    return { client: new InstanceClient(connection.url, token), connection };
  };

  app.get<{ Params: ConnParams; Querystring: { folder?: string } }>('/remote/:conn/sync/diff', {
    schema: {
      tags,
      summary: 'Compare the pipes and systems of a local folder with the remote instance',
      params: connParams,
      querystring: { type: 'object', properties: { folder: folderProp } },
      response: replies({
        200: {
          type: 'object',
          required: ['folder', 'items', 'problems'],
          properties: { folder: str, items: { type: 'array', items: diffItem }, problems: { type: 'array', items: str } },
        },
        409: { $ref: 'Error#' },
        ...gatewayErrors,
      }),
    },
    handler: async (req) => {
      const { client } = await clientOf(req.params.conn);
      const folder = syncFolder(req.query.folder, ctx.workspaceDir, true);
      const remote = await fetchRemote(client);
      const local = readLocal(folder);
      return { folder, items: diff(local, remote), problems: local.problems };
    },
  });

  app.post<{ Params: ConnParams; Body: { folder?: string; prune?: boolean } }>('/remote/:conn/sync/download', {
    schema: {
      tags,
      summary: 'Write the remote configuration (and env, secret names) into a local folder in the workspace layout',
      params: connParams,
      body: { type: 'object', additionalProperties: false, properties: { folder: folderProp, prune: { ...bool, description: 'delete local pipes and systems the remote does not have' } } },
      response: replies({
        200: {
          type: 'object',
          required: ['folder', 'nodeDir', 'written', 'removed', 'env', 'secrets'],
          properties: {
            folder: str,
            nodeDir: str,
            written: { type: 'array', items: str },
            removed: { type: 'array', items: str },
            env: { type: 'integer' },
            secrets: { type: 'integer' },
          },
        },
        409: { $ref: 'Error#' },
        ...gatewayErrors,
      }),
    },
    handler: async (req) => {
      const { client } = await clientOf(req.params.conn);
      const folder = syncFolder(req.body.folder, ctx.workspaceDir, false);
      const remote = await fetchRemote(client);
      return writeDownload(folder, remote, req.body.prune === true);
    },
  });

  app.post<{ Params: ConnParams; Body: { folder?: string; items: UploadChoice[] } }>('/remote/:conn/sync/upload', {
    schema: {
      tags,
      summary: 'Send the chosen local pipes, systems, metadata and env variables to the remote instance (create, update or delete each)',
      description:
        'Each item carries the hashes of both sides as compared. The host compares again first: when any chosen item changed on ' +
        'either side since, the answer is 409 and nothing is written; an item that deletes on the remote needs confirmDelete.',
      params: connParams,
      body: {
        type: 'object',
        required: ['items'],
        additionalProperties: false,
        properties: { folder: folderProp, items: { type: 'array', minItems: 1, maxItems: 10000, items: itemRef } },
      },
      response: replies({
        200: {
          type: 'object',
          required: ['results'],
          properties: {
            results: {
              type: 'array',
              items: {
                type: 'object',
                required: ['kind', 'id', 'action', 'ok', 'status', 'message'],
                properties: { kind: str, id: str, action: str, ok: bool, status: { type: 'integer' }, message: str },
              },
            },
          },
        },
        409: { $ref: 'Error#' },
        ...gatewayErrors,
      }),
    },
    handler: async (req) => {
      const { client } = await clientOf(req.params.conn);
      const folder = syncFolder(req.body.folder, ctx.workspaceDir, true);
      const seen = new Set<string>();
      for (const i of req.body.items) {
        const k = `${i.kind}:${i.id}`;
        if (seen.has(k)) throw badRequest(`${i.kind} ${i.id} is listed twice`);
        seen.add(k);
      }
      const remote = await fetchRemote(client);
      return { results: await upload(client, readLocal(folder), remote, req.body.items) };
    },
  });
}

async function tokenRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  app.put<{ Params: ConnParams; Body: { token: string } }>('/remote/:conn/token', {
    schema: {
      tags: ['desktop'],
      summary: 'Replace the stored token of an instance connection (checked against the instance first)',
      params: connParams,
      body: { type: 'object', required: ['token'], additionalProperties: false, properties: { token: { type: 'string', minLength: 1, maxLength: 20000 } } },
      response: replies({ 204: { type: 'null' }, 403: { $ref: 'Error#' }, ...gatewayErrors }),
    },
    handler: async (req, reply) => {
      const connection = ctx.connections.get(req.params.conn);
      if (!connection || connection.kind !== 'instance') throw notFound(`instance connection ${JSON.stringify(req.params.conn)}`);
      const token = req.body.token.trim();
      if (token === '' || /\s/.test(token)) throw badRequest('a token has no spaces', 'paste only the token, without "Bearer"');
      const check = await new InstanceClient(connection.url, token).call('GET', '/status').catch((e: unknown) => {
        if (e instanceof HubError && e.message.includes('rejected')) return { status: 401, body: null };
        throw e;
      });
      if (check.status === 401 || check.status === 403) throw new HubError(403, 'the instance refused the token', `${connection.label} did not accept it; nothing was stored`);
      if (check.status !== 200) throw new HubError(502, `the instance answered HTTP ${check.status} to GET /status`);
      try {
        await ctx.connections.setToken(connection.id, token);
      } catch (e) {
        if (e instanceof SecretStoreUnavailable) throw new HubError(503, 'the OS keychain is not available', e.message);
        throw e;
      }
      return reply.code(204).send();
    },
  });
}

export async function remoteRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  await app.register(async (scope) => proxyRoutes(scope, ctx));
  await app.register(async (scope) => syncRoutes(scope, ctx));
  await app.register(async (scope) => tokenRoutes(scope, ctx));
}

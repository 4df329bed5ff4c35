// Whole-dataset downloads for the explorer: the latest version of every entity (or of a subset), streamed page by
// page as a JSON array or a CSV file, so neither the host nor the browser ever holds the dataset.
//   GET  /desktop/datasets/<id>/download     the file in one request (scripts, plain links);
//   POST /desktop/downloads                  checks a download (local or a remote instance) and answers a ticket;
//   GET  /desktop/downloads/<ticket>/file    the file, while GET /desktop/downloads/<ticket> tells the bytes sent
//                                            so far and any failure in words (the explorer shows both).
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DesktopContext } from './desktop-context.js';
import { bool, replies, str } from '../schemas.js';
import { eager, jsonArrayReadable } from '../json-pull.js';
import { csvReadable } from '../formats/csv.js';
import { ROW_STREAM_PAGE } from '../formats/columns.js';
import type { Dataset, ReadOptions } from '../../../hub-core/storage/index.js';
import { HubError, notFound } from '../../../hub-core/base/index.js';
import { DownloadTickets, type DownloadRequest, type DownloadTicket } from '../download-tickets.js';
import { instanceOf } from './desktop-remote.js';
import { checkRemoteDownload, remoteCsv, remoteJson, type RemoteDownload, type RemoteTarget } from '../../remote/remote-download.js';
import { DatasetRegistry } from '../../../hub-core/registry/index.js';
import { LOCAL_REGISTRY, remoteRegistry } from './desktop-registries.js';

interface DownloadQuery {
  format?: 'json' | 'csv';
  subset?: string;
  deleted?: boolean;
}

/** A file name from a dataset id: `system:pump:x` becomes `system_pump_x`. */
function fileName(datasetId: string, format: string): string {
  const base = datasetId.replace(/[^\w.-]+/g, '_').replace(/^\.+/, '') || 'dataset';
  return `${base}.${format}`;
}

function attachment(reply: FastifyReply, name: string): void {
  void reply.header('Content-Disposition', `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`);
  void reply.header('Cache-Control', 'no-store');
}

const CONTENT_TYPE = { csv: 'text/csv; charset=utf-8', json: 'application/json; charset=utf-8' } as const;

function readOptions(format: 'json' | 'csv', deleted: boolean, subset: string | undefined): ReadOptions {
  return { history: false, deleted: format === 'json' ? deleted : false, ...(subset !== undefined ? { subset } : {}) };
}

/**
 * The file of a local dataset as a stream. eager() reads the first page now, so an unknown subset or index fails
 * here, as a 4xx, before any header of the file is set.
 */
function localFile(dataset: Dataset, format: 'json' | 'csv', options: ReadOptions): Readable {
  if (format === 'csv') return csvReadable(eager(dataset.readJson({ ...options, pageSize: ROW_STREAM_PAGE })));
  return jsonArrayReadable(eager(dataset.readJsonText(options)));
}

const DESCRIPTION =
  'JSON: the latest version of each entity, deleted ones included unless `deleted` is false. CSV: the latest versions ' +
  'without deleted entities (whatever `deleted` says); its columns are `_id` and the other properties (not starting ' +
  'with `_`) of the first 1000 entities, nested values as JSON text.';

const ticketReply = {
  type: 'object',
  required: ['id', 'dataset', 'format', 'file', 'state', 'bytes'],
  properties: {
    id: str,
    dataset: str,
    format: str,
    file: str,
    url: str,
    state: { type: 'string', enum: ['ready', 'streaming', 'done', 'failed', 'cancelled'] },
    bytes: { type: 'integer' },
    error: str,
  },
} as const;

function ticketInfo(t: DownloadTicket): Record<string, unknown> {
  return {
    id: t.id,
    dataset: t.dataset,
    format: t.format,
    file: t.file,
    url: `/desktop/downloads/${t.id}/file`,
    state: t.state,
    bytes: t.bytes,
    ...(t.error !== undefined ? { error: t.error } : {}),
  };
}

export async function downloadRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  const tickets = new DownloadTickets();

  async function remoteTarget(conn: string): Promise<RemoteTarget> {
    const { connection, token } = await instanceOf(ctx, conn);
    return { apiRoot: connection.url, token, label: connection.label };
  }

  const localRegistry = new DatasetRegistry(ctx.hub);

  /** A registry entry's data: a local published dataset, or the stream of a saved registry's /data/<iid>/<ds>. */
  async function registrySource(t: DownloadRequest): Promise<{ dataset: Dataset } | { target: RemoteTarget; download: RemoteDownload }> {
    const iid = t.instanceId ?? '';
    if (t.registry === LOCAL_REGISTRY) return { dataset: localRegistry.dataset(iid, t.dataset) };
    const client = await remoteRegistry(ctx, t.registry ?? '');
    await client.entry(iid, t.dataset);
    return {
      target: { apiRoot: client.url, token: client.token ?? '', label: client.label },
      download: { dataset: t.dataset, deleted: t.deleted, path: `/data/${encodeURIComponent(iid)}/${encodeURIComponent(t.dataset)}` },
    };
  }

  app.get<{ Params: { dataset_id: string }; Querystring: DownloadQuery }>('/datasets/:dataset_id/download', {
    schema: {
      tags: ['desktop'],
      summary: 'Download the latest versions of a dataset as a JSON array or CSV (streamed)',
      description: DESCRIPTION,
      params: { type: 'object', required: ['dataset_id'], properties: { dataset_id: str } },
      querystring: {
        type: 'object',
        properties: {
          format: { type: 'string', enum: ['json', 'csv'], default: 'json' },
          subset: { ...str, description: 'a subset expression like ["eq", "_S.type", "person"] (needs a declared index)' },
          deleted: { ...bool, description: 'include deleted entities (JSON only); default true' },
        },
      },
      response: replies({ 200: { description: 'the file' } }),
    },
    handler: async (req, reply) => {
      const q = req.query;
      const dataset = ctx.hub.datasets.require(req.params.dataset_id);
      const format = q.format ?? 'json';
      const file = localFile(dataset, format, readOptions(format, q.deleted !== false, q.subset));
      attachment(reply, fileName(dataset.name, format));
      return reply.type(CONTENT_TYPE[format]).send(file);
    },
  });

  app.post<{ Body: DownloadRequest & { connection?: string; instance_id?: string } }>('/downloads', {
    schema: {
      tags: ['desktop'],
      summary: 'Check a dataset download (local or from a saved remote instance) and answer its ticket',
      description: `${DESCRIPTION} Fetch the file from the ticket's \`url\`; GET /desktop/downloads/<id> tells its progress.`,
      body: {
        type: 'object',
        required: ['dataset', 'format'],
        additionalProperties: false,
        properties: {
          dataset: { type: 'string', minLength: 1 },
          format: { type: 'string', enum: ['json', 'csv'] },
          deleted: { ...bool, default: true },
          subset: str,
          connection: { ...str, description: 'a saved remote instance connection; left out for the local hub' },
          registry: { ...str, description: 'a registry ("local" or a saved registry) whose entry `dataset` is downloaded; needs instance_id' },
          instance_id: { ...str, description: "the registry entry's instance id" },
        },
      },
      response: replies({ 200: ticketReply, 409: { $ref: 'Error#' }, 502: { $ref: 'Error#' }, 503: { $ref: 'Error#' } }),
    },
    handler: async (req) => {
      const b = req.body;
      const request: DownloadRequest = {
        dataset: b.dataset,
        format: b.format,
        deleted: b.deleted !== false,
        ...(b.subset !== undefined ? { subset: b.subset } : {}),
        ...(b.connection !== undefined ? { connection: b.connection } : {}),
        ...(b.registry !== undefined ? { registry: b.registry, instanceId: b.instance_id ?? '' } : {}),
      };
      if (request.registry !== undefined) {
        if (request.subset !== undefined) throw new HubError(400, 'a registry download has no subset');
        await registrySource(request);
      } else if (request.connection !== undefined) {
        await checkRemoteDownload(await remoteTarget(request.connection), request);
      } else {
        const dataset = ctx.hub.datasets.require(request.dataset);
        // Reads one entity now: a subset without a declared index fails here, in words.
        eager(dataset.readJson({ ...readOptions(request.format, request.deleted, request.subset), limit: 1 }));
      }
      return ticketInfo(tickets.create(request, fileName(request.dataset, request.format)));
    },
  });

  const ticketParams = { type: 'object', required: ['id'], properties: { id: str } } as const;

  app.get<{ Params: { id: string } }>('/downloads/:id', {
    schema: { tags: ['desktop'], summary: 'The progress of a download: bytes sent so far, done, or the failure', params: ticketParams, response: replies({ 200: ticketReply }) },
    handler: async (req) => {
      const ticket = tickets.get(req.params.id);
      if (!ticket) throw notFound(`download ${JSON.stringify(req.params.id)}`, 'it finished long ago or was never started');
      return ticketInfo(ticket);
    },
  });

  app.get<{ Params: { id: string } }>('/downloads/:id/file', {
    schema: {
      tags: ['desktop'],
      summary: 'The file of a download ticket (streamed; each ticket serves one download)',
      params: ticketParams,
      response: replies({ 200: { description: 'the file' }, 410: { $ref: 'Error#' }, 502: { $ref: 'Error#' }, 503: { $ref: 'Error#' } }),
    },
    handler: async (req, reply) => {
      const ticket = tickets.get(req.params.id);
      if (!ticket) throw notFound(`download ${JSON.stringify(req.params.id)}`, 'start the download again from the explorer');
      if (ticket.state !== 'ready') throw new HubError(410, 'this download was already started', 'start it again from the explorer');
      ticket.state = 'streaming';
      let source: Readable;
      try {
        if (ticket.registry !== undefined) {
          const from = await registrySource(ticket);
          if ('dataset' in from) source = localFile(from.dataset, ticket.format, readOptions(ticket.format, ticket.deleted, undefined));
          else if (ticket.format === 'csv') source = remoteCsv(from.target, from.download);
          else {
            const abort = new AbortController();
            reply.raw.on('close', () => abort.abort());
            source = await remoteJson(from.target, from.download, abort.signal);
          }
        } else if (ticket.connection !== undefined) {
          const target = await remoteTarget(ticket.connection);
          if (ticket.format === 'csv') {
            source = remoteCsv(target, ticket);
          } else {
            const abort = new AbortController();
            reply.raw.on('close', () => abort.abort());
            source = await remoteJson(target, ticket, abort.signal);
          }
        } else {
          const dataset = ctx.hub.datasets.require(ticket.dataset);
          source = localFile(dataset, ticket.format, readOptions(ticket.format, ticket.deleted, ticket.subset));
        }
      } catch (e) {
        tickets.fail(ticket, e instanceof HubError ? `${e.message}${e.detail ? ` — ${e.detail}` : ''}` : String(e));
        throw e;
      }
      attachment(reply, ticket.file);
      const tracked = tickets.track(ticket, source, (listener) => reply.raw.on('close', listener));
      return reply.type(CONTENT_TYPE[ticket.format]).send(tracked);
    },
  });
}

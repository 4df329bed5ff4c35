// Whole-dataset downloads for the explorer's "Download" links: the latest version of every entity (or of a subset),
// streamed page by page as a JSON array or a CSV file, so neither the host nor the browser ever holds the dataset.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DesktopContext } from '../desktop.js';
import { bool, replies, str } from '../schemas.js';
import { eager, sendJsonText } from '../json-pull.js';
import { csvReadable } from '../formats/csv.js';
import { ROW_STREAM_PAGE } from '../formats/columns.js';
import type { ReadOptions } from '../../../hub-core/dataset-log.js';

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

function attachment(reply: FastifyReply, datasetId: string, format: string): void {
  const name = fileName(datasetId, format);
  void reply.header('Content-Disposition', `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`);
  void reply.header('Cache-Control', 'no-store');
}

export async function downloadRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  app.get<{ Params: { dataset_id: string }; Querystring: DownloadQuery }>('/datasets/:dataset_id/download', {
    schema: {
      tags: ['desktop'],
      summary: 'Download the latest versions of a dataset as a JSON array or CSV (streamed)',
      description:
        'CSV leaves deleted entities out whatever `deleted` says; its columns are `_id` and the properties of the first 1000 entities.',
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
      const options: ReadOptions = {
        history: false,
        deleted: format === 'json' ? q.deleted !== false : false,
        ...(q.subset !== undefined ? { subset: q.subset } : {}),
      };
      // eager(): an unknown subset or index fails here, as a 4xx, before any header of the file is set.
      if (format === 'csv') {
        const pages = eager(dataset.readJson({ ...options, pageSize: ROW_STREAM_PAGE }));
        attachment(reply, dataset.name, format);
        return reply.type('text/csv; charset=utf-8').send(csvReadable(pages));
      }
      const texts = eager(dataset.readJsonText(options));
      attachment(reply, dataset.name, format);
      return sendJsonText(reply, texts);
    },
  });
}

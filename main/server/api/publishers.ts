import type { FastifyInstance, FastifyReply } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { int, str, replies } from '../schemas.js';
import { eager, sendJsonText, setPullHeaders } from '../json-pull.js';
import { csvReadable } from '../formats/csv.js';
import { ROW_STREAM_PAGE } from '../formats/columns.js';
import { xlsxReadable, linkedXlsxReadable } from '../formats/xlsx.js';
import { xmlReadable } from '../formats/xml.js';
import { publication, type PublishFormat, type PublishQuery } from '../../../hub-core/preview/index.js';

interface PublisherQuery extends PublishQuery {
  linked_excel_file?: string;
}

function* joinPages(pages: Iterable<string[]>): Generator<string> {
  for (const page of pages) if (page.length > 0) yield page.join(',');
}

/** Publishers: what hub-core/preview/publishers.ts publishes, as JSON Pull, CSV, a workbook or XML. */
export async function publisherRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  const query = { type: 'object', properties: { since: str, limit: { ...int, minimum: 0 }, linked_excel_file: str } } as const;

  function attachment(reply: FastifyReply, filename: string | undefined): void {
    if (filename) void reply.header('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`);
  }

  const handlers: Record<PublishFormat, (pipeId: string, q: PublisherQuery, reply: FastifyReply, filename?: string) => FastifyReply> = {
    entities: (pipeId, q, reply, filename) => {
      const pub = publication(hub, pipeId, 'entities');
      const p = eager(joinPages(pub.pages(q, true, pub.pipe['transform'] === undefined ? undefined : ROW_STREAM_PAGE)));
      setPullHeaders(reply, pub.dataset, pub.filtered);
      attachment(reply, filename);
      return sendJsonText(reply, p);
    },
    csv: (pipeId, q, reply, filename) => {
      const pub = publication(hub, pipeId, 'csv');
      if (q.linked_excel_file) {
        const url = `${reply.request.protocol}://${reply.request.headers.host ?? ''}/api/publishers/${encodeURIComponent(pipeId)}/csv`;
        attachment(reply, q.linked_excel_file);
        return reply
          .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
          .send(linkedXlsxReadable(url, q.linked_excel_file));
      }
      const p = eager(pub.pages(q, false, ROW_STREAM_PAGE));
      attachment(reply, filename);
      return reply.type('text/csv; charset=utf-8').send(csvReadable(p, pub.columns ? { columns: pub.columns } : {}));
    },
    excel: (pipeId, q, reply, filename) => {
      const pub = publication(hub, pipeId, 'excel');
      const p = eager(pub.pages(q, false, ROW_STREAM_PAGE));
      attachment(reply, filename ?? `${pipeId}.xlsx`);
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .send(xlsxReadable(p, { sheetName: pipeId.slice(0, 31), ...(pub.columns ? { columns: pub.columns } : {}) }));
    },
    xml: (pipeId, q, reply, filename) => {
      const pub = publication(hub, pipeId, 'xml');
      const p = eager(pub.pages(q, false, ROW_STREAM_PAGE));
      attachment(reply, filename);
      const root = typeof pub.pipe.sink['root_element'] === 'string' ? pub.pipe.sink['root_element'] : undefined;
      return reply.type('application/xml; charset=utf-8').send(xmlReadable(p, root ? { root } : {}));
    },
  };

  for (const format of Object.keys(handlers) as PublishFormat[]) {
    const summary = { entities: 'JSON Pull', csv: 'CSV file', excel: 'Spreadsheet (xlsx)', xml: 'XML document' }[format];
    const base = {
      tags: ['publishers'],
      summary: `Publish a pipe as ${summary}`,
      querystring: query,
      response: replies({ 200: { description: summary } }),
    };
    app.get<{ Params: { pipe_id: string }; Querystring: PublisherQuery }>(`/publishers/:pipe_id/${format}`, {
      schema: { ...base, params: { type: 'object', required: ['pipe_id'], properties: { pipe_id: str } } },
      handler: async (req, reply) => handlers[format](req.params.pipe_id, req.query, reply),
    });
    app.get<{ Params: { pipe_id: string; filename: string }; Querystring: PublisherQuery }>(`/publishers/:pipe_id/${format}/:filename`, {
      schema: { ...base, params: { type: 'object', required: ['pipe_id', 'filename'], properties: { pipe_id: str, filename: str } } },
      handler: async (req, reply) => handlers[format](req.params.pipe_id, req.query, reply, req.params.filename),
    });
  }
}

import type { FastifyInstance, FastifyReply } from 'fastify';
import type { RouteContext } from '../app.js';
import { int, str, replies } from '../schemas.js';
import { eager, sendJsonText, setPullHeaders } from '../json-pull.js';
import { badRequest, notFound } from '../../../hub-core/errors.js';
import { csvReadable } from '../formats/csv.js';
import { ROW_STREAM_PAGE } from '../formats/columns.js';
import { xlsxReadable, linkedXlsxReadable } from '../formats/xlsx.js';
import { xmlReadable } from '../formats/xml.js';
import type { Dataset, ReadOptions } from '../../../hub-core/dataset-log.js';
import { compileTransform, DtlCompileError, type CompiledTransform } from '../../../hub-core/dtl/index.js';
import { DatasetLookup } from '../../../hub-core/dataset-lookup.js';
import type { JsonObject } from '../../../hub-core/json.js';

function* joinPages(pages: Iterable<string[]>): Generator<string> {
  for (const page of pages) if (page.length > 0) yield page.join(',');
}
import type { EffectivePipe } from '../../../hub-core/pipe-config.js';

type Format = 'entities' | 'csv' | 'excel' | 'xml';

interface PublisherQuery {
  since?: string;
  limit?: number;
  linked_excel_file?: string;
}

const SINKS: Record<Format, string[]> = {
  entities: ['http_endpoint', 'csv_endpoint', 'xml_endpoint'],
  csv: ['http_endpoint', 'csv_endpoint'],
  excel: ['http_endpoint', 'csv_endpoint'],
  xml: ['http_endpoint', 'xml_endpoint'],
};

export async function publisherRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  const query = { type: 'object', properties: { since: str, limit: { ...int, minimum: 0 }, linked_excel_file: str } } as const;

  /** The dataset a publisher pipe exposes, with the subset and filtering it applies. */
  function resolve(pipeId: string, format: Format): { pipe: EffectivePipe; dataset: Dataset; subset: unknown } {
    const pipe = hub.pipes.effective(pipeId);
    if (!SINKS[format].includes(pipe.sink.type)) {
      throw notFound(
        `publisher ${format} of pipe ${JSON.stringify(pipeId)}`,
        `the pipe's sink is "${pipe.sink.type}"; publishing ${format} needs a sink of type ${SINKS[format].join(' or ')}`,
      );
    }
    if (pipe.source.type !== 'dataset' || typeof pipe.source['dataset'] !== 'string') {
      throw badRequest(`pipe ${JSON.stringify(pipeId)} cannot publish`, 'this hub publishes pipes whose source is a dataset');
    }
    const dataset = hub.datasets.get(pipe.source['dataset']);
    if (!dataset) throw notFound(`dataset ${JSON.stringify(pipe.source['dataset'])}`, `the source of publisher ${JSON.stringify(pipeId)} has no data yet`);
    return { pipe, dataset, subset: pipe.source['subset'] };
  }

  function since(q: PublisherQuery): number | undefined {
    if (q.since === undefined || q.since === '') return undefined;
    const n = Number(q.since);
    if (!Number.isInteger(n)) throw badRequest('invalid since', `"since" is the _updated offset of the last entity read; got ${JSON.stringify(q.since)}`);
    return n;
  }

  function readOptions(subset: unknown, q: PublisherQuery, deleted: boolean): ReadOptions {
    const s = since(q);
    return {
      history: false,
      deleted,
      ...(s !== undefined ? { since: s } : {}),
      ...(q.limit !== undefined ? { limit: q.limit } : {}),
      ...(subset !== undefined ? { subset } : {}),
    };
  }

  /** Compiled transforms of publisher pipes, recompiled when the pipe's transform changes. */
  const transforms = new Map<string, { key: string; compiled: CompiledTransform }>();

  function transformOf(pipe: EffectivePipe): CompiledTransform | undefined {
    if (pipe['transform'] === undefined) return undefined;
    const key = JSON.stringify(pipe['transform']);
    const cached = transforms.get(pipe._id);
    if (cached?.key === key) return cached.compiled;
    const compiled = compileTransform(pipe['transform'], { lookup: new DatasetLookup(hub.datasets) });
    if (!compiled.ok) throw new DtlCompileError(compiled.errors);
    transforms.set(pipe._id, { key, compiled });
    return compiled;
  }

  /** Pages of entity texts as the publisher serves them: through the pipe's transform when it has one. */
  function pages(pipe: EffectivePipe, dataset: Dataset, subset: unknown, q: PublisherQuery, deleted: boolean): Iterable<string[]> {
    const transform = transformOf(pipe);
    const raw = dataset.readJson({ ...readOptions(subset, q, deleted), pageSize: ROW_STREAM_PAGE });
    if (!transform) return eager(raw);
    return eager(
      (function* () {
        for (const page of raw) {
          const out: string[] = [];
          for (const text of page) {
            const source = JSON.parse(text) as JsonObject;
            for (const e of transform.run(source).entities) {
              if (!deleted && e['_deleted'] === true) continue;
              // Keep the source's offset so that clients can continue with since.
              out.push(JSON.stringify({ ...e, _updated: source['_updated'] ?? null }));
            }
          }
          yield out;
        }
      })(),
    );
  }

  function attachment(reply: FastifyReply, filename: string | undefined): void {
    if (filename) void reply.header('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`);
  }

  function columnsOf(pipe: EffectivePipe): string[] | undefined {
    const cols = pipe.sink['columns'];
    return Array.isArray(cols) && cols.every((c) => typeof c === 'string') ? (cols as string[]) : undefined;
  }

  const handlers: Record<Format, (pipeId: string, q: PublisherQuery, reply: FastifyReply, filename?: string) => FastifyReply> = {
    entities: (pipeId, q, reply, filename) => {
      const { pipe, dataset, subset } = resolve(pipeId, 'entities');
      const p = pipe['transform'] === undefined ? eager(dataset.readJsonText(readOptions(subset, q, true))) : joinPages(pages(pipe, dataset, subset, q, true));
      // A transform or a subset leaves entities out: the entity at X-Dataset-Max-Updated may not be in the stream.
      setPullHeaders(reply, dataset, pipe['transform'] !== undefined || subset !== undefined);
      attachment(reply, filename);
      return sendJsonText(reply, p);
    },
    csv: (pipeId, q, reply, filename) => {
      const { pipe, dataset, subset } = resolve(pipeId, 'csv');
      if (q.linked_excel_file) {
        const url = `${reply.request.protocol}://${reply.request.headers.host ?? ''}/api/publishers/${encodeURIComponent(pipeId)}/csv`;
        attachment(reply, q.linked_excel_file);
        return reply
          .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
          .send(linkedXlsxReadable(url, q.linked_excel_file));
      }
      const p = pages(pipe, dataset, subset, q, false);
      attachment(reply, filename);
      const cols = columnsOf(pipe);
      return reply.type('text/csv; charset=utf-8').send(csvReadable(p, cols ? { columns: cols } : {}));
    },
    excel: (pipeId, q, reply, filename) => {
      const { pipe, dataset, subset } = resolve(pipeId, 'excel');
      const p = pages(pipe, dataset, subset, q, false);
      attachment(reply, filename ?? `${pipeId}.xlsx`);
      const cols = columnsOf(pipe);
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .send(xlsxReadable(p, { sheetName: pipeId.slice(0, 31), ...(cols ? { columns: cols } : {}) }));
    },
    xml: (pipeId, q, reply, filename) => {
      const { pipe, dataset, subset } = resolve(pipeId, 'xml');
      const p = pages(pipe, dataset, subset, q, false);
      attachment(reply, filename);
      const root = typeof pipe.sink['root_element'] === 'string' ? pipe.sink['root_element'] : undefined;
      return reply.type('application/xml; charset=utf-8').send(xmlReadable(p, root ? { root } : {}));
    },
  };

  for (const format of Object.keys(handlers) as Format[]) {
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

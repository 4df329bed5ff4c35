import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { Dataset } from '../../hub-core/dataset-log.js';

/** Set the JSON Pull headers that describe the dataset behind a stream. */
export function setPullHeaders(reply: FastifyReply, dataset: Dataset, filtered = false): void {
  const row = dataset.row();
  void reply.header('X-Dataset-Populated', row.populated === 1 ? 'true' : 'false');
  void reply.header('X-Dataset-Max-Updated', JSON.stringify(row.max_updated < 0 ? null : row.max_updated));
  void reply.header('X-Dataset-Generation', row.generation);
  void reply.header('X-Dataset-Filtered', filtered ? 'true' : 'false');
  if (row.completeness !== null) void reply.header('X-Dataset-Completeness', String(row.completeness));
}

/** A JSON array streamed page by page: memory stays flat whatever the size of the dataset. */
export function jsonArrayStream(pages: Iterable<string[]>): Readable {
  function* chunks(): Generator<string> {
    let first = true;
    yield '[';
    for (const page of pages) {
      if (page.length === 0) continue;
      yield (first ? '' : ',') + page.join(',');
      first = false;
    }
    yield ']';
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 << 16 });
}

export function sendJsonArray(reply: FastifyReply, pages: Iterable<string[]>): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(jsonArrayStream(pages));
}

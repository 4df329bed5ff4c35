import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { Dataset } from '../../hub-core/storage/index.js';

/** Set the JSON Pull headers that describe the dataset behind a stream. */
export function setPullHeaders(reply: FastifyReply, dataset: Dataset, filtered = false): void {
  const row = dataset.row();
  void reply.header('X-Dataset-Populated', row.populated === 1 ? 'true' : 'false');
  void reply.header('X-Dataset-Max-Updated', JSON.stringify(row.max_updated < 0 ? null : row.max_updated));
  void reply.header('X-Dataset-Generation', row.generation);
  void reply.header('X-Dataset-Filtered', filtered ? 'true' : 'false');
  if (row.completeness !== null) void reply.header('X-Dataset-Completeness', String(row.completeness));
}

/** A JSON array as a byte stream, from pages that are already comma-joined JSON texts. */
export function jsonArrayReadable(pages: Iterable<string> | AsyncIterable<string>): Readable {
  if (Symbol.asyncIterator in pages) {
    const paced = pages;
    return Readable.from(
      (async function* (): AsyncGenerator<string> {
        let first = true;
        yield '[';
        for await (const page of paced) {
          yield first ? page : ',' + page;
          first = false;
        }
        yield ']';
      })(),
      { objectMode: false, highWaterMark: 1 << 16 },
    );
  }
  const plain = pages;
  function* chunks(): Generator<string> {
    let first = true;
    yield '[';
    for (const page of plain) {
      yield first ? page : ',' + page;
      first = false;
    }
    yield ']';
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 << 16 });
}

/** A JSON array streamed from pages that are already comma-joined JSON texts. */
export function sendJsonText(reply: FastifyReply, pages: Iterable<string> | AsyncIterable<string>): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(jsonArrayReadable(pages));
}

/**
 * Run a generator up to its first item now, so that its errors (an unknown subset, say) become a proper 4xx
 * answer before any byte of the stream is sent; the rest is pulled lazily.
 */
export function eager<T>(gen: Generator<T, void, undefined>): Iterable<T> {
  const first = gen.next();
  return {
    *[Symbol.iterator]() {
      if (first.done) return;
      yield first.value;
      for (let r = gen.next(); !r.done; r = gen.next()) yield r.value;
    },
  };
}

/**
 * Pages of entity texts joined for the stream, with a turn of the event loop after each, the empty ones too: a slow
 * filter hands back a page every few milliseconds (entity-filter.ts), and the API answers in between. The first page
 * is read now, as by {@link eager}, so that its errors are answered as an error status.
 */
export function pacedPages(gen: Generator<string[], void, undefined>): AsyncIterable<string> {
  const first = gen.next();
  return {
    async *[Symbol.asyncIterator]() {
      if (first.done) return;
      if (first.value.length > 0) yield first.value.join(',');
      for (;;) {
        await new Promise((resolve) => setImmediate(resolve));
        const r = gen.next();
        if (r.done) return;
        if (r.value.length > 0) yield r.value.join(',');
      }
    },
  };
}

/**
 * A JSON array streamed from values an async generator yields. Its first value is awaited before anything is sent, so
 * that what it throws up to then (a HubError, say) is answered as an error status; a later failure ends the stream.
 */
export async function sendJsonStream(reply: FastifyReply, values: AsyncGenerator<unknown, void, undefined>): Promise<FastifyReply> {
  const first = await values.next();
  async function* chunks(): AsyncGenerator<string> {
    if (first.done) {
      yield '[]';
      return;
    }
    let page = '[' + JSON.stringify(first.value);
    for await (const v of values) {
      page += ',' + JSON.stringify(v);
      if (page.length >= 1 << 16) {
        yield page;
        page = '';
      }
    }
    yield page + ']';
  }
  return reply.type('application/json; charset=utf-8').send(Readable.from(chunks(), { objectMode: false }));
}

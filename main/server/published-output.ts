// A pipe's published output (csv, xml) as bytes, for `datahub test` expected files with an `endpoint`: the same
// formatting the publisher routes use (/publishers/<pipe>/csv and /xml).
import type { Readable } from 'node:stream';
import type { Hub } from '../../hub-core/hub.js';
import { publication } from '../../hub-core/preview/index.js';
import { badRequest } from '../../hub-core/base/index.js';
import type { JsonObject } from '../../hub-core/base/index.js';
import { csvReadable } from './formats/csv.js';
import { xmlReadable } from './formats/xml.js';
import { ROW_STREAM_PAGE } from './formats/columns.js';

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

/** The published output of `pipeId` in `endpoint` format (`parameters` are not bound: this hub's publishers take none). */
export function publishedOutput(hub: Hub): (pipeId: string, endpoint: string, parameters: JsonObject) => Promise<Buffer> {
  return async (pipeId, endpoint) => {
    if (endpoint === 'csv') {
      const pub = publication(hub, pipeId, 'csv');
      return bytesOf(csvReadable(pub.pages({}, false, ROW_STREAM_PAGE), pub.columns ? { columns: pub.columns } : {}));
    }
    if (endpoint === 'xml') {
      const pub = publication(hub, pipeId, 'xml');
      const root = typeof pub.pipe.sink['root_element'] === 'string' ? pub.pipe.sink['root_element'] : undefined;
      return bytesOf(xmlReadable(pub.pages({}, false, ROW_STREAM_PAGE), root ? { root } : {}));
    }
    throw badRequest(`endpoint "${endpoint}" is not one this hub publishes for tests`, 'use json (the default), csv or xml');
  };
}

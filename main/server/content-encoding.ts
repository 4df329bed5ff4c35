import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { HubError } from '../../hub-core/base/index.js';

/**
 * The request body decoded by its Content-Encoding (gzip, deflate, br); an encoding we cannot decode is a 415 rather
 * than bytes read as if they were plain. The body limit applies to the decoded bytes, so a small bomb stays small.
 */
export function decodeContentEncoding(header: string | undefined, payload: Readable): Readable {
  const encoding = (header ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return payload;
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : undefined;
  if (!decoder) throw new HubError(415, 'unsupported content encoding', `Content-Encoding ${JSON.stringify(header)}: send identity, gzip, deflate or br`);
  // Fastify compares Content-Length with the bytes received, which it reads from this property of a new stream.
  const decoded = decoder as typeof decoder & { receivedEncodedLength: number };
  decoded.receivedEncodedLength = 0;
  payload.on('data', (chunk: Buffer) => (decoded.receivedEncodedLength += chunk.length));
  payload.on('error', (e) => decoder.destroy(e));
  return payload.pipe(decoded);
}

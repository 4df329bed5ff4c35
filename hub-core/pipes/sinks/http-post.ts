// A minimal HTTP(S) POST on node:http: hub-core runs in any Node host and does not use the fetch global.

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface PostResponse {
  status: number;
  text: string;
}

/** POST `body` to `url`; resolves with the status and the response text, rejects on network errors and timeouts. */
export function httpPost(url: URL, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostResponse> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const payload = Buffer.from(body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(payload.length) }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs / 1000}s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

// Forwards one request of the renderer to a remote instance's API with the connection's keychain token.
// Bodies stream both ways (a large dataset is never held in memory); only an allow-list of headers crosses,
// so cookies and the renderer's own credentials never leave, and nothing that could carry a token comes back.
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';

/** Request headers the renderer may send on to the remote. */
const REQUEST_HEADERS = ['accept', 'accepts', 'content-type', 'content-length', 'content-encoding', 'if-none-match', 'if-match'];

/** Response headers passed back to the renderer. */
const RESPONSE_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-disposition', 'cache-control', 'etag', 'last-modified'];

/** How long the remote may stay silent (no connect, no headers, no body bytes) before the call is abandoned. */
export const REMOTE_IDLE_TIMEOUT_MS = 60_000;

export interface ForwardRequest {
  method: string;
  /** The remote instance's API root, e.g. https://host/api. */
  apiRoot: string;
  /** Path below the API root, with its query string, starting with "/". */
  path: string;
  headers: IncomingHttpHeaders;
  /** The request body, streamed; undefined for a request without one. */
  body: Readable | undefined;
  token: string;
  /** Aborts the remote call (the renderer went away). */
  signal?: AbortSignal;
}

export type ForwardResult =
  | { kind: 'response'; status: number; headers: Record<string, string>; body: IncomingMessage }
  | { kind: 'unauthorized'; status: number }
  | { kind: 'unreachable'; reason: string };

/** The URL a proxied path goes to; refuses paths that would climb out of the API root. */
export function remoteUrl(apiRoot: string, path: string): URL {
  const root = new URL(apiRoot.endsWith('/') ? apiRoot : `${apiRoot}/`);
  const target = new URL(path.replace(/^\/+/, ''), root);
  if (target.origin !== root.origin || !target.pathname.startsWith(root.pathname)) {
    throw new Error(`the path ${path} leaves the instance API`);
  }
  return target;
}

function pickRequestHeaders(headers: IncomingHttpHeaders, token: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of REQUEST_HEADERS) {
    const v = headers[name];
    if (typeof v === 'string') out[name] = v;
  }
  if (token !== '') out['authorization'] = `Bearer ${token}`;
  return out;
}

/** Headers of the remote's answer that are safe and useful for the renderer: the allow-list and X-Dataset-*. */
export function pickResponseHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') continue;
    const lower = name.toLowerCase();
    if (RESPONSE_HEADERS.includes(lower) || lower.startsWith('x-dataset-')) out[lower] = value;
  }
  return out;
}

export function forward(req: ForwardRequest): Promise<ForwardResult> {
  let url: URL;
  try {
    url = remoteUrl(req.apiRoot, req.path);
  } catch (e) {
    return Promise.resolve({ kind: 'unreachable', reason: e instanceof Error ? e.message : String(e) });
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<ForwardResult>((resolve) => {
    let settled = false;
    const settle = (r: ForwardResult): void => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    const outgoing = send(url, { method: req.method, headers: pickRequestHeaders(req.headers, req.token), ...(req.signal ? { signal: req.signal } : {}) }, (res) => {
      const status = res.statusCode ?? 502;
      if (status === 401) {
        res.resume();
        settle({ kind: 'unauthorized', status });
        return;
      }
      settle({ kind: 'response', status, headers: pickResponseHeaders(res.headers), body: res });
    });
    outgoing.setTimeout(REMOTE_IDLE_TIMEOUT_MS, () => outgoing.destroy(new Error(`no answer within ${REMOTE_IDLE_TIMEOUT_MS / 1000} s`)));
    outgoing.on('error', (e: NodeJS.ErrnoException) => settle({ kind: 'unreachable', reason: describe(e, url) }));
    if (req.body) {
      req.body.on('error', (e) => outgoing.destroy(e));
      req.body.pipe(outgoing);
    } else {
      outgoing.end();
    }
  });
}

function describe(e: NodeJS.ErrnoException, url: URL): string {
  const where = url.host;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `nothing answers at ${where} (connection refused)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host name ${url.hostname} cannot be resolved`;
    case 'ECONNRESET':
      return `${where} closed the connection`;
    case 'ETIMEDOUT':
      return `${where} did not answer in time`;
    default:
      return `${where}: ${e.message}`;
  }
}

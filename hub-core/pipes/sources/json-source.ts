import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isJsonObject, type JsonObject } from '../../base/index.js';
import { HubError } from '../../base/index.js';
import { OfflineError, isUnreachable } from '../../base/index.js';
import { parseJson } from '../../base/index.js';
import type { PumpSource, SourceContext } from './source.js';
import type { EffectivePipe } from '../../config/index.js';

/**
 * The json source: entities from a JSON Pull endpoint of a `system:url` system. With `supports_since` (off unless
 * set) it is incremental: the `_updated` of the last entity read is the position, sent as `since` on the next run,
 * and `page_size` reads in pages of that many (the `limit` parameter) until a page is empty or reaches
 * `X-Dataset-Max-Updated`. Without it, the whole resource is read every run. Headers come from the system (`headers`,
 * `authentication` "jwt" with `jwt_token`, or "basic" with `username`/`password`), then the source's own `headers`.
 */
export function jsonSource(pipe: EffectivePipe, ctx: SourceContext): PumpSource {
  const src = pipe.source;
  const systemId = src['system'];
  const path = src['url'];
  if (typeof systemId !== 'string') throw new HubError(400, 'a json source needs "system": the id of a system:url system');
  if (typeof path !== 'string') throw new HubError(400, 'a json source needs "url": the URL of the entities, relative to the system');
  const system = ctx.system?.(systemId);
  if (!system) throw new OfflineError(`the json source's system ${JSON.stringify(systemId)} is not in this project`, 'nothing was read');
  if (system['type'] === 'system:microservice') {
    throw new OfflineError(`the json source reads from system ${JSON.stringify(systemId)}, a microservice`, 'this hub does not run microservices; nothing was read');
  }
  if (system['type'] !== 'system:url') {
    throw new HubError(400, `the json source's system ${JSON.stringify(systemId)} is a ${String(system['type'])}`, 'this hub reads json sources from system:url systems');
  }
  const url = resolveUrl(system, path, systemId);
  const headers = requestHeaders(system, src, systemId);
  const incremental = src['supports_since'] === true;
  const pageSize = typeof src['page_size'] === 'number' && src['page_size'] >= 1 ? Math.floor(src['page_size']) : undefined;
  const timeoutMs = (typeof system['read_timeout'] === 'number' && system['read_timeout'] > 0 ? system['read_timeout'] : 1800) * 1000;
  const where = `system ${JSON.stringify(systemId)}, url ${JSON.stringify(path)}`;

  const get = async (since: string | undefined): Promise<{ entities: JsonObject[]; maxUpdated: unknown }> => {
    const u = new URL(url);
    if (incremental && since !== undefined) u.searchParams.set('since', since);
    if (incremental && pageSize !== undefined) u.searchParams.set('limit', String(pageSize));
    let res: HttpResponse;
    try {
      res = await httpGet(u, headers, timeoutMs);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      if (isUnreachable(e)) throw new OfflineError(`the json source cannot reach ${where}`, `${why}; nothing was read`);
      throw new HubError(400, `the json source could not read from ${where}`, why);
    }
    const text = res.body;
    if (res.status < 200 || res.status > 299) throw new HubError(400, `the json source got HTTP ${res.status} from ${where}`, text.slice(0, 300));
    let body: unknown;
    try {
      body = parseJson(text);
    } catch {
      throw new HubError(400, `the json source got a response that is not JSON from ${where}`);
    }
    const list = Array.isArray(body) ? body : [body];
    if (!list.every(isJsonObject)) throw new HubError(400, `the json source got a response from ${where} that is not a list of entities`);
    const header = res.headers['x-dataset-max-updated'];
    const max = typeof header === 'string' ? header : null;
    let maxUpdated: unknown;
    try {
      maxUpdated = max === null ? undefined : JSON.parse(max);
    } catch {
      maxUpdated = undefined;
    }
    return { entities: list, maxUpdated };
  };

  return {
    incremental,
    async *batches(since, batchSize) {
      let position = since;
      for (;;) {
        const { entities, maxUpdated } = await get(position);
        for (let i = 0; i < entities.length; i += batchSize) {
          const batch = entities.slice(i, i + batchSize);
          const last = batch[batch.length - 1]?.['_updated'];
          if (incremental && last !== undefined && last !== null) position = typeof last === 'string' ? last : JSON.stringify(last);
          yield incremental ? { entities: batch, ...(position !== undefined ? { position } : {}) } : { entities: batch };
        }
        const last = entities[entities.length - 1]?.['_updated'];
        const done =
          !incremental || pageSize === undefined || entities.length === 0 || last === undefined || (maxUpdated !== undefined && last === maxUpdated);
        if (done) return;
      }
    },
  };
}

/** The absolute URL: `url_pattern` with `%s` (or appended), else `base_url` joined with the relative URL. */
function resolveUrl(system: JsonObject, path: string, systemId: string): string {
  const pattern = system['url_pattern'];
  const base = system['base_url'];
  let url: string;
  if (typeof pattern === 'string') url = pattern.includes('%s') ? pattern.replace('%s', path) : pattern + path;
  // A path from the root is joined to the base URL's path: a registry's `/data/...` under `http://host/registry`.
  else if (typeof base === 'string') {
    try {
      url = path.startsWith('/') ? new URL(base.replace(/\/+$/, '') + path).href : new URL(path, base).href;
    } catch {
      throw new HubError(400, `the json source's URL for system ${JSON.stringify(systemId)} is not valid`, `its base_url ${JSON.stringify(base)} with url ${JSON.stringify(path)}`);
    }
  }
  else throw new HubError(400, `system ${JSON.stringify(systemId)} has neither "url_pattern" nor "base_url"`);
  if (!/^https?:\/\//.test(url)) throw new HubError(400, `the json source's URL for system ${JSON.stringify(systemId)} is not an http(s) URL`);
  return url;
}

function requestHeaders(system: JsonObject, source: JsonObject, systemId: string): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const add = (h: unknown, where: string): void => {
    if (h === undefined) return;
    if (!isJsonObject(h)) throw new HubError(400, `${where} "headers" must be an object of strings`);
    for (const [k, v] of Object.entries(h)) {
      if (typeof v !== 'string') throw new HubError(400, `${where} header ${JSON.stringify(k)} must be a string`);
      headers[k.toLowerCase()] = v;
    }
  };
  add(system['headers'], `system ${JSON.stringify(systemId)}:`);
  const auth = system['authentication'];
  if (auth === 'jwt' || (auth === undefined && typeof system['jwt_token'] === 'string')) {
    if (typeof system['jwt_token'] !== 'string') throw new HubError(400, `system ${JSON.stringify(systemId)} uses jwt authentication without "jwt_token"`);
    headers['authorization'] = `Bearer ${system['jwt_token']}`;
  } else if (auth === 'basic') {
    const user = system['username'];
    const password = system['password'];
    if (typeof user !== 'string' || typeof password !== 'string') {
      throw new HubError(400, `system ${JSON.stringify(systemId)} uses basic authentication without "username" and "password"`);
    }
    headers['authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  } else if (auth !== undefined && auth !== null) {
    throw new HubError(400, `system ${JSON.stringify(systemId)}: authentication ${JSON.stringify(auth)} is not supported by this hub`, 'use "jwt", "basic" or headers');
  }
  if (system['oauth2'] !== undefined) throw new HubError(400, `system ${JSON.stringify(systemId)}: oauth2 is not supported by this hub`);
  add(source['headers'], 'the json source:');
  return headers;
}

interface HttpResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** One GET with node's http client (hub-core has no fetch); the whole body as text. */
function httpGet(url: URL, headers: Record<string, string>, timeoutMs: number): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: 'GET', headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no response in ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end();
  });
}

// Another hub's dataset registry (its address is http://<host>:<port>/registry), read by the host for the Registry
// view and the enrich flow. A registry may need no token (a shared one) or the instance's token. Every failure is a
// HubError in words: a 4xx when what the user typed or chose is wrong, a 502 when the registry misbehaves.
import { HubError } from '../../hub-core/base/index.js';
import { isJsonObject } from '../../hub-core/base/index.js';
import { messageOf } from './config-sync.js';

/** The registry address from what a user typed: a hub's address, its /api root or its /registry address. */
export function registryAddress(typed: string): string {
  let u: URL;
  try {
    u = new URL(typed.trim());
  } catch {
    throw new HubError(400, 'not a valid address', `${JSON.stringify(typed)} is not a URL; a registry address looks like http://host:port/registry`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new HubError(400, 'a registry address starts with https:// or http://');
  const path = u.pathname.replace(/\/+$/, '');
  u.pathname = path === '' ? '/registry' : path.endsWith('/api') ? `${path.slice(0, -4)}/registry` : path;
  u.search = '';
  u.hash = '';
  return u.toString().replace(/\/+$/, '');
}

export interface RegistryAnswer {
  status: number;
  body: unknown;
}

export class RegistryClient {
  constructor(
    readonly url: string,
    readonly token: string | null,
    readonly label: string,
  ) {}

  headers(): Record<string, string> {
    return { accept: 'application/json', ...(this.token !== null ? { authorization: `Bearer ${this.token}` } : {}) };
  }

  /** GET a path under the registry address; unreachable and non-JSON answers are errors in words. */
  async call(path: string): Promise<RegistryAnswer> {
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, { headers: this.headers(), redirect: 'manual', signal: AbortSignal.timeout(30_000) });
    } catch (e) {
      const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : e instanceof Error ? e.message : String(e);
      throw new HubError(502, `the registry ${this.label} cannot be reached`, `${new URL(this.url).host}: ${cause}`);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      throw new HubError(400, `${this.label} is not a dataset registry`, `${this.url}${path} answered ${res.status} with something that is not JSON`);
    }
    if (res.status === 401 || res.status === 403) {
      throw new HubError(403, `the registry ${this.label} refused the request`, `${messageOf(body)} — it is not shared: add it again with a token of that hub`);
    }
    return { status: res.status, body };
  }

  /** The listing; checks that the answer has a registry's shape (so a wrong address says so). */
  async entries(query: string): Promise<Record<string, unknown>> {
    const r = await this.call(`/entries${query}`);
    if (r.status === 404 && isJsonObject(r.body) && !('entries' in r.body)) {
      throw new HubError(400, `${this.label} is not a dataset registry`, `${this.url}/entries answered 404: ${messageOf(r.body)}`);
    }
    if (r.status >= 400 && r.status < 500) throw new HubError(r.status, `the registry ${this.label} refused the listing`, messageOf(r.body));
    if (r.status !== 200) throw new HubError(502, `the registry ${this.label} answered ${r.status}`, messageOf(r.body));
    if (!isJsonObject(r.body) || typeof r.body['instance_id'] !== 'string' || !Array.isArray(r.body['entries'])) {
      throw new HubError(400, `${this.label} is not a dataset registry`, `${this.url}/entries answered JSON without "instance_id" and "entries"`);
    }
    return r.body;
  }

  /** One entry with its preview; 404 in words when the registry no longer lists it. */
  async entry(instanceId: string, datasetId: string): Promise<Record<string, unknown>> {
    const r = await this.call(`/entries/${encodeURIComponent(instanceId)}/${encodeURIComponent(datasetId)}`);
    if (r.status === 404) throw new HubError(404, 'registry entry not found', `${this.label} does not publish ${JSON.stringify(datasetId)} (any more)`);
    if (r.status >= 400 && r.status < 500) throw new HubError(r.status, `the registry ${this.label} refused the entry`, messageOf(r.body));
    if (r.status !== 200 || !isJsonObject(r.body) || typeof r.body['dataset_id'] !== 'string') {
      throw new HubError(502, `the registry ${this.label} answered ${r.status} without an entry`, messageOf(r.body));
    }
    return r.body;
  }
}

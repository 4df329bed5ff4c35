// A typed client for the account portal API. The token comes from the OS keychain (through the
// connection store) for each request and never leaves the host process.
import type { ConnectionStore } from './connections.js';
import type {
  ApiToken,
  Member,
  NewApiToken,
  NewApiTokenRequest,
  Notification,
  NotificationQuery,
  NotificationRule,
  PortalInfo,
  PortalRecord,
  Profile,
  Role,
  RuleType,
  Subscription,
  SubscriptionUpdate,
  SummaryEntry,
} from '../../hub-core/base/index.js';

export const SUBSCRIPTION_CONFLICT = 'Someone else changed this subscription since you opened it; reload to see their change';
export const MEMBER_CONFLICT = 'Someone else changed this member since you opened it; reload to see their change';

/** A failed portal call, with the status the desktop should answer and a message a user can act on. */
export class PortalError extends Error {
  constructor(
    /** 400, 403, 404, 409 from the portal; 502 when it is unreachable or broken; 504 on a timeout. */
    readonly status: number,
    message: string,
    readonly detail: string | null = null,
  ) {
    super(message);
    this.name = 'PortalError';
  }
}

export interface PortalClientOptions {
  /** Milliseconds before a request is given up. */
  timeoutMs?: number;
}

/** True for an address on this computer, where an unencrypted http:// connection exposes nothing on a network. */
export function isLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Refuses a plain http:// address off this computer unless the user confirmed it: a bearer token sent there
 * travels unencrypted and can be read by anyone on the way.
 */
export function checkTransport(url: string, allowInsecure: boolean | undefined): void {
  const u = new URL(url);
  if (u.protocol === 'http:' && !isLoopback(u) && allowInsecure !== true) {
    throw new PortalError(
      400,
      `${u.host} is reached over plain http://, so its token would travel unencrypted`,
      'use its https:// address; or, if you trust every network in between, confirm that the token may be sent unencrypted (allowInsecure)',
    );
  }
}

/** Portal API root (…/api) from what a user typed: a portal address with or without /api. */
export function portalApiRoot(url: string): string {
  const u = new URL(url.trim());
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new PortalError(400, 'the portal address must start with https:// or http://');
  const path = u.pathname.replace(/\/+$/, '');
  u.pathname = path.endsWith('/api') ? path : `${path}/api`;
  u.search = '';
  u.hash = '';
  return u.toString().replace(/\/+$/, '');
}

function errorText(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === 'object') {
      const o = parsed as Record<string, unknown>;
      const parts = [o['error'], o['detail'] ?? o['message'] ?? o['msg']].filter((v): v is string => typeof v === 'string' && v !== '');
      if (parts.length > 0) return parts.join(': ');
    }
  } catch {
    // not JSON: use the text as is
  }
  const text = body.trim().slice(0, 300);
  return text === '' ? null : text;
}

const enc = encodeURIComponent;

export class PortalClient {
  private readonly timeoutMs: number;

  constructor(
    /** The portal API root, ending in /api. */
    readonly apiRoot: string,
    private readonly token: () => Promise<string | null>,
    options: PortalClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** A client for a saved portal connection; its token is read from the keychain per request. */
  static forConnection(store: ConnectionStore, id: string, options?: PortalClientOptions): PortalClient {
    const conn = store.get(id);
    if (!conn) throw new PortalError(404, 'connection not found', `no saved connection ${JSON.stringify(id)}`);
    if (conn.kind !== 'portal') throw new PortalError(400, 'not a portal connection', `${conn.label} is a ${conn.kind} connection`);
    return new PortalClient(conn.url, () => store.token(id), options);
  }

  /** A client with a token that is not saved yet (used to verify it before storing). */
  static withToken(apiRoot: string, token: string, options?: PortalClientOptions): PortalClient {
    return new PortalClient(apiRoot, async () => token, options);
  }

  private async call<T>(method: string, path: string, body?: unknown, conflictMessage?: string): Promise<{ value: T; headers: Headers }> {
    const token = await this.token();
    if (token === null) throw new PortalError(401, 'no token for this portal in the keychain', 'remove the connection and add it again with a token');
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${this.apiRoot}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
    } catch (e) {
      const err = e as Error;
      if (err.name === 'TimeoutError') throw new PortalError(504, 'the portal did not answer in time', `${method} ${path} took longer than ${this.timeoutMs / 1000} s`);
      const cause = (err.cause as Error | undefined)?.message ?? err.message;
      throw new PortalError(502, 'the portal cannot be reached', `${new URL(this.apiRoot).host}: ${cause}`);
    }
    const text = await res.text();
    if (!res.ok) throw this.failure(res.status, errorText(text), conflictMessage);
    if (text === '') return { value: undefined as T, headers: res.headers };
    try {
      return { value: JSON.parse(text) as T, headers: res.headers };
    } catch {
      throw new PortalError(502, 'the portal sent a malformed answer', `${method} ${path} did not return JSON`);
    }
  }

  private failure(status: number, detail: string | null, conflictMessage: string | undefined): PortalError {
    if (status === 401) return new PortalError(403, 'the portal refused the token', detail ?? 'it may have expired or been revoked; add the connection again with a new token');
    if (status === 403) return new PortalError(403, 'the portal does not allow this for your account', detail);
    if (status === 404) return new PortalError(404, 'not found on the portal', detail);
    if ((status === 409 || status === 412) && conflictMessage !== undefined) return new PortalError(409, conflictMessage, detail);
    // Some portals answer a stale version with a 400 that names the `_updated` field: that is a conflict too.
    if (status === 400 && conflictMessage !== undefined && detail !== null && detail.includes('_updated')) return new PortalError(409, conflictMessage, detail);
    if (status === 409) return new PortalError(409, 'the portal reports a conflict', detail);
    if (status >= 400 && status < 500) return new PortalError(400, 'the portal rejected the request', detail);
    return new PortalError(502, `the portal failed (HTTP ${status})`, detail);
  }

  private async get<T>(path: string): Promise<T> {
    return (await this.call<T>('GET', path)).value;
  }
  private async send<T>(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, conflictMessage?: string): Promise<T> {
    return (await this.call<T>(method, path, body, conflictMessage)).value;
  }

  info(): Promise<PortalInfo> {
    return this.get('');
  }
  profile(): Promise<Profile> {
    return this.get('/profile');
  }
  updateProfile(changes: PortalRecord): Promise<Profile> {
    return this.send('PUT', '/profile', changes);
  }

  subscriptions(): Promise<Subscription[]> {
    return this.get('/subscriptions');
  }
  subscription(id: string): Promise<Subscription> {
    return this.get(`/subscriptions/${enc(id)}`);
  }
  /** Fails with SUBSCRIPTION_CONFLICT (409) when `_updated` is stale. */
  updateSubscription(id: string, update: SubscriptionUpdate): Promise<Subscription> {
    return this.send('PUT', `/subscriptions/${enc(id)}`, update, SUBSCRIPTION_CONFLICT);
  }
  renewLicense(id: string): Promise<Subscription> {
    return this.send('POST', `/subscriptions/${enc(id)}/licenses`);
  }

  roles(sub: string): Promise<Role[]> {
    return this.get(`/subscriptions/${enc(sub)}/available-roles`);
  }
  createRole(sub: string, role: Role | Omit<Role, 'id'>): Promise<Role> {
    return this.send('POST', `/subscriptions/${enc(sub)}/available-roles`, role);
  }
  updateRole(sub: string, id: string, role: Omit<Role, 'id'>): Promise<Role> {
    return this.send('PUT', `/subscriptions/${enc(sub)}/available-roles/${enc(id)}`, role);
  }
  deleteRole(sub: string, id: string): Promise<unknown> {
    return this.send('DELETE', `/subscriptions/${enc(sub)}/available-roles/${enc(id)}`);
  }

  members(sub: string, page: { start?: number; limit?: number } = {}): Promise<Member[]> {
    const q = new URLSearchParams();
    if (page.start !== undefined) q.set('start', String(page.start));
    if (page.limit !== undefined) q.set('limit', String(page.limit));
    const qs = q.size > 0 ? `?${q}` : '';
    return this.get(`/subscriptions/${enc(sub)}/members${qs}`);
  }
  invite(sub: string, email: string, roles: string[]): Promise<Member> {
    return this.send('POST', `/subscriptions/${enc(sub)}/members`, { email, roles });
  }
  member(sub: string, userId: string): Promise<Member> {
    return this.get(`/subscriptions/${enc(sub)}/members/${enc(userId)}`);
  }
  setMemberRoles(sub: string, userId: string, updated: unknown, roles: string[]): Promise<Member> {
    return this.send('PUT', `/subscriptions/${enc(sub)}/members/${enc(userId)}`, { _updated: updated, roles }, MEMBER_CONFLICT);
  }

  apiTokens(sub: string): Promise<ApiToken[]> {
    return this.get(`/subscriptions/${enc(sub)}/api_json_web_tokens`);
  }
  createApiToken(sub: string, request: NewApiTokenRequest): Promise<NewApiToken> {
    return this.send('POST', `/subscriptions/${enc(sub)}/api_json_web_tokens`, request);
  }
  deleteApiToken(sub: string, id: string): Promise<void> {
    return this.send('DELETE', `/subscriptions/${enc(sub)}/api_json_web_tokens/${enc(id)}`);
  }

  ruleTypes(sub: string, pipe: string): Promise<RuleType[]> {
    return this.get(`/subscriptions/${enc(sub)}/pipes/${enc(pipe)}/available-notification-ruletypes`);
  }
  allRules(sub: string): Promise<NotificationRule[]> {
    return this.get(`/subscriptions/${enc(sub)}/notification-rules`);
  }
  rules(sub: string, pipe: string): Promise<NotificationRule[]> {
    return this.get(`/subscriptions/${enc(sub)}/pipes/${enc(pipe)}/notification-rules`);
  }
  createRule(sub: string, pipe: string, rule: NotificationRule): Promise<NotificationRule> {
    return this.send('POST', `/subscriptions/${enc(sub)}/pipes/${enc(pipe)}/notification-rules`, rule);
  }
  updateRule(sub: string, pipe: string, id: string, rule: Pick<NotificationRule, 'name' | 'description' | 'extra_rule_info' | 'recipients'>): Promise<NotificationRule> {
    return this.send('PUT', `/subscriptions/${enc(sub)}/pipes/${enc(pipe)}/notification-rules/${enc(id)}`, rule);
  }
  deleteRule(sub: string, pipe: string, id: string): Promise<unknown> {
    return this.send('DELETE', `/subscriptions/${enc(sub)}/pipes/${enc(pipe)}/notification-rules/${enc(id)}`);
  }
  ruleNotifications(sub: string, pipe: string, id: string, query: NotificationQuery = {}): Promise<Notification[]> {
    return this.get(`/subscriptions/${enc(sub)}/pipes/${enc(pipe)}/notification-rules/${enc(id)}/notifications${queryString(query)}`);
  }
  notifications(query: NotificationQuery = {}): Promise<Notification[]> {
    return this.get(`/notifications${queryString(query)}`);
  }

  /**
   * The summary entries changed after `since` (all of them without it), deleted ones included, following the JSON
   * Pull protocol page by page: each page continues after the last `_updated` of the one before. Answers the new
   * `since` to continue from next time, and `reset` when the portal's highest `_updated` is below the `since` asked
   * for (its summary was rebuilt), in which case everything was read afresh.
   */
  async summaryChanges(since: number | undefined, options: { pageSize?: number; maxEntries?: number } = {}): Promise<{ entries: SummaryEntry[]; since: number | undefined; reset: boolean }> {
    const pageSize = options.pageSize ?? 500;
    const max = options.maxEntries ?? 20_000;
    const changed = new Map<string, SummaryEntry>();
    let reset = false;
    let next = since;
    for (let fetched = 0; fetched < max; ) {
      const q = new URLSearchParams({ limit: String(pageSize), deleted: 'true' });
      if (next !== undefined) q.set('since', String(next));
      const { value: page, headers } = await this.call<SummaryEntry[]>('GET', `/notifications-summary?${q}`);
      if (!Array.isArray(page)) throw new PortalError(502, 'the portal sent a malformed notification summary', 'expected a JSON array');
      const maxUpdated = Number(headers.get('x-dataset-max-updated'));
      if (!reset && since !== undefined && next === since && page.length === 0 && Number.isFinite(maxUpdated) && maxUpdated < since) {
        reset = true;
        next = undefined;
        continue;
      }
      for (const e of page) changed.set(e._id, e);
      fetched += page.length;
      if (page.length === 0) break;
      const last = page[page.length - 1]!._updated;
      if (typeof last !== 'number' || (next !== undefined && last <= next)) break;
      next = last;
      if (page.length < pageSize) break;
    }
    return { entries: [...changed.values()], since: next, reset };
  }

  /** The whole notification summary (entries not deleted), read with JSON Pull. */
  async notificationSummary(options: { pageSize?: number; maxEntries?: number } = {}): Promise<SummaryEntry[]> {
    return (await this.summaryChanges(undefined, options)).entries.filter((e) => !e._deleted);
  }

  monitoring(sub: string, pipe?: string): Promise<PortalRecord> {
    return this.get(`/monitoring/standard/${enc(sub)}${pipe !== undefined ? `/pipes/${enc(pipe)}` : ''}`);
  }
  invoicing(sub: string): Promise<PortalRecord> {
    return this.get(`/monitoring/invoicing/${enc(sub)}`);
  }
}

function queryString(q: NotificationQuery): string {
  const p = new URLSearchParams();
  if (q.limit !== undefined) p.set('limit', String(q.limit));
  if (q.since !== undefined) p.set('since', q.since);
  if (q.include_dismissed !== undefined) p.set('include_dismissed', String(q.include_dismissed));
  return p.size > 0 ? `?${p}` : '';
}

/** The instance API root of a subscription: its default node connection, else its provisioned address. */
export function instanceUrlOf(sub: Subscription): string | null {
  const conns = (sub.connections ?? []).filter((c) => c.type !== 'databrowser');
  const chosen = conns.find((c) => c.id === 'default' || c.id === 'id') ?? conns[0];
  if (chosen) return chosen.url.replace(/\/+$/, '');
  const fqdn = ((sub['provisioning_result'] as PortalRecord | undefined)?.['datahub'] as PortalRecord | undefined)?.['fqdn'];
  return typeof fqdn === 'string' && fqdn !== '' ? `https://${fqdn}/api` : null;
}

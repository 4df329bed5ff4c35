// What the portal stand-in's areas share: its state in memory (users, subscriptions with their members, tokens, rules
// and notifications), the caller of a request, and the checks every route makes.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { Ajv } from 'ajv';
import { SUBSCRIPTION_RULES } from './rule-types.js';
import type { Json, PortalOptions, PortalUser, SeedSubscription } from './types.js';

export const MASK = '****';
/** How far ahead an expiring license raises license_expiration_date (the spec leaves it open). */
const LICENSE_WARNING_MS = 30 * 86_400_000;

export interface TokenRecord {
  public: Json;
  jwt: string;
  subscription: string;
}

export interface SubState {
  data: Json;
  /** Stored VPN keys by connection _id; responses show MASK. */
  vpnKeys: Map<number, string>;
  members: Json[];
  customRoles: Json[];
  tokens: TokenRecord[];
  rules: Json[];
  notifications: Json[];
}

export interface Principal {
  user: PortalUser;
  /** Set for an API token: the one subscription it may read. */
  onlySubscription?: string;
}

export class PortalError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly detail: string | null = null,
  ) {
    super(error);
  }
}

let versionCounter = 0;
export const newVersion = (): string => `v${++versionCounter}-${randomBytes(3).toString('hex')}`;

function defaultJwt(payload: Json, key: Buffer): string {
  const enc = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
  const head = `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc(payload)}`;
  return `${head}.${createHmac('sha256', key).update(head).digest('base64url')}`;
}

function maskVpn(data: Json): Json {
  const copy = structuredClone(data);
  const vpn = (copy['products'] as Json | undefined)?.['vpn'] as Json | undefined;
  const conns = vpn?.['connections'];
  if (Array.isArray(conns)) for (const c of conns as Json[]) if ('shared_key' in c) c['shared_key'] = MASK;
  return copy;
}

/** `*` any number of characters, `?` exactly one; a match anywhere in the value counts. */
export function wildcard(pattern: string, caseSensitive: boolean): RegExp {
  return new RegExp(pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.'), caseSensitive ? '' : 'i');
}

/** Route parameters and query, as the routes read them. */
export type P = { Params: Record<string, string>; Querystring: Record<string, string | undefined> };

export type PortalContext = ReturnType<typeof createPortalContext>;

/** The portal's state, seeded from `options`, and the helpers its routes share. */
export function createPortalContext(options: PortalOptions) {
  const signingKey = randomBytes(32);
  const mint = options.mintJwt ?? ((p: Json) => defaultJwt(p, signingKey));
  const users = new Map(options.users.map((u) => [u.user_id, u]));
  const byToken = new Map(options.users.map((u) => [u.token, u]));
  const subs = new Map<string, SubState>();
  const ajv = new Ajv({ allErrors: true });
  const seenAuthorization: string[] = [];
  const summaryQueries: string[] = [];
  const staleStatus = options.staleStatus ?? 409;
  let notificationIds = 0;
  /** Per summary entry: what it showed last, its `_updated`, and who could see it (member user ids). */
  const summaryState = new Map<string, { signature: string; updated: number; deleted: boolean; subscription: string; pipe?: string; audience: Set<string> }>();

  const person = (u: PortalUser): Json => ({ email: u.email, name: u.name, picture: `https://pictures.invalid/${u.user_id}.png`, user_id: u.user_id });
  const now = (): string => new Date().toISOString();

  const provision = (seed: SeedSubscription, licenseExpires?: string): SubState => {
    const creator = users.get(seed.members[0]?.user_id ?? '');
    if (!creator) throw new Error(`subscription ${seed.id} needs a known first member`);
    const created = now();
    const expires = licenseExpires ?? new Date(Date.now() + 90 * 86_400_000).toISOString();
    const vpnKeys = new Map<number, string>();
    if (seed.vpnSharedKey !== undefined) vpnKeys.set(1, seed.vpnSharedKey);
    const data: Json = {
      _updated: newVersion(),
      id: seed.id,
      name: seed.name,
      created,
      description: `${seed.name} data hub`,
      type: 'paid',
      service: 'in-cloud',
      provisioner_version: '2',
      provisioning_status: 'provisioned',
      audit: { created_by: person(creator), last_modified_by: person(creator), created_ts: created, last_modified_ts: created },
      connections: [{ id: 'default', name: 'Default node', type: 'node', url: seed.instanceUrl }],
      licenses: [{ 'is-active-license': true, original: { _id: randomUUID(), created, email: creator.email, expires } }],
      network: { 'public-access': true, 'network-acl': [] },
      products: {
        datahub: { size: 'single', version: 'stable', developer_mode: false, monitoring: 'standard' },
        sla: { level: 'standard' },
        search: false,
        ...(seed.vpnSharedKey !== undefined
          ? { vpn: { type: 'site-to-site', tier: 1, enable_snat: false, dns: [], connections: [{ _id: 1, gateway_address: '203.0.113.7', address_spaces: ['10.20.0.0/16'], shared_key: MASK }] } }
          : {}),
      },
      provisioning_result: { datahub: { fqdn: new URL(seed.instanceUrl).host, 'private-ip': '10.0.0.4', public_ip: '198.51.100.4', tag: 'stable' } },
      'supported-operations': {
        accept_invitation: false,
        add_notification_rule: true,
        assign_role_to_user: true,
        create_custom_role: true,
        decline_invitation: false,
        delete_subscription: true,
        invite_user: true,
        leave_subscription: true,
        modify_subscription: true,
        view_members: true,
        add_api_jwt_token: true,
        renew_license: true,
        view_api_jwt_tokens: true,
      },
    };
    const member = (u: Json, roles: string[]): Json => ({
      _updated: newVersion(),
      user: u,
      roles,
      audit: { invited_by: person(creator), invited_ts: created },
      svc_support_info: { exp: expires },
    });
    const members = seed.members.map((m) => {
      const u = users.get(m.user_id);
      if (!u) throw new Error(`unknown user ${m.user_id}`);
      return member(person(u), m.roles);
    });
    for (let i = 1; i <= (seed.extraMembers ?? 0); i++) {
      const email = `member${String(i).padStart(2, '0')}@example.com`;
      members.push(member({ email, name: `Member ${i}`, picture: '', user_id: email }, ['group:Viewer']));
    }
    const state: SubState = { data, vpnKeys, members, customRoles: [], tokens: [], rules: [], notifications: [] };
    subs.set(seed.id, state);
    return state;
  };

  /** A notification for a triggered rule; at most one alert per rule (and pipe) per hour: later ones are merged. */
  const raise = (s: SubState, rule: { id: string; name: string; type: string; pipe?: string }, msg: string): Json => {
    const ts = now();
    const existing = s.notifications.find((n) => n['notification_rule_id'] === rule.id && n['pipe_id'] === rule.pipe && n['is_ongoing'] === true);
    if (existing && Date.now() - Date.parse(String(existing['event_timestamp'])) < 3_600_000) {
      existing['event_count'] = Number(existing['event_count']) + 1;
      existing['last_event_timestamp'] = ts;
      return existing;
    }
    const n: Json = {
      notification_id: ++notificationIds,
      notification_rule_id: rule.id,
      notification_rule_name: rule.name,
      notification_rule_type: rule.type,
      msg,
      event_timestamp: ts,
      last_event_timestamp: ts,
      event_count: 1,
      is_ongoing: true,
      alerts_will_be_visible_for_the_current_user: true,
      ...(rule.pipe !== undefined ? { pipe_id: rule.pipe } : {}),
      subscription_id: s.data['id'],
    };
    s.notifications.push(n);
    return n;
  };
  const clearBuiltIn = (s: SubState, type: string): void => {
    for (const n of s.notifications) if (n['notification_rule_type'] === type && n['pipe_id'] === undefined) n['is_ongoing'] = false;
  };
  /** The built-in license rule: an alert while the current license expires within the warning period. */
  const checkLicense = (s: SubState): void => {
    const current = (s.data['licenses'] as Json[]).find((l) => l['is-active-license'] === true);
    const expires = Date.parse(String((current?.['original'] as Json | undefined)?.['expires']));
    if (Number.isFinite(expires) && expires - Date.now() < LICENSE_WARNING_MS) {
      raise(s, { id: 'license_expiration_date', name: SUBSCRIPTION_RULES.license_expiration_date, type: 'license_expiration_date' }, `the license expires ${new Date(expires).toISOString().slice(0, 10)}`);
    } else clearBuiltIn(s, 'license_expiration_date');
  };

  for (const seed of options.subscriptions) {
    const expires = seed.licenseExpiresInDays !== undefined ? new Date(Date.now() + seed.licenseExpiresInDays * 86_400_000).toISOString() : undefined;
    checkLicense(provision(seed, expires));
  }

  const principals = new WeakMap<FastifyRequest, Principal>();
  /** The Terms of Service version each user approved last (request-only, so not in the profile). */
  const approvedTos = new Map<string, number>();

  const who = (req: FastifyRequest): Principal => {
    const p = principals.get(req);
    if (!p) throw new PortalError(401, 'authentication required');
    return p;
  };
  const memberOf = (sub: SubState, userId: string): Json | undefined =>
    sub.members.find((m) => (m['user'] as Json)['user_id'] === userId);
  /** The subscription, if the caller may see it (404 when it does not exist, 403 when not a member). */
  const subFor = (req: FastifyRequest, id: string): SubState => {
    const sub = subs.get(id);
    if (!sub) throw new PortalError(404, 'subscription not found', `no subscription ${JSON.stringify(id)}`);
    const p = who(req);
    if (p.onlySubscription !== undefined && p.onlySubscription !== id) throw new PortalError(403, 'forbidden', 'this API token belongs to another subscription');
    if (!memberOf(sub, p.user.user_id)) throw new PortalError(403, 'forbidden', 'you are not a member of this subscription');
    return sub;
  };
  const userOnly = (req: FastifyRequest): PortalUser => {
    const p = who(req);
    if (p.onlySubscription !== undefined) throw new PortalError(403, 'forbidden', 'an API token cannot use this endpoint');
    return p.user;
  };
  const touch = (sub: SubState, by?: PortalUser): void => {
    sub.data['_updated'] = newVersion();
    const audit = sub.data['audit'] as Json;
    audit['last_modified_ts'] = now();
    if (by) audit['last_modified_by'] = person(by);
  };
  const view = (sub: SubState): Json => maskVpn(sub.data);
  const body = (req: FastifyRequest): Json => {
    const b = req.body;
    if (b === null || typeof b !== 'object' || Array.isArray(b)) throw new PortalError(400, 'invalid request', 'the body must be a JSON object');
    return b as Json;
  };
  const intQuery = (v: string | undefined, name: string): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new PortalError(400, 'invalid request', `${name} must be a non-negative integer`);
    return n;
  };

  return { options, mint, users, byToken, subs, ajv, seenAuthorization, summaryQueries, staleStatus, summaryState, approvedTos, person, now, provision, raise, clearBuiltIn, checkLicense, principals, who, memberOf, subFor, userOnly, touch, view, body, intQuery };
}

// A stand-in for the remote account portal, shaped after ../shared/spec/portal-api.md: Bearer tokens,
// subscriptions with `_updated` optimistic locking and a write-only VPN `shared_key`, paginated members,
// roles, licenses, API tokens, notification rule types with JSON schemas, notifications and the
// notification summary as a JSON Pull stream. State is in memory; tests seed it through options.
// Where the spec says "not shown" (error bodies, the subscription list path, built-in role names, rule type
// identifiers other than the three it names, metric property names, the license-expiry warning period), this
// server picks something plausible: errors are {error, detail} with 401/403/404/409/400, the list is
// GET /api/subscriptions, rule types are `pump_*` / `pattern_match`, metrics are keyed by their labels, and a
// license warns 30 days ahead.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Ajv } from 'ajv';

type Json = Record<string, unknown>;

export interface PortalUser {
  user_id: string;
  email: string;
  name: string;
  token: string;
  /** A portal administrator: may switch on isPortalAdmin powers. */
  portalAdmin?: boolean;
}

export interface SeedSubscription {
  id: string;
  name: string;
  /** The default node connection's URL: an instance API root (…/api), for example a second hub. */
  instanceUrl: string;
  /** user ids with their roles; the first is the creator. */
  members: { user_id: string; roles: string[] }[];
  /** Extra invited members (pagination tests). */
  extraMembers?: number;
  vpnSharedKey?: string;
  /** The license expires this many days from now (default 90); within 30 days it raises license_expiration_date. */
  licenseExpiresInDays?: number;
}

export interface PortalOptions {
  users: PortalUser[];
  subscriptions: SeedSubscription[];
  /** Makes the `jwt_string` of a new API token; defaults to an HS256 JWT signed by this portal. */
  mintJwt?: (payload: Json) => string;
  /**
   * The status of a write with a stale `_updated`. The spec does not show it; 409 by default, and 400 (naming the
   * field) stands for portals that report it as a validation error.
   */
  staleStatus?: 409 | 400;
}

export interface PortalServer {
  url: string;
  api: string;
  /** Point a subscription's default connection at another instance. */
  setInstanceUrl(subscription: string, url: string): void;
  /** Change a subscription behind the clients' backs (a concurrent editor): gives it a new `_updated`. */
  touch(subscription: string, changes?: Json): void;
  /** Change a member behind the clients' backs: gives it a new `_updated` (and roles, if given). */
  touchMember(subscription: string, userId: string, roles?: string[]): void;
  /** The roles a member has now. */
  memberRoles(subscription: string, userId: string): string[];
  /** The Terms of Service version a user approved last (request-only, so not in the profile). */
  approvedTos(userId: string): number | undefined;
  /** The query string of every notification-summary request, in order. */
  readonly summaryQueries: string[];
  /** The stored (unmasked) VPN shared key of a subscription's first VPN connection. */
  storedSharedKey(subscription: string): string | undefined;
  /** Raise a notification for a rule, as if a pump run triggered it. */
  trigger(subscription: string, ruleId: string, msg: string): Json;
  /** Clear a pipe's notifications, as after a successful run. */
  resolve(subscription: string, pipeId: string): void;
  /** Raise one of the built-in subscription rules (too much disk used, license close to expiry). */
  raiseSubscriptionAlert(subscription: string, type: SubscriptionRuleType, msg: string): Json;
  clearSubscriptionAlert(subscription: string, type: SubscriptionRuleType): void;
  /** The node went silent: the built-in heartbeat rule alerts on every pipe with user-defined rules. */
  heartbeatOverdue(subscription: string): Json[];
  /** Every Authorization header received, for checking what clients send. */
  readonly seenAuthorization: string[];
  close(): Promise<void>;
}

const MASK = '****';
const TOS_VERSION = 4;

const BUILTIN_ROLES: Json[] = [
  { id: 'group:Admin', name: 'Administrator', description: 'Full control of the subscription', 'child-roles': ['group:Developer'] },
  { id: 'group:Developer', name: 'Developer', description: 'Edits configuration and runs pipes', 'child-roles': ['group:Viewer'] },
  { id: 'group:Viewer', name: 'Viewer', description: 'Read-only access', 'child-roles': [] },
];

const NUMERIC_METRICS = [
  'Entities processed',
  'Changed entities',
  'Failed retries',
  'Dead entities',
  'Failed retried entities',
  'Successfully retried entities',
  'Read errors',
  'Write errors',
  'Sink time',
  'Source time',
  'Transform time',
];
const TEXT_METRICS = ['Reason why stopped', 'Traceback', 'Additional low-level errormessage', 'Additional low-level traceback'];

const period = {
  type: 'object',
  title: 'Period',
  required: ['amount', 'unit'],
  properties: { amount: { type: 'integer', title: 'Amount', minimum: 1 }, unit: { type: 'string', title: 'Unit', enum: ['minutes', 'hours', 'days'] } },
  additionalProperties: false,
};
const limitSchema = (withPeriod: boolean): Json => ({
  type: 'object',
  required: withPeriod ? ['metric', 'limit', 'period'] : ['metric', 'limit'],
  properties: {
    metric: { type: 'string', title: 'Metric', enum: NUMERIC_METRICS },
    limit: { type: 'number', title: 'Limit', minimum: 0 },
    ...(withPeriod ? { period } : {}),
  },
  additionalProperties: false,
});
const noParameters: Json = { type: 'object', properties: {}, additionalProperties: false };

/** The rule types a user can put on a pipe (section 2.10), in the spec's order. */
export const RULE_TYPES: Json[] = [
  { type: 'pump_completed_value_too_low', name: 'Value too low', description: 'Triggers when a metric of a completed run is below the limit', schema: limitSchema(false) },
  { type: 'pump_completed_value_too_high', name: 'Value too high', description: 'Triggers when a metric of a completed run is above the limit', schema: limitSchema(false) },
  {
    type: 'pump_completed_value_too_low_over_time',
    name: 'Value too low over time',
    description: 'Triggers when a metric stays below the limit for a period',
    schema: limitSchema(true),
  },
  {
    type: 'pump_completed_value_too_high_over_time',
    name: 'Value too high over time',
    description: 'Triggers when a metric stays above the limit for a period',
    schema: limitSchema(true),
  },
  {
    type: 'pump_started_overdue',
    name: 'Pump started overdue',
    description: 'Triggers when the next expected start is passed by more than 300 seconds plus the grace period',
    schema: { type: 'object', properties: { grace_period: { type: 'integer', title: 'Grace period (seconds)', minimum: 0 } }, additionalProperties: false },
  },
  {
    type: 'pump_finished_overdue',
    name: 'Pump finished overdue',
    description: 'Triggers when a run lasts longer than 300 seconds plus the limit',
    schema: { type: 'object', required: ['limit'], properties: { limit: { type: 'integer', title: 'Limit (seconds)', minimum: 0 } }, additionalProperties: false },
  },
  { type: 'pump_failed', name: 'Pump failed', description: 'Triggers when the last run failed', schema: noParameters },
  { type: 'pump_restore_completed', name: 'Restore completed', description: 'Triggers when the pipe, its state and data were restored from backup', schema: noParameters },
  { type: 'pump_offset_set', name: 'Pump offset set', description: "Triggers when the pipe's offset is set, by hand or automatically", schema: noParameters },
  {
    type: 'pattern_match',
    name: 'Pattern match',
    description: 'Triggers when a text metric matches one of the patterns anywhere (* any characters, ? one); an empty value never matches',
    schema: {
      type: 'object',
      required: ['metric', 'patterns'],
      properties: {
        metric: { type: 'string', title: 'Value', enum: TEXT_METRICS },
        patterns: { type: 'array', title: 'Patterns', items: { type: 'string', minLength: 1 }, minItems: 1 },
        case_sensitive: { type: 'boolean', title: 'Case sensitive', default: false },
      },
      additionalProperties: false,
    },
  },
];

/** Built in, never offered: on every pipe with user-defined rules; alerts in the alert list only. */
const HEARTBEAT_RULE = { type: 'node_heartbeat_overdue', name: 'Node heartbeat overdue' };
/** Built in on every subscription (section 4.5.3). */
export const SUBSCRIPTION_RULES = {
  store_disk_usage_upper_limit: 'Store disk usage upper limit',
  license_expiration_date: 'License expiration date',
} as const;
export type SubscriptionRuleType = keyof typeof SUBSCRIPTION_RULES;
/** How far ahead an expiring license raises license_expiration_date (the spec leaves it open). */
const LICENSE_WARNING_MS = 30 * 86_400_000;

interface TokenRecord {
  public: Json;
  jwt: string;
  subscription: string;
}

interface SubState {
  data: Json;
  /** Stored VPN keys by connection _id; responses show MASK. */
  vpnKeys: Map<number, string>;
  members: Json[];
  customRoles: Json[];
  tokens: TokenRecord[];
  rules: Json[];
  notifications: Json[];
}

interface Principal {
  user: PortalUser;
  /** Set for an API token: the one subscription it may read. */
  onlySubscription?: string;
}

class PortalError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly detail: string | null = null,
  ) {
    super(error);
  }
}

let versionCounter = 0;
const newVersion = (): string => `v${++versionCounter}-${randomBytes(3).toString('hex')}`;

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
function wildcard(pattern: string, caseSensitive: boolean): RegExp {
  return new RegExp(pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.'), caseSensitive ? '' : 'i');
}

export async function startPortal(options: PortalOptions): Promise<PortalServer> {
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
  let summaryCounter = 0;
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

  const app: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });

  app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, _req, reply) => {
    if (err instanceof PortalError) return reply.code(err.status).send({ error: err.error, detail: err.detail });
    if (err.validation !== undefined || err.statusCode === 400) return reply.code(400).send({ error: 'invalid request', detail: err.message });
    return reply.code(500).send({ error: 'internal error', detail: err.message });
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: 'not found', detail: `no route ${req.method} ${req.url.split('?')[0]}` }));

  const principals = new WeakMap<FastifyRequest, Principal>();
  app.addHook('onRequest', async (req, reply: FastifyReply) => {
    const path = req.url.split('?')[0]!;
    const open = path === '/api' || path.startsWith('/api/login') || path === '/api/sso';
    const header = req.headers.authorization;
    if (header !== undefined) seenAuthorization.push(header);
    if (open) return;
    const token = header ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
    if (!token) {
      await reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'authentication required', detail: 'send Authorization: Bearer <token>' });
      return;
    }
    const user = byToken.get(token);
    if (user) {
      principals.set(req, { user });
      return;
    }
    for (const [id, sub] of subs) {
      const rec = sub.tokens.find((t) => t.jwt === token);
      const owner = rec ? users.get(String((rec.public['payload'] as Json)['user_id'])) : undefined;
      if (rec && owner) {
        principals.set(req, { user: owner, onlySubscription: id });
        return;
      }
    }
    await reply.code(401).header('www-authenticate', 'Bearer error="invalid_token"').send({ error: 'invalid token', detail: 'the token is unknown, expired or revoked' });
  });

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
  type P = { Params: Record<string, string>; Querystring: Record<string, string | undefined> };
  const intQuery = (v: string | undefined, name: string): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new PortalError(400, 'invalid request', `${name} must be a non-negative integer`);
    return n;
  };

  const startTime = now();
  app.get('/api', async () => ({
    authentication_providers: [
      { id: 'internal', login_url: '/api/login/internal', login_button_text: 'Sign in with e-mail' },
      { id: 'example-sso', login_url: '/api/login/example-sso', login_button_text: 'Sign in with Example SSO', login_button_tooltip: 'Your company account' },
    ],
    status: {
      'feature-level': 3,
      health_status: { status: 'ok' },
      version: '2026.11.1',
      revision: 'c0ffee1',
      'git-revision': 'c0ffee1d2e3f',
      'build-date': '2026-11-02T08:00:00Z',
      'ci-buildnumber': '4711',
      start_time: startTime,
      uptime: `${Math.round((Date.now() - Date.parse(startTime)) / 1000)} s`,
      is_email_verification_required: true,
      is_fallback_mode: false,
      is_internal_users_enabled: true,
      is_itest_mode: true,
      tos_version: TOS_VERSION,
    },
    tos_version: TOS_VERSION,
  }));

  // Profile changes a user may make (section 2.2); approvedTos and isPortalAdmin are request-only fields.
  const profiles = new Map<string, Json>();
  const approvedTos = new Map<string, number>();
  const adminPowers = new Map<string, boolean>();
  const profileOf = (u: PortalUser): Json => {
    const extra = profiles.get(u.user_id) ?? {};
    const { providerIds, providerWhitelist, ...profile } = extra;
    return {
      'supported-operations': {
        activate_portal_admin_powers: u.portalAdmin === true,
        create_paymentmethod: true,
        create_subscription: true,
        create_trial_subscription: true,
        delete_account: true,
        request_email_verification: false,
        request_trial_subscription: true,
        send_reset_password_email: true,
        update_user_profile: true,
      },
      userInfo: {
        isLoggedIn: true,
        user_id: u.user_id,
        profile: { email: u.email, email_is_verified: true, name: u.name, nickname: '', picture: '', ...profile },
        providerIds: providerIds ?? ['internal'],
        providerWhitelist: providerWhitelist ?? [],
      },
    };
  };
  const strings = (v: unknown, name: string): string[] => {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new PortalError(400, 'invalid request', `${name} must be a list of strings`);
    return v as string[];
  };
  app.get('/api/profile', async (req) => profileOf(userOnly(req)));
  app.put('/api/profile', async (req) => {
    const u = userOnly(req);
    const info = (body(req)['userInfo'] ?? {}) as Json;
    const profile = (info['profile'] ?? {}) as Json;
    const changes: Json = { ...(profiles.get(u.user_id) ?? {}) };
    for (const key of ['name', 'nickname', 'picture']) {
      if (key in profile && typeof profile[key] !== 'string') throw new PortalError(400, 'invalid request', `${key} must be a string`);
      if (typeof profile[key] === 'string') changes[key] = profile[key];
    }
    if ('providerIds' in info) changes['providerIds'] = strings(info['providerIds'], 'providerIds');
    if ('providerWhitelist' in info) changes['providerWhitelist'] = strings(info['providerWhitelist'], 'providerWhitelist');
    if ('approvedTos' in info) {
      const v = info['approvedTos'];
      if (typeof v !== 'number' || v < 0 || v > TOS_VERSION) throw new PortalError(400, 'invalid request', `approvedTos must be a Terms of Service version up to ${TOS_VERSION}`);
    }
    if ('isPortalAdmin' in info) {
      if (u.portalAdmin !== true) throw new PortalError(403, 'forbidden', 'only portal administrators can switch on their powers');
      if (typeof info['isPortalAdmin'] !== 'boolean') throw new PortalError(400, 'invalid request', 'isPortalAdmin must be a boolean');
    }
    // Everything checked: apply.
    if (typeof info['approvedTos'] === 'number') approvedTos.set(u.user_id, info['approvedTos']);
    if (typeof info['isPortalAdmin'] === 'boolean') adminPowers.set(u.user_id, info['isPortalAdmin']);
    if (typeof changes['name'] === 'string') u.name = changes['name'];
    profiles.set(u.user_id, changes);
    return profileOf(u);
  });

  app.get('/api/subscriptions', async (req) => {
    const p = who(req);
    return [...subs.values()]
      .filter((s) => memberOf(s, p.user.user_id) && (p.onlySubscription === undefined || p.onlySubscription === s.data['id']))
      .map(view);
  });
  app.get<P>('/api/subscriptions/:sub', async (req) => view(subFor(req, req.params['sub']!)));
  app.put<P>('/api/subscriptions/:sub', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const u = userOnly(req);
    const b = body(req);
    if (!('_updated' in b)) throw new PortalError(400, 'invalid request', '_updated is required');
    if (JSON.stringify(b['_updated']) !== JSON.stringify(sub.data['_updated'])) {
      throw new PortalError(staleStatus, 'conflict', 'the subscription was modified by someone else since it was read; _updated does not match');
    }
    for (const key of ['connections', 'description', 'name', 'network', 'paymentmethod_id', 'url']) if (key in b) sub.data[key] = b[key];
    if (typeof sub.data['name'] !== 'string' || sub.data['name'] === '') throw new PortalError(400, 'invalid request', 'name must be a non-empty string');
    if ('products' in b) {
      const products = structuredClone(b['products']) as Json;
      const conns = ((products['vpn'] as Json | undefined)?.['connections'] ?? []) as Json[];
      const keep = new Map<number, string>();
      let nextId = Math.max(0, ...sub.vpnKeys.keys()) + 1;
      for (const c of conns) {
        if (typeof c['_id'] !== 'number') c['_id'] = nextId++;
        const id = c['_id'] as number;
        const key = c['shared_key'];
        if (key === MASK || key === undefined) {
          const old = sub.vpnKeys.get(id);
          if (old !== undefined) keep.set(id, old);
        } else if (typeof key === 'string') keep.set(id, key);
        if ('shared_key' in c || keep.has(id)) c['shared_key'] = MASK;
      }
      sub.vpnKeys = keep;
      sub.data['products'] = products;
    }
    touch(sub, u);
    return view(sub);
  });
  app.post('/api/subscriptions', async (req) => {
    const u = userOnly(req);
    const b = body(req);
    if (typeof b['name'] !== 'string' || b['name'] === '') throw new PortalError(400, 'invalid request', 'name is required');
    const id = typeof b['id'] === 'string' && b['id'] !== '' ? b['id'] : `sub-${randomUUID().slice(0, 8)}`;
    if (subs.has(id)) throw new PortalError(409, 'conflict', `subscription ${id} exists`);
    let expires: string | undefined;
    if (b['license-expiration-date'] !== undefined) {
      const t = Date.parse(String(b['license-expiration-date']));
      // The spec leaves the furthest allowed date open; five years stands in for it here.
      if (Number.isNaN(t) || t <= Date.now() || t > Date.now() + 5 * 365 * 86_400_000) {
        throw new PortalError(400, 'invalid license-expiration-date', 'it must be a date in the future, at most five years ahead');
      }
      expires = new Date(t).toISOString();
    }
    const conns = b['connections'] as { url?: unknown }[] | undefined;
    const instanceUrl = typeof conns?.[0]?.url === 'string' ? conns[0].url : 'https://pending.invalid/api';
    const sub = provision({ id, name: b['name'], instanceUrl, members: [{ user_id: u.user_id, roles: ['group:Admin'] }] }, expires);
    checkLicense(sub);
    for (const key of ['description', 'url', 'type', 'service', 'provisioner_version', 'network', 'paymentmethod_id']) if (key in b) sub.data[key] = b[key];
    if (b['products'] && typeof b['products'] === 'object') sub.data['products'] = b['products'];
    return view(sub);
  });
  app.delete<P>('/api/subscriptions/:sub', async (req, reply) => {
    subFor(req, req.params['sub']!);
    subs.delete(req.params['sub']!);
    return reply.code(200).send();
  });
  app.post<P>('/api/subscriptions/:sub/licenses', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const licenses = sub.data['licenses'] as Json[];
    const current = licenses.find((l) => l['is-active-license'] === true) ?? licenses[licenses.length - 1]!;
    const original = current['original'] as Json;
    const expires = new Date(Math.max(Date.parse(String(original['expires'])), Date.now()) + 365 * 86_400_000).toISOString();
    for (const l of licenses) l['is-active-license'] = false;
    licenses.push({ 'is-active-license': true, original: { ...original, _id: randomUUID(), created: now(), expires } });
    touch(sub, userOnly(req));
    checkLicense(sub);
    return view(sub);
  });

  // Roles
  const roleBody = (b: Json, id: string): Json => {
    if (typeof b['name'] !== 'string' || b['name'] === '') throw new PortalError(400, 'invalid request', 'a role needs a name');
    const children = b['child-roles'] ?? [];
    if (!Array.isArray(children) || children.some((c) => typeof c !== 'string')) throw new PortalError(400, 'invalid request', 'child-roles must be a list of role ids');
    return { id, name: b['name'], description: typeof b['description'] === 'string' ? b['description'] : '', 'child-roles': children };
  };
  app.get<P>('/api/subscriptions/:sub/available-roles', async (req) => [...BUILTIN_ROLES, ...subFor(req, req.params['sub']!).customRoles]);
  app.post<P>('/api/subscriptions/:sub/available-roles', async (req, reply) => {
    const sub = subFor(req, req.params['sub']!);
    const b = body(req);
    const id = typeof b['id'] === 'string' && b['id'] !== '' ? b['id'] : `custom:${randomUUID().slice(0, 8)}`;
    if ([...BUILTIN_ROLES, ...sub.customRoles].some((r) => r['id'] === id)) throw new PortalError(409, 'conflict', `role ${id} exists`);
    const role = roleBody(b, id);
    sub.customRoles.push(role);
    return reply.code(200).send(role);
  });
  const customRole = (sub: SubState, id: string): Json => {
    if (BUILTIN_ROLES.some((r) => r['id'] === id)) throw new PortalError(403, 'forbidden', 'built-in roles cannot be changed');
    const role = sub.customRoles.find((r) => r['id'] === id);
    if (!role) throw new PortalError(404, 'role not found', `no role ${JSON.stringify(id)}`);
    return role;
  };
  app.get<P>('/api/subscriptions/:sub/available-roles/:role', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const role = [...BUILTIN_ROLES, ...sub.customRoles].find((r) => r['id'] === req.params['role']);
    if (!role) throw new PortalError(404, 'role not found', `no role ${JSON.stringify(req.params['role'])}`);
    return role;
  });
  app.put<P>('/api/subscriptions/:sub/available-roles/:role', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const role = customRole(sub, req.params['role']!);
    Object.assign(role, roleBody(body(req), String(role['id'])));
    return role;
  });
  app.delete<P>('/api/subscriptions/:sub/available-roles/:role', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const role = customRole(sub, req.params['role']!);
    sub.customRoles = sub.customRoles.filter((r) => r !== role);
    return role;
  });

  // Members
  const knownRoles = (sub: SubState, roles: unknown): string[] => {
    if (!Array.isArray(roles) || roles.some((r) => typeof r !== 'string')) throw new PortalError(400, 'invalid request', 'roles must be a list of role ids');
    const ids = new Set([...BUILTIN_ROLES, ...sub.customRoles].map((r) => r['id']));
    const unknown = (roles as string[]).filter((r) => !ids.has(r));
    if (unknown.length > 0) throw new PortalError(400, 'invalid request', `unknown roles: ${unknown.join(', ')}`);
    return roles as string[];
  };
  app.get<P>('/api/subscriptions/:sub/members', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const start = intQuery(req.query['start'], 'start') ?? 0;
    const limit = intQuery(req.query['limit'], 'limit');
    return sub.members.slice(start, limit === undefined ? undefined : start + limit);
  });
  app.post<P>('/api/subscriptions/:sub/members', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const inviter = userOnly(req);
    const b = body(req);
    const email = b['email'];
    if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new PortalError(400, 'invalid request', 'email must be an e-mail address');
    if (sub.members.some((m) => (m['user'] as Json)['email'] === email)) throw new PortalError(409, 'conflict', `${email} is already a member`);
    const roles = knownRoles(sub, b['roles'] ?? []);
    const member: Json = {
      _updated: newVersion(),
      user: { email, name: '', picture: '', user_id: email },
      roles,
      audit: { invited_by: person(inviter), invited_ts: now() },
      svc_support_info: { exp: new Date(Date.now() + 365 * 86_400_000).toISOString() },
    };
    sub.members.push(member);
    return member;
  });
  const findMember = (sub: SubState, id: string): Json => {
    const m = sub.members.find((x) => (x['user'] as Json)['user_id'] === id);
    if (!m) throw new PortalError(404, 'member not found', `no member ${JSON.stringify(id)}`);
    return m;
  };
  app.get<P>('/api/subscriptions/:sub/members/:user', async (req) => findMember(subFor(req, req.params['sub']!), req.params['user']!));
  app.put<P>('/api/subscriptions/:sub/members/:user', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const m = findMember(sub, req.params['user']!);
    const b = body(req);
    if (JSON.stringify(b['_updated']) !== JSON.stringify(m['_updated'])) throw new PortalError(staleStatus, 'conflict', 'the member was modified since it was read; _updated does not match');
    m['roles'] = knownRoles(sub, b['roles']);
    m['_updated'] = newVersion();
    return m;
  });

  // API tokens
  app.get<P>('/api/subscriptions/:sub/api_json_web_tokens', async (req) => subFor(req, req.params['sub']!).tokens.map((t) => t.public));
  app.post<P>('/api/subscriptions/:sub/api_json_web_tokens', async (req) => {
    const subId = req.params['sub']!;
    const sub = subFor(req, subId);
    const u = userOnly(req);
    const b = body(req);
    const exp = b['exp'];
    if (typeof exp !== 'number' || !Number.isFinite(exp)) throw new PortalError(400, 'invalid request', 'exp (seconds since the epoch) is required');
    if (exp <= Date.now() / 1000) throw new PortalError(400, 'invalid request', 'exp is in the past');
    // The spec leaves the default principals open; here a token gets its creator's roles when none are named.
    const principalsList = b['principals'] === undefined ? (memberOf(sub, u.user_id)?.['roles'] as string[]) : knownRoles(sub, b['principals']);
    const refresh = b['refresh_interval'];
    if (refresh !== undefined && (typeof refresh !== 'number' || !Number.isFinite(refresh) || refresh <= 0)) {
      throw new PortalError(400, 'invalid request', 'refresh_interval must be a positive number of seconds');
    }
    const id = randomUUID();
    const iat = Math.floor(Date.now() / 1000);
    const payload: Json = {
      api_token_id: id,
      // With a refresh interval the JWT lives one interval; the client refreshes it with its client_id/secret.
      exp: refresh === undefined ? exp : Math.min(exp, iat + Math.ceil(refresh)),
      iat,
      principals: { [subId]: principalsList },
      user_id: u.user_id,
      user_principal: 'group:Everyone',
      user_profile: { email: u.email, name: u.name, picture: '' },
    };
    const ts = now();
    const record: Json = {
      id,
      name: typeof b['name'] === 'string' ? b['name'] : '',
      description: typeof b['description'] === 'string' ? b['description'] : '',
      ...(refresh !== undefined ? { refresh_interval: refresh, client_id: `client-${randomBytes(8).toString('hex')}` } : {}),
      payload,
      audit: { created_by: person(u), last_modified_by: person(u), created_ts: ts, last_modified_ts: ts },
      'supported-operations': { delete_api_jwt_token: true },
    };
    const jwt = mint(payload);
    sub.tokens.push({ public: record, jwt, subscription: subId });
    return { ...record, jwt_string: jwt, ...(refresh !== undefined ? { client_secret: randomBytes(24).toString('base64url') } : {}) };
  });
  app.delete<P>('/api/subscriptions/:sub/api_json_web_tokens/:token', async (req, reply) => {
    const sub = subFor(req, req.params['sub']!);
    const before = sub.tokens.length;
    sub.tokens = sub.tokens.filter((t) => t.public['id'] !== req.params['token']);
    if (sub.tokens.length === before) throw new PortalError(404, 'API token not found', `no API token ${JSON.stringify(req.params['token'])}`);
    return reply.code(200).send();
  });

  // Notification rules
  const ruleType = (type: unknown): Json => {
    const t = RULE_TYPES.find((r) => r['type'] === type);
    if (!t) throw new PortalError(400, 'invalid request', `unknown rule type ${JSON.stringify(type)}`);
    return t;
  };
  const checkRule = (b: Json): void => {
    const schema = ruleType(b['type'])['schema'] as object;
    const validate = ajv.compile(schema);
    if (!validate(b['extra_rule_info'] ?? {})) {
      throw new PortalError(400, 'invalid request', ajv.errorsText(validate.errors, { dataVar: 'extra_rule_info' }));
    }
    const recipients = b['recipients'] ?? [];
    if (!Array.isArray(recipients) || recipients.some((r) => r === null || typeof r !== 'object' || !('id' in (r as Json)))) {
      throw new PortalError(400, 'invalid request', 'each recipient needs an id');
    }
  };
  const pipeRules = (sub: SubState, pipe: string): Json[] => sub.rules.filter((r) => r['pipe_id'] === pipe);
  const findRule = (sub: SubState, pipe: string, id: string): Json => {
    const r = pipeRules(sub, pipe).find((x) => x['id'] === id);
    if (!r) throw new PortalError(404, 'notification rule not found', `no rule ${JSON.stringify(id)} on pipe ${JSON.stringify(pipe)}`);
    return r;
  };
  app.get<P>('/api/subscriptions/:sub/pipes/:pipe/available-notification-ruletypes', async (req) => {
    subFor(req, req.params['sub']!);
    return RULE_TYPES;
  });
  app.get<P>('/api/subscriptions/:sub/notification-rules', async (req) => subFor(req, req.params['sub']!).rules);
  app.get<P>('/api/subscriptions/:sub/pipes/:pipe/notification-rules', async (req) => pipeRules(subFor(req, req.params['sub']!), req.params['pipe']!));
  app.post<P>('/api/subscriptions/:sub/pipes/:pipe/notification-rules', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const b = body(req);
    checkRule(b);
    const id = typeof b['id'] === 'string' && b['id'] !== '' ? b['id'] : randomUUID();
    if (sub.rules.some((r) => r['id'] === id)) throw new PortalError(409, 'conflict', `rule ${id} exists`);
    const rule: Json = {
      id,
      type: b['type'],
      name: typeof b['name'] === 'string' ? b['name'] : String(ruleType(b['type'])['name']),
      description: typeof b['description'] === 'string' ? b['description'] : '',
      extra_rule_info: b['extra_rule_info'] ?? {},
      pipe_id: req.params['pipe'],
      recipients: b['recipients'] ?? [],
    };
    sub.rules.push(rule);
    return rule;
  });
  app.get<P>('/api/subscriptions/:sub/pipes/:pipe/notification-rules/:rule', async (req) =>
    findRule(subFor(req, req.params['sub']!), req.params['pipe']!, req.params['rule']!),
  );
  app.put<P>('/api/subscriptions/:sub/pipes/:pipe/notification-rules/:rule', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const rule = findRule(sub, req.params['pipe']!, req.params['rule']!);
    const b = body(req);
    const next = { ...rule };
    for (const key of ['name', 'description', 'extra_rule_info', 'recipients']) if (key in b) next[key] = b[key];
    checkRule(next);
    Object.assign(rule, next);
    return rule;
  });
  app.delete<P>('/api/subscriptions/:sub/pipes/:pipe/notification-rules/:rule', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const rule = findRule(sub, req.params['pipe']!, req.params['rule']!);
    sub.rules = sub.rules.filter((r) => r !== rule);
    sub.notifications = sub.notifications.filter((n) => n['notification_rule_id'] !== rule['id']);
    return rule;
  });

  const filterNotifications = (list: Json[], q: Record<string, string | undefined>): Json[] => {
    const limit = intQuery(q['limit'], 'limit') ?? 100;
    let since: number | undefined;
    if (q['since'] !== undefined) {
      since = Date.parse(q['since']);
      if (Number.isNaN(since)) throw new PortalError(400, 'invalid request', 'since must be an ISO 8601 date-time');
    }
    const includeDismissed = q['include_dismissed'] === 'true';
    return list
      .filter((n) => includeDismissed || n['dismissed'] !== true)
      .filter((n) => since === undefined || Date.parse(String(n['last_event_timestamp'])) > since)
      .sort((a, b) => Number(b['notification_id']) - Number(a['notification_id']))
      .slice(0, limit)
      .map(({ dismissed: _d, ...rest }) => rest);
  };
  app.get<P>('/api/subscriptions/:sub/pipes/:pipe/notification-rules/:rule/notifications', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const rule = findRule(sub, req.params['pipe']!, req.params['rule']!);
    return filterNotifications(sub.notifications.filter((n) => n['notification_rule_id'] === rule['id']), req.query);
  });
  app.get<P>('/api/notifications', async (req) => {
    const p = who(req);
    const mine = [...subs.values()].filter((s) => memberOf(s, p.user.user_id) && (p.onlySubscription === undefined || p.onlySubscription === s.data['id']));
    return filterNotifications(mine.flatMap((s) => s.notifications), req.query);
  });

  // The notification summary: JSON Pull over entries whose `_updated` is assigned when the endpoint is called.
  // Pipe entries carry the user-defined rules' notifications (the built-in heartbeat rule alerts in the alert list
  // only); the subscription entry carries the built-in subscription rules. An entry that goes away (a deleted
  // subscription, a pipe whose last rule was removed) is reported as deleted to those who could see it, nobody else.
  app.get<P>('/api/notifications-summary', async (req, reply) => {
    const p = who(req);
    summaryQueries.push(req.url.split('?')[1] ?? '');
    const since = intQuery(req.query['since'], 'since');
    const limit = intQuery(req.query['limit'], 'limit');
    const withDeleted = req.query['deleted'] === 'true';
    const entries: Json[] = [];
    const present = new Set<string>();
    const visible = (subId: string): boolean => p.onlySubscription === undefined || p.onlySubscription === subId;
    for (const [id, sub] of subs) {
      const audience = new Set(sub.members.map((m) => String((m['user'] as Json)['user_id'])));
      const pipes = new Set(sub.rules.map((r) => String(r['pipe_id'])));
      const candidates: [string, string | undefined][] = [[id, undefined], ...[...pipes].sort().map((pipe): [string, string] => [`${id}_${pipe}`, pipe])];
      for (const [key, pipe] of candidates) {
        present.add(key);
        const notes = sub.notifications.filter(
          (n) => n['subscription_id'] === id && n['pipe_id'] === pipe && n['is_ongoing'] === true && n['notification_rule_type'] !== HEARTBEAT_RULE.type,
        );
        const status = notes.length > 0 ? 'failed' : 'ok';
        const signature = JSON.stringify([status, notes.map((n) => [n['notification_id'], n['event_count']])]);
        const prior = summaryState.get(key);
        const updated = !prior || prior.signature !== signature || prior.deleted ? ++summaryCounter : prior.updated;
        summaryState.set(key, { signature, updated, deleted: false, subscription: id, ...(pipe !== undefined ? { pipe } : {}), audience });
        if (!audience.has(p.user.user_id) || !visible(id)) continue;
        entries.push({
          _id: key,
          _updated: updated,
          _deleted: false,
          subscription_id: id,
          ...(pipe !== undefined ? { pipe_id: pipe } : {}),
          status,
          ...(notes.length > 0 ? { notifications: notes.map(({ dismissed: _d, ...n }) => n) } : {}),
          confidence: 1,
        });
      }
    }
    for (const [key, state] of summaryState) {
      if (present.has(key)) continue;
      if (!state.deleted) summaryState.set(key, { ...state, signature: '', updated: ++summaryCounter, deleted: true });
      if (!state.audience.has(p.user.user_id) || !visible(state.subscription)) continue;
      entries.push({
        _id: key,
        _updated: summaryState.get(key)!.updated,
        _deleted: true,
        subscription_id: state.subscription,
        ...(state.pipe !== undefined ? { pipe_id: state.pipe } : {}),
      });
    }
    const out = entries
      .filter((e) => (withDeleted || e['_deleted'] !== true) && (since === undefined || Number(e['_updated']) > since))
      .sort((a, b) => Number(a['_updated']) - Number(b['_updated']))
      .slice(0, limit);
    return reply.header('x-dataset-max-updated', JSON.stringify(summaryCounter)).header('x-dataset-populated', 'true').send(out);
  });

  app.put('/api/admin/config/validation_hack_for_NewPipeNotificationRuleInfo', async () => {
    throw new PortalError(400, 'invalid request', 'this endpoint only registers the rule definition');
  });

  // Monitoring: the spec leaves the bodies open; these carry enough for a dashboard.
  app.get<P>('/api/monitoring/standard/:sub', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const pipes = [...new Set(sub.rules.map((r) => String(r['pipe_id'])))];
    return { subscription_id: req.params['sub'], node_status: 'ok', last_heartbeat: now(), store_disk_usage_bytes: 1_234_567_890, pipes_with_rules: pipes };
  });
  app.get<P>('/api/monitoring/standard/:sub/pipes/:pipe', async (req) => {
    subFor(req, req.params['sub']!);
    return { subscription_id: req.params['sub'], pipe_id: req.params['pipe'], last_run: now(), last_run_status: 'ok', entities_processed: 1200, changed_entities: 37 };
  });
  app.get<P>('/api/monitoring/invoicing/:sub', async (req) => {
    subFor(req, req.params['sub']!);
    return { subscription_id: req.params['sub'], period: new Date().toISOString().slice(0, 7), store_gb: 1.23, price_currency: 'EUR', estimated_price: 420 };
  });
  app.post<P>('/api/login/:provider', async (req, reply) => reply.redirect(`/login_callback/${encodeURIComponent(req.params['provider']!)}`));

  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const port = addr && typeof addr === 'object' ? addr.port : 0;
  const url = `http://127.0.0.1:${port}`;

  const mustSub = (id: string): SubState => {
    const s = subs.get(id);
    if (!s) throw new Error(`no subscription ${id}`);
    return s;
  };
  return {
    url,
    api: `${url}/api`,
    seenAuthorization,
    summaryQueries,
    approvedTos: (userId) => approvedTos.get(userId),
    touchMember(subscription, userId, roles) {
      const m = mustSub(subscription).members.find((x) => (x['user'] as Json)['user_id'] === userId);
      if (!m) throw new Error(`no member ${userId}`);
      if (roles) m['roles'] = roles;
      m['_updated'] = newVersion();
    },
    memberRoles(subscription, userId) {
      const m = mustSub(subscription).members.find((x) => (x['user'] as Json)['user_id'] === userId);
      if (!m) throw new Error(`no member ${userId}`);
      return [...(m['roles'] as string[])];
    },
    setInstanceUrl(subscription, instanceUrl) {
      const s = mustSub(subscription);
      s.data['connections'] = [{ id: 'default', name: 'Default node', type: 'node', url: instanceUrl }];
      touch(s);
    },
    touch(subscription, changes = {}) {
      const s = mustSub(subscription);
      Object.assign(s.data, changes);
      touch(s);
    },
    storedSharedKey(subscription) {
      return [...mustSub(subscription).vpnKeys.values()][0];
    },
    trigger(subscription, ruleId, msg) {
      const s = mustSub(subscription);
      const rule = s.rules.find((r) => r['id'] === ruleId);
      if (!rule) throw new Error(`no rule ${ruleId}`);
      const extra = (rule['extra_rule_info'] ?? {}) as Json;
      if (rule['type'] === 'pattern_match') {
        const patterns = (extra['patterns'] ?? []) as string[];
        // A missing or empty value never matches.
        if (msg === '' || !patterns.some((p) => wildcard(p, extra['case_sensitive'] === true).test(msg))) throw new Error('the message does not match the rule');
      }
      return raise(s, { id: ruleId, name: String(rule['name']), type: String(rule['type']), pipe: String(rule['pipe_id']) }, msg);
    },
    resolve(subscription, pipeId) {
      const s = mustSub(subscription);
      for (const n of s.notifications) if (n['pipe_id'] === pipeId) n['is_ongoing'] = false;
    },
    raiseSubscriptionAlert(subscription, type, msg) {
      return raise(mustSub(subscription), { id: type, name: SUBSCRIPTION_RULES[type], type }, msg);
    },
    clearSubscriptionAlert(subscription, type) {
      clearBuiltIn(mustSub(subscription), type);
    },
    heartbeatOverdue(subscription) {
      const s = mustSub(subscription);
      const pipes = [...new Set(s.rules.map((r) => String(r['pipe_id'])))].sort();
      return pipes.map((pipe) => raise(s, { id: HEARTBEAT_RULE.type, name: HEARTBEAT_RULE.name, type: HEARTBEAT_RULE.type, pipe }, 'the portal has not heard from the node for a long time'));
    },
    close: () => app.close(),
  };
}

/** A portal with two users and one subscription whose default connection points at `instanceUrl`. */
export function defaultPortalSeed(instanceUrl: string, extra: Partial<PortalOptions> = {}): PortalOptions & { ada: PortalUser; bob: PortalUser } {
  const ada: PortalUser = { user_id: 'ada', email: 'ada@example.com', name: 'Ada Lovelace', token: `portal-ada-${randomBytes(12).toString('hex')}` };
  const bob: PortalUser = { user_id: 'bob', email: 'bob@example.com', name: 'Bob Outsider', token: `portal-bob-${randomBytes(12).toString('hex')}` };
  return {
    users: [ada, bob],
    subscriptions: [
      { id: 'sub-prod', name: 'Production', instanceUrl, members: [{ user_id: 'ada', roles: ['group:Admin'] }], extraMembers: 12, vpnSharedKey: 'vpn-secret-9f2c' },
      { id: 'sub-test', name: 'Test', instanceUrl, members: [{ user_id: 'ada', roles: ['group:Developer'] }] },
    ],
    ...extra,
    ada,
    bob,
  };
}

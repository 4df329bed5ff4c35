// A stand-in for the remote account portal, shaped after ../shared/spec/portal-api.md: Bearer tokens,
// subscriptions with `_updated` optimistic locking and a write-only VPN `shared_key`, paginated members,
// roles, licenses, API tokens, notification rule types with JSON schemas, notifications and the
// notification summary as a JSON Pull stream. State is in memory; tests seed it through options.
// Where the spec says "not shown" (error bodies, the subscription list path, built-in role names, rule type
// identifiers other than the three it names, metric property names, the license-expiry warning period), this
// server picks something plausible: errors are {error, detail} with 401/403/404/409/400, the list is
// GET /api/subscriptions, rule types are `pump_*` / `pattern_match`, metrics are keyed by their labels, and a
// license warns 30 days ahead.
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { accessHooks } from './portal/access.js';
import { createPortalContext, newVersion, wildcard, type SubState } from './portal/context.js';
import { memberRoutes } from './portal/members.js';
import { monitoringRoutes } from './portal/monitoring.js';
import { notificationRoutes } from './portal/notifications.js';
import { profileRoutes } from './portal/profile.js';
import { HEARTBEAT_RULE, SUBSCRIPTION_RULES, type SubscriptionRuleType } from './portal/rule-types.js';
import { subscriptionRoutes } from './portal/subscriptions.js';
import { tokenRoutes } from './portal/tokens.js';
import type { Json, PortalOptions, PortalUser } from './portal/types.js';

export { RULE_TYPES, SUBSCRIPTION_RULES, type SubscriptionRuleType } from './portal/rule-types.js';
export type { PortalOptions, PortalUser, SeedSubscription } from './portal/types.js';

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

export async function startPortal(options: PortalOptions): Promise<PortalServer> {
  const ctx = createPortalContext(options);
  const { subs, seenAuthorization, summaryQueries, approvedTos, touch, raise, clearBuiltIn } = ctx;
  const app: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });
  accessHooks(app, ctx);
  profileRoutes(app, ctx);
  subscriptionRoutes(app, ctx);
  memberRoutes(app, ctx);
  tokenRoutes(app, ctx);
  notificationRoutes(app, ctx);
  monitoringRoutes(app, ctx);

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

// /desktop/portal/<conn>/...: the account portal for the UI, through the host process so the portal
// token stays in the OS keychain. The one exception is the `jwt_string` of a newly created API token,
// shown to the user once; storing it as an instance connection happens here, without sending it back.
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from './desktop-context.js';
import { HubError } from '../../../hub-core/base/index.js';
import { PortalClient, checkTransport, instanceUrlOf } from '../../remote/portal-client.js';
import { SummaryCache } from '../../remote/summary-cache.js';
import type { NewApiToken, NewApiTokenRequest, NotificationRule, PortalAlerts, SubscriptionUpdate } from '../../../hub-core/base/index.js';
import { anyObject, bool, int, replies, str } from '../schemas.js';
import { addVerifiedConnection, connectionRoutes, connectionSchema, moreErrors, upstream } from './desktop-connections.js';

const objects = { type: 'array', items: anyObject } as const;
const ok = <T>(schema: T) => ({ ...replies({ 200: schema }), ...moreErrors });
const params = (...names: string[]) => ({ type: 'object', required: names, properties: Object.fromEntries(names.map((n) => [n, str])) }) as const;
const name = { type: 'string', maxLength: 500 } as const;

type ConnP = { conn: string };
type SubP = ConnP & { sub: string };
type PipeP = SubP & { pipe: string };

/** A freshly created API token waits here (never on disk) until the user stores or dismisses it. */
interface PendingToken {
  jwt: string;
  expires: number;
}
const PENDING_MS = 15 * 60_000;

export async function portalRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  await connectionRoutes(app, ctx);

  const pending = new Map<string, PendingToken>();
  const pendingKey = (conn: string, sub: string, id: string): string => JSON.stringify([conn, sub, id]);
  const sweep = (): void => {
    const now = Date.now();
    for (const [k, v] of pending) if (v.expires < now) pending.delete(k);
  };

  // Called inside upstream(): an unknown or non-portal connection becomes a 404 or 400 answer.
  const client = (conn: string): PortalClient => PortalClient.forConnection(ctx.connections, conn);
  const tag = ['desktop portal'];

  app.get<{ Params: ConnP }>('/portal/:conn/info', {
    schema: { tags: tag, summary: 'Portal information and login providers', params: params('conn'), response: ok(anyObject) },
    handler: async (req) => upstream(() => client(req.params.conn).info()),
  });
  app.get<{ Params: ConnP }>('/portal/:conn/profile', {
    schema: { tags: tag, summary: 'Your portal profile', params: params('conn'), response: ok(anyObject) },
    handler: async (req) => upstream(() => client(req.params.conn).profile()),
  });
  app.put<{ Params: ConnP; Body: { name?: string; nickname?: string; picture?: string; approvedTos?: number } }>('/portal/:conn/profile', {
    schema: {
      tags: tag,
      summary: 'Change the changeable profile fields, or approve a Terms of Service version',
      params: params('conn'),
      body: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          name,
          nickname: name,
          picture: { type: 'string', maxLength: 2000 },
          approvedTos: { type: 'number', minimum: 0, description: 'the Terms of Service version (tos_version of the portal) the user approves' },
        },
      },
      response: ok(anyObject),
    },
    handler: async (req) => {
      const { approvedTos, ...profile } = req.body;
      const userInfo = { ...(Object.keys(profile).length > 0 ? { profile } : {}), ...(approvedTos !== undefined ? { approvedTos } : {}) };
      return upstream(() => client(req.params.conn).updateProfile({ userInfo }));
    },
  });

  app.get<{ Params: ConnP }>('/portal/:conn/subscriptions', {
    schema: { tags: tag, summary: 'Your subscriptions', params: params('conn'), response: ok(objects) },
    handler: async (req) => upstream(() => client(req.params.conn).subscriptions()),
  });
  app.get<{ Params: SubP }>('/portal/:conn/subscriptions/:sub', {
    schema: { tags: tag, summary: 'One subscription (VPN shared keys masked by the portal)', params: params('conn', 'sub'), response: ok(anyObject) },
    handler: async (req) => upstream(() => client(req.params.conn).subscription(req.params.sub)),
  });
  app.put<{ Params: SubP; Body: SubscriptionUpdate }>('/portal/:conn/subscriptions/:sub', {
    schema: {
      tags: tag,
      summary: 'Update a subscription; 409 when someone else changed it since `_updated` was read',
      params: params('conn', 'sub'),
      body: {
        type: 'object',
        required: ['_updated'],
        additionalProperties: false,
        properties: {
          _updated: {},
          connections: { type: 'array', items: anyObject },
          description: { type: 'string' },
          name: { type: 'string', minLength: 1, maxLength: 500 },
          network: anyObject,
          paymentmethod_id: str,
          products: anyObject,
          url: str,
        },
      },
      response: ok(anyObject),
    },
    handler: async (req) => upstream(() => client(req.params.conn).updateSubscription(req.params.sub, req.body)),
  });
  app.post<{ Params: SubP }>('/portal/:conn/subscriptions/:sub/licenses', {
    schema: { tags: tag, summary: 'Renew the license (extends its expiration)', params: params('conn', 'sub'), response: ok(anyObject) },
    handler: async (req) => upstream(() => client(req.params.conn).renewLicense(req.params.sub)),
  });

  const roleBody = {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: { id: { type: 'string', minLength: 1, maxLength: 200 }, name: { type: 'string', minLength: 1, maxLength: 200 }, description: name, 'child-roles': { type: 'array', items: str } },
  } as const;
  type RoleBody = { id?: string; name: string; description?: string; 'child-roles'?: string[] };
  app.get<{ Params: SubP }>('/portal/:conn/subscriptions/:sub/roles', {
    schema: { tags: tag, summary: 'Available roles: built-in and custom', params: params('conn', 'sub'), response: ok(objects) },
    handler: async (req) => upstream(() => client(req.params.conn).roles(req.params.sub)),
  });
  app.post<{ Params: SubP; Body: RoleBody }>('/portal/:conn/subscriptions/:sub/roles', {
    schema: { tags: tag, summary: 'Create a custom role', params: params('conn', 'sub'), body: roleBody, response: ok(anyObject) },
    handler: async (req) => upstream(() => client(req.params.conn).createRole(req.params.sub, req.body)),
  });
  app.put<{ Params: SubP & { role: string }; Body: RoleBody }>('/portal/:conn/subscriptions/:sub/roles/:role', {
    schema: { tags: tag, summary: 'Change a custom role', params: params('conn', 'sub', 'role'), body: roleBody, response: ok(anyObject) },
    handler: async (req) => {
      const { id: _id, ...role } = req.body;
      return upstream(() => client(req.params.conn).updateRole(req.params.sub, req.params.role, role));
    },
  });
  app.delete<{ Params: SubP & { role: string } }>('/portal/:conn/subscriptions/:sub/roles/:role', {
    schema: { tags: tag, summary: 'Delete a custom role', params: params('conn', 'sub', 'role'), response: { ...replies({ 204: { type: 'null' } }), ...moreErrors } },
    handler: async (req, reply) => {
      await upstream(() => client(req.params.conn).deleteRole(req.params.sub, req.params.role));
      return reply.code(204).send();
    },
  });

  app.get<{ Params: SubP; Querystring: { start?: number; limit?: number } }>('/portal/:conn/subscriptions/:sub/members', {
    schema: {
      tags: tag,
      summary: 'Members, a page at a time',
      params: params('conn', 'sub'),
      querystring: { type: 'object', additionalProperties: false, properties: { start: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 1, maximum: 1000 } } },
      response: ok(objects),
    },
    handler: async (req) => upstream(() => client(req.params.conn).members(req.params.sub, req.query)),
  });
  app.post<{ Params: SubP; Body: { email: string; roles: string[] } }>('/portal/:conn/subscriptions/:sub/members', {
    schema: {
      tags: tag,
      summary: 'Invite a user by e-mail',
      params: params('conn', 'sub'),
      body: {
        type: 'object',
        required: ['email', 'roles'],
        additionalProperties: false,
        properties: { email: { type: 'string', minLength: 3, maxLength: 320, pattern: '^[^@\\s]+@[^@\\s]+$' }, roles: { type: 'array', items: str } },
      },
      response: ok(anyObject),
    },
    handler: async (req) => upstream(() => client(req.params.conn).invite(req.params.sub, req.body.email, req.body.roles)),
  });
  app.get<{ Params: SubP & { user: string } }>('/portal/:conn/subscriptions/:sub/members/:user', {
    schema: { tags: tag, summary: 'One member, with its current `_updated`', params: params('conn', 'sub', 'user'), response: ok(anyObject) },
    handler: async (req) => upstream(() => client(req.params.conn).member(req.params.sub, req.params.user)),
  });
  app.put<{ Params: SubP & { user: string }; Body: { _updated: unknown; roles: string[] } }>('/portal/:conn/subscriptions/:sub/members/:user', {
    schema: {
      tags: tag,
      summary: "Change a member's roles; 409 when someone else changed the member since `_updated` was read",
      params: params('conn', 'sub', 'user'),
      body: {
        type: 'object',
        required: ['_updated', 'roles'],
        additionalProperties: false,
        properties: { _updated: { description: 'the version of the member as read' }, roles: { type: 'array', uniqueItems: true, items: str } },
      },
      response: ok(anyObject),
    },
    handler: async (req) => upstream(() => client(req.params.conn).setMemberRoles(req.params.sub, req.params.user, req.body._updated, req.body.roles)),
  });

  app.get<{ Params: SubP }>('/portal/:conn/subscriptions/:sub/api-tokens', {
    schema: { tags: tag, summary: 'API tokens of the subscription (never their signed JWT)', params: params('conn', 'sub'), response: ok(objects) },
    handler: async (req) => {
      const list = await upstream(() => client(req.params.conn).apiTokens(req.params.sub));
      return list.map(({ jwt_string: _j, client_secret: _c, ...rest }) => rest);
    },
  });
  app.post<{ Params: SubP; Body: NewApiTokenRequest & { principals: string[] } }>('/portal/:conn/subscriptions/:sub/api-tokens', {
    schema: {
      tags: tag,
      summary: 'Create an API token; the answer carries its jwt_string (and with refresh_interval its client_secret) this once',
      params: params('conn', 'sub'),
      body: {
        type: 'object',
        required: ['exp', 'principals'],
        additionalProperties: false,
        properties: {
          name,
          description: name,
          exp: { type: 'number', description: 'expiry, seconds since the epoch' },
          principals: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 200 }, description: 'role ids the token acts with' },
          refresh_interval: { type: 'number', minimum: 1, maximum: 31_536_000, description: 'seconds; the token must then be refreshed at this rate with its client_id and client_secret' },
        },
      },
      response: ok({ ...anyObject, required: ['id', 'jwt_string'], properties: { id: str, jwt_string: str, client_id: str, client_secret: str, refresh_interval: { type: 'number' } } }),
    },
    handler: async (req) => {
      if (req.body.exp * 1000 <= Date.now()) throw new HubError(400, 'the expiry date is in the past', 'choose a date in the future');
      const created: NewApiToken = await upstream(() => client(req.params.conn).createApiToken(req.params.sub, req.body));
      sweep();
      pending.set(pendingKey(req.params.conn, req.params.sub, created.id), { jwt: created.jwt_string, expires: Date.now() + PENDING_MS });
      return created;
    },
  });
  app.delete<{ Params: SubP & { token: string } }>('/portal/:conn/subscriptions/:sub/api-tokens/:token', {
    schema: { tags: tag, summary: 'Delete (revoke) an API token', params: params('conn', 'sub', 'token'), response: { ...replies({ 204: { type: 'null' } }), ...moreErrors } },
    handler: async (req, reply) => {
      await upstream(() => client(req.params.conn).deleteApiToken(req.params.sub, req.params.token));
      pending.delete(pendingKey(req.params.conn, req.params.sub, req.params.token));
      return reply.code(204).send();
    },
  });
  const allowInsecure = { type: 'boolean', description: 'the user confirmed sending the token over plain http:// to a host off this computer' } as const;
  app.post<{ Params: SubP & { token: string }; Body: { label?: string; allowInsecure?: boolean } }>('/portal/:conn/subscriptions/:sub/api-tokens/:token/store', {
    schema: {
      tags: tag,
      summary: "Save a just-created API token in the OS keychain as a connection to the subscription's instance",
      params: params('conn', 'sub', 'token'),
      body: { type: 'object', additionalProperties: false, properties: { label: { type: 'string', minLength: 1, maxLength: 200 }, allowInsecure } },
      response: { ...replies({ 201: connectionSchema }), ...moreErrors },
    },
    handler: async (req, reply) => {
      sweep();
      const { conn, sub, token } = req.params;
      const key = pendingKey(conn, sub, token);
      const waiting = pending.get(key);
      if (!waiting) throw new HubError(404, 'this token can no longer be stored', 'a token can be stored only within 15 minutes of its creation, by this app; create a new one');
      const subscription = await upstream(() => client(conn).subscription(sub));
      const url = instanceUrlOf(subscription);
      if (url === null) throw new HubError(409, 'the subscription has no instance address yet', 'wait until it is provisioned');
      const saved = await addVerifiedConnection(
        ctx,
        { kind: 'instance', label: req.body?.label ?? subscription.name, url, token: waiting.jwt, subscription: sub, portal: conn },
        req.body?.allowInsecure,
      );
      pending.delete(key);
      return reply.code(201).send(saved);
    },
  });

  app.post<{ Params: SubP; Body: { principals: string[]; days: number; label?: string; allowInsecure?: boolean } }>('/portal/:conn/subscriptions/:sub/instance-connection', {
    schema: {
      tags: tag,
      summary: "Create an API token for the subscription's instance and save it in the OS keychain as an instance connection",
      description: 'The signed token goes from the portal straight to the keychain; this answer carries only the new connection.',
      params: params('conn', 'sub'),
      body: {
        type: 'object',
        required: ['principals', 'days'],
        additionalProperties: false,
        properties: {
          principals: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 200 } },
          days: { type: 'integer', minimum: 1, maximum: 3650, description: 'how long the token is valid' },
          label: { type: 'string', minLength: 1, maxLength: 200 },
          allowInsecure,
        },
      },
      response: { ...replies({ 201: connectionSchema }), ...moreErrors },
    },
    handler: async (req, reply) => {
      const { conn, sub } = req.params;
      const portal = client(conn);
      const subscription = await upstream(() => portal.subscription(sub));
      const url = instanceUrlOf(subscription);
      if (url === null) throw new HubError(409, 'the subscription has no instance address yet', 'wait until it is provisioned');
      // Refuse an unconfirmed http:// address before a token exists that would have to travel over it.
      await upstream(async () => checkTransport(url, req.body.allowInsecure));
      const exp = Math.floor(Date.now() / 1000) + req.body.days * 86400;
      const created = await upstream(() =>
        portal.createApiToken(sub, { name: 'Datahub Desktop', description: 'created by Datahub Desktop to open the instance', exp, principals: req.body.principals }),
      );
      try {
        const saved = await addVerifiedConnection(
          ctx,
          { kind: 'instance', label: req.body.label ?? subscription.name, url, token: created.jwt_string, subscription: sub, portal: conn },
          req.body.allowInsecure,
        );
        return reply.code(201).send(saved);
      } catch (e) {
        // Not stored: revoke the token, so no usable credential is left behind that nobody holds.
        await portal.deleteApiToken(sub, created.id).catch(() => undefined);
        throw e;
      }
    },
  });

  app.get<{ Params: PipeP }>('/portal/:conn/subscriptions/:sub/pipes/:pipe/rule-types', {
    schema: { tags: tag, summary: 'Notification rule types for a pipe, each with the JSON schema of its parameters', params: params('conn', 'sub', 'pipe'), response: ok(objects) },
    handler: async (req) => upstream(() => client(req.params.conn).ruleTypes(req.params.sub, req.params.pipe)),
  });
  app.get<{ Params: SubP }>('/portal/:conn/subscriptions/:sub/notification-rules', {
    schema: { tags: tag, summary: 'Notification rules of all pipes', params: params('conn', 'sub'), response: ok(objects) },
    handler: async (req) => upstream(() => client(req.params.conn).allRules(req.params.sub)),
  });
  app.get<{ Params: PipeP }>('/portal/:conn/subscriptions/:sub/pipes/:pipe/notification-rules', {
    schema: { tags: tag, summary: 'Notification rules of a pipe', params: params('conn', 'sub', 'pipe'), response: ok(objects) },
    handler: async (req) => upstream(() => client(req.params.conn).rules(req.params.sub, req.params.pipe)),
  });
  const ruleBody = {
    type: 'object',
    additionalProperties: false,
    properties: {
      type: { type: 'string', minLength: 1 },
      name,
      description: { type: 'string', maxLength: 5000 },
      extra_rule_info: anyObject,
      recipients: { type: 'array', items: { type: 'object', required: ['id'], properties: { id: {}, type: str, methods: { type: 'array', items: str } } } },
    },
  } as const;
  app.post<{ Params: PipeP; Body: NotificationRule }>('/portal/:conn/subscriptions/:sub/pipes/:pipe/notification-rules', {
    schema: { tags: tag, summary: 'Create a notification rule on a pipe', params: params('conn', 'sub', 'pipe'), body: { ...ruleBody, required: ['type'] }, response: ok(anyObject) },
    handler: async (req) => upstream(() => client(req.params.conn).createRule(req.params.sub, req.params.pipe, req.body)),
  });
  app.put<{ Params: PipeP & { rule: string }; Body: NotificationRule }>('/portal/:conn/subscriptions/:sub/pipes/:pipe/notification-rules/:rule', {
    schema: { tags: tag, summary: 'Change a notification rule', params: params('conn', 'sub', 'pipe', 'rule'), body: ruleBody, response: ok(anyObject) },
    handler: async (req) => {
      const { name: n, description, extra_rule_info, recipients } = req.body;
      return upstream(() => client(req.params.conn).updateRule(req.params.sub, req.params.pipe, req.params.rule, { name: n, description, extra_rule_info, recipients }));
    },
  });
  app.delete<{ Params: PipeP & { rule: string } }>('/portal/:conn/subscriptions/:sub/pipes/:pipe/notification-rules/:rule', {
    schema: { tags: tag, summary: 'Delete a notification rule', params: params('conn', 'sub', 'pipe', 'rule'), response: { ...replies({ 204: { type: 'null' } }), ...moreErrors } },
    handler: async (req, reply) => {
      await upstream(() => client(req.params.conn).deleteRule(req.params.sub, req.params.pipe, req.params.rule));
      return reply.code(204).send();
    },
  });

  const notificationQuery = {
    type: 'object',
    additionalProperties: false,
    properties: { limit: { type: 'integer', minimum: 1, maximum: 1000 }, since: { type: 'string', format: 'date-time' }, include_dismissed: bool },
  } as const;
  type NQ = { limit?: number; since?: string; include_dismissed?: boolean };
  app.get<{ Params: PipeP & { rule: string }; Querystring: NQ }>('/portal/:conn/subscriptions/:sub/pipes/:pipe/notification-rules/:rule/notifications', {
    schema: { tags: tag, summary: 'Notifications raised by one rule', params: params('conn', 'sub', 'pipe', 'rule'), querystring: notificationQuery, response: ok(objects) },
    handler: async (req) => upstream(() => client(req.params.conn).ruleNotifications(req.params.sub, req.params.pipe, req.params.rule, req.query)),
  });
  app.get<{ Params: ConnP; Querystring: NQ }>('/portal/:conn/notifications', {
    schema: { tags: tag, summary: 'Your alert list', params: params('conn'), querystring: notificationQuery, response: ok(objects) },
    handler: async (req) => upstream(() => client(req.params.conn).notifications(req.query)),
  });

  const alertsReply = {
    type: 'object',
    required: ['entries', 'pipes', 'subscriptions'],
    properties: {
      entries: objects,
      pipes: { type: 'object', additionalProperties: int, description: 'pipe id → open alerts, for the subscription asked about' },
      subscriptions: { type: 'object', additionalProperties: int, description: "subscription id → open alerts of the subscription's own (built-in) rules" },
    },
  } as const;
  app.get<{ Params: ConnP; Querystring: { subscription?: string } }>('/portal/:conn/notification-summary', {
    schema: {
      tags: tag,
      summary: 'The notification summary (read with JSON Pull), optionally for one subscription',
      params: params('conn'),
      querystring: { type: 'object', additionalProperties: false, properties: { subscription: str } },
      response: ok(alertsReply),
    },
    handler: async (req) => alerts(req.params.conn, req.query.subscription),
  });
  app.get<{ Params: ConnP }>('/portal-alerts/:conn', {
    schema: {
      tags: tag,
      summary: 'Open alerts per pipe for a connection: a portal (all subscriptions) or an instance opened from a portal',
      params: params('conn'),
      response: ok(alertsReply),
    },
    handler: async (req) => {
      const conn = ctx.connections.get(req.params.conn);
      if (!conn) throw new HubError(404, 'connection not found', `no saved connection ${JSON.stringify(req.params.conn)}`);
      if (conn.kind === 'portal') return alerts(conn.id, undefined);
      if (conn.portal === undefined || conn.subscription === undefined || ctx.connections.get(conn.portal) === undefined) return { entries: [], pipes: {}, subscriptions: {} };
      return alerts(conn.portal, conn.subscription);
    },
  });

  const summaries = new SummaryCache();
  async function alerts(conn: string, subscription: string | undefined): Promise<PortalAlerts> {
    summaries.prune((id) => ctx.connections.get(id) !== undefined);
    const all = await upstream(() => summaries.read(conn, client(conn)));
    const entries = (subscription === undefined ? all : all.filter((e) => e.subscription_id === subscription)).sort((a, b) => a._id.localeCompare(b._id));
    const pipes: Record<string, number> = {};
    const subscriptions: Record<string, number> = {};
    for (const e of entries) {
      const open = e.status === 'failed' ? Math.max((e.notifications ?? []).filter((n) => n.is_ongoing !== false).length, 1) : 0;
      if (e.pipe_id === undefined) subscriptions[e.subscription_id] = (subscriptions[e.subscription_id] ?? 0) + open;
      else pipes[e.pipe_id] = (pipes[e.pipe_id] ?? 0) + open;
    }
    return { entries, pipes, subscriptions };
  }

  app.get<{ Params: SubP; Querystring: { pipe?: string } }>('/portal/:conn/monitoring/:sub', {
    schema: {
      tags: tag,
      summary: 'Standard monitoring of a subscription or one of its pipes',
      params: params('conn', 'sub'),
      querystring: { type: 'object', additionalProperties: false, properties: { pipe: str } },
      response: ok(anyObject),
    },
    handler: async (req) => upstream(() => client(req.params.conn).monitoring(req.params.sub, req.query.pipe)),
  });
  app.get<{ Params: SubP }>('/portal/:conn/monitoring/:sub/invoicing', {
    schema: { tags: tag, summary: 'Invoicing information of a subscription', params: params('conn', 'sub'), response: ok(anyObject) },
    handler: async (req) => upstream(() => client(req.params.conn).invoicing(req.params.sub)),
  });
}

// Notification rules on pipes, their notifications, and the notification summary as a JSON Pull stream.
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { PortalError, type P, type PortalContext, type SubState } from './context.js';
import { HEARTBEAT_RULE, RULE_TYPES } from './rule-types.js';
import type { Json } from './types.js';

export function notificationRoutes(app: FastifyInstance, ctx: PortalContext): void {
  const { ajv, subs, summaryQueries, summaryState, who, memberOf, subFor, body, intQuery } = ctx;
  let summaryCounter = 0;
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
}

// Notification rules kept with the pipe (`metadata.notification_rules`) and the alerts they raise on this hub's pump
// runs (hub-core/config/notification-rules.ts):
//   GET /pipes/<id>/notification-rules  the pipe's rules and the problems of those that cannot be used
//   GET /pipes/<id>/alerts              the alerts, newest first, and the pipe's status (ok / failed)
//   GET /alerts                         every pipe with rules, as the portal's notification summary lists them
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import type { Hub } from '../../../hub-core/hub.js';
import { bool, int, str, replies } from '../schemas.js';
import { effectivePipeConfig } from '../../../hub-core/pipes/index.js';
import { executionLogName } from '../../../hub-core/pipes/index.js';
import { parseCron } from '../../../hub-core/config/index.js';
import { isJsonObject, type JsonObject } from '../../../hub-core/base/index.js';
import { parseJson } from '../../../hub-core/base/index.js';
import { RULE_TYPE_IDS, evaluateRules, pipeRules, pumpEvents, type LocalAlert, type ScheduleFacts } from '../../../hub-core/config/index.js';

const anyObj = { type: 'object', additionalProperties: true } as const;
const alertSchema = {
  type: 'object',
  required: ['notification_id', 'notification_rule_id', 'notification_rule_name', 'notification_rule_type', 'msg', 'event_timestamp', 'last_event_timestamp', 'event_count', 'is_ongoing', 'pipe_id', 'extra_notification_info'],
  properties: {
    notification_id: int,
    notification_rule_id: str,
    notification_rule_name: str,
    notification_rule_type: str,
    msg: str,
    event_timestamp: str,
    last_event_timestamp: str,
    event_count: int,
    is_ongoing: bool,
    pipe_id: str,
    extra_notification_info: {
      type: 'object',
      required: ['run', 'last_run'],
      properties: { run: { type: ['string', 'null'], description: 'pump_instance of the run that raised it' }, last_run: { type: ['string', 'null'] } },
    },
  },
} as const;
const pipeAlertsSchema = {
  type: 'object',
  required: ['pipe', 'status', 'rules', 'alerts'],
  properties: {
    pipe: str,
    status: { type: 'string', enum: ['ok', 'failed'], description: 'failed while an alert is ongoing' },
    rules: { ...int, description: 'usable rules' },
    alerts: { type: 'array', items: alertSchema },
  },
} as const;
const params = { type: 'object', required: ['pipe_id'], properties: { pipe_id: str } } as const;

interface PipeAlerts {
  pipe: string;
  status: 'ok' | 'failed';
  rules: number;
  alerts: LocalAlert[];
}

function scheduleOf(hub: Hub, id: string, pump: JsonObject): ScheduleFacts {
  const info = hub.pumps.info(id);
  if (pump['mode'] !== 'scheduled' || info['is-disabled'] === true) return { interval: null };
  const cron = pump['cron_expression'];
  if (typeof cron === 'string') {
    try {
      const c = parseCron(cron);
      return { interval: null, cronNext: (after) => c.next(new Date(after))?.getTime() ?? null };
    } catch {
      return { interval: null };
    }
  }
  const interval = pump['schedule_interval'];
  return { interval: typeof interval === 'number' && interval > 0 ? interval : null };
}

export function pipeAlerts(hub: Hub, id: string, now = Date.now()): PipeAlerts {
  const config = hub.pipes.require(id);
  const { rules } = pipeRules(config);
  const log = hub.datasets.get(executionLogName(id));
  const entries: JsonObject[] = [];
  if (log && rules.length > 0) for (const page of log.readJson({ history: true, deleted: true })) for (const j of page) entries.push(parseJson(j) as JsonObject);
  const info = hub.pumps.info(id);
  const current = info['current-run'];
  const last = info['last-run'];
  const startOf = (v: unknown): number | null => (isJsonObject(v) && typeof v['start_time'] === 'string' ? Date.parse(v['start_time']) : null);
  const alerts = evaluateRules(id, rules, pumpEvents(entries), {
    now,
    schedule: scheduleOf(hub, id, effectivePipeConfig(config).pump),
    lastStart: startOf(current) ?? startOf(last),
    running: info['is-running'] === true,
  }).reverse();
  return { pipe: id, status: alerts.some((a) => a.is_ongoing) ? 'failed' : 'ok', rules: rules.length, alerts };
}

export async function pipeAlertRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  const tags = ['pipes'];

  app.get<{ Params: { pipe_id: string } }>('/pipes/:pipe_id/notification-rules', {
    schema: {
      tags,
      summary: "The pipe's notification rules (metadata.notification_rules) and the problems of those that cannot be used",
      params,
      response: replies({
        200: {
          type: 'object',
          required: ['rules', 'problems', 'rule-types'],
          properties: {
            rules: {
              type: 'array',
              items: { type: 'object', required: ['id', 'type', 'name', 'description', 'extra_rule_info'], properties: { id: str, type: str, name: str, description: str, extra_rule_info: anyObj } },
            },
            problems: { type: 'array', items: { type: 'object', required: ['elements', 'msg'], properties: { elements: str, msg: str } } },
            'rule-types': { type: 'array', items: str },
          },
        },
      }),
    },
    handler: async (req) => ({ ...pipeRules(hub.pipes.require(req.params.pipe_id)), 'rule-types': [...RULE_TYPE_IDS] }),
  });

  app.get<{ Params: { pipe_id: string } }>('/pipes/:pipe_id/alerts', {
    schema: { tags, summary: "The alerts the pipe's notification rules raised on its runs, newest first", params, response: replies({ 200: pipeAlertsSchema }) },
    handler: async (req) => pipeAlerts(hub, req.params.pipe_id),
  });

  app.get('/alerts', {
    schema: { tags, summary: 'Every pipe with notification rules, its status and alerts', response: replies({ 200: { type: 'array', items: pipeAlertsSchema } }) },
    handler: async () => hub.pipes.ids().filter((id) => pipeRules(hub.pipes.require(id)).rules.length > 0).sort().map((id) => pipeAlerts(hub, id)),
  });
}

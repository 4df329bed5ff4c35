// POST /desktop/portal/<conn>/subscriptions/<sub>/sync-rules: make the subscription's notification rules match the
// rules kept with this hub's pipes (main/remote/rules-sync.ts). Without `apply` it answers the diff; with `apply` it
// creates and updates, and removes (or replaces) only with `confirmRemove` as well.
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from './desktop-context.js';
import { PortalClient } from '../../remote/portal-client.js';
import { syncRules } from '../../remote/rules-sync.js';
import { pipeRules, type NotificationRule } from '../../../hub-core/config/index.js';
import { bool, int, replies, str } from '../schemas.js';
import { moreErrors, upstream } from './desktop-connections.js';

const resultSchema = {
  type: 'object',
  required: ['changes', 'elsewhere', 'applied'],
  properties: {
    changes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['pipe', 'name', 'action', 'what', 'done'],
        properties: {
          pipe: str,
          name: str,
          action: { type: 'string', enum: ['create', 'update', 'replace', 'remove', 'same'] },
          what: { type: 'array', items: str },
          done: bool,
        },
      },
    },
    elsewhere: { ...int, description: 'subscription rules of pipes this hub does not have (left alone)' },
    applied: bool,
  },
} as const;

export async function rulesSyncRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  app.post<{ Params: { conn: string; sub: string }; Body: { apply?: boolean; confirmRemove?: boolean } | null }>('/portal/:conn/subscriptions/:sub/sync-rules', {
    schema: {
      tags: ['desktop portal'],
      summary: "Make the subscription's notification rules match those kept with this hub's pipes (metadata.notification_rules)",
      description: 'Rules match per pipe by name. Without `apply`: the diff only. With `apply`: creates and updates; removals and type changes need `confirmRemove` too.',
      params: { type: 'object', required: ['conn', 'sub'], properties: { conn: str, sub: str } },
      body: { type: ['object', 'null'], additionalProperties: false, properties: { apply: bool, confirmRemove: bool } },
      response: { ...replies({ 200: resultSchema }), ...moreErrors },
    },
    handler: async (req) => {
      const local = new Map<string, NotificationRule[]>();
      for (const id of ctx.hub.pipes.ids()) local.set(id, pipeRules(ctx.hub.pipes.require(id)).rules);
      return upstream(() =>
        syncRules(PortalClient.forConnection(ctx.connections, req.params.conn), req.params.sub, local, { apply: req.body?.apply === true, confirmRemove: req.body?.confirmRemove === true }),
      );
    },
  });
}

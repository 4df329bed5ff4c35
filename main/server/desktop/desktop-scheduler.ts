// The pump scheduler as the workbench's top bar shows it: paused or running, and the one toggle between them. A
// workspace opens with it paused (serve --workspace, the desktop app, Open folder); `--scheduler on` starts it running.
// Paused only holds back runs that start by themselves (schedules, run_at_startup, webhooks): runs by hand, previews
// and tests work as ever. `disabled` is the node's own switch (task_manager.disable_pump_scheduler in the metadata or
// startup_options.json), which the toggle does not change.
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from './desktop-context.js';
import { bool, replies } from '../schemas.js';

const stateSchema = {
  type: 'object',
  required: ['paused', 'disabled', 'scheduled'],
  properties: {
    paused: { ...bool, description: 'paused from the workbench (or by opening a workspace): nothing starts by itself' },
    disabled: { ...bool, description: 'switched off in the node metadata or startup_options.json' },
    scheduled: { type: 'integer', description: 'pipes with a schedule armed now (0 while paused or disabled)' },
  },
} as const;

export async function schedulerRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  const tags = ['desktop'];
  const state = (): { paused: boolean; disabled: boolean; scheduled: number } => {
    const s = ctx.hub.pumps.scheduler;
    const scheduled = ctx.hub.config.list('pipe').filter((p) => s.nextRun(p._id) !== undefined).length;
    return { paused: s.paused, disabled: s.isDisabled(), scheduled };
  };

  app.get('/scheduler', {
    schema: { tags, summary: 'Whether pumps start by themselves now (paused from the workbench, or disabled by the node)', response: replies({ 200: stateSchema }) },
    handler: async () => state(),
  });

  app.put<{ Body: { paused: boolean } }>('/scheduler', {
    schema: {
      tags,
      summary: 'Pause or resume the pump scheduler (resuming arms the schedules and starts run_at_startup runs held back)',
      body: { type: 'object', additionalProperties: false, required: ['paused'], properties: { paused: bool } },
      response: replies({ 200: stateSchema }),
    },
    handler: async (req) => {
      ctx.hub.pumps.scheduler.setPaused(req.body.paused);
      return state();
    },
  });
}

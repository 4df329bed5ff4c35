// Monitoring: the spec leaves the bodies open; these carry enough for a dashboard.
import type { FastifyInstance } from 'fastify';
import type { P, PortalContext } from './context.js';

export function monitoringRoutes(app: FastifyInstance, ctx: PortalContext): void {
  const { now, subFor } = ctx;
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
}

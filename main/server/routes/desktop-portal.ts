// Placeholder: filled in by the portal work item.
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from '../desktop.js';

export async function portalRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  void app;
  void ctx;
}

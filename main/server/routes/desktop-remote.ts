// Placeholder: filled in by the remote work item.
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from '../desktop.js';

export async function remoteRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  void app;
  void ctx;
}

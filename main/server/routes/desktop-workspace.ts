// Placeholder: filled in by the workspace work item.
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from '../desktop.js';

export async function workspaceRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  void app;
  void ctx;
}

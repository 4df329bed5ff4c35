// Placeholder: filled in by the dataset-explorer work item.
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from '../desktop.js';

export async function downloadRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  void app;
  void ctx;
}

// Restart, reset and "delete all sink datasets" as the hosted service's command-line client calls them (through its
// Python client): each answers {"message": "OK"} once done; the client then waits for node_start_time to change.
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { requireAdmin } from '../route-context.js';
import { str, replies } from '../schemas.js';
import { deleteAllSinkDatasets, resetNode, restartNode } from '../../../hub-core/node-maintenance.js';

const ok = { type: 'object', properties: { message: str }, required: ['message'], additionalProperties: true } as const;

export async function nodeMaintenanceRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  const tags = ['node'];

  app.post('/restart', {
    schema: { tags, summary: 'Restart the node: every run stops, schedules start over, node_start_time changes', response: replies({ 200: ok }) },
    handler: async () => {
      await restartNode(hub);
      return { message: 'OK' };
    },
  });

  app.post('/reset', {
    schema: {
      tags,
      summary: 'Reset the node (group:Admin only): delete all configuration, datasets, environment variables, secrets and pump state, then restart',
      response: replies({ 200: ok, 403: { $ref: 'Error#' } }),
    },
    handler: async (req) => {
      requireAdmin(req);
      await resetNode(hub);
      return { message: 'OK' };
    },
  });

  app.post('/pipes/delete-all-sink-datasets', {
    schema: {
      tags,
      summary: 'Delete the sink dataset of every pipe (their pumps stop first)',
      response: replies({ 200: { type: 'object', properties: { message: str, deleted: { type: 'array', items: str } }, required: ['message', 'deleted'] } }),
    },
    handler: async () => ({ message: 'OK', deleted: await deleteAllSinkDatasets(hub) }),
  });
}

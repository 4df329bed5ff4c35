import type { FastifyInstance } from 'fastify';
import { anyObject, replies } from '../schemas.js';
import { configSchema } from '../../../hub-core/pipes/index.js';
import { pipeTemplates } from '../../../hub-core/pipes/index.js';

export async function configSchemaRoutes(app: FastifyInstance): Promise<void> {
  app.get('/config-schema', {
    schema: {
      tags: ['config'],
      summary: 'JSON Schema (draft-07) of pipe and system configuration entities, for editors',
      response: replies({ 200: anyObject }),
    },
    handler: async (_req, reply) => {
      // The schema only changes with the hub's version; let the UI keep it for a while.
      void reply.header('cache-control', 'private, max-age=300');
      return configSchema;
    },
  });

  app.get('/pipe-templates', {
    schema: {
      tags: ['config'],
      summary: 'Pipes to start from (the "new pipe" dialog): "{pipe}" and "{dataset}" stand for the new pipe\'s id and the dataset it reads',
      response: replies({ 200: { type: 'array', items: anyObject } }),
    },
    handler: async () => pipeTemplates(),
  });
}

import type { FastifyInstance } from 'fastify';
import { clientGone, type RouteContext } from '../route-context.js';
import { anyObject, replies } from '../schemas.js';
import { functionCatalogue } from '../../../hub-core/dtl/index.js';
import { localEvaluator } from '../../../hub-core/preview/index.js';
import { isJsonObject } from '../../../hub-core/base/index.js';
import { badRequest } from '../../../hub-core/base/index.js';
import type { ConfigEntity } from '../../../hub-core/config/index.js';

const MAX_PREVIEW = 1000;

interface PreviewBody {
  transform: unknown;
  entities: unknown[];
  pipe?: string;
  trace?: boolean;
}

export async function dtlRoutes(app: FastifyInstance, { hub, previews }: RouteContext): Promise<void> {
  const tags = ['dtl'];
  // The catalogue does not change while the hub runs.
  const catalogue = functionCatalogue();

  app.get('/dtl/functions', {
    schema: {
      tags,
      summary: 'Every DTL function: family, parameters, a one-line description and examples (for editors)',
      response: replies({ 200: { type: 'array', items: anyObject } }),
    },
    handler: async () => catalogue,
  });

  app.post<{ Body: PreviewBody }>('/dtl/preview', {
    schema: {
      tags,
      summary: 'Run a transform on sample entities without running a pump or writing anything',
      body: {
        type: 'object',
        required: ['transform', 'entities'],
        // A misspelt field ("entitys", "tracee") would be dropped while the answer looked right: it is named instead.
        additionalProperties: false,
        properties: {
          transform: { description: 'a DTL transform {"type": "dtl", "rules": {...}} or a list of them' },
          entities: { type: 'array', maxItems: MAX_PREVIEW, items: { type: 'object', additionalProperties: true } },
          pipe: { type: 'string', description: 'run as this pipe would: with the node\'s namespaced identifiers when it uses them' },
          trace: { type: 'boolean', description: 'also answer how each entity went through the transform (results[k].trace; the first 50 entities)' },
        },
      },
      response: replies({ 200: anyObject }),
    },
    handler: async (req, reply) => {
      const { transform, entities, pipe, trace } = req.body;
      // The transform runs in the pipe's runtime: as that pipe would run it (its namespaces), or on its own.
      const config = { ...(pipe !== undefined ? hub.pipes.require(pipe) : { _id: 'dtl-preview', type: 'pipe' }), transform } as ConfigEntity;
      const runtime = hub.pumps.runtimes.draft(config, { standalone: pipe === undefined });
      const compiled = runtime.transform!;
      if (!compiled.ok) return { ok: false, errors: compiled.errors, results: [] };
      if (!entities.every(isJsonObject)) throw badRequest('every sample entity must be a JSON object');
      // The evaluation runs in a preview worker with a deadline (the hub goes on answering meanwhile).
      return (previews ?? localEvaluator).evaluate(runtime, { kind: 'dtl', entities, trace: trace === true }, clientGone(reply));
    },
  });
}

import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../app.js';
import { anyObject, replies } from '../schemas.js';
import { functionCatalogue } from '../../../hub-core/dtl/catalogue.js';
import { compileTransform } from '../../../hub-core/dtl/transform.js';
import { DtlRuntimeError } from '../../../hub-core/dtl/context.js';
import { DatasetLookup } from '../../../hub-core/dataset-lookup.js';
import { isJsonObject, type JsonObject } from '../../../hub-core/json.js';
import { badRequest } from '../../../hub-core/errors.js';

const MAX_PREVIEW = 1000;

interface PreviewBody {
  transform: unknown;
  entities: unknown[];
}

export async function dtlRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
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
        properties: {
          transform: { description: 'a DTL transform {"type": "dtl", "rules": {...}} or a list of them' },
          entities: { type: 'array', maxItems: MAX_PREVIEW, items: { type: 'object', additionalProperties: true } },
        },
      },
      response: replies({ 200: anyObject }),
    },
    handler: async (req) => {
      const compiled = compileTransform(req.body.transform, { lookup: new DatasetLookup(hub.datasets) });
      if (!compiled.ok) return { ok: false, errors: compiled.errors, results: [] };
      const results = req.body.entities.map((entity) => {
        if (!isJsonObject(entity)) throw badRequest('every sample entity must be a JSON object');
        try {
          return { entities: compiled.run(entity as JsonObject).entities };
        } catch (e) {
          if (e instanceof DtlRuntimeError) return { error: { kind: e.kind, msg: e.message, elements: e.elements ?? null } };
          throw e;
        }
      });
      return { ok: true, errors: compiled.errors, results };
    },
  });
}

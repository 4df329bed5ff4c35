import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../app.js';
import { anyObject, replies } from '../schemas.js';
import { functionCatalogue, compileTransform, childPath, DtlRuntimeError, type CompiledTransform } from '../../../hub-core/dtl/index.js';
import { DatasetLookup } from '../../../hub-core/dataset-lookup.js';
import { isJsonObject, type JsonObject } from '../../../hub-core/json.js';
import { badRequest } from '../../../hub-core/errors.js';

const MAX_PREVIEW = 1000;

interface PreviewBody {
  transform: unknown;
  entities: unknown[];
  pipe?: string;
}

type StageResult = { entities: JsonObject[] } | { error: { kind: string; msg: string; elements: string | null } };

/**
 * For a chain of transforms: what each transform of the chain produced from one sample entity, in order. A stage
 * that fails ends the chain with its error.
 */
function chainStages(stages: readonly CompiledTransform[], entity: JsonObject): StageResult[] {
  const out: StageResult[] = [];
  let current: JsonObject[] = [entity];
  for (const stage of stages) {
    const next: JsonObject[] = [];
    try {
      for (const e of current) next.push(...stage.run(e).entities);
    } catch (e) {
      if (e instanceof DtlRuntimeError) {
        out.push({ error: { kind: e.kind, msg: e.message, elements: e.elements ?? null } });
        return out;
      }
      throw e;
    }
    out.push({ entities: next });
    current = next;
  }
  return out;
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
          pipe: { type: 'string', description: 'run as this pipe would: with the node\'s namespaced identifiers when it uses them' },
        },
      },
      response: replies({ 200: anyObject }),
    },
    handler: async (req) => {
      const { transform, entities, pipe } = req.body;
      if (pipe !== undefined) hub.pipes.require(pipe);
      const namespaces = pipe !== undefined ? hub.namespaceSettings(pipe) : undefined;
      const options = { lookup: new DatasetLookup(hub.datasets), ...(namespaces ? { namespaces } : {}) };
      const compiled = compileTransform(transform, options);
      if (!compiled.ok) return { ok: false, errors: compiled.errors, results: [] };
      // A chain of transforms also answers what each of its transforms produced (results[k].stages).
      const chain = Array.isArray(transform) && transform.length > 1
        ? transform.map((t, i) => compileTransform(t, { ...options, configPath: childPath('$.transform', i) }))
        : null;
      const results = entities.map((entity) => {
        if (!isJsonObject(entity)) throw badRequest('every sample entity must be a JSON object');
        const stages = chain ? { stages: chainStages(chain, entity) } : {};
        try {
          return { entities: compiled.run(entity).entities, ...stages };
        } catch (e) {
          if (e instanceof DtlRuntimeError) return { error: { kind: e.kind, msg: e.message, elements: e.elements ?? null }, ...stages };
          throw e;
        }
      });
      return { ok: true, errors: compiled.errors, results };
    },
  });
}

import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { anyObject, int, replies, str } from '../schemas.js';
import { entityLineage, LINEAGE_DEFAULT_DEPTH, LINEAGE_MAX_DEPTH } from '../../../hub-core/lineage/index.js';
import type { JsonObject } from '../../../hub-core/base/index.js';

const params = {
  type: 'object',
  required: ['dataset_id', 'entity_id'],
  properties: { dataset_id: { type: 'string', description: 'dataset id (may contain ":")' }, entity_id: { type: 'string', minLength: 1, description: 'entity _id' } },
} as const;

const querystring = {
  type: 'object',
  required: ['direction'],
  properties: {
    direction: { type: 'string', enum: ['up', 'down'], description: 'up: where the entity came from; down: what was made from it' },
    depth: { type: 'integer', minimum: 1, maximum: LINEAGE_MAX_DEPTH, default: LINEAGE_DEFAULT_DEPTH, description: 'pipes followed at most' },
  },
} as const;

const reply = {
  type: 'object',
  properties: {
    dataset: str,
    entity: str,
    offset: { type: ['integer', 'null'] },
    direction: str,
    depth: int,
    steps: { type: 'array', items: { ...anyObject, description: 'upstream: pipe, output, source, contributors, joined, parent, via, why, properties; downstream: pipe, input, role, output, from-this-version, why' } },
    cut: { type: 'array', items: str, description: 'where the walk was cut by its limits, in words' },
    limits: { type: 'object', properties: { depth: int, 'fan-in': int, 'fan-out': int } },
  },
} as const;

interface Params {
  dataset_id: string;
  entity_id: string;
}

export async function entityLineageRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  app.get<{ Params: Params; Querystring: { direction: 'up' | 'down'; depth?: number } }>('/datasets/:dataset_id/entities/:entity_id/lineage', {
    schema: {
      tags: ['datasets'],
      summary: "Lineage of an entity's latest version: the pipes and source entities that made it (up), or what pipes made from it (down)",
      params,
      querystring,
      response: replies({ 200: reply }),
    },
    handler: async (req) =>
      (await entityLineage(hub, {
        dataset: req.params.dataset_id,
        entity: req.params.entity_id,
        direction: req.query.direction,
        ...(req.query.depth !== undefined ? { depth: req.query.depth } : {}),
      })) as unknown as JsonObject,
  });
}

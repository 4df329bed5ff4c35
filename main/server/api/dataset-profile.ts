import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { bool, int, replies, str } from '../schemas.js';
import { namespaceRelations } from '../../../hub-core/explore/index.js';

const params = {
  type: 'object',
  required: ['dataset_id'],
  properties: { dataset_id: { type: 'string', description: 'dataset id (may contain ":")' } },
} as const;

const range = {
  type: 'object',
  properties: {
    min: { description: 'a number (an integer beyond ±2^53 with its exact digits) or a string' },
    max: { description: 'as min' },
    histogram: {
      type: 'object',
      properties: {
        width: { type: 'number' },
        bins: { type: 'array', items: { type: 'object', properties: { from: { type: 'number' }, to: { type: 'number' }, count: int } } },
      },
    },
  },
} as const;

const property = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'a.b for nested objects, a[] for list items' },
    count: { ...int, description: 'entities that have the property' },
    values: { ...int, description: 'values, list items counted one by one' },
    nulls: int,
    types: { type: 'object', additionalProperties: int, description: 'values per kind (JSON kinds and typed values)' },
    distinct: int,
    'distinct-exact': { ...bool, description: 'false: a HyperLogLog estimate' },
    top: { type: 'array', items: { type: 'object', properties: { value: { description: 'a string, number or boolean' }, count: int } } },
    'top-exact': { ...bool, description: 'false: counts are lower bounds (Misra-Gries)' },
    number: range,
    datetime: range,
    string: range,
    namespaces: { type: 'object', additionalProperties: int, description: 'namespaces of namespaced identifiers' },
  },
} as const;

export const profileSchema = {
  type: 'object',
  properties: {
    dataset: { type: 'string' },
    offset: { type: ['integer', 'null'] },
    entities: int,
    deleted: int,
    untracked: int,
    computed: { type: 'string', enum: ['full', 'incremental', 'cached'] },
    properties: { type: 'array', items: property },
    timeline: {
      type: 'object',
      properties: {
        width: { type: 'number', description: 'seconds per bucket' },
        buckets: {
          type: 'array',
          items: { type: 'object', properties: { start: { type: 'string' }, added: int, changed: int, deleted: int } },
        },
      },
    },
  },
} as const;

interface Params {
  dataset_id: string;
}

export async function datasetProfileRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  const tags = ['datasets'];

  app.get<{ Params: Params; Querystring: { at?: number } }>('/datasets/:dataset_id/profile', {
    schema: {
      tags,
      summary: 'Profile of the latest entities: per property path its coverage, kinds, distinct and top values, ranges, histograms',
      params,
      querystring: { type: 'object', properties: { at: { ...int, minimum: 0, description: 'profile the dataset as it stood at this offset' } } },
      response: replies({ 200: profileSchema, 409: { $ref: 'Error#' } }),
    },
    handler: async (req) => hub.profiles.profile(req.params.dataset_id, req.query.at),
  });

  app.get<{ Params: Params }>('/datasets/:dataset_id/profile/progress', {
    schema: {
      tags,
      summary: 'Progress of a running profile',
      params,
      response: replies({ 200: { type: 'object', properties: { running: bool, done: int, total: int } } }),
    },
    handler: async (req) => hub.profiles.progress(req.params.dataset_id),
  });

  app.delete<{ Params: Params }>('/datasets/:dataset_id/profile', {
    schema: {
      tags,
      summary: 'Cancel a running profile',
      params,
      response: replies({ 200: { type: 'object', properties: { cancelled: bool } } }),
    },
    handler: async (req) => ({ cancelled: hub.profiles.cancel(req.params.dataset_id) }),
  });

  app.get<{ Params: Params; Querystring: { path: string } }>('/datasets/:dataset_id/relations', {
    schema: {
      tags,
      summary: 'Where the namespaced identifiers of a property point, and how many resolve',
      params,
      querystring: { type: 'object', required: ['path'], properties: { path: { ...str, description: 'a profile path: a.b, a[]' } } },
      response: replies({
        200: {
          type: 'array',
          items: {
            type: 'object',
            properties: { namespace: str, datasets: { type: 'array', items: str }, values: int, resolved: int, unresolved: { type: 'array', items: str } },
          },
        },
      }),
    },
    handler: async (req) => namespaceRelations(hub.datasets, hub.pipes, req.params.dataset_id, req.query.path),
  });
}

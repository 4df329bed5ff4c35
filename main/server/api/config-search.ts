// GET /config-search: which pipes and systems read, write or join a dataset, call a DTL function, use a system, a
// secret or an environment variable (hub-core/config/config-search.ts), with where in each config the reference is.
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { bool, replies } from '../schemas.js';
import { CONFIG_REFERENCE_KINDS, searchConfigs, type ConfigReferenceKind } from '../../../hub-core/config/index.js';
import { functionCatalogue } from '../../../hub-core/dtl/index.js';

const kindList = `^(${CONFIG_REFERENCE_KINDS.join('|')})(,(${CONFIG_REFERENCE_KINDS.join('|')}))*$`;

const referenceSchema = {
  type: 'object',
  required: ['kind', 'name', 'role', 'path', 'where'],
  properties: {
    kind: { type: 'string', enum: [...CONFIG_REFERENCE_KINDS] },
    name: { type: 'string', description: 'the dataset, function, system, secret or variable named' },
    role: { type: 'string', enum: ['reads', 'writes', 'joins', 'calls', 'uses'] },
    path: { type: 'array', items: { type: ['string', 'integer'] }, description: 'keys and list positions from the config root to the value ([] for an implied default)' },
    where: { type: 'string', description: 'the path as text: source.datasets[1]' },
  },
} as const;

const hitSchema = {
  type: 'object',
  required: ['kind', 'id', 'matches'],
  properties: {
    kind: { type: 'string', enum: ['pipe', 'system', 'metadata'] },
    id: { type: 'string' },
    matches: { type: 'array', items: referenceSchema },
  },
} as const;

export async function configSearchRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  const functions = new Set(functionCatalogue().map((f) => f.name));
  app.get<{ Querystring: { q?: string; kind?: string; exact?: boolean } }>('/config-search', {
    schema: {
      tags: ['config'],
      summary: 'Which pipes and systems read or write a dataset, call a DTL function, use a system, a secret or an env variable',
      description:
        'Matches the names each configuration refers to (case-insensitive; with `exact` the whole name). Without `q`, every reference of the kinds asked. Pipes first, then systems and the node metadata.',
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          q: { type: 'string', maxLength: 500 },
          kind: { type: 'string', pattern: kindList, description: `comma-separated: ${CONFIG_REFERENCE_KINDS.join(', ')} (default: all)` },
          exact: bool,
        },
      },
      response: replies({ 200: { type: 'array', items: hitSchema } }),
    },
    handler: async (req) => {
      const { q = '', kind, exact } = req.query;
      const kinds = kind === undefined ? undefined : (kind.split(',') as ConfigReferenceKind[]);
      return searchConfigs(hub.config.list(), { q, ...(kinds ? { kinds } : {}), exact: exact === true }, functions);
    },
  });
}

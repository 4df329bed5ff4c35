// POST /pipes/<id>/preview: every stage of a draft pipe configuration for sample entities at once, with the draft's
// problems, computed by a dry run of the pump (hub-core/preview/pipe-stages.ts) that writes nothing.
import type { FastifyInstance } from 'fastify';
import { clientGone, type RouteContext } from '../route-context.js';
import { anyObject, bool, int, str, replies } from '../schemas.js';
import { PIPE_STAGES, PREVIEW_DEFAULT_LIMIT, PREVIEW_MAX_ENTITIES, previewPipe, type PreviewRequest } from '../../../hub-core/preview/index.js';

const entities = { type: 'array', items: anyObject } as const;
const configError = {
  type: 'object',
  required: ['elements', 'level', 'msg'],
  properties: { elements: str, level: { type: 'string', enum: ['error', 'warning'] }, msg: str },
} as const;

const runError = { type: 'object', required: ['kind', 'msg', 'elements'], properties: { kind: str, msg: str, elements: { type: ['string', 'null'] } } } as const;

const previewReply = {
  type: 'object',
  required: ['config-errors', 'is-valid-config', 'transform-compiles', 'sample', 'source-error', 'more-in-source', 'stages', 'results'],
  properties: {
    'config-errors': { type: 'array', items: configError, description: 'the draft\'s problems by JSON path, as PUT .../config would report them' },
    'is-valid-config': bool,
    'transform-compiles': { type: 'boolean', description: 'false: after-transforms and sink are empty (see config-errors)' },
    sample: { type: 'string', enum: ['request', 'source'], description: 'where the sample entities came from' },
    'source-error': { type: ['string', 'null'], description: 'why the source could not be read, in words' },
    'more-in-source': { type: 'boolean', description: 'the source holds more entities than were read' },
    stages: {
      type: 'object',
      required: [...PIPE_STAGES],
      properties: Object.fromEntries(PIPE_STAGES.map((s) => [s, entities])),
    },
    results: {
      type: 'array',
      description: 'per sample entity, in order: what it became, or the error the transform raised on it',
      items: {
        type: 'object',
        required: ['after-transforms', 'sink', 'error'],
        properties: {
          'after-transforms': entities,
          sink: entities,
          error: { anyOf: [{ type: 'null' }, runError] },
          trace: { ...anyObject, description: 'with "trace": true: how the entity went through the transform, step by step (see README, "Tracing")' },
          chain: {
            type: 'array',
            description: 'with a chain of transforms: what each of them produced, in order (a failing one ends it)',
            items: {
              anyOf: [
                { type: 'object', required: ['entities'], properties: { entities } },
                { type: 'object', required: ['error'], properties: { error: runError } },
              ],
            },
          },
        },
      },
    },
  },
} as const;

export async function pipePreviewRoutes(app: FastifyInstance, { hub, previews }: RouteContext): Promise<void> {
  app.post<{ Params: { pipe_id: string }; Body: PreviewRequest | null }>('/pipes/:pipe_id/preview', {
    schema: {
      tags: ['pipes'],
      summary: 'Preview a draft pipe configuration: every stage for sample entities, without running the pump or writing anything',
      params: { type: 'object', required: ['pipe_id'], properties: { pipe_id: str } },
      body: {
        type: ['object', 'null'],
        additionalProperties: false,
        properties: {
          config: { description: 'the draft pipe configuration (a JSON object); default: the stored one' },
          entities: { type: 'array', maxItems: PREVIEW_MAX_ENTITIES, items: {}, description: 'sample entities; default: read from the source' },
          limit: { ...int, minimum: 0, maximum: PREVIEW_MAX_ENTITIES, default: PREVIEW_DEFAULT_LIMIT, description: 'entities to read from the source when no sample is given' },
          trace: { ...bool, description: 'also answer how each sample entity went through the transform (results[k].trace; the first 50 entities)' },
          'source-of': { ...str, minLength: 1, description: 'the sample is the source entity that makes this output entity (_id): re-run it, e.g. to trace it' },
        },
      },
      response: replies({ 200: previewReply }),
    },
    handler: async (req, reply) => previewPipe(hub, req.params.pipe_id, req.body ?? {}, previews, clientGone(reply)),
  });
}

// A pipe's outbox: what its sink would have sent to an outside system, per pump run and batch (hub-core/pipes/outbox.ts).
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { anyObject, emptyReply, int, replies, str } from '../schemas.js';
import { MAX_KEEP_RUNS } from '../../../hub-core/pipes/index.js';

const pipeParams = { type: 'object', required: ['pipe_id'], properties: { pipe_id: str } } as const;
const runParams = { type: 'object', required: ['pipe_id', 'run_id'], properties: { pipe_id: str, run_id: str } } as const;
const batchParams = {
  type: 'object',
  required: ['pipe_id', 'run_id', 'batch'],
  properties: { pipe_id: str, run_id: str, batch: { ...int, minimum: 1 } },
} as const;
const page = (max: number, fallback: number) =>
  ({
    type: 'object',
    properties: { limit: { ...int, minimum: 1, maximum: max, default: fallback }, offset: { ...int, minimum: 0, default: 0 } },
  }) as const;
const counts = { type: 'object', additionalProperties: { type: 'integer' }, description: 'entities per operation' } as const;
const run = {
  type: 'object',
  additionalProperties: true,
  properties: {
    run_id: str,
    sink_type: str,
    started: { ...str, description: 'when its first batch was recorded' },
    last_batch: str,
    batches: int,
    entities: int,
    operations: counts,
  },
} as const;
const batch = {
  type: 'object',
  additionalProperties: true,
  properties: {
    run_id: str,
    batch: { ...int, description: 'its number in the run, from 1' },
    time: str,
    target: { ...anyObject, description: 'where it would have gone (system, table, index, topic, url)' },
    entities: int,
    operations: counts,
  },
} as const;
const record = {
  type: 'object',
  additionalProperties: true,
  properties: { key: { description: 'what the target identifies the entity by' }, operation: str, body: { description: 'what would have been sent' } },
} as const;

interface Paged {
  limit?: number;
  offset?: number;
}

export async function outboxRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  const tags = ['outbox'];
  const outbox = hub.pumps.state.outbox;
  const pipe = (id: string): string => hub.pipes.require(id)._id;

  app.get('/outbox/settings', {
    schema: { tags, summary: 'How many runs each pipe\'s outbox keeps', response: replies({ 200: { type: 'object', properties: { keep_runs: int } } }) },
    handler: async () => ({ keep_runs: outbox.keepRuns() }),
  });

  app.put<{ Body: { keep_runs: number } }>('/outbox/settings', {
    schema: {
      tags,
      summary: 'Set how many runs each pipe\'s outbox keeps (older runs go at once)',
      body: { type: 'object', required: ['keep_runs'], additionalProperties: false, properties: { keep_runs: { ...int, minimum: 1, maximum: MAX_KEEP_RUNS } } },
      response: replies({ 200: { type: 'object', properties: { keep_runs: int } } }),
    },
    handler: async (req) => ({ keep_runs: outbox.setKeepRuns(req.body.keep_runs) }),
  });

  app.get<{ Params: { pipe_id: string }; Querystring: Paged }>('/pipes/:pipe_id/outbox', {
    schema: {
      tags,
      summary: 'The runs in the pipe\'s outbox, newest first: what its sink would have sent to an outside system',
      params: pipeParams,
      querystring: page(1000, 50),
      response: replies({
        200: { type: 'object', properties: { pipe: str, keep_runs: int, total: int, offset: int, runs: { type: 'array', items: run } } },
      }),
    },
    handler: async (req) => {
      const id = pipe(req.params.pipe_id);
      const offset = req.query.offset ?? 0;
      return { pipe: id, keep_runs: outbox.keepRuns(), offset, ...outbox.runs(id, req.query.limit ?? 50, offset) };
    },
  });

  app.delete<{ Params: { pipe_id: string } }>('/pipes/:pipe_id/outbox', {
    schema: { tags, summary: 'Empty the pipe\'s outbox', params: pipeParams, response: replies({ 204: emptyReply }) },
    handler: async (req, reply) => {
      outbox.clear(pipe(req.params.pipe_id));
      return reply.code(204).send();
    },
  });

  app.get<{ Params: { pipe_id: string }; Querystring: { from: string; to: string } }>('/pipes/:pipe_id/outbox/diff', {
    schema: {
      tags,
      summary: 'What run `to` sent differently from run `from`, entity by entity (matched by key)',
      params: pipeParams,
      querystring: { type: 'object', required: ['from', 'to'], properties: { from: str, to: str } },
      response: replies({
        200: {
          type: 'object',
          properties: {
            from: str,
            to: str,
            added: { type: 'array', items: record },
            removed: { type: 'array', items: record },
            changed: { type: 'array', items: { type: 'object', properties: { key: {}, from: record, to: record } } },
            unchanged: int,
          },
        },
      }),
    },
    handler: async (req) => outbox.diff(pipe(req.params.pipe_id), req.query.from, req.query.to),
  });

  app.get<{ Params: { pipe_id: string; run_id: string }; Querystring: Paged }>('/pipes/:pipe_id/outbox/:run_id', {
    schema: {
      tags,
      summary: 'One outbox run and a page of its batches (without their entities)',
      params: runParams,
      querystring: page(1000, 100),
      response: replies({ 200: { type: 'object', properties: { run, total: int, offset: int, batches: { type: 'array', items: batch } } } }),
    },
    handler: async (req) => {
      const id = pipe(req.params.pipe_id);
      const offset = req.query.offset ?? 0;
      return { run: outbox.run(id, req.params.run_id), offset, ...outbox.batches(id, req.params.run_id, req.query.limit ?? 100, offset) };
    },
  });

  app.get<{ Params: { pipe_id: string; run_id: string; batch: number }; Querystring: Paged }>('/pipes/:pipe_id/outbox/:run_id/batches/:batch', {
    schema: {
      tags,
      summary: 'One batch of an outbox run with a page of its entities as they would have been sent',
      params: batchParams,
      querystring: page(10_000, 1000),
      response: replies({ 200: { ...batch, properties: { ...batch.properties, offset: int, records: { type: 'array', items: record } } } }),
    },
    handler: async (req) => {
      const id = pipe(req.params.pipe_id);
      const offset = req.query.offset ?? 0;
      return { offset, ...outbox.batch(id, req.params.run_id, req.params.batch, req.query.limit ?? 1000, offset) };
    },
  });
}

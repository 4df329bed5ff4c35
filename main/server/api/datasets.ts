import type { FastifyInstance } from 'fastify';
import { clientGone, type RouteContext } from '../route-context.js';
import { tagListAnswer } from '../list-etag.js';
import { PushBody, pushBodyValidator, readPushBody, usePushBodyParser } from '../push-body.js';
import type { PreparedEntity } from '../../../hub-core/base/index.js';
import { anyObject, bool, int, str, replies, emptyReply, entityArray, limitParam, sinceParam } from '../schemas.js';
import { eager, pacedPages, sendJsonText, setPullHeaders } from '../json-pull.js';
import { HubError, notFound, badRequest } from '../../../hub-core/base/index.js';
import { sampleSchema } from '../../../hub-core/explore/index.js';
import type { JsonObject } from '../../../hub-core/base/index.js';
import type { Dataset, DatasetInfo } from '../../../hub-core/storage/index.js';
import { DatasetRegistry, isSystemDataset } from '../../../hub-core/registry/index.js';
import { writePreparedInParts, type StagedDatasetWrite } from '../../../hub-core/pipes/index.js';

const datasetParams = {
  type: 'object',
  required: ['dataset_id'],
  properties: { dataset_id: { type: 'string', description: 'dataset id (may contain ":")' } },
} as const;

/**
 * The body of an entity write: an array of entities or one entity. It documents the shape; the entity parser checks
 * it as it is read (push-body.ts, entity-parse.ts): prepareEntity refuses a non-string `_id` such as `7` or `true`
 * with a 400 (and the whole batch with it), never turning it into a string.
 */
/**
 * From this many entities on, a batch is written in parts (writePreparedInParts) rather than in one transaction. A
 * smaller batch holds the hub for about as long as a couple of parts (~10 ms each), so parts would only add turns and
 * the staging's bookkeeping; a larger one (up to the 64 MB body limit: hundreds of thousands of entities) would hold
 * it for seconds.
 */
const LARGE_BATCH = 2000;

export const entitiesBody = {
  oneOf: [
    {
      type: 'array',
      items: { type: 'object', additionalProperties: true, required: ['_id'], properties: { _id: { description: 'entity id (a string)' } } },
    },
    { type: 'object', required: ['_id'], additionalProperties: true, properties: { _id: { description: 'entity id (a string)' } } },
  ],
} as const;

interface DatasetParams {
  dataset_id: string;
}

interface EntitiesQuery {
  limit?: number;
  since?: number;
  history?: boolean;
  reverse?: boolean;
  deleted?: boolean;
  populated?: boolean;
  uncommited?: boolean;
  subset?: string;
  filter?: string;
}

export async function datasetRoutes(app: FastifyInstance, { hub, entityParser }: RouteContext): Promise<void> {
  const tags = ['datasets'];
  // `published`: whether the hub's registry lists the dataset (a pipe with metadata.registry, or registry.publish_all).
  const registry = new DatasetRegistry(hub);

  app.get<{ Querystring: { verbose?: boolean } }>('/datasets', {
    schema: { tags, summary: 'List datasets', querystring: { type: 'object', properties: { verbose: bool } }, response: replies({ 200: { type: 'array', items: anyObject } }) },
    handler: async () => {
      const published = registry.publishedIds();
      return hub.datasets.list().map((d) => withCacheInfo({ ...withLastChange(d), published: published.has(d.name) }));
    },
    // Polled every 5 s by the workbench's Datasets list: 304 while unchanged.
    onSend: tagListAnswer,
  });

  app.get<{ Params: DatasetParams }>('/datasets/:dataset_id', {
    schema: { tags, summary: 'Dataset information', params: datasetParams, response: replies({ 200: anyObject }) },
    handler: async (req) => {
      const ds = hub.datasets.require(req.params.dataset_id);
      return withCacheInfo({ ...withLastChange(ds), published: registry.isPublished(ds.name) });
    },
  });

  app.delete<{ Params: DatasetParams }>('/datasets/:dataset_id', {
    schema: { tags, summary: 'Delete a dataset and all its entities', params: datasetParams, response: replies({ 200: emptyReply, 403: { $ref: 'Error#' } }) },
    handler: async (req, reply) => {
      refuseSystemWrite(req.params.dataset_id);
      hub.datasets.delete(req.params.dataset_id);
      // Its pages are free now: hand them back to the OS, a few at a time, after this reply.
      void hub.compaction.reclaim();
      return reply.code(200).send();
    },
  });

  app.post<{ Params: DatasetParams; Body: { operation: string } }>('/datasets/:dataset_id', {
    schema: {
      tags,
      summary: 'Circuit-breaker operations; compact (this hub: a whole-log compaction pass now)',
      params: datasetParams,
      body: {
        type: 'object',
        required: ['operation'],
        additionalProperties: false,
        properties: { operation: { type: 'string', enum: ['rollback-circuit-breaker', 'commit-circuit-breaker', 'compact'] } },
      },
      response: replies({ 200: anyObject }),
    },
    handler: async (req) => {
      const ds = hub.datasets.require(req.params.dataset_id);
      if (req.body.operation === 'compact') {
        // Whatever the settings say about the schedule, keep_versions, the time threshold and the floor still hold.
        const pass = await hub.compaction.compactNow(ds);
        const pages = await hub.compaction.reclaim();
        return { operation: 'compact', ...pass, 'pages-returned': pages };
      }
      if (!ds.info()['circuit-breaker'].tripped) {
        throw badRequest('the circuit breaker is not tripped', `dataset ${JSON.stringify(ds.name)} has nothing to commit or roll back`);
      }
      const n = req.body.operation === 'commit-circuit-breaker' ? ds.commitCircuitBreaker() : ds.rollbackCircuitBreaker();
      return { operation: req.body.operation, entities: n };
    },
  });

  app.get<{ Params: DatasetParams; Querystring: EntitiesQuery }>('/datasets/:dataset_id/entities', {
    schema: {
      tags,
      summary: 'Read entities (JSON Pull)',
      params: datasetParams,
      querystring: {
        type: 'object',
        properties: {
          limit: limitParam,
          since: sinceParam,
          history: bool,
          reverse: bool,
          deleted: bool,
          populated: bool,
          uncommited: bool,
          subset: str,
          filter: { type: 'string', description: 'a DTL predicate on each latest entity as _S, e.g. ["eq", "_S.city", "Oslo"]; implies history=false' },
        },
      },
      response: replies({ 200: entityArray }),
    },
    handler: async (req, reply) => {
      const q = req.query;
      const ds = hub.datasets.require(req.params.dataset_id);
      if (q.populated === true && ds.row().populated !== 1) {
        throw notFound(`populated dataset ${JSON.stringify(ds.name)}`, 'the dataset exists but is not yet fully populated');
      }
      if (q.filter !== undefined) {
        if (q.subset !== undefined) throw badRequest('filter and subset cannot be combined', 'put the subset condition into the filter');
        const filter = hub.filters.compile(q.filter);
        const pages = hub.filters.read(ds.name, filter, {
          ...(q.since !== undefined ? { since: q.since } : {}),
          ...(q.limit !== undefined ? { limit: q.limit } : {}),
          deleted: q.deleted ?? true,
          reverse: q.reverse ?? false,
        });
        const stream = pacedPages(pages);
        setPullHeaders(reply, ds, true);
        return sendJsonText(reply, stream);
      }
      const pages = ds.readJsonText({
        ...(q.since !== undefined ? { since: q.since } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
        history: q.history ?? true,
        deleted: q.deleted ?? true,
        reverse: q.reverse ?? false,
        ...(q.subset !== undefined ? { subset: q.subset } : {}),
        uncommitted: q.uncommited === true,
      });
      const stream = eager(pages);
      setPullHeaders(reply, ds);
      return sendJsonText(reply, stream);
    },
  });

  app.get<{ Params: DatasetParams; Querystring: { filter: string } }>('/datasets/:dataset_id/matches', {
    schema: {
      tags,
      summary: 'How many latest (live) entities a DTL predicate matches',
      params: datasetParams,
      querystring: { type: 'object', required: ['filter'], properties: { filter: str } },
      response: replies({ 200: { type: 'object', properties: { count: int, entities: int } } }),
    },
    handler: async (req) => {
      const filter = hub.filters.compile(req.query.filter);
      return hub.filters.count(req.params.dataset_id, filter);
    },
  });

  // Writes to one dataset through this route, one after another: a large one takes many turns of the event loop, and
  // the dataset refuses other writes (409) until it is answered.
  const turns = new Map<string, Promise<void>>();
  function inTurn<T>(datasetId: string, work: () => Promise<T>): Promise<T> {
    const mine = (turns.get(datasetId) ?? Promise.resolve()).then(work);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    turns.set(datasetId, settled);
    void settled.then(() => {
      if (turns.get(datasetId) === settled) turns.delete(datasetId);
    });
    return mine;
  }

  /** A streamed body of few (large) entities: written in one transaction, as a small batch read whole is. */
  async function writeSmallStaged(id: string, staged: StagedDatasetWrite, options: { force: boolean }): Promise<unknown> {
    try {
      const entities: PreparedEntity[] = [];
      for (const b of staged.read()) entities.push(...b);
      return hub.datasets.open(id).writePrepared(entities, options);
    } finally {
      await staged.discard();
    }
  }

  // Entity batches reach the route unread: a small one is read whole and parsed (in a worker when large enough); a
  // larger one is cut into entities and parsed in parser workers as it arrives and kept in a spool file, as a large
  // JSON Push is (push-body.ts), the hub's thread only handing the bytes over.
  await app.register(async (batches) => {
    usePushBodyParser(batches, { lines: false });
    batches.post<{ Params: DatasetParams; Querystring: { force?: boolean }; Body: PushBody }>('/datasets/:dataset_id/entities', {
      schema: {
        tags,
        summary: 'Write entities (unchanged ones are skipped unless force)',
        params: datasetParams,
        querystring: { type: 'object', properties: { force: bool } },
        body: entitiesBody,
        response: replies({ 200: anyObject, 403: { $ref: 'Error#' }, 413: { $ref: 'Error#' } }),
      },
      validatorCompiler: pushBodyValidator,
      // Before the body is read: a system dataset is never written through the API, whatever the body holds.
      onRequest: async (req) => refuseSystemWrite((req.params as DatasetParams).dataset_id),
      // The whole batch is valid before the dataset is created: a refused batch leaves no trace, not even an empty dataset.
      handler: async (req, reply) => {
        const id = req.params.dataset_id;
        const options = { force: req.query.force === true };
        const bodyLimit = app.initialConfig.bodyLimit ?? 1024 * 1024;
        const tooLarge = (): HubError => new HubError(413, 'request body too large', `the limit is ${bodyLimit} bytes; send smaller batches`);
        // A large batch is read and written over many turns of the event loop: a client that goes away meanwhile has
        // it taken back, also when it left after its last byte, while the hub was still reading what had arrived.
        const gone = clientGone(reply);
        const body = await readPushBody(req.body, entityParser, { bodyLimit, pushLimit: bodyLimit, tooLarge }, () => hub.stagedWrite(id));
        const staged = 'staged' in body ? body.staged : undefined;
        const entities = 'whole' in body ? body.whole.entities : undefined;
        return inTurn(id, async () => {
          if (entities !== undefined && entities.length < LARGE_BATCH) return hub.datasets.open(id).writePrepared(entities, options);
          if (staged !== undefined && staged.count < LARGE_BATCH) return writeSmallStaged(id, staged, options);
          if (staged !== undefined) return staged.commit(options, gone);
          return writePreparedInParts(hub.db, hub.datasets.open(id), entities!, options, gone);
        });
      },
    });
  });

  const entityQuery = { type: 'object', properties: { entity_id: str, subset: str, offset: int } } as const;
  app.get<{ Params: DatasetParams; Querystring: { entity_id?: string; subset?: string; offset?: number } }>('/datasets/:dataset_id/entity', {
    schema: { tags, summary: 'One entity by id', params: datasetParams, querystring: { ...entityQuery, required: ['entity_id'] }, response: replies({ 200: anyObject }) },
    handler: async (req) => findEntity(req.params.dataset_id, req.query.entity_id!, req.query.subset, req.query.offset),
  });

  app.get<{ Params: DatasetParams & { '*': string }; Querystring: { subset?: string } }>('/datasets/:dataset_id/entities/*', {
    schema: {
      tags,
      summary: 'One entity by id (deprecated: use /entity)',
      deprecated: true,
      params: { type: 'object', properties: { dataset_id: str, '*': str } },
      querystring: { type: 'object', properties: { subset: str } },
      response: replies({ 200: anyObject }),
    },
    handler: async (req) => findEntity(req.params.dataset_id, req.params['*'], req.query.subset, undefined),
  });

  function findEntity(datasetId: string, entityId: string, subset: string | undefined, offset: number | undefined): JsonObject {
    const ds = hub.datasets.require(datasetId);
    const found =
      offset !== undefined ? ds.getAt(entityId, offset) : subset !== undefined ? ds.getInSubset(entityId, subset) : ds.get(entityId);
    if (!found) {
      throw notFound(
        `entity ${JSON.stringify(entityId)}`,
        offset !== undefined ? `no version of it at offset ${offset}` : `not in dataset ${JSON.stringify(datasetId)}${subset ? ' subset' : ''}`,
      );
    }
    return found;
  }

  app.get<{ Params: DatasetParams }>('/datasets/:dataset_id/indexes', {
    schema: { tags, summary: 'Declared indexes', params: datasetParams, response: replies({ 200: { type: 'array', items: anyObject } }) },
    handler: async (req) => hub.datasets.require(req.params.dataset_id).listIndexes(),
  });

  app.delete<{ Params: DatasetParams & { index_int_id: number } }>('/datasets/:dataset_id/indexes/:index_int_id', {
    schema: {
      tags,
      summary: 'Drop an index',
      params: { type: 'object', required: ['dataset_id', 'index_int_id'], properties: { dataset_id: str, index_int_id: int } },
      response: replies({ 200: emptyReply }),
    },
    handler: async (req, reply) => {
      hub.datasets.require(req.params.dataset_id).dropIndex(req.params.index_int_id);
      return reply.code(200).send();
    },
  });

  app.get<{ Params: DatasetParams; Querystring: { sample_size?: number; keys_only?: boolean } }>('/datasets/:dataset_id/generate-schema-definition', {
    schema: {
      tags,
      summary: 'Describe the properties of a sample of entities',
      params: datasetParams,
      querystring: { type: 'object', properties: { sample_size: { ...int, minimum: 1, maximum: 100000 }, keys_only: bool } },
      response: replies({ 200: anyObject }),
    },
    handler: async (req) => {
      const ds = hub.datasets.require(req.params.dataset_id);
      const sample = ds.read({ history: false, deleted: false, limit: req.query.sample_size ?? 1000 });
      return sampleSchema(sample, req.query.keys_only === true);
    },
  });
}

/** The dataset's information plus `last-change`: the time of its newest log entry (null while empty). */
function withLastChange(ds: Dataset): DatasetInfo & { 'last-change': string | null } {
  const [newest] = ds.read({ reverse: true, limit: 1 });
  const ts = newest?._ts;
  return { ...ds.info(), 'last-change': typeof ts === 'number' ? new Date(Math.floor(ts / 1000)).toISOString() : null };
}

export function withCacheInfo<T extends object>(info: T): T & { cached_response_info: { age: number; timestamp: string } } {
  return { ...info, cached_response_info: { age: 0, timestamp: new Date().toISOString() } };
}

/**
 * The hub keeps its `system:*` datasets itself (a pump's execution log, ...): through the API they are read-only, so a
 * client can neither forge a pump's history nor remove it.
 */
function refuseSystemWrite(dataset: string): void {
  if (isSystemDataset(dataset)) {
    throw new HubError(403, `dataset ${JSON.stringify(dataset)} is read-only`, 'system:* datasets are written by the hub itself (pump execution logs); read them, or write another dataset');
  }
}

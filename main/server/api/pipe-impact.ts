// The impact of a draft pipe configuration (hub-core/preview/pipe-impact.ts), as a job per pipe:
//   POST   /pipes/<id>/impact   body: the draft, as PUT /pipes/<id>/config takes it → 202 and the job (409 while one runs)
//   GET    /pipes/<id>/impact   the job: its progress while it runs, then its result (404 before any)
//   DELETE /pipes/<id>/impact   cancel the running job → the job, now "cancelled"
// One job per pipe at a time; the last one is kept until the next starts. Nothing is written to the hub.
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { anyObject, bool, int, str, replies } from '../schemas.js';
import { HubError, conflict, notFound } from '../../../hub-core/base/index.js';
import {
  IMPACT_DEFAULT_SAMPLE,
  IMPACT_MAX_SAMPLE,
  ImpactCancelled,
  computeImpact,
  impactDraft,
  type ImpactJob,
} from '../../../hub-core/preview/index.js';
import { testsToJudge, type ImpactTests } from '../../../hub-core/project/index.js';
import type { ConfigEntity } from '../../../hub-core/config/index.js';
import type { JsonObject } from '../../../hub-core/base/index.js';
import { maskJson } from '../../../hub-core/security/index.js';

export type { ImpactJob };


const nullableStr = { type: ['string', 'null'] } as const;
const entityOrNull = { anyOf: [{ type: 'null' }, anyObject] } as const;
const count = { type: 'integer', minimum: 0 } as const;

const progressSchema = {
  type: 'object',
  required: ['phase', 'processed', 'total'],
  properties: {
    phase: { type: 'string', enum: ['reading', 'deletion-tracking', 'tests', 'done'] },
    processed: { ...count, description: 'source entities processed so far' },
    total: { type: ['integer', 'null'], description: 'entities the source holds, when it can tell (a dataset source)' },
  },
} as const;

const resultSchema = {
  type: 'object',
  required: ['pipe', 'dataset', 'deletes-unseen', 'processed', 'to-sink', 'versions-written', 'added', 'changed', 'deleted', 'unchanged', 'deleted-not-live', 'untouched', 'properties', 'samples', 'downstream', 'circuit-breaker'],
  properties: {
    pipe: str,
    dataset: { ...str, description: 'the dataset the draft\'s sink writes' },
    'deletes-unseen': { ...bool, description: 'the source is read whole, so the run ends by deleting the live entities it did not write' },
    processed: { ...count, description: 'source entities processed: the run\'s processed_entities' },
    'to-sink': { ...count, description: 'entities the run gives the sink' },
    'versions-written': { ...count, description: 'versions the sink would store: the run\'s changed_entities' },
    added: count,
    changed: count,
    deleted: { ...count, description: 'live entities that end deleted (filtered out, deleted in the source, or not seen by a full run)' },
    unchanged: { ...count, description: 'entities given to the sink as they are now (same hash)' },
    'deleted-not-live': { ...count, description: 'deleted versions stored for ids that were not live' },
    untouched: { ...count, description: 'live entities of the sink the run never touches' },
    properties: {
      type: 'array',
      items: { type: 'object', required: ['property', 'added', 'removed', 'changed'], properties: { property: str, added: count, removed: count, changed: count } },
    },
    samples: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'kind', 'before', 'after', 'properties'],
        properties: { id: str, kind: { type: 'string', enum: ['added', 'changed', 'deleted'] }, before: entityOrNull, after: entityOrNull, properties: { type: 'array', items: str } },
      },
    },
    downstream: {
      type: 'array',
      items: {
        type: 'object',
        required: ['pipe', 'dataset', 'via', 'depth'],
        properties: { pipe: str, dataset: str, via: { type: 'string', enum: ['source', 'hops'] }, depth: { type: 'integer', minimum: 1 } },
      },
    },
    'circuit-breaker': {
      description: 'the sink\'s circuit breaker as the draft sets it (null: none); the counts are what the run would do without it',
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['limit', 'would-trip', 'trips-after', 'tripped-now'],
          properties: {
            limit: { type: 'integer', description: 'changes a run may make' },
            'would-trip': { ...bool, description: 'the run would fail at the batch that takes its changes over the limit' },
            'trips-after': { type: ['integer', 'null'], description: 'source entities processed before that batch' },
            'tripped-now': { ...bool, description: 'the breaker is tripped already: the run would fail at its first write' },
          },
        },
      ],
    },
  },
} as const;

const status = { type: 'string', enum: ['passed', 'failed', 'ignored'] } as const;
const testsSchema = {
  type: 'object',
  required: ['judged', 'reason', 'tests'],
  properties: {
    judged: bool,
    reason: nullableStr,
    tests: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'pipe', 'before', 'after', 'change', 'error', 'diffs'],
        properties: {
          name: str,
          pipe: str,
          before: status,
          after: status,
          change: { type: 'string', enum: ['starts-failing', 'stops-failing', 'still-failing', 'still-passing', 'ignored'] },
          error: nullableStr,
          diffs: count,
        },
      },
    },
  },
} as const;

const jobSchema = {
  type: 'object',
  required: ['id', 'pipe', 'status', 'started', 'finished', 'progress', 'result', 'tests', 'error'],
  properties: {
    id: str,
    pipe: str,
    status: { type: 'string', enum: ['running', 'done', 'failed', 'cancelled'] },
    started: str,
    finished: nullableStr,
    progress: progressSchema,
    result: { anyOf: [{ type: 'null' }, resultSchema] },
    tests: { anyOf: [{ type: 'null' }, testsSchema], description: 'which workspace tests the draft would turn (null until judged, or when not asked for)' },
    error: { anyOf: [{ type: 'null' }, { type: 'object', required: ['error', 'detail'], properties: { error: str, detail: nullableStr } }] },
  },
} as const;

const params = { type: 'object', required: ['pipe_id'], properties: { pipe_id: str } } as const;

/** Judge the tests in a worker thread; `stop` terminates it (the answer is then never given). */
function judgeInWorker(dir: string, names: string[], draft: ConfigEntity): { done: Promise<ImpactTests>; stop: () => void } {
  const worker = new Worker(new URL('../impact-tests-worker.js', import.meta.url), { workerData: { dir, names, draft } });
  const done = new Promise<ImpactTests>((resolve, reject) => {
    worker.once('message', (m: ImpactTests) => resolve(m));
    worker.once('error', reject);
    worker.once('exit', (code) => resolve({ judged: false, reason: code === 1 ? 'cancelled' : `the test run stopped (exit code ${code})`, tests: [] }));
  });
  return { done, stop: () => void worker.terminate() };
}

export async function pipeImpactRoutes(app: FastifyInstance, ctx: RouteContext): Promise<void> {
  const { hub } = ctx;
  const tags = ['pipes'];
  const jobs = new Map<string, { job: ImpactJob; cancel: boolean; stop?: () => void }>();

  const view = (id: string): ImpactJob => {
    const j = jobs.get(id);
    if (!j) throw notFound(`an impact computation of pipe ${JSON.stringify(id)}`, 'start one with POST /pipes/<id>/impact');
    return j.job;
  };
  // A failure may quote a remote's answer that repeats the URL and headers it was sent (built from secrets), and the
  // sample diffs hold what the source read: a job is always shown masked.
  const shown = (job: ImpactJob): ImpactJob => maskJson(job as unknown as JsonObject, (text) => hub.secrets.mask(text)) as unknown as ImpactJob;

  app.post<{ Params: { pipe_id: string }; Querystring: { sample?: number; tests?: boolean }; Body: unknown }>('/pipes/:pipe_id/impact', {
    schema: {
      tags,
      summary: 'Start working out what saving a draft configuration and re-running the pipe from the start would do to its sink dataset',
      description:
        'The body is the draft, as PUT /pipes/<id>/config takes it. Nothing is written. Answers 202 and the job; follow it with GET and cancel it with DELETE. One job per pipe at a time (409).',
      params,
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          sample: { ...int, minimum: 0, maximum: IMPACT_MAX_SAMPLE, default: IMPACT_DEFAULT_SAMPLE, description: 'before/after diffs to keep per kind (added, changed, deleted)' },
          tests: { ...bool, default: true, description: 'also judge which workspace tests (expected/*.test.json) the draft would turn' },
        },
      },
      body: anyObject,
      response: replies({ 202: jobSchema, 409: { $ref: 'Error#' } }),
    },
    handler: async (req, reply) => {
      const id = req.params.pipe_id;
      const running = jobs.get(id);
      if (running && running.job.status === 'running') {
        throw conflict(`an impact computation of pipe ${JSON.stringify(id)} is already running`, 'wait for it, or cancel it with DELETE /pipes/<id>/impact');
      }
      const draft = impactDraft(hub, id, req.body);
      const job: ImpactJob = {
        id: randomUUID(),
        pipe: id,
        status: 'running',
        started: new Date().toISOString(),
        finished: null,
        progress: { phase: 'reading', processed: 0, total: null },
        result: null,
        tests: null,
        error: null,
      };
      // A cancel also ends the evaluation running in a preview worker.
      const abort = new AbortController();
      const entry: { job: ImpactJob; cancel: boolean; stop?: () => void } = { job, cancel: false, stop: () => abort.abort() };
      jobs.set(id, entry);
      const cancelled = (): boolean => entry.cancel;
      const end = (s: ImpactJob['status']): void => {
        if (job.status !== 'running') return;
        job.status = s;
        job.finished = new Date().toISOString();
      };
      void (async () => {
        try {
          const result = await computeImpact(hub, id, draft, {
            sample: req.query.sample ?? IMPACT_DEFAULT_SAMPLE,
            cancelled,
            onProgress: (p) => (job.progress = p),
            ...(ctx.previews ? { evaluator: ctx.previews } : {}),
            signal: abort.signal,
          });
          if (cancelled()) return;
          job.result = result;
          if (req.query.tests !== false) {
            job.progress = { ...job.progress, phase: 'tests' };
            // The folder open now: the workbench may have opened another since the hub started.
            const workspaceDir = ctx.workspaceDir;
            const which = testsToJudge(hub, workspaceDir, id, draft);
            if ('reason' in which) job.tests = { judged: false, reason: which.reason, tests: [] };
            else {
              const judging = judgeInWorker(workspaceDir!, which.names, draft);
              entry.stop = judging.stop;
              const tests = await judging.done;
              if (cancelled()) return;
              job.tests = tests;
            }
            job.progress = { ...job.progress, phase: 'done' };
          }
          end('done');
        } catch (e) {
          if (e instanceof ImpactCancelled || cancelled()) return;
          job.error = e instanceof HubError ? { error: e.message, detail: e.detail ?? null } : { error: 'the impact computation failed', detail: e instanceof Error ? e.message : String(e) };
          end('failed');
        }
      })();
      return reply.code(202).send(shown(job));
    },
  });

  app.get<{ Params: { pipe_id: string } }>('/pipes/:pipe_id/impact', {
    schema: {
      tags,
      summary: 'The latest impact computation of the pipe: its progress while it runs, then its result',
      params,
      response: replies({ 200: jobSchema }),
    },
    handler: async (req) => shown(view(req.params.pipe_id)),
  });

  app.delete<{ Params: { pipe_id: string } }>('/pipes/:pipe_id/impact', {
    schema: {
      tags,
      summary: 'Cancel the running impact computation of the pipe',
      params,
      response: replies({ 200: jobSchema, 409: { $ref: 'Error#' } }),
    },
    handler: async (req) => {
      const id = req.params.pipe_id;
      const entry = jobs.get(id);
      if (!entry) view(id);
      if (entry!.job.status !== 'running') throw conflict(`the impact computation of pipe ${JSON.stringify(id)} is not running`, `it is ${entry!.job.status}`);
      entry!.cancel = true;
      entry!.stop?.();
      entry!.job.status = 'cancelled';
      entry!.job.finished = new Date().toISOString();
      return shown(entry!.job);
    },
  });
}

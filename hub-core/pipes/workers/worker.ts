// A pipe worker thread: reads a pipe's source through a read-only connection of its own (WAL lets it read while the
// hub's thread writes), runs the pipe's transform and sink step (PipeRuntime, the same code as on the hub's thread)
// and hands each batch back prepared for the dataset sink. It never writes: the dataset writes, the pump state and
// the execution log stay with the hub's thread. A join's index is created by the hub (`ensure-index`). A job may run
// only the transform of a pipe whose source or sink stays on the hub's thread: the hub sends each batch it read
// (`transform`) and writes what comes back. A job is handed the values of the secrets its transform takes as the key
// of encrypt/decrypt, and nothing else of the secrets: what it sends back about a failure has them masked.

import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { DatasetLookup } from '../dataset-lookup.js';
import { KeptSnapshots } from '../lookup-snapshots.js';
import { PipeRuntime } from '../pipe-runtime.js';
import { parseConfigText } from '../../base/index.js';
import type { ConfigEntity } from '../../config/index.js';
import { prepareEntity, type PreparedEntity } from '../../base/index.js';
import { heapExhausted, memoryLimitError } from '../../dtl/index.js';
import type { JsonObject } from '../../base/index.js';
import type { PumpSource, SourceBatch } from '../sources/index.js';
import { transformBatch } from './transform-batch.js';
import { LineagePacker, mergeContributors } from '../lineage-record.js';
import { entitiesFromText, entitiesToText } from './entity-text.js';
import { packEntities } from './packed-batch.js';
import { lowerThreadPriority } from './thread-priority.js';
import type { FromWorker, OpenJob, ToWorker, TransformBatch, WorkerInit } from './protocol.js';
import { WorkerDatasets, indexRequester } from './worker-datasets.js';
import { errorOf, maskWorkerError } from './worker-errors.js';
import { secretMask, type Mask } from '../../security/index.js';
import { ThreadProfiler } from '../thread-profiler.js';

const init = workerData as WorkerInit;
lowerThreadPriority(init.nice);
const port = parentPort!;
const signal = new Int32Array(init.signal);

const ensureIndexOnHub = indexRequester(signal, (dataset, expression) => post({ type: 'ensure-index', dataset, expression }));

type PartBatch = SourceBatch & { rangeEnd?: boolean };

interface Job {
  /** A connection per run: an idle worker holds the database file open nowhere (the hub may delete its folder). */
  readonly db: Database.Database;
  readonly runtime: PipeRuntime;
  /** Undefined for a job that runs only the transform (the hub's thread reads the source). */
  readonly batches: AsyncGenerator<PartBatch, void, undefined> | undefined;
  /** Set for a job that runs only the transform: whether the sink's entities go back prepared (a dataset sink). */
  readonly prepared?: boolean;
  readonly started: { dataset: string; offset: number }[];
  /** Requests of one job are answered in order. */
  chain: Promise<void>;
  /** Closed by the hub, failed, or at the end of its source: later requests are not answered. */
  closed: boolean;
  /** Record which source entity made each output entity. */
  readonly lineage: boolean;
  readonly lookup: DatasetLookup;
  /** A dataset the hub's thread writes between this job's batches (its own sink): seen as committed before each. */
  readonly refresh?: string;
  /** Masks the secret values the job was handed, in what it sends back about a failure. */
  readonly mask: Mask;
  /** Samples this thread while the job runs (a profiled run); its profile is sent when the job is over. */
  profiler?: ThreadProfiler;
}

const jobs = new Map<number, Job>();
/** Joined datasets read whole by earlier runs, taken again while unchanged (lookup-snapshots.ts). */
const keptSnapshots = new KeptSnapshots();

function post(message: FromWorker): void {
  if (message.type === 'batch') port.postMessage(message, [message.packed.lengths.buffer, message.packed.deleted.buffer, message.deps.numbers.buffer]);
  else port.postMessage(message);
}

/** Send a profiled job's profile (after its end, failure or close); nothing for a job not profiled. */
async function sendProfile(id: number, job: Job): Promise<void> {
  const profiler = job.profiler;
  if (profiler === undefined) return;
  job.profiler = undefined;
  post({ type: 'profile', job: id, profile: await profiler.stop() });
}

function open(msg: OpenJob, mask: Mask): Job {
  const db = new Database(init.dbFile, { readonly: true, fileMustExist: true });
  try {
    return openOn(db, msg, mask);
  } catch (e) {
    db.close();
    throw e;
  }
}

function openOn(db: Database.Database, msg: OpenJob, mask: Mask): Job {
  db.pragma('busy_timeout = 5000');
  const datasets = new WorkerDatasets(db, ensureIndexOnHub);
  const lookup = new DatasetLookup(datasets, undefined, keptSnapshots);
  // A share of a run read in parts reads about as many entities as its ranges are wide, each making its lookups.
  if (msg.parts !== undefined) lookup.expectLookups(msg.parts.ranges.reduce((n, [after, until]) => n + until - after, 0), msg.batchSize);
  const started: { dataset: string; offset: number }[] = [];
  const config = parseConfigText(msg.configText) as ConfigEntity;
  const runtime = new PipeRuntime(
    config,
    {
      datasets,
      lookup,
      vars: { env: (name) => msg.env[name], secret: (name, scope) => (scope === '' && msg.secrets !== undefined && Object.hasOwn(msg.secrets, name) ? msg.secrets[name] : undefined), mask },
      system: () => undefined,
      namespaces: () => msg.namespaces,
      // The offset is read here, at the first lookup, as the hub's thread reads it when the pipe runs there.
      startTracking: (_pipe, dataset) => started.push({ dataset, offset: datasets.get(dataset)?.row().max_updated ?? -1 }),
    },
    { tracked: msg.tracked },
  );
  const common = { db, runtime, started, chain: Promise.resolve(), closed: false, lineage: msg.lineage, lookup, mask };
  const only = msg.transformOnly;
  if (only !== undefined) return { ...common, batches: undefined, prepared: only.prepared, ...(only.refresh !== undefined ? { refresh: only.refresh } : {}) };
  const source = runtime.openSource();
  const batches = msg.parts === undefined ? source.batches(msg.since, msg.batchSize) : partBatches(source, msg.parts, msg.batchSize);
  return { ...common, batches };
}

/**
 * The batches of each range of a share of a run read in parts, in order; the last one of a range (empty when the
 * range holds no entity) is marked and its position is the range's end.
 */
async function* partBatches(source: PumpSource, parts: NonNullable<OpenJob['parts']>, batchSize: number): AsyncGenerator<PartBatch, void, undefined> {
  for (const [after, until] of parts.ranges) {
    let held: SourceBatch | undefined;
    for await (const b of source.batches(String(after), batchSize, { until, snapshot: parts.snapshot })) {
      if (held !== undefined) yield held;
      held = b;
    }
    yield { entities: held?.entities ?? [], position: String(until), rangeEnd: true };
  }
}

async function next(id: number, job: Job): Promise<void> {
  if (job.batches === undefined) return;
  let t = performance.now();
  const read = await job.batches.next();
  const sourceMs = performance.now() - t;
  if (job.closed) return;
  if (read.done) {
    job.closed = true;
    post({ type: 'end', job: id, sourceMs });
    return;
  }
  t = performance.now();
  const out: JsonObject[] = [];
  const lineage = job.lineage ? new LineagePacker() : undefined;
  const deps = transformBatch(job.runtime, read.value.entities, out, lineage);
  const heap = heapExhausted();
  if (heap) throw memoryLimitError(heap);
  const tracking = job.started.splice(0);
  const packed = packEntities(prepareAll(out));
  post({ type: 'batch', job: id, count: read.value.entities.length, position: read.value.position, ...(read.value.rangeEnd === true ? { rangeEnd: true } : {}), packed, deps, ...(lineage ? { lineage: lineage.finish() } : {}), tracking, sourceMs, transformMs: performance.now() - t });
}

function prepareAll(out: readonly JsonObject[]): PreparedEntity[] {
  const prepared: PreparedEntity[] = new Array<PreparedEntity>(out.length);
  for (let i = 0; i < out.length; i++) prepared[i] = prepareEntity(out[i], i);
  return prepared;
}

/** One batch of a job that runs only the transform: the hub's thread read it and writes what comes back. */
function transformSent(id: number, job: Job, msg: TransformBatch): void {
  if (job.closed) return;
  const t = performance.now();
  // The hub's thread sends a batch of such a job once the one before is committed.
  if (job.refresh !== undefined) job.lookup.refresh(job.refresh);
  const entities = entitiesFromText(msg.entities);
  msg.contributors?.forEach((c, i) => {
    if (c !== null) mergeContributors.set(entities[i]!, c);
  });
  const out: JsonObject[] = [];
  const lineage = job.lineage ? new LineagePacker() : undefined;
  const deps = transformBatch(job.runtime, entities, out, lineage);
  const heap = heapExhausted();
  if (heap) throw memoryLimitError(heap);
  const tracking = job.started.splice(0);
  const packed = packEntities(job.prepared === true ? prepareAll(out) : []);
  const text = job.prepared === true ? {} : { out: entitiesToText(out) };
  post({ type: 'batch', job: id, count: entities.length, position: undefined, packed, ...text, deps, ...(lineage ? { lineage: lineage.finish() } : {}), tracking, sourceMs: 0, transformMs: performance.now() - t });
}

port.on('message', (msg: ToWorker) => {
  if (msg.type === 'open') {
    const mask = secretMask(Object.values(msg.secrets ?? {}));
    try {
      const job = open(msg, mask);
      jobs.set(msg.job, job);
      if (msg.profile === true) {
        job.profiler = new ThreadProfiler();
        // The job's first batch waits until the profiler samples.
        job.chain = job.profiler.ready().catch(() => undefined);
      }
    } catch (e) {
      post({ type: 'failed', job: msg.job, error: maskWorkerError(errorOf(e), mask) });
    }
    return;
  }
  const job = jobs.get(msg.job);
  if (!job) return;
  if (msg.type === 'close') {
    job.closed = true;
    jobs.delete(msg.job);
    job.chain = job.chain
      .then(() => job.batches?.return(undefined))
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        job.db.close();
      })
      .then(() => sendProfile(msg.job, job));
    return;
  }
  const step = msg.type === 'transform' ? (): void => transformSent(msg.job, job, msg) : (): Promise<void> => next(msg.job, job);
  job.chain = job.chain.then(() => (job.closed ? undefined : step())).catch((e: unknown) => {
    jobs.delete(msg.job);
    job.closed = true;
    job.db.close();
    post({ type: 'failed', job: msg.job, error: maskWorkerError(errorOf(e), job.mask) });
    return sendProfile(msg.job, job);
  });
});

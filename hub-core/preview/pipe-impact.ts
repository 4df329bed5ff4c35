// What saving a draft pipe configuration and re-running the pipe from the start (last-seen cleared, the `reset` a user
// does after changing a pipe) would do to its sink dataset, computed without writing anything. The draft's runtime
// reads the pipe's whole source and `process()`es it exactly as a pump run does; each entity it gives the sink is
// prepared and hashed by the dataset's own `prepareEntity` and compared with the latest version the sink holds, in
// run order (a later entity with the same id compares with the earlier one, as the sink's writes do). A source read
// whole (not incremental) ends with deletion tracking, as the pump's full runs do: live entities the run did not
// give the sink are deleted.

import type { Hub } from '../hub.js';
import type { ConfigEntity } from '../config/index.js';
import type { Dataset } from '../storage/index.js';
import type { PipeRuntime } from '../pipes/index.js';
import type { EffectivePipe } from '../config/index.js';
import { effectivePipeConfig, pipeDependencies } from '../pipes/index.js';
import { transformDatasets } from '../pipes/index.js';
import { prepareEntity, MAINTAINED_PROPERTIES, type PreparedEntity } from '../base/index.js';
import { localEvaluator, type PreviewEvaluator } from './preview-pool.js';
import type { ProcessedBatch } from './preview-jobs.js';
import { isPumpable } from '../pipes/index.js';
import { badRequest } from '../base/index.js';
import { isJsonObject, type JsonObject } from '../base/index.js';
import { parseJson } from '../base/index.js';

export const IMPACT_DEFAULT_SAMPLE = 20;
export const IMPACT_MAX_SAMPLE = 200;
const DEFAULT_BATCH = 1000;
/** Source entities processed per preview job (whole batches). */
const EVALUATION_GROUP = 1000;

export type ImpactKind = 'added' | 'changed' | 'deleted';

export interface ImpactProgress {
  phase: 'reading' | 'deletion-tracking' | 'tests' | 'done';
  /** Source entities processed so far. */
  processed: number;
  /** How many the source holds, when it can tell (a dataset source); else null. */
  total: number | null;
}

export interface ImpactSample {
  id: string;
  kind: ImpactKind;
  /** The sink's latest version now (content only; null when it has none or it is deleted). */
  before: JsonObject | null;
  /** What the run would leave (content only; null when deleted). */
  after: JsonObject | null;
  /** Top-level properties that differ. */
  properties: string[];
}

export interface PropertyChange {
  property: string;
  /** Changed entities that gain the property. */
  added: number;
  /** Changed entities that lose it. */
  removed: number;
  /** Changed entities whose value of it differs. */
  changed: number;
}

export interface DownstreamPipe {
  pipe: string;
  /** The dataset it reads that the run (or an upstream reprocessing) changes. */
  dataset: string;
  /** Its source reads the dataset, or its transform looks entities up in it (dependency tracking). */
  via: 'source' | 'hops';
  /** 1: reads the sink dataset itself; 2: reads what such a pipe writes; ... */
  depth: number;
}

export interface ImpactResult {
  pipe: string;
  /** The dataset the draft's sink writes. */
  dataset: string;
  /** Whether the run would read its source whole and then delete what it did not write (deletion tracking). */
  'deletes-unseen': boolean;
  /** Source entities processed: the run's `processed_entities`. */
  processed: number;
  /** Entities given to the sink (after the transform; a filtered one counts, deleted). */
  'to-sink': number;
  /** Versions the sink would store: the run's `changed_entities`. */
  'versions-written': number;
  added: number;
  changed: number;
  deleted: number;
  /** Entities the run gives the sink as they are now (same hash: nothing stored). */
  unchanged: number;
  /** Deleted entities stored for ids that were not live (a filtered entity new to the sink, say): nothing visible. */
  'deleted-not-live': number;
  /** Live entities of the sink the run never touches (a reset run with a dataset source keeps them). */
  untouched: number;
  /** Per top-level property, over the changed entities, most changed first. */
  properties: PropertyChange[];
  samples: ImpactSample[];
  /** Pipes that would reprocess because the sink dataset changes (none when nothing would be written). */
  downstream: DownstreamPipe[];
  /**
   * The sink's circuit breaker as the draft sets it (null: none): the run counts its changes batch by batch (the
   * pump's `batch_size`) and fails, writing nothing more, at the batch that takes them over `limit`. The counts above
   * are what the run would do without it.
   */
  'circuit-breaker': { limit: number; 'would-trip': boolean; 'trips-after': number | null; 'tripped-now': boolean } | null;
}

// Judged by impact-tests.ts.
export type TestStatus = 'passed' | 'failed' | 'ignored';

export interface ImpactTest {
  name: string;
  pipe: string;
  /** With the workspace's files as they are. */
  before: TestStatus;
  /** With the draft saved. */
  after: TestStatus;
  change: 'starts-failing' | 'stops-failing' | 'still-failing' | 'still-passing' | 'ignored';
  /** Why the test fails with the draft, when it cannot compare (the pipe fails, say); else null. */
  error: string | null;
  /** Entities that differ from the expected file with the draft. */
  diffs: number;
}

export interface ImpactTests {
  /** False when no test was judged; `reason` says why. */
  judged: boolean;
  reason: string | null;
  tests: ImpactTest[];
}

/** A computation of the impact as the API reports it (main/server/api/pipe-impact.ts). */
export interface ImpactJob {
  id: string;
  pipe: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  started: string;
  finished: string | null;
  progress: ImpactProgress;
  result: ImpactResult | null;
  tests: ImpactTests | null;
  error: { error: string; detail: string | null } | null;
}

export interface ImpactOptions {
  /** Sample diffs to keep per kind (added, changed, deleted). */
  sample?: number;
  onProgress?: (p: ImpactProgress) => void;
  /** Asked between batches; true stops the computation with an ImpactCancelled. */
  cancelled?: () => boolean;
  /** Where the pipe's processing runs (default: on this thread). */
  evaluator?: PreviewEvaluator;
  /** Stops the processing running now (a cancel). */
  signal?: AbortSignal;
}

export class ImpactCancelled extends Error {
  constructor() {
    super('the impact computation was cancelled');
  }
}

/** The draft as the configuration entity `PUT /pipes/<id>/config` would store; refused as that PUT would refuse it. */
export function impactDraft(hub: Hub, pipeId: string, body: unknown): ConfigEntity {
  hub.pipes.require(pipeId);
  if (!isJsonObject(body)) throw badRequest('the body must be a pipe configuration object', 'send the draft as PUT /pipes/<id>/config takes it');
  const draft = { ...body };
  if (draft['_id'] === undefined) draft['_id'] = pipeId;
  if (draft['_id'] !== pipeId) throw badRequest('the "_id" in the body does not match the URL', `URL: ${JSON.stringify(pipeId)}, body: ${JSON.stringify(draft['_id'])}`);
  const [entity] = hub.pipes.validate([draft], false);
  const pipe = effectivePipeConfig(entity!);
  if (pipe.sink.type !== 'dataset') {
    throw badRequest(`the draft's sink is a ${pipe.sink.type} sink`, 'impact is worked out for a dataset sink: what a run would store in it');
  }
  if (!isPumpable(pipe)) throw badRequest(`this hub does not pump a pipe with a ${pipe.source.type} source`, 'a run of it would fail');
  const runtime = hub.pumps.runtimes.draft(entity!);
  const problem = runtime.transformProblem();
  if (problem) throw problem;
  // A missing $ENV or $SECRET value is a 400 naming it, as a run would fail on it.
  runtime.resolved();
  return entity!;
}

/** The content of a stored entity (what its hash covers besides `_id` and `_deleted`). */
function content(e: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(e)) if (k !== '_id' && k !== '_deleted' && !MAINTAINED_PROPERTIES.has(k)) out[k] = v;
  return out;
}

function differing(before: JsonObject | null, after: JsonObject | null): { property: string; how: 'added' | 'removed' | 'changed' }[] {
  const a = before ?? {};
  const b = after ?? {};
  const out: { property: string; how: 'added' | 'removed' | 'changed' }[] = [];
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (!Object.hasOwn(a, k)) out.push({ property: k, how: 'added' });
    else if (!Object.hasOwn(b, k)) out.push({ property: k, how: 'removed' });
    else if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) out.push({ property: k, how: 'changed' });
  }
  return out;
}

interface State {
  hash: string;
  deleted: boolean;
}

/** One id the run would write: its state before the run and after its latest write. */
interface Written {
  initial: State | null;
  hash: string;
  deleted: boolean;
  /** For a live → live change: how each differing property differs. */
  props: { property: string; how: 'added' | 'removed' | 'changed' }[] | null;
}

function classify(w: Written): ImpactKind | 'unchanged' | 'deleted-not-live' {
  const wasLive = w.initial !== null && !w.initial.deleted;
  if (w.initial !== null && w.initial.hash === w.hash) return 'unchanged';
  if (!w.deleted) return wasLive ? 'changed' : 'added';
  return wasLive ? 'deleted' : 'deleted-not-live';
}

/** The pipes that read `dataset` (source or hops), then those that read what they write, and so on. */
export function downstreamPipes(hub: Hub, pipeId: string, dataset: string): DownstreamPipe[] {
  const pipes = new Map<string, EffectivePipe>();
  for (const id of hub.pipes.ids()) {
    if (id === pipeId) continue;
    const config = hub.pipes.get(id);
    if (config) pipes.set(id, effectivePipeConfig(config));
  }
  const out: DownstreamPipe[] = [];
  const reached = new Set<string>();
  let frontier = [dataset];
  const seenDatasets = new Set(frontier);
  for (let depth = 1; frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const [id, p] of [...pipes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (reached.has(id)) continue;
      const sources = pipeDependencies(p);
      const hops = transformDatasets(p['transform']);
      const hit = frontier.find((d) => sources.includes(d)) ?? frontier.find((d) => hops.includes(d));
      if (hit === undefined) continue;
      reached.add(id);
      out.push({ pipe: id, dataset: hit, via: sources.includes(hit) ? 'source' : 'hops', depth });
      const sink = p.sink.type === 'dataset' && typeof p.sink['dataset'] === 'string' ? p.sink['dataset'] : undefined;
      if (sink !== undefined && !seenDatasets.has(sink)) {
        seenDatasets.add(sink);
        next.push(sink);
      }
    }
    frontier = next;
  }
  return out;
}

function nextTick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Work out the impact of `draft` (from impactDraft) on pipe `pipeId`'s sink dataset. */
export async function computeImpact(hub: Hub, pipeId: string, draft: ConfigEntity, options: ImpactOptions = {}): Promise<ImpactResult> {
  const sampleSize = Math.max(0, Math.min(IMPACT_MAX_SAMPLE, options.sample ?? IMPACT_DEFAULT_SAMPLE));
  const cancelled = options.cancelled ?? (() => false);
  const runtime: PipeRuntime = hub.pumps.runtimes.draft(draft);
  const problem = runtime.transformProblem();
  if (problem) throw problem;
  const pipe = runtime.resolved();
  const datasetName = pipe.sink['dataset'] as string;
  const sink: Dataset | undefined = hub.datasets.get(datasetName);
  const source = runtime.openSource(pipe);
  const full = !source.incremental;
  const progress: ImpactProgress = { phase: 'reading', processed: 0, total: null };
  if (pipe.source.type === 'dataset' && typeof pipe.source['dataset'] === 'string' && pipe.source['include_previous_versions'] !== true && pipe.source['subset'] === undefined) {
    const row = hub.datasets.get(pipe.source['dataset'])?.row();
    progress.total = row ? row.live_count + row.deleted_count : 0;
  }
  options.onProgress?.({ ...progress });

  const seen = new Set<string>();
  const written = new Map<string, Written>();
  let versions = 0;
  let toSink = 0;
  let seenLive = 0;
  /** Before/after of a few written ids, kept until the end decides what they are. */
  const candidates = new Map<string, { before: JsonObject | null; after: JsonObject | null }>();
  const candidateLimit = sampleSize * 6;
  const beforeOf = (id: string, initial: State | null): JsonObject | null => {
    if (initial === null || initial.deleted || !sink) return null;
    const e = sink.get(id);
    return e ? content(e) : null;
  };

  /** Give the sink one entity; true when it stores a version. */
  const write = (p: PreparedEntity, after: () => JsonObject | null): boolean => {
    const firstSeen = !seen.has(p.id);
    if (firstSeen) seen.add(p.id);
    const w = written.get(p.id);
    const current: State | null = w ? { hash: w.hash, deleted: w.deleted } : (sink?.latestHash(p.id) ?? null);
    if (firstSeen && current !== null && !current.deleted) seenLive++;
    if (current !== null && current.hash === p.hash) return false;
    versions++;
    const initial = w ? w.initial : current;
    const next: Written = { initial, hash: p.hash, deleted: p.deleted, props: null };
    const wasLive = initial !== null && !initial.deleted;
    const keep = candidates.has(p.id) || candidates.size < candidateLimit;
    if ((wasLive && !p.deleted) || keep) {
      const before = beforeOf(p.id, initial);
      const now = p.deleted ? null : after();
      if (wasLive && !p.deleted) next.props = differing(before, now);
      if (keep) candidates.set(p.id, { before, after: now });
    }
    written.set(p.id, next);
    return true;
  };

  // The circuit breaker, as the pump's writes count changes: distinct ids written per batch, summed over the run.
  const batchSize = typeof pipe['batch_size'] === 'number' && pipe['batch_size'] >= 1 ? Math.floor(pipe['batch_size']) : DEFAULT_BATCH;
  const threshold = pipe.sink['circuit_breaker_threshold_count'];
  const factor = pipe.sink['circuit_breaker_threshold_factor'];
  const sinkRow = sink?.row();
  const breaker =
    typeof threshold === 'number' || typeof factor === 'number' || sinkRow?.cb_tripped === 1
      ? {
          limit: Math.max(typeof threshold === 'number' ? threshold : 0, typeof factor === 'number' ? Math.ceil(factor * (sinkRow?.live_count ?? 0)) : 0),
          'would-trip': sinkRow?.cb_tripped === 1,
          'trips-after': sinkRow?.cb_tripped === 1 ? 0 : null,
          'tripped-now': sinkRow?.cb_tripped === 1,
        }
      : null;
  const breakerOn = typeof threshold === 'number' || typeof factor === 'number';
  let runChanges = 0;
  let batchIds = new Set<string>();
  const countBatch = (processedBefore: number): void => {
    if (breakerOn && breaker && !breaker['would-trip'] && runChanges + batchIds.size > breaker.limit) {
      breaker['would-trip'] = true;
      breaker['trips-after'] = processedBefore;
    }
    runChanges += batchIds.size;
    batchIds = new Set();
  };

  // The pipe's processing runs as preview jobs, a few batches per job, where a deadline can stop it. A dataset source
  // is read by the job itself (in a preview worker: this thread neither reads, parses nor sends its entities); any
  // other source is read here (it may reach outside, with a system's secrets) and its entities sent with the job.
  const evaluator = options.evaluator ?? localEvaluator;
  const readHere = pipe.source.type === 'dataset' ? undefined : source.batches(undefined, batchSize);
  let position: string | undefined;
  for (let ended = false; !ended; ) {
    let sizes: number[];
    let processed: ProcessedBatch;
    if (readHere === undefined) {
      const job = { kind: 'process-source', ...(position === undefined ? {} : { since: position }), batchSize, group: EVALUATION_GROUP, firstIndex: toSink } as const;
      const read = await evaluator.evaluate(runtime, job, options.signal);
      ({ batches: sizes, position, ended } = read);
      processed = read;
    } else {
      const group: JsonObject[][] = [];
      for (let n = 0; n < EVALUATION_GROUP; ) {
        const next = await readHere.next();
        if (next.done) {
          ended = true;
          break;
        }
        group.push(next.value.entities);
        n += next.value.entities.length;
      }
      const entities = group.flat();
      sizes = group.map((b) => b.length);
      processed = entities.length > 0 ? await evaluator.evaluate(runtime, { kind: 'process', entities, firstIndex: toSink }, options.signal) : { outputs: [] };
    }
    let k = 0;
    for (const size of sizes) {
      const processedBefore = progress.processed;
      for (let i = 0; i < size; i++, k++) {
        if (processed.failure?.index === k) throw badRequest(processed.failure.message, processed.failure.detail);
        for (const p of processed.outputs[k]!) {
          toSink++;
          if (write(p, () => parseJson(p.body) as JsonObject)) batchIds.add(p.id);
        }
        progress.processed++;
      }
      countBatch(processedBefore);
      options.onProgress?.({ ...progress });
      await nextTick();
      if (cancelled()) throw new ImpactCancelled();
    }
  }

  if (full && sink) {
    progress.phase = 'deletion-tracking';
    options.onProgress?.({ ...progress });
    let n = 0;
    for (const page of sink.readJson({ history: false, deleted: false })) {
      for (const json of page) {
        const e = parseJson(json) as JsonObject;
        const id = e['_id'] as string;
        if (seen.has(id)) continue;
        // The sink's own deletion: the latest version with `_deleted` set.
        const gone = prepareEntity({ ...content(e), _id: id, _deleted: true });
        const initial = { hash: e['_hash'] as string, deleted: false };
        versions++;
        batchIds.add(id);
        written.set(id, { initial, hash: gone.hash, deleted: true, props: null });
        if (candidates.size < candidateLimit) candidates.set(id, { before: content(e), after: null });
      }
      if (++n % 10 === 0) {
        await nextTick();
        if (cancelled()) throw new ImpactCancelled();
      }
    }
  }

  // The deletions of a full run are written as one batch.
  countBatch(progress.processed);

  const counts = { added: 0, changed: 0, deleted: 0, unchanged: seen.size - [...written.keys()].filter((id) => seen.has(id)).length, 'deleted-not-live': 0 };
  const props = new Map<string, PropertyChange>();
  const samples: Record<ImpactKind, ImpactSample[]> = { added: [], changed: [], deleted: [] };
  for (const [id, w] of written) {
    const kind = classify(w);
    counts[kind]++;
    if (kind === 'changed' && w.props) {
      for (const { property, how } of w.props) {
        let pc = props.get(property);
        if (!pc) props.set(property, (pc = { property, added: 0, removed: 0, changed: 0 }));
        pc[how]++;
      }
    }
    if (kind === 'unchanged' || kind === 'deleted-not-live') continue;
    const c = candidates.get(id);
    if (c && samples[kind].length < sampleSize) {
      samples[kind].push({ id, kind, before: c.before, after: c.after, properties: differing(c.before, c.after).map((d) => d.property) });
    }
  }
  const liveBefore = sink ? sink.row().live_count : 0;
  progress.phase = 'done';
  options.onProgress?.({ ...progress });
  return {
    pipe: pipeId,
    dataset: datasetName,
    'deletes-unseen': full,
    processed: progress.processed,
    'to-sink': toSink,
    'versions-written': versions,
    added: counts.added,
    changed: counts.changed,
    deleted: counts.deleted,
    unchanged: counts.unchanged,
    'deleted-not-live': counts['deleted-not-live'],
    untouched: full ? 0 : liveBefore - seenLive,
    properties: [...props.values()].sort((a, b) => b.added + b.removed + b.changed - (a.added + a.removed + a.changed) || (a.property < b.property ? -1 : 1)),
    samples: [...samples.changed, ...samples.added, ...samples.deleted],
    downstream: versions > 0 ? downstreamPipes(hub, pipeId, datasetName) : [],
    'circuit-breaker': breaker,
  };
}

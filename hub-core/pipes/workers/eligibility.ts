// Which pump runs a pipe worker may carry, and what it is given. With 0 or 1 workers everything runs on the hub's
// thread exactly as before workers existed.
//
// A whole run (source, transform, sink step) goes to a worker for a `dataset` or `embedded` source and a `dataset`
// sink (workerMayRun), unless the run reads its own sink (below). Otherwise the hub's thread reads the source and
// writes the sink, and only the transform goes to a worker, batch by batch (transformWorkerMayRun,
// remote-transform.ts): other sources (files, HTTP, SQL, merges and unions) keep state or reach outside, and other
// sinks (remote sinks retry, outbound sinks record into the outbox) write from the hub's thread.
// - A transform that takes a secret as the key of `encrypt`/`decrypt` runs in a worker like any other: the job is
//   handed exactly the values of the secrets it names there (PipeRuntime.keySecrets), nothing else, for that job
//   only. Workers are threads of this process, so this is no weaker than the hub's thread holding them. What the
//   worker sends back about a failure is masked there with those values, and again here (pool.ts), before the pump
//   masks it with every secret. A `$SECRET(...)` anywhere else in a pipe is never replaced (secrets belong to
//   systems, config-variables.ts).
// - A run that reads its own sink dataset (its transform names it, e.g. a hops or lookup-entity on it, or its source
//   reads it) must see the batches written before each batch, as on the hub's thread. Such a run is never a whole
//   run in a worker (it would read ahead of the writes): its transform goes to a worker batch by batch, and the hub's
//   thread sends a batch only once the one before is committed (ownSink.ahead false; it reads the next batch of its
//   source meanwhile, unless the source reads the sink too). When the transform reads the sink, the worker sees it
//   as committed before each batch: a snapshot of it read whole earlier in the run (lookup-snapshots.ts) is dropped
//   once the dataset has changed (ownSink.refresh).
// A run started with the CPU profiler goes to workers like any other: each worker job samples its own thread
// (thread-profiler.ts) besides the hub's thread, and each profile is written (pump-profiler.ts).
// On the hub's thread, transform included, stay:
// - pipes without a transform (no DTL runs: the sink step alone is cheap and bounded, and handing it over would only
//   add copying).

import type { EffectivePipe } from '../../config/index.js';
import type { PipeRuntime, PipeRuntimes } from '../pipe-runtime.js';
import type { JobRequest } from './pool.js';

const WORKER_SOURCES: ReadonlySet<string> = new Set(['dataset', 'embedded']);
const ENV = /\$ENV\(([^)]*)\)/g;

/** Whether a pipe worker may run this run (`pipe`: the configuration the run uses). */
export function workerMayRun(runtime: PipeRuntime, pipe: EffectivePipe): boolean {
  if (!WORKER_SOURCES.has(pipe.source.type) || pipe.sink.type !== 'dataset') return false;
  return ownSink(runtime, pipe).ahead;
}

/**
 * Whether a pipe worker may run the transform stage of a run that stays on the hub's thread (it does not pass
 * workerMayRun): the hub's thread reads the source and writes the sink, the worker transforms each batch.
 */
export function transformWorkerMayRun(runtime: PipeRuntime): boolean {
  return runtime.config['transform'] !== undefined;
}

/**
 * How a run relates to its own sink dataset: `ahead` whether a batch may be transformed before the one before it is
 * written (neither the source nor the transform names the sink), `readAhead` whether it may be read before that (the
 * source does not name the sink), `refresh` the sink when the transform names it (a worker sees it as committed
 * before each batch).
 */
export function ownSink(runtime: PipeRuntime, pipe: EffectivePipe): { ahead: boolean; readAhead: boolean; refresh?: string } {
  const sink = sinkName(runtime, pipe);
  const transform = runtime.resolvedTransform();
  const read = transform !== undefined && names(transform, sink);
  const readAhead = !names(pipe.source, sink);
  return { ahead: !read && readAhead, readAhead, ...(read ? { refresh: sink } : {}) };
}

/** The pipe's sink dataset (a pipe whose sink is not a dataset: its id, which names no dataset it writes). */
function sinkName(runtime: PipeRuntime, pipe: EffectivePipe): string {
  return typeof pipe.sink['dataset'] === 'string' ? pipe.sink['dataset'] : runtime.id;
}

/**
 * Some string in `value` is the dataset's name, or starts with it before a space (a hops dataset with its alias,
 * "orders o"; a merge source's "orders o"): it may be read. Over-counting only costs the read-ahead.
 */
function names(value: unknown, dataset: string): boolean {
  if (typeof value === 'string') return value === dataset || (value.startsWith(dataset) && /^\s/.test(value.slice(dataset.length)));
  if (Array.isArray(value)) return value.some((v) => names(v, dataset));
  if (value !== null && typeof value === 'object') return Object.values(value).some((v) => names(v, dataset));
  return false;
}

/**
 * What the worker needs to run the pipe as this thread would: its configuration, variables and namespaces, and the
 * values of the secrets its transform takes as the key of encrypt/decrypt (none other).
 */
export function workerRequest(runtimes: PipeRuntimes, runtime: PipeRuntime, since: string | undefined, batchSize: number, lineage = false): JobRequest {
  const configText = JSON.stringify(runtime.config);
  const env: Record<string, string> = {};
  for (const m of configText.matchAll(ENV)) {
    const name = m[1]!;
    const value = runtimes.env(name);
    if (value !== undefined) env[name] = value;
  }
  const secrets = runtime.needsSecrets ? runtime.keySecrets() : undefined;
  return { configText, env, ...(secrets ? { secrets } : {}), namespaces: runtimes.nodeNamespaces(runtime.id), tracked: runtime.tracking !== undefined, lineage, since, batchSize };
}

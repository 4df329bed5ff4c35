// Which pump runs a pipe worker may carry, and what it is given. With 0 or 1 workers everything runs on the hub's
// thread exactly as before workers existed.
//
// A whole run (source, transform, sink step) goes to a worker for a `dataset` or `embedded` source and a `dataset`
// sink (workerMayRun). Otherwise the hub's thread reads the source and writes the sink, and only the transform goes to
// a worker, batch by batch (transformWorkerMayRun, remote-transform.ts): other sources (files, HTTP, SQL, merges and
// unions) keep state or reach outside, and other sinks (remote sinks retry, outbound sinks record into the outbox)
// write from the hub's thread. On the hub's thread, transform included, stay:
// - pipes whose transform takes a secret as the key of `encrypt`/`decrypt` (secret values are not handed to workers).
//   A `$SECRET(...)` anywhere else in a pipe (a comment, a constant, embedded entities) is never replaced (secrets
//   belong to systems, config-variables.ts), so the worker runs such a pipe exactly as this thread would, and a stop
//   can end its runaway run by terminating the worker;
// - pipes whose transform reads their own sink dataset (a worker's connection and its kept snapshots of joined
//   datasets, lookup-snapshots.ts, would not see the batches this thread writes during the run); for a whole run also
//   pipes whose source is their sink (a worker reads ahead of the writes it would see);
// - runs started with the CPU profiler (it profiles the hub's thread);
// - pipes without a transform (no DTL runs: the sink step alone is cheap and bounded, and handing it over would only
//   add copying).

import type { EffectivePipe } from '../../config/index.js';
import type { PipeRuntime, PipeRuntimes } from '../pipe-runtime.js';
import type { JobRequest } from './pool.js';

const WORKER_SOURCES: ReadonlySet<string> = new Set(['dataset', 'embedded']);
const ENV = /\$ENV\(([^)]*)\)/g;

/** Whether a pipe worker may run this run (`pipe`: the configuration the run uses). */
export function workerMayRun(runtime: PipeRuntime, pipe: EffectivePipe, profiled: boolean): boolean {
  if (profiled || !WORKER_SOURCES.has(pipe.source.type) || pipe.sink.type !== 'dataset') return false;
  if (runtime.needsSecrets) return false;
  const sink = sinkName(runtime, pipe);
  if (pipe.source['dataset'] === sink) return false;
  const transform = runtime.config['transform'];
  return transform === undefined || !readsSink(transform, sink);
}

/**
 * Whether a pipe worker may run the transform stage of a run that stays on the hub's thread (it does not pass
 * workerMayRun): the hub's thread reads the source and writes the sink, the worker transforms each batch.
 */
export function transformWorkerMayRun(runtime: PipeRuntime, pipe: EffectivePipe, profiled: boolean): boolean {
  const transform = runtime.config['transform'];
  if (profiled || transform === undefined || runtime.needsSecrets) return false;
  return !readsSink(transform, sinkName(runtime, pipe));
}

/** The pipe's sink dataset (a pipe whose sink is not a dataset: its id, which names no dataset it writes). */
function sinkName(runtime: PipeRuntime, pipe: EffectivePipe): string {
  return typeof pipe.sink['dataset'] === 'string' ? pipe.sink['dataset'] : runtime.id;
}

/** The transform names the dataset (a hops or lookup may read it). */
function readsSink(transform: unknown, sink: string): boolean {
  return JSON.stringify(transform).includes(JSON.stringify(sink));
}

/** What the worker needs to run the pipe as this thread would: its configuration, variables and namespaces. */
export function workerRequest(runtimes: PipeRuntimes, runtime: PipeRuntime, since: string | undefined, batchSize: number, lineage = false): JobRequest {
  const configText = JSON.stringify(runtime.config);
  const env: Record<string, string> = {};
  for (const m of configText.matchAll(ENV)) {
    const name = m[1]!;
    const value = runtimes.env(name);
    if (value !== undefined) env[name] = value;
  }
  return { configText, env, namespaces: runtimes.nodeNamespaces(runtime.id), tracked: runtime.tracking !== undefined, lineage, since, batchSize };
}

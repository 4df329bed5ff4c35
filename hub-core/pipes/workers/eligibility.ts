// Which pump runs a pipe worker may carry, and what it is given. Everything else runs on the hub's thread exactly as
// before workers existed; that is also what happens with 0 or 1 workers. On the hub's thread stay:
// - sources other than `dataset` and `embedded` (files, HTTP, SQL, merges and unions keep state or reach outside);
// - sinks other than `dataset` (remote sinks retry, outbound sinks record into the outbox: writes of the hub's thread);
// - pipes whose transform takes a secret as the key of `encrypt`/`decrypt` (secret values are not handed to workers).
//   A `$SECRET(...)` anywhere else in a pipe (a comment, a constant, embedded entities) is never replaced (secrets
//   belong to systems, config-variables.ts), so the worker runs such a pipe exactly as this thread would, and a stop
//   can end its runaway run by terminating the worker;
// - pipes whose source or transform reads their own sink dataset (a worker reads ahead of the writes it would see);
// - runs started with the CPU profiler (it profiles the hub's thread).

import type { EffectivePipe } from '../../config/index.js';
import type { PipeRuntime, PipeRuntimes } from '../pipe-runtime.js';
import type { JobRequest } from './pool.js';

const WORKER_SOURCES: ReadonlySet<string> = new Set(['dataset', 'embedded']);
const ENV = /\$ENV\(([^)]*)\)/g;

/** Whether a pipe worker may run this run (`pipe`: the configuration the run uses). */
export function workerMayRun(runtime: PipeRuntime, pipe: EffectivePipe, profiled: boolean): boolean {
  if (profiled || !WORKER_SOURCES.has(pipe.source.type) || pipe.sink.type !== 'dataset') return false;
  if (runtime.needsSecrets) return false;
  const sink = typeof pipe.sink['dataset'] === 'string' ? pipe.sink['dataset'] : runtime.id;
  const name = JSON.stringify(sink);
  if (pipe.source['dataset'] === sink) return false;
  const transform = runtime.config['transform'];
  return transform === undefined || !JSON.stringify(transform).includes(name);
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

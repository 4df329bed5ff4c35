// One batch of source entities through a pipe's transform and sink step (PipeRuntime.process), recording per source
// entity what its hops looked up when the pipe does dependency tracking. The pump runs it on its own thread or in a
// pipe worker (pipe-workers/worker.ts): the same code either way.

import type { EntityDependencies } from '../dependency-tracking.js';
import type { JsonObject } from '../json.js';
import type { PipeRuntime } from '../pipe-runtime.js';

export type { EntityDependencies };

/**
 * Appends what the pipe gives its sink for `entities` to `out`; returns the dependencies recorded (none without
 * tracking). What a dataset sink is given is written through prepareEntity (see PipeRuntime.process).
 */
export function transformBatch(runtime: PipeRuntime, entities: readonly JsonObject[], out: JsonObject[]): EntityDependencies[] {
  const tracking = runtime.tracking;
  const deps: EntityDependencies[] = [];
  if (!tracking) {
    runtime.process(entities, out, true);
    return deps;
  }
  // Each source entity on its own, to record what its hops looked up.
  for (const e of entities) {
    tracking.begin();
    runtime.process([e], out, true);
    const eid = e['_id'];
    if (typeof eid === 'string') deps.push({ eid, deps: e['_deleted'] === true ? [] : tracking.end() });
    else tracking.end();
  }
  return deps;
}

// One batch of source entities through a pipe's transform and sink step (PipeRuntime.process), recording per source
// entity what its hops looked up when the pipe does dependency tracking. The pump runs it on its own thread or in a
// pipe worker (pipe-workers/worker.ts): the same code either way.

import type { JsonObject } from '../json.js';
import { DependencyPacker, type PackedDependencies } from '../packed-dependencies.js';
import type { PipeRuntime } from '../pipe-runtime.js';
import type { LineagePacker } from '../lineage-record.js';

/**
 * Appends what the pipe gives its sink for `entities` to `out`; returns the dependencies recorded (no entities
 * without tracking). Each source entity with an id is listed, a deleted one without dependencies. What a dataset sink
 * is given is written through prepareEntity (see PipeRuntime.process).
 */
export function transformBatch(runtime: PipeRuntime, entities: readonly JsonObject[], out: JsonObject[], lineage?: LineagePacker): PackedDependencies {
  const tracking = runtime.tracking;
  const packer = new DependencyPacker();
  if (!tracking && !lineage) {
    runtime.process(entities, out, true);
    return packer.finish();
  }
  if (!tracking) {
    // Each source entity on its own, to record which outputs it made.
    const one: JsonObject[] = [];
    for (const e of entities) {
      const from = out.length;
      one[0] = e;
      runtime.process(one, out, true);
      lineage!.source(e, out, from);
    }
    return packer.finish();
  }
  // Each source entity on its own, to record what its hops looked up.
  for (const e of entities) {
    const eid = e['_id'];
    const listed = typeof eid === 'string';
    if (listed) packer.entity(eid);
    tracking.begin(listed && e['_deleted'] !== true ? packer : undefined);
    const from = out.length;
    runtime.process([e], out, true);
    tracking.end();
    lineage?.source(e, out, from);
  }
  return packer.finish();
}

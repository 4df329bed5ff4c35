// One batch of source entities through a pipe's transform and sink step (PipeRuntime.process), recording per source
// entity what its hops looked up when the pipe does dependency tracking. The pump runs it on its own thread or in a
// pipe worker (pipe-workers/worker.ts): the same code either way.

import type { JsonObject } from '../../base/index.js';
import { DependencyPacker, type PackedDependencies } from '../packed-dependencies.js';
import type { PipeRuntime } from '../pipe-runtime.js';
import type { LineagePacker } from '../lineage-record.js';

/**
 * Appends what the pipe gives its sink for `entities` to `out`; returns the dependencies recorded (no entities
 * without tracking). Each source entity with an id is listed, a deleted one without dependencies. What a dataset sink
 * is given is written through prepareEntity (see PipeRuntime.process).
 */
export function transformBatch(runtime: PipeRuntime, entities: readonly JsonObject[], out: JsonObject[], lineage?: LineagePacker): PackedDependencies {
  const packer = new DependencyPacker();
  if (!runtime.tracking && !lineage) runtime.process(entities, out, true);
  else for (const e of entities) transformOne(runtime, e, out, packer, lineage);
  return packer.finish();
}

/** One source entity on its own: to record what its hops looked up (tracking) and which outputs it made (lineage). */
function transformOne(runtime: PipeRuntime, e: JsonObject, out: JsonObject[], packer: DependencyPacker, lineage: LineagePacker | undefined): void {
  const tracking = runtime.tracking;
  const from = out.length;
  if (tracking) {
    const eid = e['_id'];
    const listed = typeof eid === 'string';
    if (listed) packer.entity(eid);
    tracking.begin(listed && e['_deleted'] !== true ? packer : undefined);
    runtime.process([e], out, true);
    tracking.end();
  } else runtime.process([e], out, true);
  lineage?.source(e, out, from);
}

/** The hub's thread lets the event loop turn after about this long in one batch (its API answers in between). */
const TURN_EVERY_MS = 20;

/**
 * transformBatch for the hub's thread: one source entity at a time, letting the event loop turn every
 * {@link TURN_EVERY_MS}, so that a slow transform of a pipe that runs there (not in a pipe worker) never holds the
 * thread that answers the API for more than one entity (itself bounded, dtl/work-limit.ts). `afterTurn` runs after
 * each turn and may throw to end the batch early (a stop: nothing of the batch is written).
 */
export async function transformBatchTurning(
  runtime: PipeRuntime,
  entities: readonly JsonObject[],
  out: JsonObject[],
  afterTurn?: () => void,
  lineage?: LineagePacker,
): Promise<PackedDependencies> {
  const packer = new DependencyPacker();
  let since = performance.now();
  for (const e of entities) {
    transformOne(runtime, e, out, packer, lineage);
    if (performance.now() - since >= TURN_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      afterTurn?.();
      since = performance.now();
    }
  }
  return packer.finish();
}

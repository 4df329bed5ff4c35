// Traces for the pipe preview (`"trace": true`): how each sample entity went through the pipe's (draft) transform, and
// which source entity made a given output entity (`"source-of"`), so an entity of a pipe's output can be traced by
// re-running its source entity.

import type { PipeRuntime } from '../pipes/index.js';
import type { TransformTrace } from '../dtl/index.js';
import { HubError } from '../base/index.js';
import type { JsonObject } from '../base/index.js';

/** Source entities looked at to find the one that makes an output entity. */
export const SOURCE_OF_MAX_SCAN = 100_000;

/** Sample entities traced per request; those after them are answered without a trace. */
export const MAX_TRACED_ENTITIES = 50;

/**
 * The trace of each sample entity, in order (the first MAX_TRACED_ENTITIES); undefined for the others and for every
 * one when the pipe has no transform.
 */
export function traceSample(run: PipeRuntime, sample: readonly JsonObject[]): (TransformTrace | undefined)[] {
  const traced = run.traced();
  if (traced === undefined || !traced.ok) return sample.map(() => undefined);
  return sample.map((e, i) => (i < MAX_TRACED_ENTITIES ? traced.run(run.beforeTransforms(e)).trace : undefined));
}

/**
 * The source entity the pipe turns into the output entity `outputId` (after the transforms or at the sink), found by
 * running the transform over the source in order; a 404 HubError when none does within SOURCE_OF_MAX_SCAN entities.
 */
export async function sourceEntityOf(
  run: PipeRuntime,
  outputId: string,
  /** The index of the first of `entities` the pipe turns into `outputId`, or -1 (a preview job, preview-jobs.ts). */
  find: (entities: JsonObject[], outputId: string) => Promise<number>,
): Promise<JsonObject> {
  const source = run.openSource();
  let n = 0;
  for await (const batch of source.batches(undefined, 1000)) {
    const scanned = batch.entities.slice(0, Math.max(0, SOURCE_OF_MAX_SCAN - n));
    n += batch.entities.length;
    if (scanned.length > 0) {
      const at = await find(scanned, outputId);
      if (at >= 0) return scanned[at]!;
    }
    if (n > SOURCE_OF_MAX_SCAN) break;
  }
  throw new HubError(
    404,
    `no source entity makes the output entity ${JSON.stringify(outputId)}`,
    n > SOURCE_OF_MAX_SCAN ? `looked at the first ${SOURCE_OF_MAX_SCAN} source entities` : `looked at all ${n} source entities`,
  );
}

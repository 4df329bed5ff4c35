// What a pipe preview answers per sample entity, and the chain of transforms run one by one (what each of them
// made of what the one before it made).

import { DtlRuntimeError, type CompiledTransform, type TransformTrace } from '../dtl/index.js';
import type { JsonObject } from '../base/index.js';

export interface PreviewRunError {
  kind: string;
  msg: string;
  elements: string | null;
}

/** What one transform of a chain made of the entities the one before it made; a failing one ends the chain. */
export type PreviewChainStep = { entities: JsonObject[] } | { error: PreviewRunError };

/** What one sample entity became; `error` when the transform failed on it (then both lists are empty). */
export interface PreviewResult {
  'after-transforms': JsonObject[];
  sink: JsonObject[];
  error: PreviewRunError | null;
  /** With a chain of transforms: what each of them produced, in order. */
  chain?: PreviewChainStep[];
  /** With `"trace": true` and a transform that compiles: how the entity went through it (hub-core/dtl/trace.ts). */
  trace?: TransformTrace;
}

export function runError(e: DtlRuntimeError): PreviewRunError {
  return { kind: e.kind, msg: e.message, elements: e.elements ?? null };
}

/** Each transform of a chain on its own, fed what the one before it made. */
export function chainSteps(chain: readonly CompiledTransform[], entity: JsonObject): PreviewChainStep[] {
  const out: PreviewChainStep[] = [];
  let current: JsonObject[] = [entity];
  for (const step of chain) {
    const next: JsonObject[] = [];
    try {
      for (const e of current) next.push(...step.run(e).entities);
    } catch (e) {
      if (!(e instanceof DtlRuntimeError)) throw e;
      out.push({ error: runError(e) });
      return out;
    }
    out.push({ entities: next });
    current = next;
  }
  return out;
}


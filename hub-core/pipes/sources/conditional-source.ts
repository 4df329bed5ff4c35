import { isJsonObject, type JsonObject } from '../../base/index.js';
import { HubError } from '../../base/index.js';
import type { PumpSource, SourceContext, SourceFactory } from './source.js';
import type { EffectivePipe } from '../../config/index.js';

/**
 * The chosen alternative's position, stored with the condition it belongs to: after the condition changes, the newly
 * chosen source starts from its beginning rather than from another source's position.
 */
function unwrapPosition(since: string | undefined, condition: string): string | undefined {
  if (since === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(since);
    return Array.isArray(v) && v.length === 2 && v[0] === condition && typeof v[1] === 'string' ? v[1] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A conditional source: `condition` (typically `$ENV(...)`, already replaced when the run starts) names one of
 * `alternatives`, and that source is read.
 */
export function conditionalSource(factoryOf: (type: string) => SourceFactory | undefined): SourceFactory {
  return (pipe: EffectivePipe, ctx: SourceContext): PumpSource => {
    const condition = pipe.source['condition'];
    const alternatives = pipe.source['alternatives'];
    if (typeof condition !== 'string') throw new HubError(400, 'a conditional source needs "condition": a string', 'for example "$ENV(node-env)"');
    if (!isJsonObject(alternatives)) throw new HubError(400, 'a conditional source needs "alternatives": an object of sources keyed by condition value');
    const chosen = alternatives[condition];
    if (!isJsonObject(chosen)) {
      throw new HubError(
        400,
        `the conditional source has no alternative for ${JSON.stringify(condition)}`,
        `"alternatives" has ${Object.keys(alternatives).map((k) => JSON.stringify(k)).join(', ') || 'no keys'}`,
      );
    }
    const type = typeof chosen['type'] === 'string' ? chosen['type'] : 'dataset';
    const factory = type === 'conditional' ? undefined : factoryOf(type);
    if (!factory) throw new HubError(400, `the conditional source's alternative ${JSON.stringify(condition)} is a ${type} source, which this hub does not pump`);
    const inner = factory({ ...pipe, source: { ...chosen, type } }, ctx);
    return {
      incremental: inner.incremental,
      async *batches(since, batchSize) {
        for await (const batch of inner.batches(unwrapPosition(since, condition), batchSize)) {
          yield batch.position === undefined ? batch : { ...batch, position: JSON.stringify([condition, batch.position]) };
        }
      },
      ...(inner.previousVersion ? { previousVersion: (e: JsonObject) => inner.previousVersion?.(e) } : {}),
    };
  };
}

import type { JsonObject } from '../../base/index.js';
import { isJsonObject } from '../../base/index.js';
import type { PumpSource, SourceContext } from './source.js';
import type { EffectivePipe } from '../../config/index.js';

/**
 * A dataset source: latest versions (deletes included) after the last-seen offset, page by page; every version with
 * `include_previous_versions`, only the entities of an index subset with `subset`.
 */
export function datasetSource(pipe: EffectivePipe, ctx: SourceContext): PumpSource {
  const name = pipe.source['dataset'] as string;
  const history = pipe.source['include_previous_versions'] === true;
  const subset = pipe.source['subset'];
  return {
    incremental: true,
    parts: subset === undefined,
    async *batches(since, batchSize, part) {
      let offset = parseOffset(since);
      for (;;) {
        const ds = ctx.datasets.get(name);
        if (!ds) return;
        const page: JsonObject[] = [];
        const options = {
          ...(offset !== undefined ? { since: offset } : {}),
          history,
          deleted: true,
          limit: batchSize,
          ...(subset !== undefined ? { subset } : {}),
          ...(part !== undefined && subset === undefined ? { until: part.until, snapshot: part.snapshot } : {}),
        };
        for (const entities of ds.readEntities(options)) for (const e of entities) page.push(e);
        if (page.length === 0) return;
        offset = page[page.length - 1]!['_updated'] as number;
        yield { entities: page, position: String(offset) };
      }
    },
    previousVersion(e) {
      const prev = e['_previous'];
      return typeof prev === 'number' && typeof e['_id'] === 'string' ? ctx.datasets.get(name)?.getAt(e['_id'], prev) : undefined;
    },
  };
}

/** Entities written in the configuration, read whole every run. */
export function embeddedSource(pipe: EffectivePipe): PumpSource {
  const entities = Array.isArray(pipe.source['entities']) ? pipe.source['entities'].filter(isJsonObject) : [];
  return {
    incremental: false,
    async *batches(_since, batchSize) {
      for (let i = 0; i < entities.length; i += batchSize) yield { entities: entities.slice(i, i + batchSize) };
    },
  };
}

/** Nothing at all: every run deletes what the sink holds (with deletion tracking on). */
export function emptySource(): PumpSource {
  return {
    incremental: false,
    async *batches() {
      return;
    },
  };
}

/** A dataset source's last-seen value: a non-negative integer offset as a string. */
export function parseOffset(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

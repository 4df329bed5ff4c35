import type { JsonObject } from '../../base/index.js';
import { HubError } from '../../base/index.js';
import type { PumpSource, SourceContext } from './source.js';
import type { EffectivePipe } from '../../config/index.js';
import { datasetIds, encodeOffsets, parseOffsets, readPage } from './dataset-offsets.js';

/**
 * Several datasets sharing entity ids, ids unchanged. Strategy "latest" (the default) gives, for each changed id, the
 * version with the newest `_ts` among the datasets (the earlier dataset in the list wins a tie); strategy "all" gives
 * one entity per id holding each dataset's latest version under that dataset's id (deleted when no dataset has a
 * live version). Datasets are read one after the other, not interleaved by `_ts`.
 */
export function mergeDatasetsSource(pipe: EffectivePipe, ctx: SourceContext): PumpSource {
  const names = datasetIds(pipe);
  const strategy = pipe.source['strategy'] ?? 'latest';
  if (strategy !== 'latest' && strategy !== 'all') {
    throw new HubError(400, `unknown merge_datasets strategy ${JSON.stringify(strategy)}`, 'the strategies are "latest" and "all"');
  }
  const latestOf = (id: string): { name: string; entity: JsonObject & { _ts: number; _deleted: boolean } }[] => {
    const out: { name: string; entity: JsonObject & { _ts: number; _deleted: boolean } }[] = [];
    for (const name of names) {
      const e = ctx.datasets.get(name)?.get(id);
      if (e) out.push({ name, entity: e });
    }
    return out;
  };
  const newest = (id: string): string | undefined => {
    let best: ReturnType<typeof latestOf>[number] | undefined;
    for (const v of latestOf(id)) if (!best || v.entity._ts > best.entity._ts) best = v;
    return best?.name;
  };
  const merged = (id: string): JsonObject => {
    const versions = latestOf(id);
    const out: JsonObject = { _id: id };
    let live = false;
    for (const v of versions) {
      if (v.entity._deleted) continue;
      out[v.name] = v.entity;
      live = true;
    }
    if (!live) out['_deleted'] = true;
    return out;
  };
  return {
    incremental: true,
    async *batches(since, batchSize) {
      const offsets = parseOffsets(since);
      for (const name of names) {
        for (;;) {
          const ds = ctx.datasets.get(name);
          if (!ds) break;
          const page = readPage(ds, offsets[name], batchSize);
          if (page.length === 0) break;
          offsets[name] = page[page.length - 1]!['_updated'] as number;
          const entities: JsonObject[] = [];
          for (const e of page) {
            const id = e['_id'];
            if (typeof id !== 'string') continue;
            if (strategy === 'all') entities.push(merged(id));
            // With "latest", a version that another dataset has overtaken is left out (that dataset gives the newer one).
            else if (newest(id) === name) entities.push(e);
          }
          yield { entities, position: encodeOffsets(offsets) };
        }
      }
    },
  };
}

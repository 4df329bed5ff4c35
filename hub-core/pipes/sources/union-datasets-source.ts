import type { PumpSource, SourceContext } from './source.js';
import type { EffectivePipe } from '../../config/index.js';
import { datasetIds, encodeOffsets, parseOffsets, readPage } from './dataset-offsets.js';

/**
 * Several datasets read one after the other, each to its end. Entity ids get the dataset id as a prefix
 * ("<dataset>:<id>") unless `prefix_ids` is false; `include_previous_versions` reads every version.
 */
export function unionDatasetsSource(pipe: EffectivePipe, ctx: SourceContext): PumpSource {
  const names = datasetIds(pipe);
  const prefix = pipe.source['prefix_ids'] !== false;
  const history = pipe.source['include_previous_versions'] === true;
  return {
    incremental: true,
    async *batches(since, batchSize) {
      const offsets = parseOffsets(since);
      for (const name of names) {
        for (;;) {
          const ds = ctx.datasets.get(name);
          if (!ds) break;
          const page = readPage(ds, offsets[name], batchSize, history);
          if (page.length === 0) break;
          offsets[name] = page[page.length - 1]!['_updated'] as number;
          if (prefix) for (const e of page) if (typeof e['_id'] === 'string') e['_id'] = `${name}:${e['_id']}`;
          yield { entities: page, position: encodeOffsets(offsets) };
        }
      }
    },
  };
}

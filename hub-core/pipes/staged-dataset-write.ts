// A large batch posted to a dataset (POST /api/datasets/<id>/entities) as its body arrives: parsed a part at a time off
// the hub's thread and kept in a spool file (as a large JSON Push is), then written in parts once all of it has come
// and is valid. Readers see none or all of it; a body refused on the way leaves nothing, not even an empty dataset.
import { PushSpool, type Db, type Dataset, type SpoolLines, type WriteResult } from '../storage/index.js';
import type { PreparedEntity } from '../base/index.js';
import { BATCH, writeBatchesInParts } from './staged-parts.js';

export interface StagedDatasetWrite {
  /** Entities are kept as they come (there is no transform): parts may come as spool lines made in a worker. */
  readonly passesThrough: true;
  add(entities: readonly PreparedEntity[]): Promise<void>;
  addLines(parts: readonly SpoolLines[]): Promise<void>;
  /** Entities kept so far. */
  readonly count: number;
  /** The entities kept, BATCH at a time, read from the spool as they are asked for. */
  read(): Iterable<readonly PreparedEntity[]>;
  /** Write them all into the dataset (opened, so created, only now), in parts; the spool is gone afterwards. */
  commit(options: { force?: boolean }, signal?: AbortSignal): Promise<WriteResult>;
  discard(): Promise<void>;
}

export function stageDatasetWrite(db: Db, dataset: () => Dataset, spoolDir: string): StagedDatasetWrite {
  const spool = new PushSpool(spoolDir);
  return {
    passesThrough: true,
    add: (entities) => spool.append(entities),
    addLines: (parts) => spool.appendLines(parts),
    get count() {
      return spool.count;
    },
    read: () => spool.batches(BATCH),
    commit: async (options, signal) => {
      try {
        return await writeBatchesInParts(db, dataset(), spool.batches(BATCH), options, signal);
      } finally {
        await spool.discard();
      }
    },
    discard: () => spool.discard(),
  };
}

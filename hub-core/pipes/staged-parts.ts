// A large write in parts of a few milliseconds each, with a turn of the event loop between them: the hub answers other
// requests meanwhile, and large writes to other datasets go on side by side. Readers see none of it until it is
// published, then all of it (Dataset.beginStaged / writeStaged / publishStaged). Used by a large JSON Push
// (json-push-staged.ts) and by a large batch written to a dataset through the API (writePreparedInParts).
import type { Db, Dataset, WriteResult } from '../storage/index.js';
import { HubError, type PreparedEntity } from '../base/index.js';

/**
 * Entities per batch, and the time one part (one transaction) may take before the hub answers others. A part ends
 * after the batch that passes the time, so a batch is kept small: with 500, parts took 40 ms at the median and over
 * 100 ms at the 90th percentile on a loaded machine; with 100, 18 and 50 ms (test/bench/concurrent-push-bench.ts).
 */
export const BATCH = 100;
const PART_MS = 10;
/** Versions taken back, or entity chains compacted, per step. */
export const STEP = 2000;

/**
 * Large writes waiting for their next step, in the order they asked. One step runs per turn of the event loop, so
 * that other requests are answered between any two steps: with a turn each (a setImmediate per write), several
 * writes' parts would run back to back in one turn.
 */
const waiting: (() => void)[] = [];
let releasing = false;

function releaseOne(): void {
  const next = waiting.shift();
  if (waiting.length > 0) setImmediate(releaseOne);
  else releasing = false;
  next?.();
}

/** Wait for this write's next turn (shared by every large write in the process). */
export function turn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!releasing) {
      releasing = true;
      setImmediate(releaseOne);
    }
  });
}

/** Let the hub answer others; stop when the client went away. */
export async function pause(signal: AbortSignal | undefined): Promise<void> {
  await turn();
  if (signal?.aborted === true) throw new HubError(499, 'the client closed the connection', 'the write was taken back: nothing of it was written');
}

export type PartCounts = Omit<WriteResult, 'maxUpdated'>;

/**
 * Write the batches into the dataset's large write (begun with beginStaged), in parts of about PART_MS each, every
 * part after a turn. Returns what the parts wrote; throws what a part threw (the caller takes the write back).
 */
export async function writeParts(
  db: Db,
  dataset: Dataset,
  batches: Iterator<readonly PreparedEntity[]>,
  options: Parameters<Dataset['writeStaged']>[1],
  signal: AbortSignal | undefined,
): Promise<PartCounts> {
  const counts: PartCounts = { received: 0, written: 0, unchanged: 0 };
  for (let done = false; !done; ) {
    // Every part waits for its turn, the first too: the request may have been read in this turn.
    await pause(signal);
    const start = performance.now();
    // A part is not acknowledged: its commit need not wait for the disk (an fsync can take longer than the part).
    // Publishing commits with synchronous=FULL, which syncs the whole log, these parts included.
    db.pragma('synchronous = NORMAL');
    try {
      db.transaction(() => {
        while (performance.now() - start < PART_MS) {
          const b = batches.next();
          if (b.done === true) {
            done = true;
            return;
          }
          const r = dataset.writeStaged(b.value, options);
          counts.received += r.received;
          counts.written += r.written;
          counts.unchanged += r.unchanged;
        }
      })();
    } finally {
      db.pragma('synchronous = FULL');
    }
  }
  return counts;
}

/** After publishing: compact the versions the write replaced, a step per turn. The large write is then over. */
export async function compactPublished(dataset: Dataset): Promise<void> {
  while (!dataset.compactStagedStep(STEP)) await turn();
}

/** End the large write after a failure: take back what is not published, or leave the compaction of what is. */
export async function finish(dataset: Dataset, published: boolean): Promise<void> {
  try {
    if (published) dataset.abandonStaged();
    else while (!dataset.takeBackStep(STEP)) await turn();
  } catch {
    // The dataset was deleted meanwhile: nothing is left to take back.
    dataset.abandonStaged();
  }
}

function* slices<T>(items: readonly T[], size: number): Generator<readonly T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/**
 * writePrepared for a large batch: the same answer and the same effect, but written in parts with the hub answering
 * between them, and visible to readers at once when it is all written. A failure, or an aborted `signal` (the client
 * went away), takes it back: nothing of it is written. While it is written, other writes to the dataset get a 409 (as
 * during a large JSON Push): callers that write to one dataset one after another should wait for it.
 */
export function writePreparedInParts(
  db: Db,
  dataset: Dataset,
  prepared: readonly PreparedEntity[],
  options: { force?: boolean },
  signal?: AbortSignal,
): Promise<WriteResult> {
  return writeBatchesInParts(db, dataset, slices(prepared, BATCH), options, signal);
}

/** {@link writePreparedInParts} for a batch given BATCH entities at a time (read from a spool file as they are written). */
export async function writeBatchesInParts(
  db: Db,
  dataset: Dataset,
  batches: Iterator<readonly PreparedEntity[]>,
  options: { force?: boolean },
  signal?: AbortSignal,
): Promise<WriteResult> {
  dataset.beginStaged();
  let published = false;
  try {
    const counts = await writeParts(db, dataset, batches, options.force === true ? { force: true } : {}, signal);
    await pause(signal);
    dataset.publishStaged();
    published = true;
    await compactPublished(dataset);
    return { ...counts, maxUpdated: dataset.row().max_updated };
  } catch (e) {
    await finish(dataset, published);
    throw e;
  } finally {
    // A large write fills SQLite's page cache with pages no one reads next: give it back.
    db.pragma('shrink_memory');
  }
}

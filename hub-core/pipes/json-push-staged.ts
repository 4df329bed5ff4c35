// Writing a large JSON Push (staged in the spool as it arrived) in parts, with the event loop free between them: the
// hub answers other requests, and pushes to other datasets go on side by side. Readers see none of it until the last
// part is written, then all of it (Dataset.writeStaged / publishStaged); a failure, or a client that goes away, takes
// it back.
import type { Db, Dataset, WriteResult } from '../storage/index.js';
import { CircuitBreakerTripped } from '../storage/index.js';
import { HubError, type PreparedEntity } from '../base/index.js';
import type { PushParams, PushResult } from './json-push-types.js';

/**
 * Entities per spool batch, and the time one part (one transaction) may take before the hub answers others. A part
 * ends after the batch that passes the time, so a batch is kept small: with 500, parts took 40 ms at the median and
 * over 100 ms at the 90th percentile on a loaded machine; with 100, 18 and 50 ms (test/bench/concurrent-push-bench.ts).
 */
const BATCH = 100;
const PART_MS = 10;
/** Versions taken back, or entity chains compacted, per step. */
const STEP = 2000;

/**
 * Large writes waiting for their next step, in the order they asked. One step runs per turn of the event loop, so
 * that other requests are answered between any two steps: with a turn each (a setImmediate per write), several
 * pushes' parts would run back to back in one turn.
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
function turn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!releasing) {
      releasing = true;
      setImmediate(releaseOne);
    }
  });
}

export interface StagedPushWrite {
  db: Db;
  pipeId: string;
  dataset: Dataset;
  params: PushParams;
  /** The spooled entities, read again from the start at every call. */
  batches: (size: number) => Iterable<readonly PreparedEntity[]>;
  /** Check and advance the push sequence (its own transaction); returns its changes so far and base count. */
  advance: () => { changes: number; base_count: number } | undefined;
  /** Aborted when the client goes away before the answer: the push is taken back. */
  signal?: AbortSignal;
}

export async function writeStagedPush(w: StagedPushWrite): Promise<PushResult> {
  const { db, pipeId, dataset, params } = w;
  const state = w.advance();
  const isFull = params.isFull === true;
  const force = params.force === true;
  const run = { changes: state?.changes ?? 0, baseCount: state?.base_count ?? dataset.row().live_count };
  const seenStmt = isFull ? db.prepare('INSERT OR IGNORE INTO push_seen (pipe, eid) VALUES (?, ?)') : undefined;
  const options = { force, run, ...(seenStmt ? { seen: (id: string) => void seenStmt.run(pipeId, id) } : {}) };
  const result: WriteResult = { received: 0, written: 0, unchanged: 0, maxUpdated: dataset.row().max_updated };
  const add = (r: WriteResult): void => {
    result.received += r.received;
    result.written += r.written;
    result.unchanged += r.unchanged;
  };
  const abortSequence = (): void => {
    db.prepare('DELETE FROM push_seen WHERE pipe = ?').run(pipeId);
    db.prepare('DELETE FROM push_sequences WHERE pipe = ?').run(pipeId);
  };
  const ends = params.isLast === true || params.sequenceId === undefined;
  let published = false;
  dataset.beginStaged();
  try {
    const it = w.batches(BATCH)[Symbol.iterator]();
    for (let done = false; !done; ) {
      // Every part waits for its turn, the first too: the body's last part may have been handled in this turn.
      await pause(w.signal);
      const start = performance.now();
      // A part is not acknowledged: its commit need not wait for the disk (an fsync can take longer than the part).
      // Publishing commits with synchronous=FULL, which syncs the whole log, these parts included.
      db.pragma('synchronous = NORMAL');
      try {
        db.transaction(() => {
          while (performance.now() - start < PART_MS) {
            const b = it.next();
            if (b.done === true) {
              done = true;
              return;
            }
            add(dataset.writeStaged(b.value, options));
          }
        })();
      } finally {
        db.pragma('synchronous = FULL');
      }
    }
    let deleted = 0;
    let tripped: CircuitBreakerTripped | undefined;
    let held: PreparedEntity[] = [];
    if (ends && isFull) {
      const gone = dataset.unseen('SELECT eid FROM push_seen WHERE pipe = ?', [pipeId]);
      try {
        // One part: the circuit breaker weighs all the deletions at once, as it would in one request.
        if (gone.length > 0) deleted = dataset.writeStaged(gone, { run }).written;
      } catch (e) {
        if (!(e instanceof CircuitBreakerTripped)) throw e;
        // The request's entities are written, the deletions wait as uncommitted entities, and the sync is aborted (the
        // dataset is not marked populated) - as for a request written at once.
        tripped = e;
        held = gone;
      }
    }
    await pause(w.signal);
    dataset.publishStaged(() => {
      if (tripped) {
        dataset.holdTripped([held], false, tripped.detail ?? '');
        abortSequence();
        return;
      }
      if (state) db.prepare('UPDATE push_sequences SET changes = ? WHERE pipe = ?').run(run.changes, pipeId);
      if (ends) {
        if (isFull) dataset.setPopulated(true);
        abortSequence();
      }
    });
    published = true;
    while (!dataset.compactStagedStep(STEP)) await turn();
    if (tripped) throw tripped;
    const row = dataset.row();
    return { ...result, deleted, populated: row.populated === 1, maxUpdated: row.max_updated };
  } catch (e) {
    await finish(dataset, published);
    if (!published) {
      db.transaction(() => {
        if (e instanceof CircuitBreakerTripped) dataset.holdTripped(w.batches(BATCH), force, e.detail ?? '');
        // The sequence cannot go on: a full sync has recorded some of this request's ids as seen. Any other failure
        // leaves it as the request found it (sent again, the request is a retry).
        if (isFull || (e instanceof HubError && e.status === 409)) abortSequence();
      })();
    }
    throw e;
  }
}

/** Let the hub answer others; stop when the client went away. */
async function pause(signal: AbortSignal | undefined): Promise<void> {
  await turn();
  if (signal?.aborted === true) throw new HubError(499, 'the client closed the connection', 'the push was taken back: nothing of it was written');
}

/** End the large write after a failure: take back what is not published, or leave the compaction of what is. */
async function finish(dataset: Dataset, published: boolean): Promise<void> {
  try {
    if (published) dataset.abandonStaged();
    else while (!dataset.takeBackStep(STEP)) await turn();
  } catch {
    // The dataset was deleted meanwhile: nothing is left to take back.
    dataset.abandonStaged();
  }
}

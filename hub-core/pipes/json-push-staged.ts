// Writing a large JSON Push (staged in the spool as it arrived) in parts, with the event loop free between them: the
// hub answers other requests, and pushes to other datasets go on side by side. Readers see none of it until the last
// part is written, then all of it (Dataset.writeStaged / publishStaged); a failure, or a client that goes away, takes
// it back.
import type { Db, Dataset } from '../storage/index.js';
import { CircuitBreakerTripped } from '../storage/index.js';
import { HubError, type PreparedEntity } from '../base/index.js';
import type { PushParams, PushResult } from './json-push-types.js';
import { BATCH, compactPublished, finish, pause, writeParts } from './staged-parts.js';

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
  const abortSequence = (): void => {
    db.prepare('DELETE FROM push_seen WHERE pipe = ?').run(pipeId);
    db.prepare('DELETE FROM push_sequences WHERE pipe = ?').run(pipeId);
  };
  const ends = params.isLast === true || params.sequenceId === undefined;
  let published = false;
  dataset.beginStaged();
  try {
    const counts = await writeParts(db, dataset, w.batches(BATCH)[Symbol.iterator](), options, w.signal);
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
    await compactPublished(dataset);
    if (tripped) throw tripped;
    const row = dataset.row();
    return { ...counts, deleted, populated: row.populated === 1, maxUpdated: row.max_updated };
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

// The transform stage of a pump run in a pipe worker, for a pipe whose source or sink stays on the hub's thread (a
// merge, SQL or HTTP source, an outbound or remote sink): the hub's thread reads each batch, the worker transforms it
// (dependencies and lineage recorded as on the hub's thread) and the hub's thread writes what comes back, in order.
// The hub may send the next batch while it writes one, except for a pipe that reads its own sink (eligibility.ts
// ownSink): its batches go one at a time, each once the one before is committed, and the worker sees the sink as
// committed before each (`transformOnly.refresh`). A runaway evaluation holds only the worker, which a stop
// terminates (pool.ts replaces it).

import type { Worker } from 'node:worker_threads';
import { HubError, type JsonObject } from '../../base/index.js';
import { mergeContributors, type Contributor } from '../lineage-record.js';
import { entitiesToText } from './entity-text.js';
import type { RemoteBatch, ToWorker } from './protocol.js';

export class RemoteTransform {
  /** The batches sent and not yet answered, in order (the worker answers them in order). */
  private readonly pending: { resolve: (b: RemoteBatch) => void; reject: (e: Error) => void }[] = [];
  /** The job's failure (or its end), for the batches asked for after it. */
  private failed: Error | undefined;
  private closed = false;
  /** Unused: a job that runs only the transform reads no source (the pool's runs report it). */
  endSourceMs = 0;

  constructor(
    private readonly id: number,
    private readonly worker: Worker,
    private readonly detach: () => void,
    /** Terminate the worker carrying this job (pool.retire). */
    private readonly kill: (why: string) => void,
  ) {}

  /** The sink's entities for `entities`, with what their transform recorded; throws the transform's failure. */
  transform(entities: readonly JsonObject[]): Promise<RemoteBatch> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.closed) return Promise.reject(new HubError(500, 'the pipe worker job was closed'));
    let contributors: (readonly Contributor[] | null)[] | undefined;
    entities.forEach((e, i) => {
      const c = mergeContributors.get(e);
      if (c === undefined) return;
      contributors ??= new Array<readonly Contributor[] | null>(entities.length).fill(null);
      contributors[i] = c;
    });
    const message: ToWorker = { type: 'transform', job: this.id, entities: entitiesToText(entities), ...(contributors ? { contributors } : {}) };
    return new Promise<RemoteBatch>((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.worker.postMessage(message);
    });
  }

  /** A message of the worker for this job: a batch, its failure, or (never expected) an end. */
  deliver(item: RemoteBatch | Error | null): void {
    if (item === null || item instanceof Error) {
      this.failed ??= item ?? new HubError(500, 'the pipe worker ended a transform job early');
      for (const p of this.pending.splice(0)) p.reject(this.failed);
    } else this.pending.shift()?.resolve(item);
  }

  /**
   * End the job now although its worker may be inside a long evaluation that reads no message (a stop that waited
   * long enough): when batches are being transformed, they fail with `reason` and the worker is terminated;
   * otherwise nothing (the run stops at its next check).
   */
  abort(reason: Error): void {
    if (this.pending.length === 0 || this.closed) return;
    this.failed = reason;
    this.close();
    for (const p of this.pending.splice(0)) p.reject(reason);
    this.kill('to end a run that did not stop when asked');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.detach();
    try {
      this.worker.postMessage({ type: 'close', job: this.id } satisfies ToWorker);
    } catch {
      // The worker is gone already.
    }
  }
}

// One pump run read in parts: a dataset source's offsets up to the run's start are cut into ranges, and the idle pipe
// workers take turns (range i goes to share i mod n), each reading and transforming its ranges while the hub's thread
// writes. The batches come back in range order, so the sink is written exactly as one worker (or the hub's thread)
// would write it, and the pump's position moves to each range's end. What is written to the source after the run
// began is read after the parts, as by any run.

import { HubError } from '../../base/index.js';
import type { RemoteBatch, WorkerRun } from './protocol.js';

/** Ranges a share of a run needs at least for cutting the run up to be worth a second worker. */
export const MIN_RANGES = 2;

/**
 * The ranges (after, up to] of the offsets (after, end]: `width` offsets each, so that a range holds at most about a
 * batch of latest versions.
 */
export function partRanges(after: number, end: number, width: number): [number, number][] {
  const ranges: [number, number][] = [];
  const step = Math.max(1, Math.floor(width));
  for (let from = after; from < end; from += step) ranges.push([from, Math.min(end, from + step)]);
  return ranges;
}

export class SplitRun implements WorkerRun {
  private range = 0;

  constructor(
    private readonly shares: readonly WorkerRun[],
    private readonly ranges: number,
  ) {}

  get endSourceMs(): number {
    let ms = 0;
    for (const s of this.shares) ms += s.endSourceMs;
    return ms;
  }

  /** The next batch in range order; undefined after the last range. */
  async next(): Promise<RemoteBatch | undefined> {
    if (this.range >= this.ranges) return undefined;
    const b = await this.shares[this.range % this.shares.length]!.next();
    if (b === undefined) throw new HubError(500, 'a pipe worker ended its share of the run early', `at range ${this.range + 1} of ${this.ranges}`);
    if (b.rangeEnd === true) this.range++;
    return b;
  }

  hasBatch(): boolean {
    return this.range < this.ranges && this.shares[this.range % this.shares.length]!.hasBatch();
  }

  close(): void {
    for (const s of this.shares) s.close();
  }

  abort(reason: Error): void {
    for (const s of this.shares) s.abort(reason);
  }
}

import { Session } from 'node:inspector/promises';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/**
 * Give the hub thread's spare heap back to the system: one full garbage collection, which also returns the pages it
 * emptied. V8 keeps the heap it grew to during a burst (four 200 MB pushes, or reading all of them: 170–200 MB held
 * for 50–80 MB in use) for as long as the hub allocates little, which at rest may be for ever. Through an inspector
 * session of this process: a collection on request without starting node with --expose-gc. Resolves with the bytes
 * the heap and the buffers it held shrank by; never throws.
 */
export async function releaseHeap(): Promise<number> {
  const before = process.memoryUsage();
  const session = new Session();
  try {
    session.connect();
    await session.post('HeapProfiler.collectGarbage');
  } catch {
    // No inspector in this build of node: the heap shrinks when V8 decides.
    return 0;
  } finally {
    try {
      session.disconnect();
    } catch {
      // never connected
    }
  }
  const after = process.memoryUsage();
  return before.heapTotal + before.external - after.heapTotal - after.external;
}

export interface IdleReleaseOptions {
  /** How often the thread's load and heap are looked at. */
  everyMs?: number;
  /** The heap (with the buffers it holds) must have grown this much since the last release. */
  growthBytes?: number;
  /** The share of the last period the event loop may have been busy for the hub to count as idle. */
  idleBelow?: number;
  /** Called after each release with the bytes given back (a test's or a log's). */
  released?: (bytes: number) => void;
}

const heapBytes = (): number => {
  const m = process.memoryUsage();
  return m.heapTotal + m.external;
};

/**
 * Release the heap (releaseHeap) when the hub has gone idle after a burst that grew it: every `everyMs`, when the
 * event loop was busy less than `idleBelow` of the period and the heap is `growthBytes` above where the last release
 * left it. One collection per burst: the floor moves to what is left after it. Returns a function that stops it.
 */
export function releaseHeapWhenIdle(options: IdleReleaseOptions = {}): () => void {
  const everyMs = options.everyMs ?? 5000;
  const growth = options.growthBytes ?? 32 * 1024 * 1024;
  const idleBelow = options.idleBelow ?? 0.05;
  let floor = heapBytes();
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  let releasing = false;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const period = performance.eventLoopUtilization(now, last);
    last = now;
    if (releasing || period.utilization >= idleBelow) return;
    const held = heapBytes();
    // A heap that shrank by itself lowers the floor: growth is counted from the least it held.
    if (held < floor) floor = held;
    if (held - floor < growth) return;
    releasing = true;
    void releaseHeap().then((bytes) => {
      releasing = false;
      floor = heapBytes();
      options.released?.(bytes);
    });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

import { Session } from 'node:inspector/promises';

/**
 * Give the hub thread's spare heap back to the system: one full garbage collection, which also returns the pages it
 * emptied. V8 keeps the heap it grew to during a burst (four 60 MB pushes: 99 MB held for 41 MB in use, and 49 MB of
 * buffers kept by garbage) for as long as the hub allocates little, which at rest may be for ever. Called when a burst
 * of large bodies is over (the parser pool's idle exit). Through an inspector session of this process: a collection on
 * request without starting node with --expose-gc. Resolves with the bytes the heap shrank by; never throws.
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

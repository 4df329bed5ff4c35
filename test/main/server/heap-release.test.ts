// An idle hub gives back the heap a burst grew (issue 32.5, "memory given back after them"): V8 keeps the heap it
// grew to for as long as little is allocated. Once the event loop has been idle for a period and the heap is well
// above where the last release left it, one full collection returns the room; never while the thread is busy, and
// not again until the heap grows again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { releaseHeap, releaseHeapWhenIdle } from '../../../main/server/heap-release.js';

const MB = 1024 * 1024;
/** A burst: objects made and dropped, which grows the heap by tens of MB. */
function burst(): void {
  let garbage: unknown[] | undefined = Array.from({ length: 400_000 }, (_, i) => ({ i, text: `entity ${i} `.repeat(4) }));
  assert.ok(garbage.length > 0);
  garbage = undefined;
}

test('releasing the heap after a burst gives back the room its garbage took', async () => {
  burst();
  const grown = process.memoryUsage().heapTotal;
  const freed = await releaseHeap();
  assert.ok(freed > 20 * MB, `the heap shrank by ${(freed / MB).toFixed(0)} MB`);
  assert.ok(process.memoryUsage().heapTotal < grown - 20 * MB);
});

test('an idle thread releases a heap a burst grew, once; a busy one does not', async () => {
  await releaseHeap();
  const released: number[] = [];
  const stop = releaseHeapWhenIdle({ everyMs: 100, growthBytes: 16 * MB, released: (b) => released.push(b) });
  try {
    // Busy: the burst, then the thread kept busy (a task of 80 ms, then a turn) for a second.
    burst();
    const grown = process.memoryUsage().heapTotal;
    const until = Date.now() + 1000;
    while (Date.now() < until) {
      const t = Date.now();
      while (Date.now() - t < 80) Math.sqrt(t);
      await new Promise((r) => setImmediate(r));
    }
    assert.deepEqual(released, [], 'no release while the thread is busy');
    // Idle: released within a few periods.
    for (let i = 0; i < 30 && released.length === 0; i++) await sleep(100);
    assert.equal(released.length, 1, 'released once the thread was idle');
    assert.ok(process.memoryUsage().heapTotal < grown - 16 * MB, 'the heap is smaller than the burst left it');
    // Idle again, nothing grew: no second collection.
    await sleep(600);
    assert.equal(released.length, 1, 'no release without growth');
  } finally {
    stop();
  }
});

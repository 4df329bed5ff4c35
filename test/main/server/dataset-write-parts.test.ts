// A large batch written to POST /api/datasets/<id>/entities is written in parts with the hub answering between them:
// the answer is writePrepared's, readers see none or all of it, /api/health answers throughout, and two large batches
// to two datasets land side by side.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { expectError, sleep } from '../../helpers/api.js';

const hub = useHub();
const N = 20_000;

interface WriteAnswer {
  received: number;
  written: number;
  unchanged: number;
  maxUpdated: number;
}

interface Info {
  count: number;
  'max-updated': number | null;
}

const batch = (prefix: string, version: (i: number) => number): Record<string, unknown>[] =>
  Array.from({ length: N }, (_, i) => ({ _id: `${prefix}-${i}`, n: i, version: version(i), text: `entity ${i} of a large batch` }));

async function write(dataset: string, entities: unknown[], query = ''): Promise<WriteAnswer> {
  return hub.json<WriteAnswer>(`/datasets/${dataset}/entities${query}`, { method: 'POST', json: entities });
}

/** Until `work` settles: what the probe saw each time it ran (it runs at least once after the work began). */
async function whileRunning<T, P>(work: Promise<T>, probe: () => Promise<P>): Promise<{ result: T; seen: P[] }> {
  let done = false;
  const settled = work.finally(() => {
    done = true;
  });
  const seen: P[] = [];
  while (!done) {
    seen.push(await probe());
    await sleep(5);
  }
  return { result: await settled, seen };
}

/** How long /api/health took to answer, in ms (it must answer 200). */
async function healthMs(): Promise<number> {
  const start = performance.now();
  const res = await hub.fetch('/health');
  await res.text();
  assert.equal(res.status, 200);
  return performance.now() - start;
}

/**
 * Whether the dataset's first entity reads, then its live count (-1: the dataset is not there yet). In this order a
 * reader that sees the entity must then see the whole count: the batch may be published between the two requests,
 * which can only turn "none" into "all".
 */
async function visible(dataset: string, firstId: string): Promise<{ count: number; first: boolean }> {
  const entity = await hub.fetch(`/datasets/${dataset}/entity?entity_id=${encodeURIComponent(firstId)}`);
  await entity.text();
  const first = entity.status === 200;
  const res = await hub.fetch(`/datasets/${dataset}`);
  if (res.status === 404) {
    await res.text();
    return { count: -1, first };
  }
  const info = (await res.json()) as Info;
  return { count: info.count, first };
}

describe('a large batch to /api/datasets/<id>/entities', () => {
  test('is answered as one write, and readers see none or all of it', async () => {
    const entities = batch('a', () => 1);
    const { result, seen } = await whileRunning(write('large-a', entities), () => visible('large-a', 'a-0'));
    // Every entity is new: all received, all written.
    assert.deepEqual({ ...result, maxUpdated: undefined }, { received: N, written: N, unchanged: 0, maxUpdated: undefined });
    const info = await hub.json<Info>('/datasets/large-a');
    assert.equal(info.count, N);
    assert.equal(result.maxUpdated, info['max-updated']);
    assert.ok(seen.length > 0, 'the dataset was read while the batch was written');
    for (const s of seen) {
      // The first entity is written in the first part: a reader that saw parts would see it before the count moved.
      assert.ok(s.count <= 0 || s.count === N, `a reader saw part of the batch: ${JSON.stringify(s)}`);
      assert.ok(!s.first || s.count === N, `a reader saw the first part before the batch was published: ${JSON.stringify(s)}`);
    }

    // The same batch again: nothing changed, nothing written, the dataset's end stays.
    const again = await write('large-a', entities);
    assert.deepEqual(again, { received: N, written: 0, unchanged: N, maxUpdated: result.maxUpdated });

    // Every other entity changed: half written; with force, all of them.
    const changed = batch('a', (i) => (i % 2 === 0 ? 2 : 1));
    const half = await write('large-a', changed);
    assert.deepEqual({ ...half, maxUpdated: undefined }, { received: N, written: N / 2, unchanged: N / 2, maxUpdated: undefined });
    const forced = await write('large-a', changed, '?force=true');
    assert.deepEqual({ ...forced, maxUpdated: undefined }, { received: N, written: N, unchanged: 0, maxUpdated: undefined });
    const after = await hub.json<Info>('/datasets/large-a');
    assert.equal(after.count, N);
    assert.equal(forced.maxUpdated, after['max-updated']);
    assert.ok(forced.maxUpdated > half.maxUpdated && half.maxUpdated > result.maxUpdated, 'each write moved the end');
    const one = await hub.json<{ version: number }>('/datasets/large-a/entity?entity_id=a-4');
    assert.equal(one.version, 2);
  });

  test('leaves /api/health answering, and two batches to two datasets land side by side', async () => {
    const both = Promise.all([write('large-b', batch('b', () => 1)), write('large-c', batch('c', () => 1))]);
    const { result, seen } = await whileRunning(both, healthMs);
    for (const r of result) assert.deepEqual({ ...r, maxUpdated: undefined }, { received: N, written: N, unchanged: 0, maxUpdated: undefined });
    assert.equal((await hub.json<Info>('/datasets/large-b')).count, N);
    assert.equal((await hub.json<Info>('/datasets/large-c')).count, N);
    assert.ok(seen.length > 1, 'health was asked while the batches were written');
    // A generous bound: written in one transaction each, the batches held the hub for much longer on a loaded machine.
    assert.ok(Math.max(...seen) < 2000, `/api/health took ${Math.round(Math.max(...seen))} ms`);
  });

  test('two large batches to one dataset are written one after the other, not refused', async () => {
    const both = await Promise.all([write('large-d', batch('d', () => 1)), write('large-d', batch('d', () => 1))]);
    // Whichever body was read first is written; the other then finds every entity unchanged.
    const [first, second] = both[0].written > 0 ? both : [both[1], both[0]];
    assert.deepEqual({ ...first, maxUpdated: undefined }, { received: N, written: N, unchanged: 0, maxUpdated: undefined });
    assert.deepEqual(second, { received: N, written: 0, unchanged: N, maxUpdated: first.maxUpdated });
  });

  test('a system dataset is refused, large batch or not', async () => {
    const res = await hub.fetch('/datasets/system:config/entities', { method: 'POST', json: batch('s', () => 1) });
    await expectError(res, 403, 'a system dataset is not written through the API');
  });
});

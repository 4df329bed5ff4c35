// The parser workers give their memory back: after a burst of large bodies, whichever way they were read (parsed
// whole, parsed into spool lines, or cut as they streamed), every worker exits once the pool has been idle a while,
// and a body after that starts them anew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { EntityParserPool } from '../../../main/server/entity-parser-pool.js';

const IDLE_MS = 150;
const body = (n: number): Buffer => Buffer.from(JSON.stringify(Array.from({ length: n }, (_, i) => ({ _id: `e${i}`, text: 'x'.repeat(100) }))));

async function idleAfter(pool: EntityParserPool): Promise<number> {
  await sleep(IDLE_MS * 4);
  return pool.running;
}

test('workers that parsed a large body whole exit when the pool has been idle, and come back for the next body', async () => {
  const pool = new EntityParserPool({ size: 2, idleExitMs: IDLE_MS });
  try {
    const parsed = await pool.parse(body(6000));
    assert.equal(parsed.entities.length, 6000);
    assert.equal(pool.running, 2, 'the body was parsed in the workers');
    assert.equal(await idleAfter(pool), 0, 'idle: no worker left');
    assert.equal((await pool.parse(body(5000))).entities.length, 5000);
    assert.equal(pool.running, 2);
    assert.equal(await idleAfter(pool), 0);
  } finally {
    await pool.close();
  }
});

test('workers that parsed spool lines, or cut a streamed body, exit when idle too', async () => {
  const pool = new EntityParserPool({ size: 2, idleExitMs: IDLE_MS });
  try {
    const lines = await pool.parseLines(body(4000));
    assert.ok(lines !== undefined);
    assert.equal(await idleAfter(pool), 0, 'after spool lines');
    const cutter = pool.cutter({ lines: false, elementLimit: 1024 * 1024, split: false });
    const whole = body(3000);
    const parts = [...(await cutter.cut(whole.subarray(0, 100_000), false)), ...(await cutter.cut(whole.subarray(100_000), true))];
    assert.equal(parts.reduce((n, p) => n + p.counts.reduce((a, b) => a + b, 0), 0), 3000);
    assert.equal(await idleAfter(pool), 0, 'after a cut');
  } finally {
    await pool.close();
  }
});

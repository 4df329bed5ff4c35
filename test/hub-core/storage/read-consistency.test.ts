import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';

// A latest-versions read (history=false) streams the dataset as it was when the read began: an entity that is
// updated while the stream is still on its way must come out once, in the version it had then.

let hub: HubProcess;
const TOTAL = 100_000;
const UPDATED = 10_000;
const pad = 'x'.repeat(200);

before(async () => {
  hub = await startHub();
  for (let start = 0; start < TOTAL; start += 20_000) {
    const batch = Array.from({ length: 20_000 }, (_, i) => ({ _id: `e${start + i}`, v: 1, pad }));
    await hub.json('/datasets/snap/entities', { method: 'POST', json: batch });
  }
});

after(async () => {
  if (hub) {
    await hub.stop();
    removeDir(hub.dataDir);
  }
});

async function streamWhileUpdating(query: string, update: () => Promise<void>): Promise<{ _id: string; v: number }[]> {
  const res = await hub.fetch(`/datasets/snap/entities?${query}`);
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const chunks: Uint8Array[] = [];
  const first = await reader.read();
  assert.ok(!first.done);
  chunks.push(first.value);
  // The client stops reading, so the hub is held mid-stream while the entities at the far end change.
  await update();
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { _id: string; v: number }[];
}

test('history=false returns every entity once while entities not yet read are updated', async () => {
  const v = 2;
  const list = await streamWhileUpdating('history=false', async () => {
    const batch = Array.from({ length: UPDATED }, (_, i) => ({ _id: `e${TOTAL - UPDATED + i}`, v, pad }));
    await hub.json('/datasets/snap/entities', { method: 'POST', json: batch });
  });
  const ids = new Set(list.map((e) => e._id));
  assert.equal(ids.size, TOTAL, `every entity comes out (got ${ids.size} of ${TOTAL})`);
  assert.equal(list.length, TOTAL, 'and each once');
  assert.ok(list.every((e) => e.v === 1), 'in the version it had when the read began');
  // A read after the update sees the new versions.
  const after = (await hub.json<{ _id: string; v: number }[]>('/datasets/snap/entities?history=false&since=' + (TOTAL - 1)));
  assert.equal(after.length, UPDATED);
  assert.ok(after.every((e) => e.v === 2));
});

test('history=false newest first is consistent too', async () => {
  const list = await streamWhileUpdating('history=false&reverse=true', async () => {
    const batch = Array.from({ length: UPDATED }, (_, i) => ({ _id: `e${i}`, v: 3, pad }));
    await hub.json('/datasets/snap/entities', { method: 'POST', json: batch });
  });
  const ids = new Set(list.map((e) => e._id));
  assert.equal(ids.size, TOTAL, `every entity comes out (got ${ids.size} of ${TOTAL})`);
  assert.equal(list.length, TOTAL);
  assert.ok(list.every((e) => e.v !== 3), 'no version written after the read began');
});

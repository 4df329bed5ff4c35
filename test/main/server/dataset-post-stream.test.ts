// Large bodies posted to POST /api/datasets/<id>/entities are read as they arrive and cut into entities in a parser
// worker (as a streamed JSON Push is): several at once leave /api/health answering, each dataset then holds exactly
// what was posted to it, and a bad entity far into a large body is a 400 in words that leaves nothing behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { expectError, sleep } from '../../helpers/api.js';

const hub = useHub();
const MB = 1024 * 1024;
const pad = 'lorem ipsum dolor sit amet '.repeat(12);

/** A JSON array of entities `<name>-0`, `<name>-1`, ... of at least `bytes` bytes; and how many it holds. */
function body(name: string, bytes: number): { text: string; count: number } {
  const parts: string[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const e = JSON.stringify({ _id: `${name}-${i}`, n: i, from: name, pad });
    parts.push(e);
    size += e.length + 1;
  }
  return { text: `[${parts.join(',')}]`, count: parts.length };
}

async function post(dataset: string, text: string | Buffer): Promise<Response> {
  return hub.fetch(`/datasets/${dataset}/entities`, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
}

test('four 30 MB posts at once: /api/health answers every poll within 1 s, and each dataset holds exactly what was posted to it', async () => {
  const names = ['post-a', 'post-b', 'post-c', 'post-d'];
  const bodies = names.map((n) => body(n, 30 * MB));
  // Bytes made before the clock starts: the test's own thread then only sends them.
  const bytes = bodies.map((b) => Buffer.from(b.text));
  let answered = false;
  const health: number[] = [];
  const failed: string[] = [];
  const poller = (async () => {
    while (!answered) {
      const t0 = performance.now();
      const h = await hub.fetch('/health');
      if (h.status !== 200) failed.push(`${h.status} ${await h.text()}`);
      else await h.arrayBuffer();
      health.push(performance.now() - t0);
      await sleep(20);
    }
  })();
  // The poller has a connection before the posts begin.
  while (health.length < 3) await sleep(10);
  const replies = await Promise.all(
    names.map(async (n, k) => {
      const res = await post(n, bytes[k]!);
      return { status: res.status, reply: (await res.json()) as { received: number; written: number; unchanged: number; maxUpdated: number } };
    }),
  );
  answered = true;
  await poller;

  for (const [k, r] of replies.entries()) {
    const n = bodies[k]!.count;
    assert.deepEqual([r.status, r.reply.received, r.reply.written, r.reply.unchanged], [200, n, n, 0], JSON.stringify(r.reply));
  }
  const sorted = [...health].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
  const slowest = sorted[sorted.length - 1]!;
  console.log(`# /api/health during four 30 MB dataset posts: ${health.length} polls, p99 ${p99.toFixed(0)} ms, slowest ${slowest.toFixed(0)} ms`);
  assert.ok(health.length >= 3, `health was asked while the posts were under way (${health.length} times)`);
  assert.deepEqual(failed, [], 'every health poll was answered with 200');
  // A generous bound for a loaded machine (the 100 ms aim is measured in test/bench/concurrent-push-bench.ts).
  assert.ok(slowest < 1000, `no health poll waited 1 s or more (the slowest: ${slowest.toFixed(0)} ms)`);
  for (const [k, name] of names.entries()) {
    const info = await hub.json<{ count: number; 'max-updated': number }>(`/datasets/${name}`);
    assert.equal(info.count, bodies[k]!.count, `${name} holds as many entities as were posted to it`);
    assert.equal(info['max-updated'], replies[k]!.reply.maxUpdated, `${name}: the answer names the dataset's end`);
    const last = bodies[k]!.count - 1;
    const e = await hub.json<{ _id: string; n: number; from: string; pad: string }>(`/datasets/${name}/entity?entity_id=${name}-${last}`);
    assert.deepEqual([e._id, e.n, e.from, e.pad], [`${name}-${last}`, last, name, pad], 'the last entity is stored as it was sent');
  }

  // The same body again: every entity unchanged, nothing written, the end stays; with force, all written again.
  const again = (await (await post('post-a', bodies[0]!.text)).json()) as Record<string, number>;
  assert.deepEqual(again, { received: bodies[0]!.count, written: 0, unchanged: bodies[0]!.count, maxUpdated: replies[0]!.reply.maxUpdated });
  const forced = await hub.fetch('/datasets/post-a/entities?force=true', { method: 'POST', body: bodies[0]!.text, headers: { 'content-type': 'application/json' } });
  const f = (await forced.json()) as Record<string, number>;
  assert.deepEqual([f['received'], f['written'], f['unchanged']], [bodies[0]!.count, bodies[0]!.count, 0]);
  assert.ok(f['maxUpdated']! > replies[0]!.reply.maxUpdated, 'the forced write moved the end');
});

test('a large body whose late entity is bad, or whose end is malformed, is a 400 in words and writes nothing', async () => {
  const { text } = body('bad', 20 * MB);
  const cases: { name: string; text: string; detail: RegExp }[] = [
    { name: 'a number as _id', text: text.slice(0, -1) + ',{"_id": 7, "n": 1}]', detail: /_id/ },
    { name: 'malformed end', text: text.slice(0, -1) + ',{"_id": "x", "n": }]', detail: /./ },
    { name: 'a lone surrogate in a property name', text: text.slice(0, -1) + ',{"_id": "y", "\\ud800": 1}]', detail: /surrogate/ },
    { name: 'invalid UTF-8', text: '', detail: /UTF-8/ },
  ];
  for (const c of cases) {
    const res =
      c.name === 'invalid UTF-8'
        ? await hub.fetch('/datasets/bad-body/entities', {
            method: 'POST',
            body: Buffer.concat([Buffer.from(text.slice(0, -1) + ',{"_id": "z", "v": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}]')]),
            headers: { 'content-type': 'application/json' },
          })
        : await post('bad-body', c.text);
    const e = await expectError(res, 400, c.name);
    assert.match(`${e.error} ${String(e.detail)}`, c.detail, `${c.name}: the error says why`);
    const ds = await hub.fetch('/datasets/bad-body');
    await ds.text();
    assert.equal(ds.status, 404, `${c.name}: nothing was written, not even an empty dataset`);
  }
});

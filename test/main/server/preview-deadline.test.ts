// Previews, traces, step-throughs and impacts evaluate DTL in preview workers with a deadline (issue 32.1): a runaway
// transform there ends with the 422 in words the route gave before, while /api/health answers throughout (before, it
// held the hub's own thread for 10-12 s), and an ordinary preview works right after (a fresh worker if one was
// stopped). A pipe whose transform takes a $SECRET as its encrypt/decrypt key gets the value in its worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, useHub } from '../../helpers/hub-process.js';
import { whileHealthPolled } from '../../helpers/runaway.js';
import { pushEntities, waitFor } from '../../helpers/api.js';

type Json = Record<string, unknown>;

// The evaluator's own bound per entity is 2 s here (10 s by default), so each runaway below ends in about 2 s.
const LIMIT = { DATAHUB_ENTITY_TIME_LIMIT_MS: '2000' };
const hub = useHub({ env: process.env['PREVIEW_DEADLINE_ENV'] === 'off' ? { ...LIMIT, DATAHUB_PREVIEW_WORKERS: '0' } : LIMIT });

/** Far more than the bound the hub allows one entity; light on memory (each range is summed and dropped). */
const SPIN = ['add', 'n', ['count', ['map', ['sum', ['range', 0, 100000]], ['range', 0, 100000]]]];
const KEY = 'a-long-passphrase-5678';
const PEOPLE = [{ _id: 'ann', name: 'Ann' }, { _id: 'bob', name: 'Bob' }];
const rules = (...rule: unknown[]): Json => ({ type: 'dtl', rules: { default: [['copy', '*'], ...rule] } });

const polled = <T>(work: () => Promise<T>): Promise<{ result: T; slowest: number; ms: number }> => whileHealthPolled(hub, work);

async function post(path: string, json: unknown, signal?: AbortSignal): Promise<{ status: number; body: Json }> {
  const res = await hub.fetch(path, { method: 'POST', json, signal: signal ?? AbortSignal.timeout(120_000) });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A runaway evaluation answered 422 in words within its bound while /api/health stayed quick. */
async function runaway(t: { diagnostic(s: string): void }, what: string, work: () => Promise<{ status: number; body: Json }>): Promise<void> {
  const { result, slowest, ms } = await polled(work);
  t.diagnostic(`${what}: ${result.status} after ${ms.toFixed(0)} ms; slowest /api/health ${slowest.toFixed(0)} ms`);
  assert.equal(result.status, 422, JSON.stringify(result.body));
  assert.match(String(result.body['error']), /takes too long|holds the hub too long/);
  assert.ok(ms < 30_000, `${what} ended after ${ms.toFixed(0)} ms`);
  assert.ok(slowest < 1000, `/api/health answered within 1 s throughout ${what} (slowest ${slowest.toFixed(0)} ms)`);
}

test('setup: a dataset and pipes to preview', async () => {
  await pushEntities(hub, 'people', PEOPLE);
  await hub.json('/secrets', { method: 'POST', json: { 'fernet-pass': KEY } });
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      { _id: 'people-out', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, transform: rules(['add', 'hello', ['concat', 'hi ', '_S.name']]), pump: { mode: 'manual' } },
      {
        _id: 'keyed',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'people' },
        transform: rules(['add', 'round-trip', ['decrypt', '$SECRET(fernet-pass)', ['encrypt', '$SECRET(fernet-pass)', '_S.name']]]),
        pump: { mode: 'manual' },
      },
    ],
  });
});

test('a runaway DTL preview ends 422 while /api/health answers, and the next preview works', async (t) => {
  let busy: unknown;
  await runaway(t, 'dtl preview', async () => {
    const answer = post('/dtl/preview', { transform: rules(SPIN), entities: [{ _id: 'x' }] });
    // /status shows the preview worker busy while the runaway runs.
    busy = await waitFor('a busy preview worker', async () => (((await hub.json<Json>('/status'))['preview_workers'] as Json)['busy'] === 1 ? true : undefined), 5000).catch(() => false);
    return answer;
  });
  assert.equal(busy, true, '/status showed the preview worker busy');
  const ok = await post('/dtl/preview', { transform: rules(['add', 'twice', ['*', 2, '_S.n']]), entities: [{ _id: 'y', n: 21 }] });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.deepEqual((ok.body['results'] as { entities: Json[] }[])[0]!.entities, [{ _id: 'y', n: 21, twice: 42 }]);
});

test('a runaway pipe preview with a trace ends 422 while /api/health answers, and the next preview works', async (t) => {
  const draft = { source: { type: 'dataset', dataset: 'people' }, transform: rules(SPIN) };
  await runaway(t, 'pipe preview with trace', () => post('/pipes/people-out/preview', { config: draft, trace: true }));
  const ok = await post('/pipes/people-out/preview', { trace: true });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const results = ok.body['results'] as { 'after-transforms': Json[]; trace?: unknown }[];
  assert.deepEqual(results.map((r) => r['after-transforms'][0]!['hello']), ['hi Ann', 'hi Bob']);
  assert.ok(results.every((r) => r.trace !== undefined), 'each entity has its trace');
});

test('a runaway step-through ends 422 while /api/health answers, and the next one works', async (t) => {
  const draft = { source: { type: 'dataset', dataset: 'people' }, transform: rules(SPIN) };
  await runaway(t, 'step-through', () => post('/pipes/people-out/step-through', { config: draft, 'entity-id': 'bob' }));
  const ok = await post('/pipes/people-out/step-through', { 'entity-id': 'bob' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const output = ok.body['output'] as Json[];
  assert.deepEqual(output.map((e) => [e['_id'], e['hello']]), [['bob', 'hi Bob']]);
});

test('a stored pipe\'s entities at the sink stage with a runaway rule end 422 while /api/health answers; the stages work after', async (t) => {
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'spinning', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, transform: rules(SPIN), pump: { mode: 'manual' } }] });
  await runaway(t, 'entities at the sink stage', async () => {
    const res = await hub.fetch('/pipes/spinning/entities?stage=sink', { signal: AbortSignal.timeout(120_000) });
    return { status: res.status, body: (await res.json()) as Json };
  });
  // The stages of another pipe: the transform ran (in a fresh worker), its output as the preview gives it.
  const sink = await hub.json<Json[]>('/pipes/people-out/entities?stage=after-transforms');
  assert.deepEqual(sink.map((e) => e['hello']), ['hi Ann', 'hi Bob']);
  assert.deepEqual(await hub.json<Json[]>('/pipes/people-out/entities?stage=after-transforms&limit=1'), [sink[0]]);
});

test('a runaway impact fails 422-words while /api/health answers, and the next impact works', async (t) => {
  const draft = { _id: 'people-out', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, transform: rules(SPIN), pump: { mode: 'manual' } };
  const job = async (): Promise<{ status: number; body: Json }> => {
    const started = await hub.fetch('/pipes/people-out/impact?tests=false', { method: 'POST', json: draft });
    assert.equal(started.status, 202, await started.clone().text());
    const done = await waitFor('the impact to end', async () => {
      const j = await hub.json<Json>('/pipes/people-out/impact');
      return j['status'] === 'running' ? undefined : j;
    }, 60_000);
    assert.equal(done['status'], 'failed', JSON.stringify(done));
    return { status: 422, body: done['error'] as Json };
  };
  await runaway(t, 'impact', job);
  const plain = { _id: 'people-out', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, transform: rules(['add', 'x', 1]), pump: { mode: 'manual' } };
  assert.equal((await hub.fetch('/pipes/people-out/impact?tests=false', { method: 'POST', json: plain })).status, 202);
  const done = await waitFor('the impact to end', async () => {
    const j = await hub.json<Json>('/pipes/people-out/impact');
    return j['status'] === 'running' ? undefined : j;
  }, 30_000);
  assert.equal(done['status'], 'done', JSON.stringify(done));
  // Nothing was ever run: both people would be added with x = 1.
  const result = done['result'] as Json;
  assert.equal(result['added'], 2);
  assert.deepEqual((result['samples'] as { after: Json }[]).map((s) => s.after['x']), [1, 1]);
});

test('a pipe whose transform takes a $SECRET as its key: a runaway preview ends 422, an ordinary one has the key', async (t) => {
  const draft = {
    source: { type: 'dataset', dataset: 'people' },
    transform: rules(['add', 'sealed', ['encrypt', '$SECRET(fernet-pass)', '_S.name']], SPIN),
  };
  await runaway(t, 'preview of a pipe keyed by a secret', () => post('/pipes/keyed/preview', { config: draft }));
  const ok = await post('/pipes/keyed/preview', { trace: true });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const results = ok.body['results'] as { 'after-transforms': Json[] }[];
  assert.deepEqual(results.map((r) => r['after-transforms'][0]!['round-trip']), ['Ann', 'Bob'], 'decrypted with the secret key');
  assert.ok(!JSON.stringify(ok.body).includes(KEY), 'the key never shows');
  assert.ok(!hub.output().includes(KEY), 'the key is never logged');
});

test('a preview whose client goes away is stopped: its worker is free for the next one at once', async () => {
  // Two runaways take both preview workers; their clients give up after 1 s.
  const gone = [0, 1].map(() => post('/dtl/preview', { transform: rules(SPIN), entities: [{ _id: 'x' }] }, AbortSignal.timeout(1000)).catch(() => 'aborted'));
  assert.deepEqual(await Promise.all(gone), ['aborted', 'aborted']);
  const workers = await waitFor('both stops to show', async () => {
    const w = (await hub.json<Json>('/status'))['preview_workers'] as Json;
    return w['stopped_client_gone'] === 2 ? w : undefined;
  });
  assert.equal(workers['count'], 2, JSON.stringify(workers));
  // The count above is what shows the stops (with this hub's 2 s bound a runaway would soon end by itself too).
  const ok = await post('/dtl/preview', { transform: rules(['add', 'y', 1]), entities: [{ _id: 'z' }] });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.deepEqual((ok.body['results'] as { entities: Json[] }[])[0]!.entities, [{ _id: 'z', y: 1 }]);
});

test('past its deadline a preview\'s worker is terminated: 422 in words at the deadline, and a fresh worker answers next', async (t) => {
  // A 2 s deadline, well before the evaluator's own 10 s check: only terminating the worker ends the job then.
  const short = await startHub({ env: { DATAHUB_PREVIEW_DEADLINE_MS: '2000' } });
  try {
    const t0 = performance.now();
    const res = await short.fetch('/dtl/preview', { method: 'POST', json: { transform: rules(SPIN), entities: [{ _id: 'x' }] }, signal: AbortSignal.timeout(60_000) });
    const ms = performance.now() - t0;
    const body = (await res.json()) as Json;
    t.diagnostic(`answered ${res.status} after ${ms.toFixed(0)} ms`);
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.equal(body['error'], 'the transform takes too long');
    assert.match(String(body['detail']), /more than 2 s and was stopped/);
    assert.ok(ms < 8000, `answered after ${ms.toFixed(0)} ms, not after the evaluator's own 10 s`);
    // /status shows the restart, and the replacement worker starts before the next job asks for one.
    const workers = await waitFor('the replacement worker to start', async () => {
      const w = (await short.json<Json>('/status'))['preview_workers'] as Json;
      return w['started'] === 1 ? w : undefined;
    }, 10_000);
    assert.equal(workers['restarts_after_deadline'], 1, JSON.stringify(workers));
    assert.equal(workers['busy'], 0);
    assert.equal(workers['deadline_ms'], 2000);
    const ok = await short.fetch('/dtl/preview', { method: 'POST', json: { transform: rules(['add', 'y', 1]), entities: [{ _id: 'z' }] } });
    assert.equal(ok.status, 200);
    assert.deepEqual(((await ok.json()) as { results: { entities: Json[] }[] }).results[0]!.entities, [{ _id: 'z', y: 1 }]);
  } finally {
    await short.stop();
  }
});

test('previews, traces, step-throughs and impacts answer the same in preview workers as on the hub\'s thread', async () => {
  // The same requests to a hub with preview workers and one without (DATAHUB_PREVIEW_WORKERS=0, as before): hops read
  // through the worker's connection, a chain, traces, "source-of", a breakpoint condition (and a bad one), an
  // encrypt/decrypt keyed by a secret, and two impacts. Only write times and the random Fernet token may differ.
  const transform = [
    {
      type: 'dtl',
      rules: {
        default: [
          ['copy', '*'],
          ['add', 'team-title', ['hops', { datasets: ['teams t'], where: ['eq', '_S.team', 't._id'] }]],
          ['add', 'sealed', ['decrypt', '$SECRET(k)', ['encrypt', '$SECRET(k)', '_S.name']]],
          ['filter', ['neq', '_S._id', 'cid']],
        ],
      },
    },
    { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'n', ['length', '_S.name']], ['add', 'bad', ['+', '_S.name', 1]]] } },
  ];
  const pipe = { _id: 'p', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, transform, pump: { mode: 'manual' } };
  const answers = async (env: NodeJS.ProcessEnv): Promise<string[]> => {
    const h = await startHub({ env });
    try {
      await pushEntities(h, 'people', [{ _id: 'ann', name: 'Ann', f: 1.5, team: 't1' }, { _id: 'bob', name: 'Bob', team: 't2' }, { _id: 'cid', name: 'Cid', team: 't1' }]);
      await pushEntities(h, 'teams', [{ _id: 't1', title: 'One' }, { _id: 't2', title: 'Two' }]);
      await h.json('/secrets', { method: 'POST', json: { k: KEY } });
      await h.json('/pipes', { method: 'POST', json: [pipe] });
      const answer = async (path: string, json: unknown): Promise<string> => {
        const res = await h.fetch(path, { method: 'POST', json });
        return `${res.status} ${await res.text()}`;
      };
      const out = [
        await answer('/dtl/preview', { transform, entities: [{ _id: 'a', name: 'A', team: 't2' }, { _id: 'cid', name: 'C' }], trace: true }),
        await answer('/dtl/preview', { transform: transform[0], entities: [{ _id: 'a', name: 'A', team: 't2' }], pipe: 'p' }),
        await answer('/pipes/p/preview', { trace: true }),
        await answer('/pipes/p/preview', { 'source-of': 'ann', trace: true }),
        await answer('/pipes/p/preview', { entities: [{ _id: 'z', name: 'Zed', team: 't1' }] }),
        await answer('/pipes/p/step-through', { 'entity-id': 'ann', condition: ['eq', '_S._id', 'ann'] }),
        await answer('/pipes/p/step-through', { 'entity-id': 'ann', condition: ['nope'] }),
      ];
      for (const draft of [{ ...pipe, transform: transform[0] }, pipe]) {
        assert.equal((await h.fetch('/pipes/p/impact?tests=false', { method: 'POST', json: draft })).status, 202);
        const job = await waitFor('the impact to end', async () => {
          const j = await h.json<Json>('/pipes/p/impact');
          return j['status'] === 'running' ? undefined : j;
        }, 30_000);
        out.push(JSON.stringify({ ...job, id: '', started: '', finished: '' }));
      }
      return out;
    } finally {
      await h.stop();
    }
  };
  const times = (text: string): string => text.replace(/\d{16}/g, 'T').replace(/"~b[A-Za-z0-9_=-]+"/g, '"~b…"');
  const before = (await answers({ DATAHUB_PREVIEW_WORKERS: '0' })).map(times);
  const after = (await answers({})).map(times);
  assert.ok(before.every((a) => a.startsWith('200 ') || a.startsWith('400 ') || a.startsWith('{')), before.map((a) => a.slice(0, 200)).join('\n'));
  assert.ok(before[0]!.includes('"team-title":[{"_id":"t2"'), 'the hops found the team');
  for (const [i, a] of before.entries()) assert.equal(after[i], a, `answer #${i}`);
});

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { expectError } from '../../helpers/api.js';

interface Stored {
  _id: string;
  _updated: number;
  _deleted: boolean;
  _previous: number | null;
  _hash: string;
  [key: string]: unknown;
}

interface DatasetInfo {
  populated: boolean;
  'max-updated': number | null;
  count: number;
  'deleted-count': number;
}

let hub: HubProcess;

before(async () => {
  hub = await startHub();
});

after(async () => {
  if (hub) {
    await hub.stop();
    removeDir(hub.dataDir);
  }
});

const brief = (entities: Stored[]): string[] => entities.map((e) => `${e._id}@${e._updated}${e._deleted ? '!' : ''}`);

async function createReceiverPipe(id: string): Promise<void> {
  await hub.json('/pipes', { method: 'POST', json: [{ _id: id, type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: id } }] });
}

interface PushQuery {
  sequence_id?: string;
  is_full?: boolean;
  request_id?: string;
  previous_request_id?: string;
  is_first?: boolean;
  is_last?: boolean;
}

function push(pipe: string, entities: unknown, query: PushQuery = {}): Promise<Response> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
  const q = qs.toString();
  return hub.fetch(`/receivers/${encodeURIComponent(pipe)}/entities${q ? '?' + q : ''}`, { method: 'POST', json: entities });
}

async function pushOk(pipe: string, entities: unknown, query: PushQuery = {}): Promise<Record<string, unknown>> {
  const res = await push(pipe, entities, query);
  const text = await res.text();
  assert.equal(res.status, 200, `push to ${pipe} ${JSON.stringify(query)} -> ${res.status}: ${text}`);
  const body = JSON.parse(text) as unknown;
  assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), 'the receiver answers a JSON object');
  return body as Record<string, unknown>;
}

async function all(dataset: string, query = ''): Promise<Stored[]> {
  return hub.json<Stored[]>(`/datasets/${encodeURIComponent(dataset)}/entities${query ? '?' + query : ''}`);
}

const ents = (...ids: string[]): { _id: string; v: string }[] => ids.map((id) => ({ _id: id, v: id }));

describe('JSON Push receiver', () => {
  test('a plain batch is written to the sink dataset; the same batch again writes nothing', async () => {
    await createReceiverPipe('plain');
    const first = await pushOk('plain', ents('a', 'b', 'c'));
    assert.ok(first !== null);
    assert.deepEqual(brief(await all('plain')), ['a@0', 'b@1', 'c@2']);
    const stored = await all('plain');
    assert.deepEqual(stored.map((e) => e['v']), ['a', 'b', 'c']);
    await pushOk('plain', ents('a', 'b', 'c'));
    assert.deepEqual(brief(await all('plain')), ['a@0', 'b@1', 'c@2'], 'posting the same entities only records changes');
    await pushOk('plain', [{ _id: 'b', v: 'changed' }, { _id: 'c', _deleted: true }]);
    assert.deepEqual(brief(await all('plain')), ['a@0', 'b@1', 'c@2', 'b@3', 'c@4!']);
    const info = await hub.json<DatasetInfo>('/datasets/plain');
    assert.equal(info.populated, false, 'a plain batch does not populate the dataset');
  });

  test('a full sync over 3 requests deletes the entities it did not send and populates the dataset', async () => {
    await createReceiverPipe('full');
    await pushOk('full', ents('e1', 'e2', 'e3', 'e4', 'e5', 'e6'));
    assert.deepEqual(brief(await all('full')), ['e1@0', 'e2@1', 'e3@2', 'e4@3', 'e5@4', 'e6@5']);
    const seq = { sequence_id: 'seq-1', is_full: true };
    await pushOk('full', ents('e1', 'e2'), { ...seq, request_id: 'r1', is_first: true });
    await pushOk('full', [...ents('e3'), { _id: 'e7', v: 'new' }], { ...seq, request_id: 'r2', previous_request_id: 'r1' });
    // Nothing is deleted and the dataset is not populated before the last request.
    assert.deepEqual(brief(await all('full')), ['e1@0', 'e2@1', 'e3@2', 'e4@3', 'e5@4', 'e6@5', 'e7@6']);
    assert.equal((await hub.json<DatasetInfo>('/datasets/full')).populated, false);
    await pushOk('full', ents('e4'), { ...seq, request_id: 'r3', previous_request_id: 'r2', is_last: true });

    const latest = await all('full', 'history=false');
    const byId = new Map(latest.map((e) => [e._id, e]));
    for (const id of ['e1', 'e2', 'e3', 'e4', 'e7']) assert.equal(byId.get(id)?._deleted, false, `${id} was sent and is live`);
    for (const id of ['e5', 'e6']) {
      const e = byId.get(id);
      assert.ok(e, `${id} is still in the dataset`);
      assert.equal(e._deleted, true, `${id} was not sent and is deleted`);
      assert.ok(e._updated > 6, `${id} got a new deleted version`);
      assert.equal(e['v'], id, 'a deleted version keeps the content');
    }
    const log = await all('full');
    assert.equal(log.length, 9, 'exactly two deleted versions were written');
    const tail = log.slice(7);
    assert.deepEqual(tail.map((e) => e._id).sort(), ['e5', 'e6']);
    assert.deepEqual(tail.map((e) => e._updated), [7, 8]);
    assert.ok(tail.every((e) => e._deleted));
    assert.deepEqual(tail.map((e) => e._previous).sort(), [4, 5]);
    assert.deepEqual(brief(await all('full', 'history=false&deleted=false')).map((s) => s.split('@')[0]), ['e1', 'e2', 'e3', 'e4', 'e7']);
    const info = await hub.json<DatasetInfo>('/datasets/full');
    assert.equal(info.populated, true);
    assert.equal(info.count, 5);
    assert.equal(info['deleted-count'], 2);
    const res = await hub.fetch('/datasets/full/entities?populated=true');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-dataset-populated'), 'true');
    await res.text();

    // A second full sync that sends everything again changes nothing.
    const seq2 = { sequence_id: 'seq-2', is_full: true };
    await pushOk('full', ents('e1', 'e2', 'e3'), { ...seq2, request_id: 'q1', is_first: true });
    await pushOk('full', [...ents('e4'), { _id: 'e7', v: 'new' }], { ...seq2, request_id: 'q2', previous_request_id: 'q1', is_last: true });
    assert.equal((await hub.json<DatasetInfo>('/datasets/full'))['max-updated'], 8);
  });

  test('a partial (not full) sequence deletes nothing', async () => {
    await createReceiverPipe('partial');
    await pushOk('partial', ents('p1', 'p2', 'p3', 'p4'));
    const seq = { sequence_id: 'ps', is_full: false };
    await pushOk('partial', [{ _id: 'p1', v: 'changed' }], { ...seq, request_id: 'r1', is_first: true });
    await pushOk('partial', ents('p5'), { ...seq, request_id: 'r2', previous_request_id: 'r1' });
    await pushOk('partial', [], { ...seq, request_id: 'r3', previous_request_id: 'r2', is_last: true });
    assert.deepEqual(brief(await all('partial')), ['p1@0', 'p2@1', 'p3@2', 'p4@3', 'p1@4', 'p5@5']);
    const info = await hub.json<DatasetInfo>('/datasets/partial');
    assert.equal(info['deleted-count'], 0);
    assert.equal(info.count, 5);
    assert.equal(info.populated, false, 'a partial sync does not populate the dataset');
  });

  test('an out-of-order request answers 409 and writes nothing; the sequence can go on', async () => {
    await createReceiverPipe('order');
    await pushOk('order', ents('o1', 'o2', 'o3'));
    const seq = { sequence_id: 'os', is_full: true };
    await pushOk('order', ents('o1'), { ...seq, request_id: 'r1', is_first: true });
    const before = await hub.json<DatasetInfo>('/datasets/order');
    await expectError(await push('order', ents('x1', 'x2'), { ...seq, request_id: 'r3', previous_request_id: 'r2' }), 409, 'wrong previous_request_id');
    await expectError(await push('order', ents('x3'), { ...seq, request_id: 'r2' }), 409, 'missing previous_request_id');
    const after = await hub.json<DatasetInfo>('/datasets/order');
    assert.equal(after['max-updated'], before['max-updated'], 'nothing was written');
    assert.deepEqual(brief(await all('order')), ['o1@0', 'o2@1', 'o3@2']);
    // The refused requests did not break the sequence: it continues from r1.
    await pushOk('order', ents('o2'), { ...seq, request_id: 'r2', previous_request_id: 'r1', is_last: true });
    const latest = await all('order', 'history=false');
    assert.deepEqual(brief(latest), ['o1@0', 'o2@1', 'o3@3!'], 'x1..x3 never arrived and o3 (not sent) is deleted');
    assert.equal((await hub.json<DatasetInfo>('/datasets/order')).populated, true);
  });

  test('a pipe removed by replacing its config group takes its push state along: a new pipe of that id starts afresh', async () => {
    const pipe = { _id: 'grouped', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'grouped' }, metadata: { '$config-group': 'pushers' } };
    await hub.json('/config/pushers', { method: 'PUT', json: [pipe] });
    const seq = { sequence_id: 'gs', is_full: true };
    await pushOk('grouped', ents('g1'), { ...seq, request_id: 'r1', is_first: true });
    await hub.json('/config/pushers', { method: 'PUT', json: [] });
    await expectError(await push('grouped', ents('g2'), { ...seq, request_id: 'r2', previous_request_id: 'r1' }), 404, 'the pipe is gone');
    await hub.json('/config/pushers', { method: 'PUT', json: [pipe] });
    await expectError(
      await push('grouped', ents('g2'), { ...seq, request_id: 'r2', previous_request_id: 'r1' }),
      409,
      'the old sequence went with the old pipe',
    );
  });

  test('retrying the same request_id is harmless', async () => {
    await createReceiverPipe('retry');
    const seq = { sequence_id: 'rs', is_full: true };
    await pushOk('retry', ents('a', 'b'), { ...seq, request_id: 'r1', is_first: true });
    await pushOk('retry', ents('c', 'd'), { ...seq, request_id: 'r2', previous_request_id: 'r1' });
    // The answer to r2 was lost: the client sends r2 again.
    await pushOk('retry', ents('c', 'd'), { ...seq, request_id: 'r2', previous_request_id: 'r1' });
    assert.deepEqual(brief(await all('retry')), ['a@0', 'b@1', 'c@2', 'd@3'], 'the retry wrote nothing new');
    await pushOk('retry', ents('e'), { ...seq, request_id: 'r3', previous_request_id: 'r2', is_last: true });
    assert.deepEqual(brief(await all('retry')), ['a@0', 'b@1', 'c@2', 'd@3', 'e@4'], 'everything sent in the sync is kept');
    const info = await hub.json<DatasetInfo>('/datasets/retry');
    assert.equal(info.populated, true);
    assert.equal(info['deleted-count'], 0);
  });

  test('retrying the last request of a full sync is harmless', async () => {
    await createReceiverPipe('retry-last');
    const seq = { sequence_id: 'rl', is_full: true };
    await pushOk('retry-last', ents('a', 'b'), { ...seq, request_id: 'r1', is_first: true });
    await pushOk('retry-last', ents('c'), { ...seq, request_id: 'r2', previous_request_id: 'r1', is_last: true });
    const before = await all('retry-last');
    const res = await push('retry-last', ents('c'), { ...seq, request_id: 'r2', previous_request_id: 'r1', is_last: true });
    await res.text();
    // Whether the hub accepts or refuses the late retry, it must not delete what the completed sync sent.
    assert.deepEqual(brief(await all('retry-last')), brief(before));
    assert.equal((await hub.json<DatasetInfo>('/datasets/retry-last'))['deleted-count'], 0);
  });

  test('a plain batch in the middle of a full sync never makes the sync delete what it was sent', async () => {
    await createReceiverPipe('interleaved');
    await pushOk('interleaved', ents('a', 'b', 'c', 'old'));
    const seq = { sequence_id: 'is', is_full: true };
    await pushOk('interleaved', ents('a', 'b'), { ...seq, request_id: 'r1', is_first: true });
    await pushOk('interleaved', ents('z'));
    const res = await push('interleaved', ents('c'), { ...seq, request_id: 'r2', previous_request_id: 'r1', is_last: true });
    await res.text();
    // The hub may refuse to finish the interrupted sync (409) or finish it; either way a, b and c were sent in it.
    assert.ok(res.status === 200 || res.status === 409, `last request -> ${res.status}`);
    const latest = new Map((await all('interleaved', 'history=false')).map((e) => [e._id, e]));
    for (const id of ['a', 'b', 'c', 'z']) assert.equal(latest.get(id)?._deleted, false, `${id} is live`);
  });

  test('a full sync that would delete more than the circuit breaker allows trips it and deletes nothing', async () => {
    await hub.json('/pipes', {
      method: 'POST',
      json: [{ _id: 'guarded', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'guarded', circuit_breaker_threshold_count: 3 } }],
    });
    // Four runs of three changes each stay under the threshold.
    for (let i = 0; i < 4; i++) await pushOk('guarded', ents(`a${i}`, `b${i}`, `c${i}`));
    const before = await all('guarded');
    assert.equal(before.length, 12);
    // A source that suddenly sends (almost) nothing: the sync would delete 11 entities.
    const res = await push('guarded', ents('a0'), { sequence_id: 'g', is_full: true, request_id: 'r1', is_first: true, is_last: true });
    await expectError(res, 409, 'deleting 11 entities with a threshold of 3');
    assert.deepEqual(brief(await all('guarded')), brief(before), 'nothing was deleted');
    const info = await hub.json<DatasetInfo & { 'circuit-breaker': { tripped: boolean; 'pending-count': number } }>('/datasets/guarded');
    assert.equal(info['deleted-count'], 0);
    assert.equal(info.populated, false, 'the interrupted sync did not populate the dataset');
    assert.equal(info['circuit-breaker'].tripped, true);
    const rollback = await hub.fetch('/datasets/guarded', {
      method: 'POST',
      body: 'operation=rollback-circuit-breaker',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(rollback.status, 200, await rollback.text());
    assert.deepEqual(brief(await all('guarded')), brief(before), 'rolling back keeps every entity');
    await pushOk('guarded', ents('d0'));
  });

  test('a request of an unknown sequence answers 409', async () => {
    await createReceiverPipe('unknown-seq');
    await pushOk('unknown-seq', ents('u1'));
    await expectError(
      await push('unknown-seq', ents('u2'), { sequence_id: 'never-started', is_full: true, request_id: 'r2', previous_request_id: 'r1' }),
      409,
      'sequence never started',
    );
    // Another sequence is running: a request naming a different sequence is refused too.
    await pushOk('unknown-seq', ents('u1'), { sequence_id: 'current', is_full: true, request_id: 'c1', is_first: true });
    await expectError(
      await push('unknown-seq', ents('u3'), { sequence_id: 'other', is_full: true, request_id: 'o2', previous_request_id: 'o1' }),
      409,
      'a sequence that is not the current one',
    );
    assert.deepEqual(brief(await all('unknown-seq')), ['u1@0']);
  });

  test('a receiver on a pipe whose source is not http_endpoint is refused', async () => {
    await hub.json('/datasets/src/entities', { method: 'POST', json: ents('s1') });
    await hub.json('/pipes', { method: 'POST', json: [{ _id: 'from-dataset', type: 'pipe', source: { type: 'dataset', dataset: 'src' } }] });
    await expectError(await push('from-dataset', ents('x')), '4xx', 'dataset source');
    const names = (await hub.json<{ _id: string }[]>('/datasets')).map((d) => d._id);
    assert.ok(!names.includes('from-dataset') || (await all('from-dataset')).length === 0, 'nothing was written to the sink');
  });

  test('an unknown pipe answers 404', async () => {
    await expectError(await push('no-such-pipe', ents('x')), 404, 'unknown pipe');
  });

  test('entities without a string _id are refused and nothing of the batch is written', async () => {
    await createReceiverPipe('invalid');
    await pushOk('invalid', ents('i1'));
    await expectError(await push('invalid', [...ents('i2'), { v: 'no id' }]), 400, 'missing _id');
    await expectError(await push('invalid', [...ents('i2'), { _id: 7 }]), 400, 'numeric _id');
    assert.deepEqual(brief(await all('invalid')), ['i1@0']);
  });
});

describe('a receiver pipe with a DTL transform', () => {
  test('transforms what it receives before the sink; filter writes deletes; a failing rule rejects the whole batch', async () => {
    await hub.json('/pipes', {
      method: 'POST',
      json: [
        {
          _id: 'people-in',
          type: 'pipe',
          source: { type: 'http_endpoint' },
          transform: {
            type: 'dtl',
            rules: {
              default: [
                ['filter', ['neq', '_S.status', 'gone']],
                ['if', ['eq', '_S.status', 'broken'], ['fail!', 'broken input']],
                ['copy', '_id'],
                ['add', 'name', ['upper', '_S.name']],
              ],
            },
          },
          sink: { type: 'dataset', dataset: 'people-out' },
        },
      ],
    });
    await pushOk('people-in', [
      { _id: 'a', name: 'ada', extra: 'dropped' },
      { _id: 'b', name: 'bob', status: 'gone' },
    ]);
    const out = await all('people-out', 'history=false');
    assert.deepEqual(
      out.map((e) => [e._id, e['name'] ?? null, e._deleted]),
      [
        ['a', 'ADA', false],
        ['b', null, true],
      ],
    );
    assert.equal((out[0] as Record<string, unknown>)['extra'], undefined);
    const before = await all('people-out');
    await expectError(await push('people-in', [{ _id: 'c', name: 'carl' }, { _id: 'd', status: 'broken' }]), 400, 'a rule fails');
    assert.deepEqual(await all('people-out'), before, 'nothing of the rejected batch was written');
  });
});

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { expectError } from '../../helpers/api.js';

/** A stored entity as the JSON Pull endpoints return it. */
interface Stored {
  _id: string;
  _updated: number;
  _deleted: boolean;
  _previous: number | null;
  _ts: number;
  _hash: string;
  _uncommitted?: boolean;
  [key: string]: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MD5 = /^[0-9a-f]{32}$/;

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

/** `id@offset` for each entity, with a `!` for deleted versions: compact and exact. */
const brief = (entities: Stored[]): string[] => entities.map((e) => `${e._id}@${e._updated}${e._deleted ? '!' : ''}`);

async function post(path: string, json: unknown): Promise<Response> {
  return hub.fetch(path, { method: 'POST', json });
}

async function postOk(path: string, json: unknown): Promise<unknown> {
  return hub.json(path, { method: 'POST', json });
}

async function read(path: string): Promise<{ res: Response; entities: Stored[] }> {
  const res = await hub.fetch(path);
  const text = await res.text();
  assert.equal(res.status, 200, `GET ${path} -> ${res.status}: ${text}`);
  const entities = JSON.parse(text) as Stored[];
  assert.ok(Array.isArray(entities), `GET ${path} answers a JSON array`);
  return { res, entities };
}

async function entities(path: string): Promise<Stored[]> {
  return (await read(path)).entities;
}

function form(operation: string): RequestInit {
  return { method: 'POST', body: new URLSearchParams({ operation }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
}

interface DatasetInfo {
  _id: string;
  generation: string;
  populated: boolean;
  'max-updated': number | null;
  count: number;
  'deleted-count': number;
  cached_response_info: { age: number; timestamp: string };
  'circuit-breaker': { enabled: boolean; tripped: boolean; 'pending-count': number };
}

const subsetParam = (expr: unknown): string => `subset=${encodeURIComponent(JSON.stringify(expr))}`;

describe('POST /datasets/<id>/entities and the dataset log', () => {
  const base = { name: 'first', tags: ['x', 'y'], nested: { b: 2, a: 1 } };
  let before0: number;
  let after0: number;

  test('posting to an unknown dataset creates it', async () => {
    await expectError(await hub.fetch('/datasets/log'), 404, 'dataset before the first write');
    before0 = Date.now();
    await postOk('/datasets/log/entities', [
      { _id: 'a', v: 1, ...base },
      { _id: 'b', v: 1, ...base },
      { _id: 'c', v: 1, ...base },
    ]);
    after0 = Date.now();
    const info = await hub.json<DatasetInfo>('/datasets/log');
    assert.equal(info._id, 'log');
    assert.equal(info['max-updated'], 2);
    assert.equal(info.count, 3);
  });

  test('stored entities carry _id _updated _deleted _previous _ts _hash and the content', async () => {
    const list = await entities('/datasets/log/entities');
    assert.deepEqual(brief(list), ['a@0', 'b@1', 'c@2']);
    for (const e of list) {
      for (const k of ['_id', '_updated', '_deleted', '_previous', '_ts', '_hash']) assert.ok(k in e, `${e._id} has ${k}`);
      assert.equal(e._deleted, false);
      assert.equal(e._previous, null, 'a first version has no previous version');
      assert.ok(Number.isInteger(e._ts), '_ts is an integer');
      // _ts is in microseconds since the epoch, taken while the request was handled.
      assert.ok(e._ts >= (before0 - 2000) * 1000 && e._ts <= (after0 + 2000) * 1000, `_ts ${e._ts} is microseconds around the write`);
      assert.match(e._hash, MD5);
      assert.equal(e['v'], 1);
      assert.deepEqual(e['tags'], ['x', 'y']);
      assert.deepEqual(e['nested'], { a: 1, b: 2 });
      assert.equal(e['name'], 'first');
    }
    assert.notEqual(list[0]!._hash, list[1]!._hash, 'different ids give different hashes');
  });

  test('offsets increase by one per accepted change; unchanged entities are skipped', async () => {
    // a changes, b is identical with its keys (and nested keys) in another order, d is new.
    await postOk('/datasets/log/entities', [
      { v: 2, ...base, _id: 'a' },
      { nested: { a: 1, b: 2 }, tags: ['x', 'y'], v: 1, name: 'first', _id: 'b' },
      { _id: 'd', v: 1 },
    ]);
    const list = await entities('/datasets/log/entities');
    assert.deepEqual(brief(list), ['a@0', 'b@1', 'c@2', 'a@3', 'd@4']);
    assert.equal(list[3]!._previous, 0, '_previous is the offset of the previous version');
    assert.equal(list[4]!._previous, null);
    assert.notEqual(list[3]!._hash, list[0]!._hash, 'changed content changes the hash');
  });

  test('re-posting identical content (keys in another order) writes nothing', async () => {
    const before = await hub.json<DatasetInfo>('/datasets/log');
    await postOk('/datasets/log/entities', [
      { tags: ['x', 'y'], _id: 'b', nested: { b: 2, a: 1 }, name: 'first', v: 1 },
      { _id: 'd', v: 1 },
    ]);
    const after = await hub.json<DatasetInfo>('/datasets/log');
    assert.equal(after['max-updated'], before['max-updated']);
    assert.equal(after['max-updated'], 4);
    assert.deepEqual(brief(await entities('/datasets/log/entities')), ['a@0', 'b@1', 'c@2', 'a@3', 'd@4']);
  });

  test('maintained properties sent by the client do not count as content', async () => {
    await postOk('/datasets/log/entities', [{ _id: 'd', v: 1, _updated: 77, _ts: 1, _hash: 'bogus', _previous: 3 }]);
    assert.equal((await hub.json<DatasetInfo>('/datasets/log'))['max-updated'], 4, 'nothing was written');
    const d = await hub.json<Stored>('/datasets/log/entity?entity_id=d');
    assert.equal(d._updated, 4);
    assert.match(d._hash, MD5);
  });

  test('force=true writes identical content anyway', async () => {
    await postOk('/datasets/log/entities?force=true', [{ _id: 'b', v: 1, ...base }]);
    const list = await entities('/datasets/log/entities');
    assert.deepEqual(brief(list), ['a@0', 'b@1', 'c@2', 'a@3', 'd@4', 'b@5']);
    assert.equal(list[5]!._previous, 1);
    assert.equal(list[5]!._hash, list[1]!._hash, 'same content, same hash');
  });

  test('_deleted: true writes a deleted version', async () => {
    await postOk('/datasets/log/entities', [{ _id: 'c', _deleted: true }]);
    const list = await entities('/datasets/log/entities');
    assert.deepEqual(brief(list), ['a@0', 'b@1', 'c@2', 'a@3', 'd@4', 'b@5', 'c@6!']);
    const c = list[6]!;
    assert.equal(c._deleted, true);
    assert.equal(c._previous, 2);
    // Deleting it again with the same content is no change.
    await postOk('/datasets/log/entities', [{ _id: 'c', _deleted: true }]);
    const info = await hub.json<DatasetInfo>('/datasets/log');
    assert.equal(info['max-updated'], 6);
    assert.equal(info.count, 3, 'a, b and d are live');
    assert.equal(info['deleted-count'], 1, 'c is deleted');
  });

  // The log is now a0 b1 c2 a3 d4 b5 c6(deleted); latest versions a3 d4 b5 c6.
  const cases: [string, string[]][] = [
    ['', ['a@0', 'b@1', 'c@2', 'a@3', 'd@4', 'b@5', 'c@6!']],
    ['history=true&deleted=true&reverse=false', ['a@0', 'b@1', 'c@2', 'a@3', 'd@4', 'b@5', 'c@6!']],
    ['history=false', ['a@3', 'd@4', 'b@5', 'c@6!']],
    ['deleted=false', ['a@0', 'b@1', 'c@2', 'a@3', 'd@4', 'b@5']],
    ['history=false&deleted=false', ['a@3', 'd@4', 'b@5']],
    ['reverse=true', ['c@6!', 'b@5', 'd@4', 'a@3', 'c@2', 'b@1', 'a@0']],
    ['reverse=true&history=false', ['c@6!', 'b@5', 'd@4', 'a@3']],
    ['reverse=true&deleted=false&limit=2', ['b@5', 'd@4']],
    ['since=2', ['a@3', 'd@4', 'b@5', 'c@6!']],
    ['since=3&history=false', ['d@4', 'b@5', 'c@6!']],
    ['since=2&limit=2', ['a@3', 'd@4']],
    ['since=6', []],
    ['since=-1', ['a@0', 'b@1', 'c@2', 'a@3', 'd@4', 'b@5', 'c@6!']],
    ['limit=3', ['a@0', 'b@1', 'c@2']],
    ['limit=0', []],
    ['limit=100', ['a@0', 'b@1', 'c@2', 'a@3', 'd@4', 'b@5', 'c@6!']],
    ['history=false&limit=2', ['a@3', 'd@4']],
  ];
  for (const [query, expected] of cases) {
    test(`GET entities ${query || '(no parameters)'}`, async () => {
      assert.deepEqual(brief(await entities(`/datasets/log/entities${query ? '?' + query : ''}`)), expected);
    });
  }

  test('a large batch: unchanged entities skipped, an id twice in one batch gives two versions, deletions counted', async () => {
    await postOk('/datasets/bulk/entities', Array.from({ length: 20 }, (_, i) => ({ _id: `e${i}`, v: 1 })));
    const batch = [
      ...Array.from({ length: 10 }, (_, i) => ({ v: 1, _id: `e${i}` })),
      { _id: 'e10', v: 2 },
      { _id: 'e11', v: 2 },
      { _id: 'e15', _deleted: true },
      { _id: 'n0', v: 1 },
      { _id: 'e10', v: 3 },
      { _id: 'n0', v: 1 },
      { _id: 'e16', v: 1 },
    ];
    await postOk('/datasets/bulk/entities', batch);
    const list = await entities('/datasets/bulk/entities?since=19');
    assert.deepEqual(brief(list), ['e10@20', 'e11@21', 'e15@22!', 'n0@23', 'e10@24']);
    assert.equal(list[4]!._previous, 20, 'the second e10 of the batch follows the first');
    assert.equal((await hub.json<Stored>('/datasets/bulk/entity?entity_id=e10'))['v'], 3);
    const info = await hub.json<DatasetInfo>('/datasets/bulk');
    assert.equal(info.count, 20, '20 live: e15 deleted, n0 new');
    assert.equal(info['deleted-count'], 1);
    // The same final state again: nothing to write.
    await postOk('/datasets/bulk/entities', [...batch.slice(0, 10), { _id: 'e10', v: 3 }, ...batch.slice(11, 14), ...batch.slice(15)]);
    assert.equal((await hub.json<DatasetInfo>('/datasets/bulk'))['max-updated'], 24);
  });

  test('paging with since = the last _updated of the previous page reads the whole log once', async () => {
    const seen: string[] = [];
    let since: number | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await entities(`/datasets/log/entities?limit=2${since !== undefined ? `&since=${since}` : ''}`);
      if (page.length === 0) break;
      seen.push(...brief(page));
      since = page[page.length - 1]!._updated;
    }
    assert.deepEqual(seen, ['a@0', 'b@1', 'c@2', 'a@3', 'd@4', 'b@5', 'c@6!']);
  });

  test('JSON Pull headers: max-updated is the last _updated when reading everything', async () => {
    const { res, entities: list } = await read('/datasets/log/entities');
    assert.equal(res.headers.get('x-dataset-max-updated'), JSON.stringify(list[list.length - 1]!._updated));
    assert.equal(res.headers.get('x-dataset-max-updated'), '6');
    assert.equal(res.headers.get('x-dataset-populated'), 'false');
    const info = await hub.json<DatasetInfo>('/datasets/log');
    assert.match(res.headers.get('x-dataset-generation') ?? '', UUID);
    assert.equal(res.headers.get('x-dataset-generation'), info.generation);
    // A partial read still reports the dataset's highest committed offset.
    const partial = await read('/datasets/log/entities?limit=1');
    assert.equal(partial.res.headers.get('x-dataset-max-updated'), '6');
    const reversed = await read('/datasets/log/entities?reverse=true');
    assert.equal(reversed.res.headers.get('x-dataset-max-updated'), '6');
  });

  test('GET /entity returns the latest version, or the version at an offset', async () => {
    const a = await hub.json<Stored>('/datasets/log/entity?entity_id=a');
    assert.equal(a._updated, 3);
    assert.equal(a['v'], 2);
    assert.equal(a._previous, 0);
    const a0 = await hub.json<Stored>('/datasets/log/entity?entity_id=a&offset=0');
    assert.equal(a0._updated, 0);
    assert.equal(a0['v'], 1);
    const a3 = await hub.json<Stored>('/datasets/log/entity?entity_id=a&offset=3');
    assert.deepEqual(a3, a);
    const c = await hub.json<Stored>('/datasets/log/entity?entity_id=c');
    assert.equal(c._updated, 6);
    assert.equal(c._deleted, true, 'the latest version of a deleted entity is its deleted version');
    await expectError(await hub.fetch('/datasets/log/entity?entity_id=a&offset=1'), 404, 'another entity is at offset 1');
    await expectError(await hub.fetch('/datasets/log/entity?entity_id=a&offset=99'), 404, 'nothing at offset 99');
    await expectError(await hub.fetch('/datasets/log/entity?entity_id=nope'), 404, 'unknown entity');
    await expectError(await hub.fetch('/datasets/nope/entity?entity_id=a'), 404, 'unknown dataset');
    await expectError(await hub.fetch('/datasets/log/entity?entity_id=a&offset=x'), 400, 'non-integer offset');
  });

  test('the deprecated /entities/<id> path returns the latest version', async () => {
    const a = await hub.json<Stored>('/datasets/log/entities/a');
    assert.equal(a._id, 'a');
    assert.equal(a._updated, 3);
    await expectError(await hub.fetch('/datasets/log/entities/nope'), 404, 'unknown entity');
  });

  test('entity ids containing ":" and "/" (URL-encoded)', async () => {
    const ids = ['urn:x:1', 'a/b', 'http://example.org/p/1?q=1#f', 'with space:and/slash', '100% sure', 'a+b&c=d', 'ÆØÅ:ü/ß'];
    await postOk('/datasets/ids/entities', ids.map((id, i) => ({ _id: id, i })));
    for (const [i, id] of ids.entries()) {
      const byQuery = await hub.json<Stored>(`/datasets/ids/entity?entity_id=${encodeURIComponent(id)}`);
      assert.equal(byQuery._id, id);
      assert.equal(byQuery['i'], i);
      assert.equal(byQuery._updated, i);
      const byPath = await hub.json<Stored>(`/datasets/ids/entities/${encodeURIComponent(id)}`);
      assert.deepEqual(byPath, byQuery);
      const atOffset = await hub.json<Stored>(`/datasets/ids/entity?entity_id=${encodeURIComponent(id)}&offset=${i}`);
      assert.deepEqual(atOffset, byQuery);
    }
    // "urn:x:1" is not "urn:x" nor "urn".
    await expectError(await hub.fetch(`/datasets/ids/entity?entity_id=${encodeURIComponent('urn:x')}`), 404, 'prefix of an id');
  });

  test('dataset ids containing ":"', async () => {
    const id = 'ns:people';
    await postOk(`/datasets/${encodeURIComponent(id)}/entities`, [{ _id: 'p1' }]);
    const info = await hub.json<DatasetInfo>(`/datasets/${encodeURIComponent(id)}`);
    assert.equal(info._id, id);
    assert.deepEqual(brief(await entities(`/datasets/${encodeURIComponent(id)}/entities`)), ['p1@0']);
    const names = (await hub.json<DatasetInfo[]>('/datasets')).map((d) => d._id);
    assert.ok(names.includes(id));
  });

  test('dataset information: GET /datasets and GET /datasets/<id>', async () => {
    const info = await hub.json<DatasetInfo>('/datasets/log');
    assert.equal(info._id, 'log');
    assert.match(info.generation, UUID);
    assert.equal(info.populated, false);
    assert.equal(info['max-updated'], 6);
    assert.equal(info.count, 3);
    assert.equal(info['deleted-count'], 1);
    assert.equal(typeof info.cached_response_info.age, 'number');
    assert.ok(!Number.isNaN(Date.parse(info.cached_response_info.timestamp)));
    const list = await hub.json<DatasetInfo[]>('/datasets');
    assert.ok(Array.isArray(list));
    const inList = list.find((d) => d._id === 'log');
    assert.ok(inList, 'GET /datasets lists the dataset');
    assert.equal(inList.generation, info.generation);
    assert.equal(inList['max-updated'], 6);
    assert.equal(inList.count, 3);
    for (const d of list) {
      assert.equal(typeof d._id, 'string');
      assert.equal(typeof d.cached_response_info.age, 'number');
      assert.equal(typeof d.cached_response_info.timestamp, 'string');
    }
    await expectError(await hub.fetch('/datasets/nope'), 404, 'unknown dataset');
  });

  test('an empty dataset reports max-updated null', async () => {
    await postOk('/datasets/empty/entities', []);
    const { res, entities: list } = await read('/datasets/empty/entities');
    assert.deepEqual(list, []);
    assert.equal(res.headers.get('x-dataset-max-updated'), 'null');
    assert.equal((await hub.json<DatasetInfo>('/datasets/empty'))['max-updated'], null);
  });

  test('DELETE a dataset, then recreate it: a new generation and offsets from 0', async () => {
    await postOk('/datasets/gone/entities', [{ _id: 'x' }, { _id: 'y' }]);
    const first = await read('/datasets/gone/entities');
    const gen1 = first.res.headers.get('x-dataset-generation');
    assert.match(gen1 ?? '', UUID);
    const del = await hub.fetch('/datasets/gone', { method: 'DELETE' });
    assert.equal(del.status, 200, await del.text());
    await expectError(await hub.fetch('/datasets/gone'), 404, 'deleted dataset info');
    await expectError(await hub.fetch('/datasets/gone/entities'), 404, 'deleted dataset entities');
    await expectError(await hub.fetch('/datasets/gone/entity?entity_id=x'), 404, 'deleted dataset entity');
    assert.ok(!(await hub.json<DatasetInfo[]>('/datasets')).some((d) => d._id === 'gone'));
    await expectError(await hub.fetch('/datasets/gone', { method: 'DELETE' }), 404, 'deleting twice');
    await postOk('/datasets/gone/entities', [{ _id: 'z' }]);
    const second = await read('/datasets/gone/entities');
    const gen2 = second.res.headers.get('x-dataset-generation');
    assert.match(gen2 ?? '', UUID);
    assert.notEqual(gen2, gen1, 'a recreated dataset gets a new generation');
    assert.deepEqual(brief(second.entities), ['z@0']);
    assert.equal(second.res.headers.get('x-dataset-max-updated'), '0');
    assert.equal((await hub.json<DatasetInfo>('/datasets/gone')).generation, gen2);
  });
});

describe('populated', () => {
  test('populated=true answers 404 until a full sync has populated the dataset', async () => {
    await postOk('/pipes', [{ _id: 'pop', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'pop' } }]);
    await postOk('/receivers/pop/entities', [{ _id: 'a' }, { _id: 'b' }]);
    const plain = await read('/datasets/pop/entities');
    assert.equal(plain.res.headers.get('x-dataset-populated'), 'false');
    assert.equal(plain.entities.length, 2);
    await expectError(await hub.fetch('/datasets/pop/entities?populated=true'), 404, 'not yet populated');
    assert.equal((await hub.json<DatasetInfo>('/datasets/pop')).populated, false);
    // Datasets written only through POST /datasets are never populated.
    await expectError(await hub.fetch('/datasets/log/entities?populated=true'), 404, 'never populated');

    await postOk('/receivers/pop/entities?sequence_id=s1&is_full=true&request_id=r1&is_first=true&is_last=true', [{ _id: 'a' }, { _id: 'b' }]);
    const populated = await read('/datasets/pop/entities?populated=true');
    assert.equal(populated.res.headers.get('x-dataset-populated'), 'true');
    assert.deepEqual(brief(populated.entities), ['a@0', 'b@1']);
    assert.equal((await hub.json<DatasetInfo>('/datasets/pop')).populated, true);
    const falseParam = await read('/datasets/pop/entities?populated=false');
    assert.equal(falseParam.entities.length, 2);
    await expectError(await hub.fetch('/datasets/nope/entities?populated=true'), 404, 'unknown dataset');
  });
});

describe('indexes and subsets', () => {
  const kindX = subsetParam(['eq', '_S.kind', 'x']);
  const kindY = subsetParam(['eq', '_S.kind', 'y']);

  before(async () => {
    await postOk('/pipes', [
      { _id: 'p', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'p', indexes: ['_S.kind'] } },
    ]);
  });

  test('a subset read returns only matching latest versions', async () => {
    await postOk('/receivers/p/entities', [
      { _id: '1', kind: 'x', n: 1 },
      { _id: '2', kind: 'y', n: 2 },
      { _id: '3', kind: 'x', n: 3 },
      { _id: '4', kind: ['z', 'x'], n: 4 },
      { _id: '5', n: 5 },
    ]);
    const { res, entities: list } = await read(`/datasets/p/entities?${kindX}`);
    assert.deepEqual(brief(list), ['1@0', '3@2', '4@3']);
    assert.equal(res.headers.get('x-dataset-max-updated'), '4');
    assert.deepEqual(brief(await entities(`/datasets/p/entities?${kindY}`)), ['2@1']);
    assert.deepEqual(brief(await entities(`/datasets/p/entities?${subsetParam(['eq', '_S.kind', 'none'])}`)), []);
    assert.deepEqual(brief(await entities(`/datasets/p/entities?${kindX}&since=0`)), ['3@2', '4@3']);
    assert.deepEqual(brief(await entities(`/datasets/p/entities?${kindX}&limit=2`)), ['1@0', '3@2']);
  });

  test('an update moves an entity out of (and into) a subset', async () => {
    await postOk('/receivers/p/entities', [
      { _id: '3', kind: 'y', n: 3 },
      { _id: '5', kind: 'x', n: 5 },
    ]);
    assert.deepEqual(brief(await entities('/datasets/p/entities')), ['1@0', '2@1', '3@2', '4@3', '5@4', '3@5', '5@6']);
    // Entity 3 left subset x at offset 5: an incremental subset reader sees that as a deletion.
    const x = await entities(`/datasets/p/entities?${kindX}`);
    assert.deepEqual(brief(x), ['1@0', '4@3', '3@5!', '5@6']);
    assert.deepEqual(brief(await entities(`/datasets/p/entities?${kindX}&since=3`)), ['3@5!', '5@6']);
    assert.deepEqual(brief(await entities(`/datasets/p/entities?${kindX}&deleted=false`)), ['1@0', '4@3', '5@6']);
    assert.deepEqual(brief(await entities(`/datasets/p/entities?${kindY}`)), ['2@1', '3@5']);
    // An entity in the subset by id, and one that left it.
    const one = await hub.json<Stored>(`/datasets/p/entity?entity_id=1&${kindX}`);
    assert.equal(one._updated, 0);
    await expectError(await hub.fetch(`/datasets/p/entity?entity_id=3&${kindX}`), 404, 'entity 3 left the subset');
    const three = await hub.json<Stored>(`/datasets/p/entity?entity_id=3&${kindY}`);
    assert.equal(three._updated, 5);
  });

  test('a subset on an undeclared index answers 404', async () => {
    await expectError(await hub.fetch(`/datasets/p/entities?${subsetParam(['eq', '_S.other', 'x'])}`), 404, 'undeclared index');
    await expectError(await hub.fetch(`/datasets/p/entity?entity_id=1&${subsetParam(['eq', '_S.other', 'x'])}`), 404, 'undeclared index (entity)');
    await expectError(await hub.fetch(`/datasets/log/entities?${kindX}`), 404, 'dataset without indexes');
  });

  test('GET /datasets/p/indexes and DELETE /datasets/p/indexes/<n>', async () => {
    const indexes = await hub.json<{ id: number; expression: string }[]>('/datasets/p/indexes');
    assert.equal(indexes.length, 1);
    const ix = indexes[0]!;
    assert.equal(ix.expression, '_S.kind');
    assert.ok(Number.isInteger(ix.id));
    assert.deepEqual(await hub.json('/datasets/log/indexes'), []);
    await expectError(await hub.fetch('/datasets/nope/indexes'), 404, 'indexes of an unknown dataset');
    await expectError(await hub.fetch(`/datasets/p/indexes/${ix.id + 100}`, { method: 'DELETE' }), 404, 'unknown index');
    const del = await hub.fetch(`/datasets/p/indexes/${ix.id}`, { method: 'DELETE' });
    assert.equal(del.status, 200, await del.text());
    assert.deepEqual(await hub.json('/datasets/p/indexes'), []);
    await expectError(await hub.fetch(`/datasets/p/entities?${kindX}`), 404, 'subset on a dropped index');
  });
});

describe('generate-schema-definition', () => {
  test('describes the properties of the entities; keys_only lists only the keys', async () => {
    await postOk('/datasets/schema/entities', [
      { _id: 's1', name: 'one', age: 3, address: { city: 'Oslo' } },
      { _id: 's2', name: 'two', tags: ['a'] },
    ]);
    const keys = await hub.json<{ keys: string[] }>('/datasets/schema/generate-schema-definition?keys_only=true');
    for (const k of ['_id', 'name', 'age', 'address', 'tags']) assert.ok(keys.keys.includes(k), `keys include ${k}`);
    assert.ok(!('properties' in keys), 'keys_only gives only the keys');
    const full = await hub.json<{ properties: Record<string, unknown> }>('/datasets/schema/generate-schema-definition');
    for (const k of ['_id', 'name', 'age', 'address', 'tags']) assert.ok(k in full.properties, `properties include ${k}`);
    const sampled = await hub.json<Record<string, unknown>>('/datasets/schema/generate-schema-definition?sample_size=1&keys_only=true');
    assert.ok(!(sampled['keys'] as string[]).includes('tags'), 'sample_size=1 samples only the first entity');
    await expectError(await hub.fetch('/datasets/nope/generate-schema-definition'), 404, 'unknown dataset');
  });
});

describe('circuit breaker', () => {
  const changed = (n: number, v: number): { _id: string; v: number }[] => Array.from({ length: n }, (_, i) => ({ _id: `e${i}`, v }));

  before(async () => {
    await postOk('/pipes', [
      {
        _id: 'cb',
        type: 'pipe',
        source: { type: 'http_endpoint' },
        sink: { type: 'dataset', dataset: 'cb', circuit_breaker_threshold_count: 3 },
      },
    ]);
  });

  test('a run below the threshold is written', async () => {
    await postOk('/receivers/cb/entities', [{ _id: 'base1' }, { _id: 'base2' }]);
    assert.deepEqual(brief(await entities('/datasets/cb/entities')), ['base1@0', 'base2@1']);
    const info = await hub.json<DatasetInfo>('/datasets/cb');
    assert.equal(info['circuit-breaker'].enabled, true);
    assert.equal(info['circuit-breaker'].tripped, false);
  });

  test('10 changes trip it: 409, nothing visible unless uncommited=true', async () => {
    await expectError(await post('/receivers/cb/entities', changed(10, 1)), 409, 'tripping the breaker');
    const { res, entities: list } = await read('/datasets/cb/entities');
    assert.deepEqual(brief(list), ['base1@0', 'base2@1'], 'uncommitted entities are not visible');
    assert.equal(res.headers.get('x-dataset-max-updated'), '1');
    const info = await hub.json<DatasetInfo>('/datasets/cb');
    assert.equal(info['circuit-breaker'].tripped, true);
    assert.equal(info['circuit-breaker']['pending-count'], 10);
    assert.equal(info['max-updated'], 1);
    const withPending = await entities('/datasets/cb/entities?uncommited=true');
    assert.deepEqual(
      withPending.map((e) => e._id),
      ['base1', 'base2', ...changed(10, 1).map((e) => e._id)],
    );
    assert.ok(withPending.slice(2).every((e) => e['v'] === 1));
    await expectError(await hub.fetch('/datasets/cb/entity?entity_id=e0'), 404, 'uncommitted entity by id');
  });

  test('while tripped, further writes are refused with 409', async () => {
    await expectError(await post('/receivers/cb/entities', [{ _id: 'late' }]), 409, 'receiver write while tripped');
    await expectError(await post('/datasets/cb/entities', [{ _id: 'late' }]), 409, 'dataset write while tripped');
    assert.deepEqual(brief(await entities('/datasets/cb/entities')), ['base1@0', 'base2@1']);
  });

  test('rollback-circuit-breaker discards the pending entities', async () => {
    const res = await hub.fetch('/datasets/cb', form('rollback-circuit-breaker'));
    assert.equal(res.status, 200, await res.text());
    const info = await hub.json<DatasetInfo>('/datasets/cb');
    assert.equal(info['circuit-breaker'].tripped, false);
    assert.equal(info['circuit-breaker']['pending-count'], 0);
    assert.equal(info['max-updated'], 1);
    assert.deepEqual(brief(await entities('/datasets/cb/entities?uncommited=true')), ['base1@0', 'base2@1']);
    // Not tripped any more: nothing to commit or roll back.
    const again = await hub.fetch('/datasets/cb', form('rollback-circuit-breaker'));
    assert.ok(again.status >= 400 && again.status < 500, `rollback when not tripped -> ${again.status}`);
    await again.text();
  });

  test('a second trip followed by commit-circuit-breaker makes the entities visible', async () => {
    await expectError(await post('/receivers/cb/entities', changed(10, 2)), 409, 'tripping the breaker again');
    assert.deepEqual(brief(await entities('/datasets/cb/entities')), ['base1@0', 'base2@1']);
    const res = await hub.fetch('/datasets/cb', form('commit-circuit-breaker'));
    assert.equal(res.status, 200, await res.text());
    const { res: pull, entities: list } = await read('/datasets/cb/entities');
    assert.deepEqual(brief(list), ['base1@0', 'base2@1', ...changed(10, 2).map((e, i) => `${e._id}@${i + 2}`)]);
    assert.ok(list.slice(2).every((e) => e['v'] === 2 && e._uncommitted === undefined));
    assert.equal(pull.headers.get('x-dataset-max-updated'), '11');
    const info = await hub.json<DatasetInfo>('/datasets/cb');
    assert.equal(info['circuit-breaker'].tripped, false);
    assert.equal(info['circuit-breaker']['pending-count'], 0);
    assert.equal(info.count, 12);
    // Writes are accepted again.
    await postOk('/receivers/cb/entities', [{ _id: 'after' }]);
    assert.equal((await hub.json<Stored>('/datasets/cb/entity?entity_id=after'))._updated, 12);
  });

  test('an unknown operation is refused', async () => {
    const res = await hub.fetch('/datasets/cb', form('explode'));
    await expectError(res, 400, 'unknown operation');
    await expectError(await hub.fetch('/datasets/nope', form('commit-circuit-breaker')), 404, 'unknown dataset');
  });
});

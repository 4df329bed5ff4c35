// GET /datasets/<id>/entities?filter=<DTL predicate>: the matching latest entities, paged by `since`, compared with a
// full scan done here (every latest entity read unfiltered and tested in plain TypeScript); bad predicates are 400s.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { whileHealthPolled } from '../../helpers/runaway.js';

let hub: HubProcess;

interface Stored {
  _id: string;
  _updated: number;
  _deleted: boolean;
  city?: string;
  age?: number | null;
  email?: string | null;
  tags?: string[];
  born?: string;
}

const CITIES = ['Oslo', 'Bergen', 'Trondheim', 'Tromsø'];

before(async () => {
  hub = await startHub();
  const people = Array.from({ length: 600 }, (_, i) => ({
    _id: `p${i}`,
    city: CITIES[i % 4],
    age: i % 11 === 0 ? null : 18 + (i % 60),
    ...(i % 5 === 0 ? {} : { email: `p${i}@example.org` }),
    tags: i % 3 === 0 ? ['vip'] : [],
    born: `~t${2000 + (i % 20)}-05-17T00:00:00Z`,
  }));
  // An index on city (declared by a pipe's sink): eq on a city may read it instead of scanning, with the same result.
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'people-feed', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'people', indexes: ['_S.city'] } }],
  });
  await hub.json('/datasets/people/entities', { method: 'POST', json: people });
  // Moves, deletions and a property that holds the text "Oslo" elsewhere.
  await hub.json('/datasets/people/entities', {
    method: 'POST',
    json: [
      ...Array.from({ length: 30 }, (_, k) => ({ _id: `p${k * 4}`, city: 'Bergen', age: 50, email: null, tags: ['moved'], note: 'left Oslo' })),
      ...Array.from({ length: 20 }, (_, k) => ({ _id: `p${k * 4 + 1}`, _deleted: true })),
    ],
  });
});

after(async () => {
  if (hub) {
    await hub.stop();
    removeDir(hub.dataDir);
  }
});

async function allLatest(deleted: boolean): Promise<Stored[]> {
  return hub.json<Stored[]>(`/datasets/people/entities?history=false&deleted=${deleted}`);
}

/** Read with the filter, `limit` at a time, each page from the last offset of the one before. */
async function paged(filter: unknown, limit: number, extra = ''): Promise<Stored[]> {
  const out: Stored[] = [];
  let since: number | undefined;
  for (;;) {
    const q = new URLSearchParams({ filter: JSON.stringify(filter), limit: String(limit) });
    if (since !== undefined) q.set('since', String(since));
    const page = await hub.json<Stored[]>(`/datasets/people/entities?${q}${extra}`);
    out.push(...page);
    if (page.length < limit) return out;
    since = page[page.length - 1]!._updated;
  }
}

const ids = (list: Stored[]): string[] => list.map((e) => `${e._id}@${e._updated}`);

const CASES: { filter: unknown; test: (e: Stored) => boolean }[] = [
  { filter: ['eq', '_S.city', 'Oslo'], test: (e) => e.city === 'Oslo' },
  { filter: ['eq', 'Bergen', '_S.city'], test: (e) => e.city === 'Bergen' },
  { filter: ['gt', '_S.age', 40], test: (e) => typeof e.age === 'number' && e.age > 40 },
  { filter: ['is-null', '_S.email'], test: (e) => e.email === undefined || e.email === null },
  { filter: ['and', ['eq', '_S.city', 'Tromsø'], ['lt', '_S.age', 30]], test: (e) => e.city === 'Tromsø' && typeof e.age === 'number' && e.age < 30 },
  { filter: ['gte', '_S.born', '~t2015-01-01T00:00:00Z'], test: (e) => typeof e.born === 'string' && e.born >= '~t2015' },
];

test('a filter returns exactly the latest entities a full scan finds, page by page', async () => {
  const live = await allLatest(false);
  const withDeleted = await allLatest(true);
  for (const c of CASES) {
    const want = live.filter(c.test);
    assert.ok(want.length > 0, `${JSON.stringify(c.filter)} matches something`);
    assert.deepEqual(ids(await paged(c.filter, 7, '&deleted=false')), ids(want), JSON.stringify(c.filter));
    assert.deepEqual(ids(await paged(c.filter, 100)), ids(withDeleted.filter(c.test)), `${JSON.stringify(c.filter)} with deleted`);
    const count = await hub.json<{ count: number }>(`/datasets/people/matches?filter=${encodeURIComponent(JSON.stringify(c.filter))}`);
    assert.equal(count.count, want.length, `count of ${JSON.stringify(c.filter)}`);
  }
  // An entity that moved away from Oslo is not found there, though its text still mentions it.
  const oslo = await paged(['eq', '_S.city', 'Oslo'], 1000);
  assert.ok(!oslo.some((e) => e._id === 'p0'));
  // Newest first.
  const q = new URLSearchParams({ filter: JSON.stringify(['eq', '_S.city', 'Oslo']), reverse: 'true', deleted: 'false' });
  const reversed = await hub.json<Stored[]>(`/datasets/people/entities?${q}`);
  assert.deepEqual(ids(reversed), ids(live.filter((e) => e.city === 'Oslo').reverse()));
});

test('a bad predicate is a 400 that says what is wrong', async () => {
  const bad = async (filter: string): Promise<{ error: string; detail?: string }> => {
    const res = await hub.fetch(`/datasets/people/entities?filter=${encodeURIComponent(filter)}`);
    assert.equal(res.status, 400, filter);
    return (await res.json()) as { error: string; detail?: string };
  };
  assert.match((await bad('["eq", "_S.city"')).error, /not JSON/);
  assert.match((await bad('"_S.city"')).error, /not a DTL predicate/);
  const unknown = await bad('["no-such-function", "_S.city"]');
  assert.match(unknown.error, /does not compile/);
  assert.match(unknown.detail ?? '', /no-such-function/);
  assert.match((await bad('["gt", "_S.age"]')).error, /does not compile/);
  const count = await hub.fetch(`/datasets/people/matches?filter=${encodeURIComponent('["nope"]')}`);
  assert.equal(count.status, 400);
  // Nothing was lost: the dataset reads as before.
  assert.equal((await allLatest(false)).length, 580);
});

test('a filter too slow for the explorer is a 422 in words, and the hub answers /api/health meanwhile', async () => {
  // A wildcard of 7,000 characters against texts of 20,000 is linear in each, but their product is 1.4e8 steps per
  // entity (docs/security-and-limits.md): more than a filter may take on one entity (0.25 s) on the API's thread.
  const long = Array.from({ length: 40 }, (_, i) => ({ _id: `l${i}`, s: 'a'.repeat(20_000) }));
  await hub.json('/datasets/long-texts/entities', { method: 'POST', json: long });
  const slow = encodeURIComponent(JSON.stringify(['matches', '*' + 'a'.repeat(7000) + 'b*', '_S.s']));
  const { result, slowest } = await whileHealthPolled(hub, () => hub.fetch(`/datasets/long-texts/entities?filter=${slow}`));
  assert.equal(result.status, 422);
  const body = (await result.json()) as { error: string; detail: string };
  assert.equal(body.error, 'the filter takes too long');
  assert.match(body.detail, /on the entity "l0" it took more than 0\.25 s/);
  assert.ok(slowest < 2000, `/api/health answered within 2 s throughout (slowest ${slowest.toFixed(0)} ms)`);
  // The same wildcard, short: quick on every entity, and nothing matches (no text has a "b").
  const quick = encodeURIComponent(JSON.stringify(['matches', '*ab*', '_S.s']));
  assert.deepEqual(await hub.json(`/datasets/long-texts/entities?filter=${quick}`), []);
});

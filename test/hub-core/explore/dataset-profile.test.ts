// GET /datasets/<id>/profile on datasets with known distributions: every number is worked out here, by plain loops
// over the entities the test wrote, from the rules the API documents (paths `a.b` / `a[]`, kinds with the typed
// values, histogram bins 2^k wide: the smallest k that covers min..max in at most 64 bins, at least 1 for integers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';

const hub = useHub();

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Entity = { _id: string; _deleted?: boolean; [k: string]: Json | undefined };

interface Range {
  min: string | number;
  max: string | number;
  histogram?: { width: number; bins: { from: number; to: number; count: number }[] };
}
interface Property {
  path: string;
  count: number;
  values: number;
  nulls: number;
  types: Record<string, number>;
  distinct: number;
  'distinct-exact': boolean;
  top: { value: string | number | boolean; count: number }[];
  'top-exact': boolean;
  number?: Range;
  datetime?: Range;
  string?: Range;
  namespaces?: Record<string, number>;
}
interface Profile {
  dataset: string;
  offset: number | null;
  entities: number;
  deleted: number;
  computed: string;
  properties: Property[];
  timeline: { width: number; buckets: { start: string; added: number; changed: number; deleted: number }[] };
}

const DAY = 86_400_000;
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

function person(i: number): Entity {
  const e: Entity = {
    _id: `p${i}`,
    age: i % 7 === 0 ? null : 20 + (i % 50),
    score: i / 8,
    born: '~t' + iso(Date.UTC(2020, 0, 1) + i * DAY),
    price: `~f${i}.50`,
    friend: `~:people:p${i % 20}`,
    tags: ['x', i % 2 === 0 ? 'even' : 'odd'],
    address: { zip: String(i % 4), lines: ['street', `no ${i % 3}`] },
    mixed: i % 3 === 0 ? 'text' : i % 3 === 1 ? 5 : true,
  };
  if (i % 10 !== 9) e['city'] = i % 10 < 5 ? 'Oslo' : i % 10 < 8 ? 'Bergen' : 'Trondheim';
  if (i % 25 === 0) e['blob'] = '~bAAEC';
  if (i % 30 === 0) e['uid'] = '~u6f1c1c0e-2b4a-4c1e-9d5e-0a7f3c2d1b00';
  return e;
}

/** The kind of a JSON value under the documented rules (a valid tag makes a string a typed value). */
function kindOf(v: Json): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'float';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'object') return 'dict';
  if (v.startsWith('~t')) return 'datetime';
  if (v.startsWith('~f')) return 'decimal';
  if (v.startsWith('~:')) return 'ni';
  if (v.startsWith('~b')) return 'bytes';
  if (v.startsWith('~u')) return 'uuid';
  return 'string';
}

/** Every (path, value) of an entity, list items under `[]`, nested keys joined with dots. */
function pathValues(e: Entity): [string, Json][] {
  const out: [string, Json][] = [];
  const visit = (v: Json, path: string): void => {
    out.push([path, v]);
    if (Array.isArray(v)) for (const x of v) visit(x, path + '[]');
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, `${path}.${k}`);
  };
  for (const [k, v] of Object.entries(e)) if (k !== '_id' && k !== '_deleted' && v !== undefined) visit(v, k);
  return out;
}

function histogram(values: number[], integers: boolean): { width: number; bins: { from: number; to: number; count: number }[] } {
  const min = Math.min(...values);
  const max = Math.max(...values);
  let k = -20;
  while (Math.floor(max / 2 ** k) - Math.floor(min / 2 ** k) + 1 > 64) k++;
  if (integers) k = Math.max(k, 0);
  const width = 2 ** k;
  const bins: { from: number; to: number; count: number }[] = [];
  for (let b = Math.floor(min / width); b <= Math.floor(max / width); b++) {
    bins.push({ from: b * width, to: (b + 1) * width, count: values.filter((v) => Math.floor(v / width) === b).length });
  }
  return { width, bins };
}

interface Expected {
  count: number;
  values: number;
  nulls: number;
  types: Record<string, number>;
  distinct: number;
  top: { value: string | number | boolean; count: number }[];
  numbers: number[];
  numberTexts: Map<number, string | number>;
  datetimes: string[];
  strings: string[];
  namespaces: Record<string, number>;
}

function expectedProfile(latest: Entity[]): { entities: number; deleted: number; paths: Map<string, Expected> } {
  const paths = new Map<string, Expected>();
  const live = latest.filter((e) => e._deleted !== true);
  for (const e of live) {
    const seen = new Set<string>();
    for (const [path, v] of pathValues(e)) {
      let x = paths.get(path);
      if (!x) {
        x = { count: 0, values: 0, nulls: 0, types: {}, distinct: 0, top: [], numbers: [], numberTexts: new Map(), datetimes: [], strings: [], namespaces: {} };
        paths.set(path, x);
      }
      if (!seen.has(path)) x.count++;
      seen.add(path);
      x.values++;
      const kind = kindOf(v);
      x.types[kind] = (x.types[kind] ?? 0) + 1;
      if (v === null) x.nulls++;
      if (kind === 'integer' || kind === 'float') {
        x.numbers.push(v as number);
        x.numberTexts.set(v as number, v as number);
      }
      if (kind === 'decimal') {
        x.numbers.push(Number((v as string).slice(2)));
        x.numberTexts.set(Number((v as string).slice(2)), v as string);
      }
      if (kind === 'datetime') x.datetimes.push(v as string);
      if (kind === 'string') x.strings.push(v as string);
      if (kind === 'ni') {
        const ns = (v as string).slice(2).split(':')[0]!;
        x.namespaces[ns] = (x.namespaces[ns] ?? 0) + 1;
      }
    }
  }
  for (const [path, x] of paths) {
    const counts = new Map<string, { value: string | number | boolean; count: number }>();
    for (const e of live) {
      for (const [p, v] of pathValues(e)) {
        if (p !== path || v === null || typeof v === 'object') continue;
        const key = `${typeof v}:${String(v)}`;
        const c = counts.get(key) ?? { value: v, count: 0 };
        c.count++;
        counts.set(key, c);
      }
    }
    x.distinct = counts.size;
    x.top = [...counts.values()].sort((a, b) => b.count - a.count).slice(0, 10);
  }
  return { entities: live.length, deleted: latest.length - live.length, paths };
}

function check(profile: Profile, latest: Entity[], label: string): void {
  const want = expectedProfile(latest);
  assert.equal(profile.entities, want.entities, `${label}: entities`);
  assert.equal(profile.deleted, want.deleted, `${label}: deleted`);
  assert.deepEqual(profile.properties.map((p) => p.path).sort(), [...want.paths.keys()].sort(), `${label}: paths`);
  for (const p of profile.properties) {
    const x = want.paths.get(p.path)!;
    const at = `${label}: ${p.path}`;
    assert.equal(p.count, x.count, `${at} count`);
    assert.equal(p.values, x.values, `${at} values`);
    assert.equal(p.nulls, x.nulls, `${at} nulls`);
    assert.deepEqual(p.types, x.types, `${at} types`);
    assert.equal(p.distinct, x.distinct, `${at} distinct`);
    assert.equal(p['distinct-exact'], true, `${at} distinct is exact`);
    // Ties in count may come in any order: compare the counts in order and the values as sets per count.
    assert.deepEqual(p.top.map((t) => t.count), x.top.map((t) => t.count), `${at} top counts`);
    const byCount = (list: { value: unknown; count: number }[]): string[] => list.map((t) => `${t.count}:${JSON.stringify(t.value)}`).sort();
    if (x.top.length < 10 || x.top[9]!.count !== x.top.at(-1)!.count) assert.deepEqual(byCount(p.top), byCount(x.top), `${at} top values`);
    if (x.numbers.length > 0) {
      const min = Math.min(...x.numbers);
      const max = Math.max(...x.numbers);
      assert.equal(p.number?.min, x.numberTexts.get(min), `${at} min`);
      assert.equal(p.number?.max, x.numberTexts.get(max), `${at} max`);
      const integers = x.numbers.every((n) => Number.isInteger(n));
      assert.deepEqual(p.number?.histogram, histogram(x.numbers, integers), `${at} histogram`);
    } else assert.equal(p.number, undefined, `${at} has no number range`);
    if (x.datetimes.length > 0) {
      const sorted = [...x.datetimes].sort();
      assert.equal(p.datetime?.min, sorted[0], `${at} first datetime`);
      assert.equal(p.datetime?.max, sorted.at(-1), `${at} last datetime`);
      const ms = x.datetimes.map((t) => Date.parse(t.slice(2)));
      assert.deepEqual(p.datetime?.histogram, histogram(ms, true), `${at} datetime histogram`);
    }
    if (x.strings.length > 0) {
      const sorted = [...x.strings].sort();
      assert.deepEqual([p.string?.min, p.string?.max], [sorted[0], sorted.at(-1)], `${at} string range`);
    }
    assert.deepEqual(p.namespaces ?? {}, x.namespaces, `${at} namespaces`);
  }
}

async function write(dataset: string, entities: Entity[]): Promise<void> {
  await hub.json(`/datasets/${dataset}/entities`, { method: 'POST', json: entities });
}

const profileOf = (dataset: string, query = ''): Promise<Profile> => hub.json<Profile>(`/datasets/${dataset}/profile${query}`);

test('the profile counts every path, kind, value and range of the latest entities', async () => {
  const latest = new Map<string, Entity>();
  const first = Array.from({ length: 300 }, (_, i) => person(i));
  await write('people', first);
  for (const e of first) latest.set(e._id, e);
  const p1 = await profileOf('people');
  assert.equal(p1.computed, 'full');
  check(p1, [...latest.values()], 'first batch');
  // Spot checks in the words of a user: a third of the entities are 50 years or older? 30 have no city.
  const city = p1.properties.find((p) => p.path === 'city')!;
  assert.equal(city.count, 270);
  assert.deepEqual(city.top, [{ value: 'Oslo', count: 150 }, { value: 'Bergen', count: 90 }, { value: 'Trondheim', count: 30 }]);
  const tags = p1.properties.find((p) => p.path === 'tags[]')!;
  assert.deepEqual([tags.count, tags.values], [300, 600]);
  assert.deepEqual(p1.properties.find((p) => p.path === 'mixed')!.types, { string: 100, integer: 100, boolean: 100 });
  assert.deepEqual(p1.properties.find((p) => p.path === 'friend')!.namespaces, { people: 300 });
  assert.deepEqual(p1.timeline.buckets.reduce((n, b) => n + b.added, 0), 300);

  // Asked again with nothing written: the cached profile.
  assert.equal((await profileOf('people')).computed, 'cached');

  // New entities, changed ones, deleted ones: brought up to date from the log, with the same numbers as a full pass.
  const changed: Entity[] = [];
  for (let i = 300; i < 340; i++) changed.push(person(i));
  for (let i = 1; i < 40; i += 3) changed.push({ ...person(i), city: 'Tromsø', tags: ['y'] });
  for (let i = 2; i < 60; i += 6) changed.push({ _id: `p${i}`, _deleted: true });
  await write('people', changed);
  for (const e of changed) latest.set(e._id, e);
  const p2 = await profileOf('people');
  assert.equal(p2.computed, 'incremental');
  check(p2, [...latest.values()], 'after changes');
  const deletedNow = changed.filter((e) => e._deleted === true).length;
  assert.equal(p2.deleted, deletedNow);
  const tl = p2.timeline.buckets.reduce((s, b) => ({ added: s.added + b.added, changed: s.changed + b.changed, deleted: s.deleted + b.deleted }), { added: 0, changed: 0, deleted: 0 });
  assert.deepEqual(tl, { added: 340, changed: changed.length - 40 - deletedNow, deleted: deletedNow });

  // Taking away the oldest birthday changes a range's end: still the right numbers.
  await write('people', [{ _id: 'p0', _deleted: true }]);
  latest.set('p0', { _id: 'p0', _deleted: true });
  check(await profileOf('people'), [...latest.values()], 'after deleting the extreme');

  // As the dataset stood after the first batch.
  check(await profileOf('people', `?at=${p1.offset}`), first, 'at the first offset');
});

test('past the exact bound the distinct count is an estimate and says so', async () => {
  const entities = Array.from({ length: 3000 }, (_, i) => ({ _id: `c${i}`, code: `code-${i}`, group: `g${i % 3}` }));
  await write('codes', entities);
  const p = await profileOf('codes');
  const code = p.properties.find((x) => x.path === 'code')!;
  assert.equal(code['distinct-exact'], false);
  assert.ok(Math.abs(code.distinct - 3000) < 3000 * 0.05, `distinct ${code.distinct} is within 5 % of 3000`);
  const group = p.properties.find((x) => x.path === 'group')!;
  assert.deepEqual([group.distinct, group['distinct-exact']], [3, true]);
  assert.deepEqual(group.top, [{ value: 'g0', count: 1000 }, { value: 'g1', count: 1000 }, { value: 'g2', count: 1000 }]);
  // A change of an estimated property cannot be replayed exactly: the profile is made again, and is right.
  await write('codes', [{ _id: 'c0', code: 'renamed', group: 'g1' }]);
  const again = await profileOf('codes');
  assert.equal(again.computed, 'full');
  assert.deepEqual(again.properties.find((x) => x.path === 'group')!.top.map((t) => t.count), [1001, 1000, 999]);
});

test('profile errors are answered in words', async () => {
  const missing = await hub.fetch('/datasets/nope/profile');
  assert.equal(missing.status, 404);
  assert.match(((await missing.json()) as { error: string }).error, /nope/);
  const bad = await hub.fetch('/datasets/people/profile?at=-1');
  assert.equal(bad.status, 400);
  assert.deepEqual(await hub.json('/datasets/people/profile/progress'), { running: false, done: 0, total: 0 });
  assert.deepEqual(await hub.json('/datasets/people/profile', { method: 'DELETE' }), { cancelled: false });
});

test('relations: which datasets the identifiers of a property point into, and how many resolve', async () => {
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'crm', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'customers' } }],
  });
  await write('customers', Array.from({ length: 10 }, (_, i) => ({ _id: `crm:c${i}`, name: `customer ${i}` })));
  await write('customers', [{ _id: 'crm:c9', _deleted: true }]);
  const orders = Array.from({ length: 50 }, (_, i) => ({
    _id: `o${i}`,
    customer: i % 7 === 0 ? `~:nowhere:x${i}` : `~:crm:c${i % 13}`,
    lines: [{ product: `~:crm:c${i % 3}` }, { product: 'not an identifier' }],
  }));
  await write('orders', orders);
  type Relation = { namespace: string; datasets: string[]; values: number; resolved: number; unresolved: string[] };
  const rel = await hub.json<Relation[]>(`/datasets/orders/relations?path=customer`);
  // Worked out here: crm:c0..c8 exist (c9 was deleted); every seventh order points nowhere.
  const crm = orders.filter((o) => o.customer.startsWith('~:crm:'));
  const resolves = (ni: string): boolean => Number(ni.slice('~:crm:c'.length)) <= 8;
  const unresolved = [...new Set(crm.map((o) => o.customer).filter((c) => !resolves(c)))].slice(0, 5);
  assert.deepEqual(rel, [
    { namespace: 'crm', datasets: ['customers'], values: crm.length, resolved: crm.filter((o) => resolves(o.customer)).length, unresolved },
    { namespace: 'nowhere', datasets: [], values: 50 - crm.length, resolved: 0, unresolved: orders.filter((o) => o.customer.startsWith('~:nowhere')).map((o) => o.customer).slice(0, 5) },
  ]);
  const nested = await hub.json<Relation[]>(`/datasets/orders/relations?path=${encodeURIComponent('lines[].product')}`);
  assert.deepEqual(nested, [{ namespace: 'crm', datasets: ['customers'], values: 50, resolved: 50, unresolved: [] }]);
  const profile = await profileOf('orders');
  assert.deepEqual(profile.properties.find((p) => p.path === 'customer')!.namespaces, { crm: crm.length, nowhere: 50 - crm.length });
  const bad = await hub.fetch(`/datasets/orders/relations?path=${encodeURIComponent('a..b')}`);
  assert.equal(bad.status, 400);
});

test('integers beyond 2^53 are profiled with their exact digits: top values, range and the count of distinct ones', async () => {
  // Three ids whose doubles are the same number (2^64 + 1, 2^64 + 2 and 2^64 + 3 all round to 2^64): only exact
  // integers tell them apart. The smallest is 18446744073709551617, the largest 18446744073709551619.
  const body = '[{"_id":"a","n":18446744073709551617},{"_id":"b","n":18446744073709551619},' +
    '{"_id":"c","n":18446744073709551618},{"_id":"d","n":18446744073709551618}]';
  const res = await hub.fetch('/datasets/huge/entities', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  assert.equal(res.status, 200, await res.clone().text());
  const text = await (await hub.fetch('/datasets/huge/profile')).text();
  const n = JSON.parse(text, (_k, v: unknown, ctx?: { source?: string }) =>
    typeof v === 'number' && !Number.isSafeInteger(v) && ctx?.source ? BigInt(ctx.source) : v) as { properties: { path: string; distinct: number; types: Record<string, number>; top: { value: unknown; count: number }[]; number?: { min: unknown; max: unknown } }[] };
  const p = n.properties.find((x) => x.path === 'n')!;
  assert.deepEqual(p.types, { integer: 4 });
  assert.equal(p.distinct, 3);
  assert.deepEqual(p.top[0], { value: 18446744073709551618n, count: 2 });
  assert.deepEqual(new Set(p.top.slice(1).map((t) => t.value)), new Set([18446744073709551617n, 18446744073709551619n]));
  assert.deepEqual([p.number?.min, p.number?.max], [18446744073709551617n, 18446744073709551619n]);
});

test('numbers too large for bins one apart (1e20, -3e25) get a histogram of wider bins, and the hub keeps answering', async () => {
  // A bin of width w holds [k*w, (k+1)*w); at most 64 bins cover min..max. 1e20 and -3e25 need bins about 2^79 wide.
  await write('large', [{ _id: 'a', x: 1.5e20 }, { _id: 'b', x: -3e25 }, { _id: 'c', x: 0.5 }]);
  const p = (await profileOf('large')).properties.find((x) => x.path === 'x')!;
  assert.deepEqual([p.number?.min, p.number?.max], [-3e25, 1.5e20]);
  const h = p.number!.histogram!;
  assert.ok(h.bins.length <= 64 && h.bins.length >= 2, `${h.bins.length} bins`);
  assert.equal(h.bins.reduce((n, b) => n + b.count, 0), 3);
  assert.ok(h.bins[0]!.from <= -3e25 && h.bins.at(-1)!.to > 1.5e20);
  assert.equal((await hub.fetch('/health')).status, 200);
});

test('a decimal text with an exponent of 99,999,999 is profiled as text at once, not built as a 100-million-digit number', async () => {
  // docs/security-and-limits.md: past 100,000 places a `~f` text is no decimal; it counts as a string.
  await write('exponents', [{ _id: 'a', v: '~f1e99999999' }, { _id: 'b', v: '~f2.5e3' }]);
  const res = await hub.fetch('/datasets/exponents/profile', { signal: AbortSignal.timeout(20_000) });
  const v = ((await res.json()) as Profile).properties.find((x) => x.path === 'v')!;
  assert.deepEqual(v.types, { string: 1, decimal: 1 });
  assert.deepEqual([v.number?.min, v.number?.max], ['~f2.5e3', '~f2.5e3']);
});

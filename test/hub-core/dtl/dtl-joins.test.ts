// Joins in DTL (hops, apply-hops, lookup-entity): semantics on in-memory datasets, the same joins on the hub's own
// datasets through DatasetLookup (indexes declared on demand, deletions and updates seen), and the pipe configuration
// check that compiles DTL transforms (over HTTP, against the real hub).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Hub } from '../../../hub-core/hub.js';
import { DatasetLookup, indexExpressionOf, keySpellings } from '../../../hub-core/pipes/index.js';
import { KeptSnapshots } from '../../../hub-core/pipes/index.js';
import type { JsonObject, JsonValue } from '../../../hub-core/base/index.js';
import { MemoryLookup, type DtlLookup } from '../../../hub-core/dtl/index.js';
import { compileTransform } from '../../../hub-core/dtl/index.js';
import { compileExpression } from '../../../hub-core/dtl/index.js';
import { encode } from '../../../hub-core/dtl/index.js';
import { removeDir, startHub, tempDir, type HubProcess } from '../../helpers/hub-process.js';

type Json = JsonValue;

/** Evaluate one expression with `source` as _S against a lookup; gives its JSON form. */
function evaluate(expr: Json, lookup: DtlLookup, source: JsonObject = { _id: 's' }, rules?: JsonObject): Json {
  const compiled = compileExpression(expr, rules ? { rules } : {});
  const errors = compiled.errors.filter((e) => e.level === 'error');
  assert.deepEqual(errors, [], 'compiles without errors');
  return encode(compiled.evaluate({ source, lookup }));
}

/** The `_id`s of a list of entities. */
function ids(v: Json): Json {
  assert.ok(Array.isArray(v), `a list, got ${JSON.stringify(v)}`);
  return v.map((e) => (e !== null && typeof e === 'object' && !Array.isArray(e) ? (e['_id'] ?? null) : e));
}

// ---------------------------------------------------------------------------------------------------------------------
// Test data, used in memory and on the hub's datasets

const DATA: Record<string, JsonObject[]> = {
  Address: [
    { _id: 'a1', type: 'SHIPPING', country: 'no' },
    { _id: 'a2', type: 'HOME', country: 'se' },
    { _id: 'a3', type: 'BILLING', country: 'se' },
    { _id: 'a4', type: 'BILLING', country: null },
  ],
  Country: [
    { _id: 'no', name: 'Norway' },
    { _id: 'se', name: 'Sweden' },
    { _id: 'dk', name: 'Denmark', _deleted: true },
  ],
  Person: [
    { _id: 'p1', gender: 'female', children: ['p2', 'p3'], hobbies: ['h1'] },
    { _id: 'p2', gender: 'female', children: ['p4'], hobbies: ['h2'] },
    { _id: 'p3', gender: 'male', children: ['p5'], hobbies: ['h3'] },
    { _id: 'p4', gender: 'female', children: ['p1'], hobbies: ['h1', 'h3'] },
    { _id: 'p5', gender: 'female', hobbies: ['h2'] },
  ],
  Hobby: [
    { _id: 'h1', name: 'chess' },
    { _id: 'h2', name: 'golf' },
    { _id: 'h3', name: 'skiing' },
  ],
  orders: [
    { _id: 'o1', customer: 'c1', lines: [{ product: 'x' }, { product: 'y' }], shop: 'web', amount: 10 },
    { _id: 'o2', customer: 'c1', lines: [{ product: 'y' }], shop: 'store', amount: 20 },
    { _id: 'o3', customer: ['c2', 'c1'], lines: [{ product: 'z' }], shop: 'web', amount: 30 },
    { _id: 'o4', customer: 'c2', lines: [], shop: 'web', amount: 40 },
    { _id: 'o5', customer: 'c1', lines: [{ product: 'x' }], shop: 'web', amount: 50, _deleted: true },
    { _id: 'o6', customer: null, shop: 'web', amount: 60 },
  ],
  products: [
    { _id: 'x', product_id: 'X', name: 'Xylophone' },
    { _id: 'y', product_id: 'Y', name: 'Yoyo' },
    { _id: 'z', product_id: 'Z', name: 'Zither' },
  ],
  typed: [
    { _id: 't1', ref: '~:crm:42', $ids: ['~:crm:42', '~:erp:7'] },
    { _id: 't2', ref: 'crm:42' },
    { _id: 't3', amount: '~f2', when: '~t2024-01-01T00:00:00.000Z', uuid: '~u6BA7B810-9DAD-11D1-80B4-00C04FD430C8' },
    { _id: 't4', amount: 2.5, when: '~t2024-01-01' },
  ],
};

const ADDRESS_HOPS = {
  datasets: ['Address a', 'Country c'],
  return: 'a',
  where: [['or', ['eq', 'a.type', 'SHIPPING'], ['eq', 'a.type', 'BILLING']], ['eq', '_S.address', 'a._id'], ['eq', 'c._id', 'a.country']],
};
const DAUGHTERS = { datasets: ['Person p'], where: [['eq', '_S.children', 'p._id'], ['eq', 'p.gender', 'female']], recurse: true };

/** The join semantics, run against any DtlLookup holding DATA. */
function joinCases(lookup: () => DtlLookup): void {
  test('docs: addresses of the source filtered by type, joined on to their country', () => {
    const v = evaluate(['hops', ADDRESS_HOPS], lookup(), { _id: 's', address: ['a1', 'a2', 'a3', 'a4'] });
    assert.deepEqual(ids(v), ['a1', 'a3'], 'a2 is not shipping/billing; a4 has no country to join');
  });

  test('the default return is the last alias, each entity once, in _id order', () => {
    const v = evaluate(['hops', { datasets: ADDRESS_HOPS.datasets, where: ADDRESS_HOPS.where.slice(1) }], lookup(), { _id: 's', address: ['a3', 'a2', 'a1'] });
    assert.deepEqual(ids(v), ['no', 'se']);
  });

  test('return of several aliases, of a path, and of a template', () => {
    const where = [['eq', '_S.address', 'a._id'], ['eq', 'c._id', 'a.country']];
    const source = { _id: 's', address: ['a1', 'a2', 'a3'] };
    assert.deepEqual(ids(evaluate(['hops', { datasets: ['Address a', 'Country c'], where, return: 'a,c' }], lookup(), source)), ['a1', 'no', 'a2', 'se', 'a3']);
    assert.deepEqual(evaluate(['hops', { datasets: ['Address a', 'Country c'], where, return: 'c.name' }], lookup(), source), ['Norway', 'Sweden', 'Sweden']);
    assert.deepEqual(
      evaluate(['hops', { datasets: ['Address a', 'Country c'], where, return: ['dict', 'address', 'a._id', 'country', 'c.name', 'of', '_S._id'] }], lookup(), source),
      [
        { address: 'a1', country: 'Norway', of: 's' },
        { address: 'a2', country: 'Sweden', of: 's' },
        { address: 'a3', country: 'Sweden', of: 's' },
      ],
    );
  });

  test('docs: daughters recursively, then the names of their hobbies (root included; cycles end)', () => {
    const chain = ['hops', DAUGHTERS, { datasets: ['Hobby h'], where: ['eq', '_S.hobbies', 'h._id'], return: 'h.name' }];
    const source = { _id: 'p1', children: ['p2', 'p3'], hobbies: ['h1'] };
    // p1 (root) -> p2 (p3 is male) -> p4 -> p1 again (visited): hobbies of p1, p2, p4
    assert.deepEqual(evaluate(chain, lookup(), source), ['chess', 'golf', 'chess', 'skiing']);
    assert.deepEqual(ids(evaluate(['hops', DAUGHTERS], lookup(), source)), ['p1', 'p2', 'p4']);
    assert.deepEqual(ids(evaluate(['hops', { ...DAUGHTERS, exclude_root: true }], lookup(), source)), ['p2', 'p4']);
    assert.deepEqual(ids(evaluate(['hops', { ...DAUGHTERS, max_depth: 1 }], lookup(), source)), ['p1', 'p2']);
    assert.deepEqual(ids(evaluate(['hops', { ...DAUGHTERS, max_depth: 0 }], lookup(), source)), ['p1']);
    assert.deepEqual(ids(evaluate(['hops', { ...DAUGHTERS, max_depth: null }], lookup(), source)), ['p1', 'p2', 'p4']);
    // without the gender filter every descendant comes, level by level
    const all = { datasets: ['Person p'], where: ['eq', '_S.children', 'p._id'], recurse: true, exclude_root: true };
    assert.deepEqual(ids(evaluate(['hops', all], lookup(), source)), ['p2', 'p3', 'p4', 'p5']);
  });

  test('multi-hop join with list-valued keys on both sides, and chained specs', () => {
    // customer c1: orders o1, o2 and o3 (o3 lists two customers); o5 is deleted, o6 has a null customer
    const products = { datasets: ['orders o', 'products p'], where: [['eq', '_S._id', 'o.customer'], ['eq', 'o.lines.product', 'p._id']] };
    assert.deepEqual(ids(evaluate(['hops', products], lookup(), { _id: 'c1' })), ['x', 'y', 'z']);
    assert.deepEqual(ids(evaluate(['hops', { ...products, return: 'o' }], lookup(), { _id: 'c1' })), ['o1', 'o2', 'o3']);
    assert.deepEqual(ids(evaluate(['hops', { ...products, return: 'o' }], lookup(), { _id: 'c2' })), ['o3'], 'o4 has no lines to join');
    const chained: Json = ['hops', { datasets: ['orders o'], where: ['eq', '_S._id', 'o.customer'] }, { datasets: ['products p'], where: ['eq', '_S.lines.product', 'p._id'], return: 'p.product_id' }];
    assert.deepEqual(evaluate(chained, lookup(), { _id: 'c1' }), ['X', 'Y', 'Y', 'Z']);
    assert.deepEqual(ids(evaluate(['hops', { datasets: ['orders o'], where: ['eq', '_S.ids', 'o.customer'] }], lookup(), { _id: 's', ids: ['c2', 'c1', null] })), ['o1', 'o2', 'o3', 'o4']);
  });

  test('filters, overlaps and subsets', () => {
    const byShop = { datasets: ['orders o'], where: [['eq', '_S._id', 'o.customer'], ['eq', 'o.shop', '_S.shop']] };
    assert.deepEqual(ids(evaluate(['hops', byShop], lookup(), { _id: 'c1', shop: ['web', 'x'] })), ['o1', 'o3'], 'a join-shaped eq between bound sides matches on any shared value');
    const subset = { datasets: ['orders o'], where: ['eq', '_S._id', 'o.customer'], subsets: { o: ['eq', '_S.shop', 'web'] } };
    assert.deepEqual(ids(evaluate(['hops', subset], lookup(), { _id: 'c1' })), ['o1', 'o3']);
    const filtered = { datasets: ['orders o'], where: [['eq', '_S._id', 'o.customer'], ['eq', ['count', 'o.lines'], 1]] };
    assert.deepEqual(ids(evaluate(['hops', filtered], lookup(), { _id: 'c1' })), ['o2', 'o3']);
    const sourceFilter = { datasets: ['orders o'], where: [['eq', '_S._id', 'o.customer'], ['eq', '_S.vip', true]] };
    assert.deepEqual(ids(evaluate(['hops', sourceFilter], lookup(), { _id: 'c1' })), []);
    assert.deepEqual(ids(evaluate(['hops', sourceFilter], lookup(), { _id: 'c1', vip: true })), ['o1', 'o2', 'o3']);
  });

  test('null keys, null values and deleted entities never match', () => {
    const q = ['hops', { datasets: ['orders o'], where: ['eq', '_S.c', 'o.customer'] }];
    assert.deepEqual(evaluate(q, lookup(), { _id: 's', c: null }), []);
    assert.deepEqual(evaluate(q, lookup(), { _id: 's', c: [null] }), []);
    assert.deepEqual(ids(evaluate(['hops', { datasets: ['Country c'], where: ['eq', '_S.c', 'c._id'] }], lookup(), { _id: 's', c: ['dk', 'no'] })), ['no']);
    assert.deepEqual(evaluate(['lookup-entity', 'Country', 'dk'], lookup()), null);
    assert.deepEqual(evaluate(['lookup-entity', 'orders', 'o5'], lookup()), null);
  });

  test('typed values: an identifier matches the same identifier (not the plain string); numbers, decimals and datetimes by value', () => {
    const byRef = (ref: Json): Json => ids(evaluate(['hops', { datasets: ['typed t'], where: ['eq', '_S.ref', 't.$ids'] }], lookup(), { _id: 's', ref } as JsonObject));
    assert.deepEqual(byRef('~:crm:42'), ['t1']);
    assert.deepEqual(byRef(['~:erp:7', '~:crm:1']), ['t1']);
    assert.deepEqual(byRef('crm:42'), []);
    const byPlainRef = (ref: Json): Json => ids(evaluate(['hops', { datasets: ['typed t'], where: ['eq', '_S.ref', 't.ref'] }], lookup(), { _id: 's', ref } as JsonObject));
    assert.deepEqual(byPlainRef('~:crm:42'), ['t1']);
    assert.deepEqual(byPlainRef('crm:42'), ['t2']);
    const by = (path: string, value: Json): Json => ids(evaluate(['hops', { datasets: ['typed t'], where: ['eq', '_S.v', `t.${path}`] }], lookup(), { _id: 's', v: value }));
    assert.deepEqual(by('amount', 2), ['t3']);
    assert.deepEqual(by('amount', '~f2.00'), ['t3']);
    assert.deepEqual(by('amount', '~f2.5'), ['t4']);
    assert.deepEqual(by('when', '~t2024-01-01T00:00:00Z'), ['t3', 't4']);
    assert.deepEqual(by('uuid', '~u6ba7b810-9dad-11d1-80b4-00c04fd430c8'), ['t3']);
    // a key made by DTL (a typed value, not a tagged string) works the same
    assert.deepEqual(ids(evaluate(['hops', { datasets: ['typed t'], where: ['eq', ['datetime-parse', '%Y', '_S.year'], 't.when'] }], lookup(), { _id: 's', year: '2024' })), ['t3', 't4']);
  });

  test('apply-hops runs a rule set on each entity found; the rule set can hop on', () => {
    const rules = {
      order: [['copy', 'amount'], ['add', 'products', ['hops', { datasets: ['products p'], where: ['eq', '_S.lines.product', 'p._id'], return: 'p.name' }]]],
    };
    const v = evaluate(['apply-hops', 'order', { datasets: ['orders o'], where: ['eq', '_S._id', 'o.customer'] }], lookup(), { _id: 'c1' }, rules);
    assert.deepEqual(v, [
      { amount: 10, products: ['Xylophone', 'Yoyo'] },
      { amount: 20, products: ['Yoyo'] },
      { amount: 30, products: ['Zither'] },
    ]);
    const filtered = evaluate(['apply-hops', 'big', { datasets: ['orders o'], where: ['eq', '_S._id', 'o.customer'] }], lookup(), { _id: 'c1' }, { big: [['filter', ['gt', '_S.amount', 15]], ['copy', '_id']] });
    assert.deepEqual(filtered, [{ _id: 'o2' }, { _id: 'o3' }]);
  });

  test('lookup-entity by id; a list of ids; a namespaced identifier by its text', () => {
    assert.deepEqual(ids([evaluate(['lookup-entity', 'products', 'x'], lookup())]), ['x']);
    assert.deepEqual(evaluate(['lookup-entity', 'products', 'nope'], lookup()), null);
    assert.deepEqual(evaluate(['lookup-entity', 'nope', 'x'], lookup()), null);
    assert.deepEqual(ids(evaluate(['lookup-entity', 'products', ['list', 'z', 'nope', 'x']], lookup())), ['z', 'x']);
    assert.deepEqual(ids(evaluate(['lookup-entity', 'typed', ['list', '~:t1']], lookup())), ['t1']);
  });

  test('hops inside a pipe transform, with _ and _T from the surrounding rule', () => {
    const t = compileTransform(
      {
        type: 'dtl',
        rules: {
          default: [
            ['copy', '_id'],
            ['add', 'wanted', 'web'],
            ['add', 'per_customer', ['map', ['count', ['hops', { datasets: ['orders o'], where: [['eq', '_.', 'o.customer'], ['eq', 'o.shop', '_T.wanted']] }]], '_S.customers']],
          ],
        },
      },
      { lookup: lookup() },
    );
    assert.deepEqual(t.errors, []);
    assert.deepEqual(t.run({ _id: 'x', customers: ['c1', 'c2', 'c3'] }).entities, [{ _id: 'x', wanted: 'web', per_customer: [2, 2, 0] }]);
  });

  test('a missing dataset has no entities', () => {
    assert.deepEqual(evaluate(['hops', { datasets: ['nope n'], where: ['eq', '_S._id', 'n.x'] }], lookup()), []);
  });
}

describe('joins on in-memory datasets (MemoryLookup)', () => {
  const memory = new MemoryLookup(DATA);
  joinCases(() => memory);

  test('without dataset access, a join with something to look up fails with the path of the join', () => {
    const t = compileTransform({ type: 'dtl', rules: { default: [['add', 'o', ['hops', { datasets: ['orders o'], where: ['eq', '_S._id', 'o.customer'] }]]] } });
    assert.ok(t.ok);
    assert.throws(() => t.run({ _id: 'c1' }), (e: Error & { elements?: string; entityId?: string }) => {
      assert.match(e.message, /"hops" needs access to datasets/);
      assert.equal(e.elements, '$.transform.rules.default[0][2][1].where');
      assert.equal(e.entityId, 'c1');
      return true;
    });
  });

  test('compile errors carry the JSON path of the element at fault', () => {
    const t = compileTransform({
      type: 'dtl',
      rules: { default: [['add', 'x', ['hops', { datasets: ['orders o', 'products p'], where: [['eq', '_S._id', 'o.customer']] }]]] },
    });
    assert.equal(t.ok, false);
    assert.deepEqual(
      t.errors.map((e) => e.elements),
      ['$.transform.rules.default[0][2][1].datasets[1]'],
    );
  });

  test('a string that looks like the path of an undeclared alias gets a warning', () => {
    const t = compileTransform({ type: 'dtl', rules: { default: [['add', 'x', ['hops', { datasets: ['orders o'], where: [['eq', '_S._id', 'o.customer'], ['eq', 'oo.shop', 'web']] }]]] } });
    assert.ok(t.ok);
    assert.deepEqual(
      t.errors.map((e) => [e.level, e.elements]),
      [['warning', '$.transform.rules.default[0][2][1].where[1][1]']],
    );
  });
});

describe('joins on the hub datasets (DatasetLookup)', () => {
  let dir: string;
  let hub: Hub;
  let lookup: DatasetLookup;
  before(() => {
    dir = tempDir('datahub-joins-');
    hub = new Hub(dir);
    for (const [name, entities] of Object.entries(DATA)) hub.datasets.open(name).write(entities);
    lookup = new DatasetLookup(hub.datasets);
  });
  after(() => {
    hub.close();
    removeDir(dir);
  });

  joinCases(() => lookup);

  test('the joined paths were declared as dataset indexes (not _id, which is read by id)', () => {
    const expressions = (name: string): string[] => hub.datasets.require(name).listIndexes().map((i) => i.expression);
    assert.ok(expressions('orders').includes('_S.customer'));
    assert.ok(expressions('typed').includes('_S.$ids'));
    assert.deepEqual(expressions('products'), []);
  });

  test('gives the same entities as MemoryLookup for every key of the test data', () => {
    const memory = new MemoryLookup(DATA);
    for (const [name, entities] of Object.entries(DATA)) {
      for (const path of [['_id'], ['customer'], ['lines', 'product'], ['country'], ['children'], ['$ids'], ['amount'], ['when'], ['ref']]) {
        const keys: JsonValue[] = [];
        for (const e of entities) {
          const v = e[path[0] as string];
          if (v !== undefined) keys.push(...(Array.isArray(v) ? v : [v]));
        }
        const all = [...keys, 'nope', 1, null];
        assert.deepEqual(
          lookup.lookupByIndex(name, path, all).map((e) => e['_id']),
          [...memory.lookupByIndex(name, path, all)].map((e) => e['_id']),
          `${name} ${path.join('.')}`,
        );
      }
    }
  });

  test('an update of the joined dataset is seen by the next run; a deletion too', () => {
    const t = compileTransform(
      { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'orders', ['hops', { datasets: ['orders2 o'], where: ['eq', '_S._id', 'o.customer'], return: 'o.amount' }]]] } },
      { lookup },
    );
    const orders = hub.datasets.open('orders2');
    orders.write([
      { _id: 'o1', customer: 'c1', amount: 1 },
      { _id: 'o2', customer: 'c2', amount: 2 },
    ]);
    assert.deepEqual(t.run({ _id: 'c1' }).entities, [{ _id: 'c1', orders: [1] }]);
    orders.write([{ _id: 'o2', customer: ['c2', 'c1'], amount: 2 }, { _id: 'o3', customer: 'c1', amount: 3 }]);
    assert.deepEqual(t.run({ _id: 'c1' }).entities, [{ _id: 'c1', orders: [1, 2, 3] }]);
    orders.write([{ _id: 'o1', _deleted: true, customer: 'c1', amount: 1 }, { _id: 'o3', customer: 'c9', amount: 3 }]);
    assert.deepEqual(t.run({ _id: 'c1' }).entities, [{ _id: 'c1', orders: [2] }]);
    orders.write([{ _id: 'o1', customer: 'c1', amount: 10 }]);
    assert.deepEqual(t.run({ _id: 'c1' }).entities, [{ _id: 'c1', orders: [10, 2] }]);
    assert.deepEqual(hub.datasets.require('orders2').listIndexes().map((i) => i.expression), ['_S.customer']);
  });

  test('a dataset deleted and created again is joined afresh', () => {
    const name = 'recreated';
    hub.datasets.open(name).write([{ _id: 'r1', k: 'a' }]);
    assert.deepEqual(lookup.lookupByIndex(name, ['k'], ['a']).map((e) => e['_id']), ['r1']);
    hub.datasets.delete(name);
    assert.deepEqual(lookup.lookupByIndex(name, ['k'], ['a']), []);
    hub.datasets.open(name).write([{ _id: 'r2', k: 'a' }]);
    assert.deepEqual(lookup.lookupByIndex(name, ['k'], ['a']).map((e) => e['_id']), ['r2']);
  });

  test('paths with dots and quotes in property names', () => {
    hub.datasets.open('odd').write([
      { _id: 'q1', 'a.b': 'x', "'c": 'y' },
      { _id: 'q2', 'a.b': 'y', "'c": 'x' },
    ]);
    assert.equal(indexExpressionOf(['a.b']), "_S.'a.b'");
    assert.equal(indexExpressionOf(["'c"]), undefined);
    assert.deepEqual(lookup.lookupByIndex('odd', ['a.b'], ['x']).map((e) => e['_id']), ['q1']);
    assert.deepEqual(lookup.lookupByIndex('odd', ["'c"], ['x']).map((e) => e['_id']), ['q2']);
  });

  test('the stored spellings a key is looked up under', () => {
    assert.deepEqual(keySpellings(2), [2, '~f2']);
    assert.deepEqual(keySpellings('~f2.50'), ['~f2.50', '~f2.5', 2.5]);
    assert.deepEqual(keySpellings('~t2024-01-01T00:00:00Z'), ['~t2024-01-01T00:00:00Z', '~t2024-01-01T00:00:00.000Z', '~t2024-01-01T00:00:00.000000Z', '~t2024-01-01T00:00:00.000000000Z', '~t2024-01-01']);
    assert.deepEqual(keySpellings('~:crm:42'), ['~:crm:42']);
    assert.deepEqual(keySpellings('plain'), ['plain']);
  });

  test('entity() gives live entities only', () => {
    assert.equal(lookup.entity('products', 'x')?.['name'], 'Xylophone');
    assert.equal(lookup.entity('Country', 'dk'), undefined);
    assert.equal(lookup.entity('nope', 'x'), undefined);
  });
});

describe('a dataset looked up many times is read whole, with the same answers', () => {
  let dir: string;
  let hub: Hub;
  before(() => {
    dir = tempDir('datahub-joins-many-');
    hub = new Hub(dir);
  });
  after(() => {
    hub.close();
    removeDir(dir);
  });

  /** 3,000 entities with plain, typed, list, null and nested values; some deleted, some updated. */
  function entities(round: number): JsonObject[] {
    return Array.from({ length: 3000 }, (_, i) => ({
      _id: `k${i}`,
      group: `g${i % 7}`,
      amount: i % 5 === 0 ? `~f${i % 11}` : i % 11,
      when: i % 2 === 0 ? '~t2024-01-01T00:00:00.000Z' : '~t2024-01-01',
      refs: i % 3 === 0 ? [`k${(i + 1) % 3000}`, null, `k${(i + round) % 3000}`] : null,
      nested: { code: i % 4 === 0 ? null : `c${i % 13}` },
      ...(i % 17 === round ? { _deleted: true } : {}),
    }));
  }

  test('hops keys by id, by value, typed and nested: every answer equals the per-key lookups', () => {
    const ds = hub.datasets.open('many');
    // The reference never reads a dataset whole (it believes it is always inside a transaction).
    const reference = new DatasetLookup(hub.datasets, () => true);
    const lookup = new DatasetLookup(hub.datasets);
    const keySets: [string[], JsonValue[]][] = [
      [['_id'], Array.from({ length: 3100 }, (_, i) => `k${i}`)],
      [['group'], ['g0', 'g3', 'g9', null]],
      [['amount'], [0, 2, '~f2', '~f2.0', 2.0, 7, 'x']],
      [['when'], ['~t2024-01-01T00:00:00Z', '~t2024-01-01']],
      [['refs'], ['k1', 'k2999', 'k4']],
      [['nested', 'code'], ['c1', 'c12', null]],
    ];
    for (const round of [0, 1, 2]) {
      ds.write(entities(round));
      // Enough lookups for the dataset to be read whole, then the same keys again.
      for (let pass = 0; pass < 2; pass++) {
        for (const [path, keys] of keySets) {
          for (const k of keys) {
            assert.deepEqual(lookup.lookupByIndex('many', path, [k]), reference.lookupByIndex('many', path, [k]), `round ${round}: ${path.join('.')} = ${JSON.stringify(k)}`);
          }
          assert.deepEqual(lookup.lookupByIndex('many', path, keys), reference.lookupByIndex('many', path, keys), `round ${round}: ${path.join('.')} all keys`);
        }
      }
    }
    // The last round's changes were seen: k1 was deleted in round 1 and is back; k19 is deleted in round 2.
    assert.deepEqual(lookup.lookupByIndex('many', ['_id'], ['k1', 'k19']).map((e) => e['_id']), ['k1']);
    assert.ok(lookup.datasetsReadWhole > 0, 'the dataset was read whole at least once');
  });

  test('a pipe joining every entity gets the same output with and without reading the joined dataset whole', () => {
    const people = Array.from({ length: 2500 }, (_, i) => ({ _id: `p${i}`, city: `c${i % 1200}`, region: `r${i % 9}` }));
    const cities = Array.from({ length: 1200 }, (_, i) => ({ _id: `c${i}`, name: `City ${i}`, region: `r${i % 9}`, ...(i % 50 === 0 ? { _deleted: true } : {}) }));
    hub.datasets.open('j-cities').write(cities);
    const transform = {
      type: 'dtl',
      rules: {
        default: [
          ['copy', '_id'],
          ['add', 'city', ['first', ['hops', { datasets: ['j-cities c'], where: [['eq', '_S.city', 'c._id']], return: 'c.name' }]]],
          ['add', 'same_region', ['hops', { datasets: ['j-cities c'], where: [['eq', '_S.region', 'c.region'], ['eq', 'c._id', '_S.city']], return: 'c._id' }]],
        ],
      },
    };
    const run = (lookup: DtlLookup): JsonObject[] => {
      const t = compileTransform(transform, { lookup });
      return people.flatMap((p) => t.run(p).entities);
    };
    const whole = new DatasetLookup(hub.datasets);
    const expected = run(new DatasetLookup(hub.datasets, () => true));
    assert.deepEqual(run(whole), expected);
    assert.equal(expected[0]?.['city'], null, 'c0 is deleted: no city');
    assert.equal(expected[1]?.['city'], 'City 1');
    assert.deepEqual(expected[1]?.['same_region'], ['c1']);
    assert.ok(whole.datasetsReadWhole > 0);
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// Pipe configuration: DTL transforms are compiled when a pipe is saved

describe('a snapshot kept from one run to the next (a pipe worker\'s runs)', () => {
  const dir = tempDir();
  let hub: Hub;
  before(() => {
    hub = new Hub(dir);
  });
  after(() => {
    hub.close();
    removeDir(dir);
  });

  /** One run: a new lookup (as each worker run has) looks every city up by id; the names found, in order. */
  const run = (kept: KeptSnapshots): { names: unknown[]; readWhole: number } => {
    const lookup = new DatasetLookup(hub.datasets, undefined, kept);
    lookup.expectLookups(2000, 0);
    const names = Array.from({ length: 2000 }, (_, i) => lookup.lookupByIndex('kept-cities', ['_id'], [`c${i}`])[0]?.['name'] ?? null);
    return { names, readWhole: lookup.datasetsReadWhole };
  };
  const cities = (label: string): JsonObject[] => Array.from({ length: 2000 }, (_, i) => ({ _id: `c${i}`, name: `${label} ${i}` }));

  test('is taken again while the dataset is unchanged, and never after a write, a deletion or the dataset made anew', () => {
    const kept = new KeptSnapshots();
    hub.datasets.open('kept-cities').write(cities('City'));
    const first = run(kept);
    assert.equal(first.readWhole, 1);
    assert.equal(first.names[5], 'City 5');
    const second = run(kept);
    assert.equal(second.readWhole, 0, 'the second run reads nothing whole');
    assert.equal(kept.hits, 1);
    assert.deepEqual(second.names, first.names);

    hub.datasets.require('kept-cities').write([{ _id: 'c5', name: 'Renamed' }]);
    const afterWrite = run(kept);
    assert.equal(afterWrite.readWhole, 1, 'a write makes the next run read it again');
    assert.equal(afterWrite.names[5], 'Renamed');

    hub.datasets.require('kept-cities').write([{ _id: 'c6', _deleted: true }]);
    assert.equal(run(kept).names[6], null, 'a deletion is seen');

    // Made anew with as many entities and offsets as before: only its generation tells it apart.
    hub.datasets.delete('kept-cities');
    const fresh = hub.datasets.open('kept-cities');
    fresh.write(cities('City'));
    fresh.write([{ _id: 'c5', name: 'Other' }]);
    fresh.write([{ _id: 'c6', _deleted: true }]);
    const anew = run(kept);
    assert.equal(anew.readWhole, 1);
    assert.equal(anew.names[5], 'Other');
  });
});

describe('pipe configuration check compiles the DTL transform (real hub over HTTP)', () => {
  let hub: HubProcess;
  before(async () => {
    hub = await startHub();
  });
  after(async () => {
    if (!hub) return;
    await hub.stop();
    removeDir(hub.dataDir);
  });

  interface PipeInfo {
    runtime: { 'is-valid-config': boolean; 'config-errors': { elements: string; level: string; msg: string }[] };
  }
  const pipe = (id: string, rules: Json): Json => ({ _id: id, type: 'pipe', source: { type: 'dataset', dataset: 'people' }, transform: { type: 'dtl', rules } });

  test('an unknown DTL function: 400 without force; stored with is-valid-config false and the path of the function with force', async () => {
    const config = pipe('bad-dtl', { default: [['copy', '*'], ['add', 'x', ['no-such-function', '_S.a']]] });
    const refused = await hub.fetch('/pipes', { method: 'POST', json: [config] });
    const text = await refused.text();
    assert.equal(refused.status, 400, text);
    assert.match(text, /no-such-function/);
    assert.equal((await hub.fetch('/pipes/bad-dtl')).status, 404);

    const [info] = await hub.json<PipeInfo[]>('/pipes?force=true', { method: 'POST', json: [config] });
    assert.equal(info?.runtime['is-valid-config'], false);
    const errors = info!.runtime['config-errors'].filter((e) => e.level === 'error');
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.equal(errors[0]?.elements, '$.transform.rules.default[1][2][0]');
    assert.match(errors[0]?.msg ?? '', /unknown function "no-such-function"/);
    const again = await hub.json<PipeInfo>('/pipes/bad-dtl');
    assert.equal(again.runtime['is-valid-config'], false);
  });

  test('hops specs are checked too; a valid one is accepted; transform lists carry their index', async () => {
    const bad = pipe('bad-hops', { default: [['add', 'x', ['hops', { datasets: ['orders o', 'lines l'], where: ['eq', '_S._id', 'o.customer'] }]]] });
    assert.equal((await hub.fetch('/pipes', { method: 'POST', json: [bad] })).status, 400);
    const [info] = await hub.json<PipeInfo[]>('/pipes?force=true', { method: 'POST', json: [bad] });
    assert.deepEqual(
      info!.runtime['config-errors'].filter((e) => e.level === 'error').map((e) => e.elements),
      ['$.transform.rules.default[0][2][1].datasets[1]'],
    );

    const good = pipe('good-hops', { default: [['copy', '*'], ['add', 'orders', ['apply-hops', 'order', { datasets: ['orders o'], where: ['eq', '_S._id', 'o.customer'] }]]], order: [['copy', 'amount']] });
    const [ok] = await hub.json<PipeInfo[]>('/pipes', { method: 'POST', json: [good] });
    assert.equal(ok?.runtime['is-valid-config'], true);
    assert.deepEqual(ok?.runtime['config-errors'], []);

    const chained = { ...(pipe('chained', {}) as JsonObject), transform: [{ type: 'dtl', rules: { default: [['copy', '*']] } }, { type: 'dtl', rules: { default: [['add', 'x', 'y'], ['nope']] } }] };
    const [c] = await hub.json<PipeInfo[]>('/pipes?force=true', { method: 'POST', json: [chained] });
    assert.deepEqual(
      c!.runtime['config-errors'].filter((e) => e.level === 'error').map((e) => e.elements),
      ['$.transform[1].rules.default[1][0]'],
    );
  });
});

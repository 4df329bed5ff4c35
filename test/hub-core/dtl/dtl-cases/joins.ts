// Table cases of the DTL joins functions: several per function (normal values, null, lists, wrong types).
//
// The tables run without dataset access, so these cases cover what needs none: checking and planning of hops specs
// (errors carry JSON paths), joins with nothing to look up, recursion roots, and the error when a lookup would be
// needed. Joins against datasets are tested in test/hub-core/dtl/dtl-joins.test.ts (in memory and on the hub's datasets).
import type { ExpressionTable } from './types.js';

const ADDRESS_WHERE = [
  ['or', ['eq', 'a.type', 'SHIPPING'], ['eq', 'a.type', 'BILLING']],
  ['eq', '_S.address', 'a._id'],
  ['eq', 'c._id', 'a.country'],
];
const ORDERS = { datasets: ['orders o'], where: ['eq', '_S._id', 'o.cust_id'] };

export const JOINS: ExpressionTable = {
  hops: [
    // docs: the Address/Country example compiles; without an address there is nothing to join
    { expr: ['hops', { datasets: ['Address a', 'Country c'], return: 'a', where: ADDRESS_WHERE }], source: { _id: 'x' }, result: [] },
    { expr: ['hops', { datasets: ['Address a', 'Country c'], return: 'a', where: ADDRESS_WHERE }], source: { _id: 'x', address: null }, result: [] },
    { expr: ['hops', { datasets: ['Address a', 'Country c'], return: 'a', where: ADDRESS_WHERE }], source: { _id: 'x', address: [null, null] }, result: [] },
    // docs: the recursive daughters-then-hobbies chain; the root (no children, no hobbies) leads nowhere
    {
      expr: [
        'hops',
        { datasets: ['Person p'], where: [['eq', '_S.children', 'p._id'], ['eq', 'p.gender', 'female']], recurse: true },
        { datasets: ['Hobby h'], where: ['eq', '_S.hobbies', 'h._id'], return: 'h.name' },
      ],
      source: { _id: 'ann' },
      result: [],
    },
    { expr: ['hops', { datasets: ['Person p'], where: ['eq', '_S.children', 'p._id'], recurse: true }], source: { _id: 'ann' }, result: [{ _id: 'ann' }] },
    { expr: ['hops', { datasets: ['Person p'], where: ['eq', '_S.children', 'p._id'], recurse: true, exclude_root: true }], source: { _id: 'ann' }, result: [] },
    { expr: ['hops', { datasets: ['Person p'], where: ['eq', '_S.children', 'p._id'], recurse: true, max_depth: null }], source: { _id: 'ann', children: [] }, result: [{ _id: 'ann', children: [] }] },
    { expr: ['hops', { datasets: ['orders o'], where: ['and', ['eq', '_S.id', 'o.cust_id'], ['eq', 'o.type', 'x']] }], source: {}, result: [] },
    { expr: ['hops', ORDERS], source: { _id: 'c1' }, error: /"hops" needs access to datasets, and none are available here/ },
    { expr: ['hops', { ...ORDERS, 'track-dependencies': false, trace: 'orders' }], source: {}, result: [] },
    { expr: ['hops', { ...ORDERS, subsets: { o: ['eq', '_S.shop', 'myshop'] } }], source: {}, result: [] },
    { expr: ['hops', ORDERS, { datasets: ['lines l'], where: ['eq', '_S._id', 'l.order'], return: 'l.amount' }], source: {}, result: [] },
    // checks, with the JSON path of the element at fault
    { expr: ['hops', { datasets: 'orders o', where: ['eq', '_S._id', 'o.cust_id'] }], error: /\$\[1\]\.datasets: "datasets" must be a non-empty list/ },
    { expr: ['hops', { datasets: [], where: [] }], error: /"datasets" must be a non-empty list/ },
    { expr: ['hops', { datasets: ['orders'], where: ['eq', '_S._id', 'orders.cust_id'] }], error: /\$\[1\]\.datasets\[0\]: write each dataset as "<dataset-id> <alias>"/ },
    { expr: ['hops', { datasets: ['orders o', 'lines o'], where: ['eq', '_S._id', 'o.cust_id'] }], error: /\$\[1\]\.datasets\[1\]: the alias "o" is declared twice/ },
    { expr: ['hops', { datasets: ['orders _o'], where: ['eq', '_S._id', '_o.cust_id'] }], error: /the alias "_o" may not start with "_"/ },
    { expr: ['hops', { datasets: ['orders o'], wher: ['eq', '_S._id', 'o.cust_id'] }], error: /\$\[1\]\.wher: unknown hops property "wher"/ },
    { expr: ['hops', { datasets: ['orders o'] }], error: /a hops spec needs "where"/ },
    { expr: ['hops', 'orders o'], error: /\$\[1\]: a hops spec must be an object/ },
    { expr: ['hops'], error: /"hops" takes at least 1 argument/ },
    {
      expr: ['hops', { datasets: ['orders o', 'product p'], where: ['eq', '_S._id', 'o.customer'] }],
      error: /\$\[1\]\.datasets\[1\]: alias "p" is not joined to the source/,
    },
    { expr: ['hops', { datasets: ['orders o'], where: ['eq', 'o.type', 'BILLING'] }], error: /alias "o" is not joined to the source/ },
    // A function on the alias' side is a join (the dataset is read whole): it compiles, and needs datasets to run.
    { expr: ['hops', { datasets: ['orders o'], where: ['eq', ['lower', 'o.name'], '_S.name'] }], source: { name: 'x' }, error: /"hops" needs access to datasets/ },
    { expr: ['hops', { ...ORDERS, return: 'x' }], error: /\$\[1\]\.return: "return": "x" is not one of the aliases \(o\)/ },
    { expr: ['hops', { ...ORDERS, return: 'o' }, ORDERS], error: /\$\[1\]\.return: "return" can only be given on the last hops spec/ },
    { expr: ['hops', { ...ORDERS, recurse: true, return: 'o' }], error: /"return" cannot be combined with "recurse": true/ },
    { expr: ['hops', { ...ORDERS, recurse: 'yes' }], error: /\$\[1\]\.recurse: "recurse" must be true or false/ },
    { expr: ['hops', { ...ORDERS, recurse: true, max_depth: -1 }], error: /\$\[1\]\.max_depth: "max_depth" must be a non-negative integer, or null/ },
    { expr: ['hops', { ...ORDERS, trace: 1 }], error: /"trace" must be a string/ },
    { expr: ['hops', { ...ORDERS, subsets: { x: ['eq', '_S.shop', 1] } }], error: /\$\[1\]\.subsets\.x: "x" is not one of the aliases/ },
    { expr: ['hops', { ...ORDERS, subsets: { o: ['gt', '_S.shop', 1] } }], error: /a subset is written \["eq", "_S.<property>", <value>\]/ },
    { expr: ['hops', { datasets: ['orders o'], where: [['eq', '_S._id', 'o.cust_id'], ['nosuch', 'o.x']] }], error: /\$\[1\]\.where\[1\]\[0\]: unknown function "nosuch"/ },
  ],
  'apply-hops': [
    // docs: orders of a customer through the "order" rule set
    { expr: ['apply-hops', 'order', ORDERS], source: {}, rules: { order: [['copy', 'amount']] }, result: [] },
    { expr: ['apply-hops', 'order', ORDERS], source: { _id: null }, rules: { order: [['copy', 'amount']] }, result: [] },
    {
      expr: ['apply-hops', 'person', { datasets: ['Person p'], where: ['eq', '_S.children', 'p._id'], recurse: true }],
      source: { _id: 'ann', name: 'Ann' },
      rules: { person: [['copy', 'name']] },
      result: [{ name: 'Ann' }],
    },
    {
      expr: ['apply-hops', 'person', { datasets: ['Person p'], where: ['eq', '_S.children', 'p._id'], recurse: true }],
      source: { _id: 'ann', name: 'Ann' },
      rules: { person: [['filter', ['eq', '_S.name', 'Bob']]] },
      result: [],
    },
    { expr: ['apply-hops', 'order', ORDERS], source: { _id: 'c1' }, rules: { order: [] }, error: /"apply-hops" needs access to datasets/ },
    { expr: ['apply-hops', 'missing', ORDERS], rules: { order: [] }, error: /\$\[1\]: unknown rule set "missing"/ },
    { expr: ['apply-hops', 'order', { datasets: ['orders'] }], rules: { order: [] }, error: /\$\[2\]\.datasets\[0\]: write each dataset/ },
    { expr: ['apply-hops', 'order'], rules: { order: [] }, error: /"apply-hops" takes at least 2 arguments/ },
  ],
  'lookup-entity': [
    { expr: ['lookup-entity', 'code-table', '_S.code'], source: {}, result: null },
    { expr: ['lookup-entity', 'code-table', ['list']], result: [] },
    { expr: ['lookup-entity', 'code-table', 42], result: null },
    { expr: ['lookup-entity', 'code-table', ['list', 1, null, true]], result: [] },
    // docs: ["lookup-entity", "code-table", "foo"] looks up "foo"; here there are no datasets to look in
    { expr: ['lookup-entity', 'code-table', 'foo'], error: /"lookup-entity" needs access to datasets/ },
    { expr: ['lookup-entity', ['concat', 'a', 'b'], 'foo'], error: /DATASET_ID of "lookup-entity" must be a literal string/ },
    { expr: ['lookup-entity', 'code-table'], error: /"lookup-entity" takes exactly 2 arguments/ },
  ],
};

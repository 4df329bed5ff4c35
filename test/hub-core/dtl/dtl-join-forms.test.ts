// Joins as the service documents them (issue 13, point 5), in a pipe on the real hub over HTTP: a join expression
// may apply functions on either side (lower, string, tuples, last/split, ni-id ...) as long as each side refers to
// exactly one alias, and joins may be combined with "or". The expected ids are worked out by hand from the data
// below: a join holds when the two sides share a value (nulls never match).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { pushEntities, runPump } from '../../helpers/api.js';

type Json = Record<string, unknown>;

const hub = useHub();

const PEOPLE: Json[] = [
  { _id: 'p1', email: 'Ada@Example.com', crm_id: 1, first: 'Ada', last: 'Lovelace' },
  { _id: 'p2', email: 'bob@example.com', erp_no: 'E-7', first: 'Bob', last: 'Smith' },
  { _id: 'p3', email: 'carl@example.com', first: 'Ada', last: 'Smith' },
];

const ACCOUNTS: Json[] = [
  { _id: 'a1', mail: 'ada@example.COM', ref: '1', first: 'Ada', last: 'Lovelace' },
  { _id: 'a2', mail: 'BOB@EXAMPLE.COM', erp: 'E-7', code: '7', owner: '~:people:p2' },
  { _id: 'a3', mail: 'nobody@example.org', first: 'Ada', last: 'Smith', erp: 'E-9' },
];

/** ["add", name, the _ids of the people the join reaches]. */
const join = (name: string, where: unknown): unknown[] => ['add', name, ['sorted', ['hops', { datasets: ['people p'], where, return: 'p._id' }]]];

const RULES = [
  ['copy', '_id'],
  // A function on both sides.
  join('by_email', ['eq', ['lower', '_S.mail'], ['lower', 'p.email']]),
  // A function on the dataset's side only: the number 1 as a string meets "1".
  join('by_ref', ['eq', '_S.ref', ['string', 'p.crm_id']]),
  // Composite keys.
  join('by_name', ['eq', ['tuples', '_S.first', '_S.last'], ['tuples', 'p.first', 'p.last']]),
  // Nested functions on the dataset's side: "E-7" gives "7".
  join('by_code', ['eq', '_S.code', ['last', ['split', '-', 'p.erp_no']]]),
  // A function on the source's side.
  join('by_owner', ['eq', ['ni-id', '_S.owner'], 'p._id']),
  // Joins combined with "or": plain paths (index lookups) ...
  join('by_erp_or_first', ['or', ['eq', '_S.erp', 'p.erp_no'], ['eq', '_S.first', 'p.first']]),
  // ... and an arm with functions.
  join('by_erp_or_email', ['or', ['eq', '_S.erp', 'p.erp_no'], ['eq', ['lower', '_S.mail'], ['lower', 'p.email']]]),
];

const EXPECTED: Record<string, Record<string, string[]>> = {
  a1: { by_email: ['p1'], by_ref: ['p1'], by_name: ['p1'], by_code: [], by_owner: [], by_erp_or_first: ['p1', 'p3'], by_erp_or_email: ['p1'] },
  a2: { by_email: ['p2'], by_ref: [], by_name: [], by_code: ['p2'], by_owner: ['p2'], by_erp_or_first: ['p2'], by_erp_or_email: ['p2'] },
  a3: { by_email: [], by_ref: [], by_name: ['p3'], by_code: [], by_owner: [], by_erp_or_first: ['p1', 'p3'], by_erp_or_email: [] },
};

test('join expressions with functions on either side and joins combined with "or" give the documented matches', async () => {
  await pushEntities(hub, 'people', PEOPLE);
  await pushEntities(hub, 'accounts', ACCOUNTS);
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'matched', type: 'pipe', source: { type: 'dataset', dataset: 'accounts' }, transform: { type: 'dtl', rules: { default: RULES } } }],
  });
  const info = await hub.json<{ runtime: { 'config-errors': { level: string }[] } }>('/pipes/matched');
  assert.deepEqual(info.runtime['config-errors'].filter((e) => e.level === 'error'), []);
  const last = await runPump<{ status: string; reason_why_stopped: string | null }>(hub, 'matched', 'start', 30_000);
  assert.equal(last.status, 'completed', last.reason_why_stopped ?? '');
  const out = await hub.json<Json[]>('/datasets/matched/entities?history=false');
  for (const [id, expected] of Object.entries(EXPECTED)) {
    const e = out.find((x) => x['_id'] === id);
    assert.ok(e, `output ${id}`);
    for (const [name, ids] of Object.entries(expected)) assert.deepEqual(e[name] ?? [], ids, `${id}.${name}`);
  }
  // The same answers from the pipe's output stage, and after a person changes (no stale index of the function's side).
  await pushEntities(hub, 'people', [{ ...PEOPLE[2], email: 'NOBODY@example.org' }]);
  const again = await hub.json<Json[]>('/pipes/matched/entities?stage=sink');
  assert.deepEqual(again.find((x) => x['_id'] === 'a3')?.['by_email'] ?? [], ['p3']);
});

test('an alias that no join reaches is still refused, with its path', async () => {
  const res = await hub.fetch('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'unjoined',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'accounts' },
        transform: { type: 'dtl', rules: { default: [['add', 'x', ['hops', { datasets: ['people p'], where: ['eq', ['lower', 'p.email'], 'someone@example.org'] }]]] } },
      },
    ],
  });
  assert.equal(res.status, 400);
  const body = (await res.json()) as { detail: string };
  assert.match(body.detail, /\$\.transform\.rules\.default\[0\]\[2\]\[1\]\.datasets\[0\]: alias "p" is not joined to the source/);
});

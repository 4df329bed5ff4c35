// Step-through over HTTP (POST /pipes/<id>/step-through) against the real hub: one source entity picked by _id (or
// the source's first, or one sent), every step recorded with _T matching the trace of a traced preview of the same
// entity, joins against the hub's own datasets, a conditional breakpoint, a draft configuration, and bad requests
// as 4xx JSON errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { expectError, pushEntities } from '../../helpers/api.js';
import type { JsonObject } from '../../../hub-core/base/index.js';
import type { TraceNode, TransformTrace } from '../../../hub-core/dtl/index.js';
import type { PipePreview, StepThrough } from '../../../hub-core/preview/index.js';

// A 2 s bound per entity (10 s by default): the runaway step-through below ends at the 4 s hold bound.
const hub = useHub({ env: { DATAHUB_ENTITY_TIME_LIMIT_MS: '2000' } });

const TRANSFORM = {
  type: 'dtl',
  rules: {
    default: [
      ['copy', '_id'],
      ['add', 'name', ['upper', '_S.name']],
      ['add', 'city', ['first', ['hops', { datasets: ['cities c'], where: ['eq', '_S.city', 'c._id'], return: 'c.name' }]]],
      ['add', 'pets', ['apply', 'pet', '_S.pets']],
      ['filter', ['gt', '_S.age', 17]],
    ],
    pet: [['add', 'kind', ['lower', '_S.kind']], ['add', 'owner', '_P._T.name']],
  },
};

/** `_note`: hub/dtl/dtl-functions-hops.rst (hops), hub/dtl/dtl-functions-dictionaries.rst (apply, with _P the caller). */
const EXPECTED_ANN = [
  ['copy', '$.transform.rules.default[0]', 0],
  ['add', '$.transform.rules.default[1]', 0],
  ['add', '$.transform.rules.default[2]', 0],
  ['hops', '$.transform.rules.default[2][2][1]', 1],
  ['hops', '$.transform.rules.default[2][2][1]', 1], // where it returns
  ['add', '$.transform.rules.default[3]', 0],
  ['apply', '$.transform.rules.default[3][2]', 1],
  ['add', '$.transform.rules.pet[0]', 2],
  ['add', '$.transform.rules.pet[1]', 2],
  ['apply', '$.transform.rules.default[3][2]', 1], // where it returns
  ['filter', '$.transform.rules.default[4]', 0],
];

function find(nodes: readonly TraceNode[], id: number): TraceNode | undefined {
  for (const n of nodes) {
    if (n.id === id) return n;
    const below = find(n.children ?? [], id);
    if (below) return below;
  }
  return undefined;
}

const post = (id: string, body: unknown): Promise<Response> => hub.fetch(`/pipes/${id}/step-through`, { method: 'POST', json: body });

test('POST /pipes/<id>/step-through: the steps of a source entity, _T at each root step as the trace of a preview says', async () => {
  await pushEntities(hub, 'cities', [{ _id: 'osl', name: 'Oslo' }]);
  await pushEntities(hub, 'people', [
    { _id: 'kid', name: 'Kid', city: 'osl', age: 5, pets: [] },
    { _id: 'ann', name: 'Ann', city: 'osl', age: 40, pets: [{ kind: 'CAT' }] },
  ]);
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'people-out', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, transform: TRANSFORM }] });
  const st = await hub.json<StepThrough>('/pipes/people-out/step-through', { method: 'POST', json: { 'entity-id': 'ann' } });
  assert.equal(st.sample, 'source');
  assert.equal(st.entity['_id'], 'ann');
  assert.deepEqual(st.steps.map((s) => [s.name, s.at, s.depth]), EXPECTED_ANN);
  assert.deepEqual(st.values[st.steps[8]!.after], { kind: 'cat', owner: 'ANN' });
  assert.deepEqual(st.steps.map((s) => s.kind), ['step', 'step', 'step', 'call', 'return', 'step', 'call', 'step', 'step', 'return', 'step']);
  assert.deepEqual(st.values[st.steps[9]!.value!], [{ kind: 'cat', owner: 'ANN' }]);
  assert.deepEqual(st.values[st.steps[3]!.value!], ['Oslo']);
  assert.deepEqual(st.output, [{ _id: 'ann', name: 'ANN', city: 'Oslo', pets: [{ kind: 'cat', owner: 'ANN' }] }]);

  // The trace of a preview of the same entity: after each root step, _T holds what the trace's events up to it made.
  const preview = await hub.json<PipePreview>('/pipes/people-out/preview', { method: 'POST', json: { trace: true, entities: [st.entity] } });
  const trace = (preview.results[0]!.trace as TransformTrace).entities[0]!;
  for (const s of st.steps.filter((x) => x.depth === 0)) {
    const node = find(trace.steps, s.node!)!;
    assert.equal(node.at, s.at);
    const expected: JsonObject = {};
    for (const [prop, events] of Object.entries(trace.properties)) {
      const upTo = events.filter((e) => e.step <= node.id && e.name !== '(filter)');
      const last = upTo.at(-1);
      if (last?.action === 'set') expected[prop] = last.value!;
    }
    assert.deepEqual(st.values[s.after], expected, `_T after step ${s.index} (${s.at})`);
  }

  // Without a sample: the source's first entity; with one: as sent.
  const first = await hub.json<StepThrough>('/pipes/people-out/step-through', { method: 'POST', json: {} });
  assert.equal(first.entity['_id'], 'kid');
  assert.equal(first.steps.at(-1)!.stop, 'filter');
  const sent = await hub.json<StepThrough>('/pipes/people-out/step-through', { method: 'POST', json: { entity: { _id: 'zed', name: 'Zed', age: 30, pets: [] } } });
  assert.equal(sent.sample, 'request');
  assert.deepEqual(sent.output, [{ _id: 'zed', name: 'ZED', city: null, pets: [] }]);
});

test('a conditional breakpoint, a draft configuration and the step limit', async () => {
  const hit = await hub.json<StepThrough>('/pipes/people-out/step-through', {
    method: 'POST',
    json: { 'entity-id': 'ann', condition: ['eq', '_S.kind', 'CAT'] },
  });
  assert.deepEqual(hit.steps.filter((s) => s.hit).map((s) => s.at), ['$.transform.rules.pet[0]', '$.transform.rules.pet[1]']);
  assert.deepEqual(hit.condition, { hits: 2, errors: 0 });
  // A bare path is an expression too.
  const path = await hub.json<StepThrough>('/pipes/people-out/step-through', { method: 'POST', json: { 'entity-id': 'ann', condition: '_T.city' } });
  assert.deepEqual(path.steps.filter((s) => s.hit && s.depth === 0).map((s) => s.at), ['$.transform.rules.default[3]', '$.transform.rules.default[4]']);

  // A condition per line breakpoint, checked at its own step only: before pet[1], pet[0] has set _T.kind to "cat"
  // (ann's one pet); ann is 40, so the condition at default[1] does not hold.
  const at = await hub.json<StepThrough>('/pipes/people-out/step-through', {
    method: 'POST',
    json: { 'entity-id': 'ann', 'conditions-at': { '$.transform.rules.pet[1]': ['eq', '_T.kind', 'cat'], '$.transform.rules.default[1]': ['eq', '_S.age', 41] } },
  });
  assert.deepEqual(at.steps.filter((s) => s.breakHit).map((s) => `${s.at} ${JSON.stringify(at.values[s.source])}`), ['$.transform.rules.pet[1] {"kind":"CAT"}']);
  assert.deepEqual(at.conditionsAt, { '$.transform.rules.pet[1]': { hits: 1, errors: 0 }, '$.transform.rules.default[1]': { hits: 0, errors: 0 } });
  assert.equal(at.condition, null);

  const draft = { source: { type: 'dataset', dataset: 'people' }, transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'n', ['length', '_S.name']]] } } };
  const d = await hub.json<StepThrough>('/pipes/people-out/step-through', { method: 'POST', json: { config: draft, 'entity-id': 'ann' } });
  assert.deepEqual(d.steps.map((s) => s.at), ['$.transform.rules.default[0]', '$.transform.rules.default[1]']);
  assert.deepEqual(d.output, [{ _id: 'ann', n: 3 }]);

  const cut = await hub.json<StepThrough>('/pipes/people-out/step-through', { method: 'POST', json: { 'entity-id': 'ann', 'max-steps': 3 } });
  assert.equal(cut.steps.length, 3);
  assert.match(cut.cut!, /after 3 steps/);
  assert.equal(cut.output[0]!['city'], 'Oslo');
});

test('bad step-through requests are 4xx JSON errors in words', async () => {
  const bad = await expectError(await post('people-out', { condition: ['no-such-function'] }), 400, 'a condition that does not compile');
  assert.match(bad.error, /breakpoint condition is not a valid DTL expression/);
  assert.match(String(bad.detail), /\$condition\[0\].*no-such-function/);
  const badAt = await expectError(await post('people-out', { 'conditions-at': { '$.transform.rules.pet[0]': ['nope'] } }), 400, 'a breakpoint\'s condition that does not compile');
  assert.match(badAt.error, /condition of the breakpoint at \$\.transform\.rules\.pet\[0\] is not a valid DTL expression/);
  await expectError(await post('people-out', { 'conditions-at': ['x'] }), 400, 'conditions-at that is not an object');
  const missing = await expectError(await post('people-out', { 'entity-id': 'nobody' }), 404, 'an unknown entity');
  assert.match(missing.error, /no entity "nobody"/);
  await expectError(await post('people-out', { 'entity-id': 'ann', entity: { _id: 'x' } }), 400, 'both a sample and an _id');
  await expectError(await post('people-out', { entity: [1] }), 400, 'a sample that is not an object');
  await expectError(await post('people-out', { 'max-steps': 0 }), 400, 'max-steps 0');
  await expectError(await post('people-out', { config: 'nope' }), 400, 'a draft that is not an object');
  await expectError(await post('people-out', { colour: 'red' }), 400, 'an unknown property');
  await expectError(await post('no-such-pipe', {}), 404, 'an unknown pipe');
  const broken = { source: { type: 'dataset', dataset: 'people' }, transform: { type: 'dtl', rules: { default: [['nope']] } } };
  const compile = await expectError(await post('people-out', { config: broken }), 400, 'a transform that does not compile');
  assert.match(compile.error, /does not compile/);
  const none = await expectError(await post('people-out', { config: { source: { type: 'dataset', dataset: 'people' } } }), 400, 'no transform');
  assert.match(none.error, /no transform/);
  const anonymous = await fetch(`${hub.api}/pipes/people-out/step-through`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(anonymous.status, 401);
});

test('a step-through is bounded like a preview: an entity that holds the hub too long is a 422 in words', async () => {
  const slow = { source: { type: 'dataset', dataset: 'people' }, transform: { type: 'dtl', rules: { default: Array.from({ length: 15 }, () => ['sleep!', 1]) } } };
  const t0 = performance.now();
  const res = await post('people-out', { config: slow, 'entity-id': 'ann' });
  const ms = performance.now() - t0;
  const body = await expectError(res, 422, 'a step-through past the time bound');
  assert.match(body.error, /too long/);
  assert.ok(ms < 14_000, `answered after ${ms.toFixed(0)} ms, not after 15 s`);
  assert.equal((await hub.fetch('/health')).status, 200);
});

// Step-through of a DTL transform (hub-core/dtl/step-through.ts): the recorded steps of a transform we wrote, in the
// order DTL runs them, with their nesting into apply and hops, _S/_T/_P before and after each, a conditional
// breakpoint evaluated in each step's context, the link to the trace of the same run, and the limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../../hub-core/base/index.js';
import { compileCondition, MemoryLookup, recordSteps, type StepRecord, type StepRecording, type TraceNode } from '../../../hub-core/dtl/index.js';

const TRANSFORM = {
  type: 'dtl',
  rules: {
    default: [
      ['copy', '_id'],
      ['add', 'name', ['upper', '_S.name']],
      ['add', 'lines', ['apply', 'line', '_S.lines']],
      ['add', 'city', ['hops', { datasets: ['cities c'], where: ['eq', '_S.city', 'c._id'], return: 'c.name' }]],
      ['filter', ['gt', '_S.age', 17]],
    ],
    line: [
      ['add', 'sku', '_S.sku'],
      ['add', 'qty', '_S.qty'],
      ['add', 'order', '_P._S._id'],
    ],
  },
};
const ORDER = { _id: 'o1', name: 'ann', age: 40, city: 'osl', lines: [{ sku: 'a', qty: 2 }, { sku: 'b', qty: 1 }] };
const lookup = new MemoryLookup({ cities: [{ _id: 'osl', name: 'Oslo' }] });

const R = '$.transform.rules';
/**
 * Worked out by hand. `_note`: the steps of a rule set run in order (hub/dtl/dtl-transforms.rst); "apply" runs the
 * named rule set once per value with that value as `_S`, a fresh `_T` and the caller's context as `_P`
 * (hub/dtl/dtl-functions-dictionaries.rst, hub/dtl/variables.rst); "hops" looks up the joined dataset and returns the
 * `return` path of each match without running a rule set (hub/dtl/dtl-functions-hops.rst).
 */
const EXPECTED: [kind: string, name: string, at: string, depth: number, changed: string[]][] = [
  ['step', 'copy', `${R}.default[0]`, 0, []], // _id is already in _T (copied from the source): no change
  ['step', 'add', `${R}.default[1]`, 0, ['name']],
  ['step', 'add', `${R}.default[2]`, 0, ['lines']],
  ['call', 'apply', `${R}.default[2][2]`, 1, []],
  ['step', 'add', `${R}.line[0]`, 2, ['sku']],
  ['step', 'add', `${R}.line[1]`, 2, ['qty']],
  ['step', 'add', `${R}.line[2]`, 2, ['order']],
  ['step', 'add', `${R}.line[0]`, 2, ['sku']],
  ['step', 'add', `${R}.line[1]`, 2, ['qty']],
  ['step', 'add', `${R}.line[2]`, 2, ['order']],
  ['return', 'apply', `${R}.default[2][2]`, 1, []], // apply has returned; add has not yet set "lines"
  ['step', 'add', `${R}.default[3]`, 0, ['city']],
  ['call', 'hops', `${R}.default[3][2]`, 1, []],
  ['return', 'hops', `${R}.default[3][2]`, 1, []],
  ['step', 'filter', `${R}.default[4]`, 0, []],
];

function v(rec: StepRecording, i: number | null | undefined): unknown {
  return i === null || i === undefined ? null : rec.values[i];
}

function find(nodes: readonly TraceNode[], id: number): TraceNode | undefined {
  for (const n of nodes) {
    if (n.id === id) return n;
    const below = find(n.children ?? [], id);
    if (below) return below;
  }
  return undefined;
}

test('every step in the order it ran, nested into apply and hops, with _S, _T and _P before and after', () => {
  const rec = recordSteps(TRANSFORM, ORDER, { lookup });
  assert.deepEqual(
    rec.steps.map((s) => [s.kind, s.name, s.at, s.depth, s.changed]),
    EXPECTED,
  );
  assert.deepEqual(rec.steps.map((s) => s.index), EXPECTED.map((_, i) => i));
  const [copy, name, lines, apply, sku, , order, skuB] = rec.steps as StepRecord[] & { length: 15 };
  assert.deepEqual([copy!.rule, copy!.step, lines!.rule, lines!.step, sku!.rule, sku!.step, apply!.rule], ['default', 0, 'default', 2, 'line', 0, null]);
  // _T before and after the step, _S of the entity, no _P at the root.
  assert.deepEqual(v(rec, name!.before), { _id: 'o1' });
  assert.deepEqual(v(rec, name!.after), { _id: 'o1', name: 'ANN' });
  assert.deepEqual(v(rec, name!.source), ORDER);
  assert.equal(name!.parent, null);
  // Inside apply: _S is the line, _T the line's own target, _P the caller's _S and _T (as the caller's step left it).
  assert.deepEqual(v(rec, sku!.source), { sku: 'a', qty: 2 });
  assert.deepEqual(v(rec, sku!.before), {});
  assert.deepEqual(v(rec, sku!.parent), { _S: ORDER, _T: { _id: 'o1', name: 'ANN' } });
  assert.deepEqual(v(rec, order!.after), { sku: 'a', qty: 2, order: 'o1' });
  assert.deepEqual(v(rec, skuB!.source), { sku: 'b', qty: 1 });
  // The calls' values: what apply and hops gave.
  assert.deepEqual(v(rec, apply!.value), [{ sku: 'a', qty: 2, order: 'o1' }, { sku: 'b', qty: 1, order: 'o1' }]);
  assert.deepEqual(v(rec, rec.steps[12]!.value), ['Oslo']);
  assert.deepEqual(v(rec, rec.steps[14]!.after), rec.output[0]);
  assert.equal(rec.steps[14]!.stop, undefined);
  assert.equal(rec.cut, null);
  assert.equal(rec.condition, null);
});

test('a call is recorded again where it returns: its value, and the caller\'s _T as the call left it', () => {
  const rec = recordSteps(TRANSFORM, ORDER, { lookup });
  const [apply, back] = [rec.steps[3]!, rec.steps[10]!];
  assert.deepEqual([back.kind, back.name, back.at, back.depth, back.call], ['return', 'apply', apply.at, apply.depth, 3]);
  // What apply gave (one target per line), with _T of the caller: "lines" is set by the add only after apply returns.
  assert.deepEqual(v(rec, back.value), [{ sku: 'a', qty: 2, order: 'o1' }, { sku: 'b', qty: 1, order: 'o1' }]);
  assert.deepEqual(v(rec, back.after), { _id: 'o1', name: 'ANN' });
  assert.deepEqual(v(rec, back.source), ORDER);
  assert.equal(back.parent, null);
  assert.deepEqual([rec.steps[13]!.kind, rec.steps[13]!.call, v(rec, rec.steps[13]!.value)], ['return', 12, ['Oslo']]);
  // A condition is checked before steps and calls, not at returns.
  const always = recordSteps(TRANSFORM, ORDER, { lookup, condition: compileCondition(true).expr });
  assert.deepEqual(always.steps.filter((s) => !s.hit).map((s) => s.kind), ['return', 'return']);
  // Cut inside apply: no return is recorded for a call whose end falls past the limit.
  const cut = recordSteps(TRANSFORM, ORDER, { lookup, limits: { maxSteps: 10 } });
  assert.deepEqual(cut.steps.map((s) => s.kind).filter((k) => k === 'return'), []);
  assert.equal(recordSteps(TRANSFORM, ORDER, { lookup, limits: { maxSteps: 11 } }).steps[10]!.kind, 'return');
});

test('each step is linked to its node of the trace of the same run, and _T after it holds what the trace says it set', () => {
  const rec = recordSteps(TRANSFORM, ORDER, { lookup });
  const trace = rec.trace.entities[0]!;
  for (const s of rec.steps) {
    assert.notEqual(s.node, null, `step ${s.index} has a trace node`);
    const node = find(trace.steps, s.node as number) as TraceNode;
    assert.equal(node.at, s.at);
    assert.equal(node.name, s.name);
    const after = v(rec, s.after) as Record<string, unknown>;
    for (const c of node.changes ?? []) assert.deepEqual(after[c.property], c.value, `step ${s.index}: ${c.property}`);
  }
});

test('a filter that stops the rules is marked, and _T after it is the entity before the hub marks it filtered', () => {
  const rec = recordSteps(TRANSFORM, { ...ORDER, age: 5 }, { lookup });
  const last = rec.steps.at(-1)!;
  assert.equal(last.name, 'filter');
  assert.equal(last.stop, 'filter');
  assert.deepEqual(rec.output[0]!['_filtered'], true);
  assert.equal((v(rec, last.after) as JsonObject)['_filtered'], undefined);
});

test('a conditional breakpoint holds where the expression is true in the step\'s own context', () => {
  // _S is the line inside apply: only the three steps of line "b" (indices 7 to 9 above).
  const onB = compileCondition(['eq', '_S.sku', 'b']);
  assert.deepEqual(onB.errors, []);
  const rec = recordSteps(TRANSFORM, ORDER, { lookup, condition: onB.expr });
  assert.deepEqual(rec.steps.filter((s) => s.hit).map((s) => s.index), [7, 8, 9]);
  assert.deepEqual(rec.condition, { hits: 3, errors: 0 });
  // _P: the caller's target, as it was when apply ran (name set, lines not yet).
  const parent = compileCondition(['eq', '_P._T.name', 'ANN']);
  const viaParent = recordSteps(TRANSFORM, ORDER, { lookup, condition: parent.expr });
  assert.deepEqual(viaParent.steps.filter((s) => s.hit).map((s) => s.index), [4, 5, 6, 7, 8, 9]);
  // Just before the step runs: _T.name is set from the step after the one that set it.
  const named = recordSteps(TRANSFORM, ORDER, { lookup, condition: compileCondition(['is-not-null', '_T.name']).expr });
  assert.deepEqual(named.steps.filter((s) => s.hit && s.depth === 0).map((s) => s.at), [`${R}.default[2]`, `${R}.default[3]`, `${R}.default[4]`]);
  // The condition leaves no mark on the run: same output, same trace.
  assert.deepEqual(rec.output, recordSteps(TRANSFORM, ORDER, { lookup }).output);
  assert.deepEqual(rec.trace, recordSteps(TRANSFORM, ORDER, { lookup }).trace);
});

test('a condition that does not compile says why; one that fails at a step is marked there', () => {
  const bad = compileCondition(['no-such-function', '_S.x']);
  assert.equal(bad.expr, null);
  assert.match(bad.errors[0]!.msg, /no-such-function/);
  assert.equal(bad.errors[0]!.elements, '$condition[0]');
  const failing = recordSteps(TRANSFORM, ORDER, { lookup, condition: compileCondition(['range', 0, 3, ['minus', 1, 1]]).expr });
  // (evaluated before every step and call; a call's return is not one)
  assert.equal(failing.condition!.errors, failing.steps.filter((s) => s.kind !== 'return').length);
  assert.match(failing.steps[0]!.conditionError!, /STEP must not be 0/);
  assert.deepEqual(failing.output, recordSteps(TRANSFORM, ORDER, { lookup }).output);
});

test('a condition of its own per line breakpoint: checked only at that step, counted per breakpoint', () => {
  // line[1] runs twice (once per order line, indices 5 and 8 above); its condition holds for line "b" only. The
  // condition at default[1] holds at its one step (_S.name is "ann"); the one at default[4] fails (range STEP 0).
  const conditionsAt = new Map([
    [`${R}.line[1]`, compileCondition(['eq', '_S.sku', 'b']).expr!],
    [`${R}.default[1]`, compileCondition(['eq', '_S.name', 'ann']).expr!],
    [`${R}.default[4]`, compileCondition(['range', 0, 3, ['minus', 1, 1]]).expr!],
  ]);
  const rec = recordSteps(TRANSFORM, ORDER, { lookup, conditionsAt });
  assert.deepEqual(rec.steps.filter((s) => s.breakHit).map((s) => s.index), [1, 8]);
  assert.deepEqual(rec.steps.filter((s) => s.breakError !== undefined).map((s) => s.index), [14]);
  assert.match(rec.steps[14]!.breakError!, /STEP must not be 0/);
  assert.deepEqual(rec.conditionsAt, {
    [`${R}.line[1]`]: { hits: 1, errors: 0 },
    [`${R}.default[1]`]: { hits: 1, errors: 0 },
    [`${R}.default[4]`]: { hits: 0, errors: 1 },
  });
  assert.equal(rec.condition, null, 'no condition for every step');
  assert.equal(rec.steps.filter((s) => s.hit).length, 0);
  assert.deepEqual(rec.output, recordSteps(TRANSFORM, ORDER, { lookup }).output, 'the conditions change nothing of the run');
});

test('the recording is bounded: past max steps it stops and says so, the transform still runs to the end', () => {
  const rec = recordSteps(TRANSFORM, ORDER, { lookup, limits: { maxSteps: 5 } });
  assert.equal(rec.steps.length, 5);
  assert.match(rec.cut!, /stops after 5 steps/);
  assert.deepEqual(rec.output, recordSteps(TRANSFORM, ORDER, { lookup }).output);
  // Equal snapshots are stored once.
  const all = recordSteps(TRANSFORM, ORDER, { lookup });
  assert.equal(new Set(all.values.map((x) => JSON.stringify(x))).size, all.values.length);
  const small = recordSteps(TRANSFORM, ORDER, { lookup, limits: { maxSnapshotChars: 10 } });
  assert.match(small.cut!, /snapshots reached 10 characters/);
  assert.ok(small.steps.length < all.steps.length);
});

test('a runtime error ends the recording at the step that raised it', () => {
  const t = { type: 'dtl', rules: { default: [['copy', '_id'], ['fail!', 'no x'], ['add', 'y', 1]] } };
  const rec = recordSteps(t, { _id: 'a' });
  assert.deepEqual(rec.steps.map((s) => s.at), ['$.transform.rules.default[0]', '$.transform.rules.default[1]']);
  assert.match(rec.steps[1]!.error!, /no x/);
  assert.match(rec.error!.msg, /no x/);
  assert.deepEqual(rec.output, []);
});

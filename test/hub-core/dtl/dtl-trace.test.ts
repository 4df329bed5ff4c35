// Tracing DTL (hub-core/dtl/trace.ts): for every function family's table cases, the traced run gives the same result
// as the documented one and the trace records exactly the values that were produced; filter/discard reasons, the
// branch an if/case took, the look-ups of joins, create, and the limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJson, type JsonObject, type JsonValue } from '../../../hub-core/base/index.js';
import { EXPRESSION_CASES, TRANSFORM_CASES } from './dtl-cases/index.js';
import { compileTracedTransform, traceExpression } from '../../../hub-core/dtl/index.js';
import type { EntityTrace, TraceNode } from '../../../hub-core/dtl/index.js';
import { compileTransform } from '../../../hub-core/dtl/index.js';
import { MemoryLookup } from '../../../hub-core/dtl/index.js';
import { encode } from '../../../hub-core/dtl/index.js';

const BIG = { maxNodes: 100000, maxChildren: 100000, maxListItems: 100000, maxStringLength: 100000, maxValueDepth: 100, maxDepth: 1000 };

function walk(nodes: readonly TraceNode[], fn: (n: TraceNode) => void): void {
  for (const n of nodes) {
    fn(n);
    walk(n.children ?? [], fn);
  }
}

function find(nodes: readonly TraceNode[], pred: (n: TraceNode) => boolean): TraceNode | undefined {
  let hit: TraceNode | undefined;
  walk(nodes, (n) => {
    if (hit === undefined && pred(n)) hit = n;
  });
  return hit;
}

/** Every output property's last recorded event gives its value; every recorded removed property is absent. */
function assertDerivations(trace: EntityTrace, output: JsonObject): void {
  for (const [prop, value] of Object.entries(output)) {
    const events = trace.properties[prop];
    if (prop === '$ids') continue;
    assert.ok(events && events.length > 0, `property ${prop} has a derivation (trace: ${JSON.stringify(trace.properties)})`);
    const last = events[events.length - 1]!;
    assert.equal(last.action, 'set', `${prop} was last set`);
    if (!last.truncated) assert.deepEqual(last.value, value, `recorded value of ${prop}`);
  }
  for (const [prop, events] of Object.entries(trace.properties)) {
    if (events[events.length - 1]!.action === 'removed') assert.ok(!(prop in output), `${prop} was removed`);
  }
}

for (const [family, cases] of Object.entries(EXPRESSION_CASES)) {
  test(`trace of expression ${family}: the recorded value is the documented result`, () => {
    for (const c of cases) {
      if (c.result === undefined) continue;
      const traced = traceExpression(c.expr, { ...(c.source ? { source: c.source } : {}), ...(c.rules ? { rules: c.rules } : {}), limits: BIG });
      assert.equal(traced.error, undefined, JSON.stringify(c.expr));
      assert.deepEqual(encode(traced.value), c.result, JSON.stringify(c.expr));
      const root = traced.nodes[0];
      assert.ok(root, `a node for ${JSON.stringify(c.expr)}`);
      assert.equal(root.at, '$');
      assert.deepEqual(root.value, c.result, `recorded value of ${JSON.stringify(c.expr)}`);
      // Every recorded sub-expression that is a path or a literal has the value it stands for in the source.
      walk(traced.nodes, (n) => {
        if (n.kind === 'literal' && !n.name.startsWith('"')) assert.deepEqual(n.value, encode(parseJson(n.name) as JsonValue));
      });
    }
  });
}

for (const [name, cases] of Object.entries(TRANSFORM_CASES)) {
  test(`trace of transform ${name}: outputs equal the documented ones and every property's derivation gives its value`, () => {
    for (const c of cases) {
      if (c.result === undefined) continue;
      const list = Array.isArray(c.rules) && typeof c.rules[0] === 'string' ? [c.rules] : c.rules;
      const compiled = compileTracedTransform({ type: 'dtl', rules: { default: list } }, { limits: BIG });
      assert.ok(compiled.ok, JSON.stringify(compiled.errors));
      const { entities, trace, error } = compiled.run(c.source ?? { _id: '1' });
      assert.equal(error, undefined);
      assert.deepEqual(entities, c.result, JSON.stringify(c.rules));
      const t = trace.entities[0]!;
      const createdIds = t.created.map((x) => x._id);
      const target = t.outcome === 'output' || t.outcome === 'filtered' ? entities[entities.length - 1] : undefined;
      assert.deepEqual(createdIds, entities.slice(0, target ? -1 : undefined).map((e) => e['_id']), 'created entities in output order');
      if (target) assertDerivations(t, target);
    }
  });
}

test('a step records the properties it set and removed, with values and its source position', () => {
  const rules = { default: [['copy', '*'], ['add', 'full', ['concat', '_S.first', ' ', '_S.last']], ['remove', 'last']] };
  const { entities, trace } = compileTracedTransform({ type: 'dtl', rules }).run({ _id: 'p1', first: 'Ada', last: 'L' });
  assert.deepEqual(entities, [{ _id: 'p1', first: 'Ada', full: 'Ada L' }]);
  const t = trace.entities[0]!;
  assert.equal(t.at, '$.transform.rules');
  assert.deepEqual(t.steps.map((s) => [s.name, s.at]), [
    ['copy', '$.transform.rules.default[0]'],
    ['add', '$.transform.rules.default[1]'],
    ['remove', '$.transform.rules.default[2]'],
  ]);
  const add = t.steps[1]!;
  assert.deepEqual(add.changes, [{ property: 'full', action: 'set', value: 'Ada L' }]);
  const concat = add.children!.find((n) => n.name === 'concat')!;
  assert.equal(concat.at, '$.transform.rules.default[1][2]');
  assert.deepEqual(concat.children!.map((n) => [n.kind, n.name, n.value]), [
    ['path', '_S.first', 'Ada'],
    ['literal', '" "', ' '],
    ['path', '_S.last', 'L'],
  ]);
  assert.deepEqual(t.properties['last']!.map((e) => [e.name, e.action]), [['copy', 'set'], ['remove', 'removed']]);
  assert.deepEqual(t.properties['_id']!.map((e) => e.name), ['(source)', 'copy'].slice(0, t.properties['_id']!.length));
});

test('filter and discard: which step stopped the rules and why', () => {
  const rules = { default: [['add', 'x', 1], ['filter', ['gt', '_S.age', 42]], ['add', 'y', 2]] };
  const compiled = compileTracedTransform({ type: 'dtl', rules });
  const kept = compiled.run({ _id: 'a', age: 50 });
  assert.equal(kept.trace.entities[0]!.outcome, 'output');
  assert.deepEqual(kept.entities, [{ _id: 'a', x: 1, y: 2 }]);
  const dropped = compiled.run({ _id: 'b', age: 30 });
  const t = dropped.trace.entities[0]!;
  assert.deepEqual(dropped.entities, [{ _id: 'b', x: 1, _deleted: true, _filtered: true }]);
  assert.equal(t.outcome, 'filtered');
  assert.equal(t.stoppedBy!.at, '$.transform.rules.default[1]');
  assert.match(t.stoppedBy!.reason, /condition gave false/);
  assert.equal(t.steps.length, 2, 'the step after the filter never ran');
  assert.equal(t.steps[1]!.stop, 'filter');
  assert.equal(t.properties['_deleted']!.at(-1)!.name, '(filter)');
  assertDerivations(t, dropped.entities[0]!);

  const discard = compileTracedTransform({ type: 'dtl', rules: { default: [['if', ['eq', '_S.k', 1], ['discard']]] } });
  const gone = discard.run({ _id: 'c', k: 1 });
  assert.deepEqual(gone.entities, []);
  const g = gone.trace.entities[0]!;
  assert.equal(g.outcome, 'discarded');
  assert.equal(g.stoppedBy!.name, 'discard');
  assert.equal(g.stoppedBy!.at, '$.transform.rules.default[0][2]');
  assert.match(g.stoppedBy!.reason, /without a condition/);
});

test('the branch an if, case or case-eq took, as expression and as transform', () => {
  const rules = {
    default: [
      ['add', 'size', ['case', ['gt', '_S.n', 100], 'big', ['gt', '_S.n', 10], 'medium', 'small']],
      ['add', 'sign', ['if', ['lt', '_S.n', 0], 'negative', 'positive']],
      ['case-eq', '_S.c', 'NO', ['add', 'country', 'Norway'], 'SE', ['add', 'country', 'Sweden']],
      ['if', ['eq', '_S.n', 0], ['add', 'zero', true]],
    ],
  };
  const compiled = compileTracedTransform({ type: 'dtl', rules });
  const run = compiled.run({ _id: 'x', n: 50, c: 'SE' });
  assert.deepEqual(run.entities, [{ _id: 'x', size: 'medium', sign: 'positive', country: 'Sweden' }]);
  const steps = run.trace.entities[0]!.steps;
  assert.deepEqual(find(steps, (n) => n.name === 'case')!.branch, { argument: 4, label: 'clause 2' });
  assert.deepEqual(find(steps, (n) => n.kind === 'call' && n.name === 'if')!.branch, { argument: 3, label: 'else' });
  assert.deepEqual(steps[2]!.branch, { argument: 5, label: 'clause 2' });
  assert.equal(steps[2]!.children!.find((n) => n.kind === 'step')!.at, '$.transform.rules.default[2][5]');
  assert.equal(steps[3]!.branch!.argument, null);
  // The country was set by the add inside the case-eq, not by the case-eq itself.
  assert.deepEqual(run.trace.entities[0]!.properties['country']!.map((e) => [e.name, e.at]), [['add', '$.transform.rules.default[2][5]']]);
  assert.equal(steps[2]!.changes, undefined);
  const small = compiled.run({ _id: 'y', n: 1, c: 'DK' }).trace.entities[0]!.steps;
  assert.deepEqual(find(small, (n) => n.name === 'case')!.branch, { argument: 5, label: 'else' });
  assert.equal(small[2]!.branch!.argument, null);
});

test('joins: every look-up with its dataset, key and matches; apply-hops steps nested; create tied to its step', () => {
  const lookup = new MemoryLookup({
    Order: [
      { _id: 'o1', customer: 'c1', total: 10 },
      { _id: 'o2', customer: 'c1', total: 5 },
      { _id: 'o3', customer: 'c2', total: 7 },
    ],
    Country: [{ _id: 'no', name: 'Norway' }],
  });
  const rules = {
    default: [
      ['add', 'orders', ['hops', { datasets: ['Order o'], where: ['eq', '_S._id', 'o.customer'], return: 'o._id' }]],
      ['add', 'country', ['lookup-entity', 'Country', '_S.country']],
      ['create', ['apply-hops', 'order', { datasets: ['Order o'], where: ['eq', '_S._id', 'o.customer'] }]],
    ],
    order: [['add', '_id', ['concat', 'line-', '_S._id']], ['add', 'total', '_S.total']],
  };
  const compiled = compileTracedTransform({ type: 'dtl', rules }, { lookup });
  const untraced = compileTransform({ type: 'dtl', rules }, { lookup });
  const source = { _id: 'c1', country: 'no' };
  const { entities, trace } = compiled.run(source);
  assert.deepEqual(entities, untraced.run(source).entities);
  const t = trace.entities[0]!;
  const hopsLookup = find(t.steps[0]!.children!, (n) => n.kind === 'lookup')!;
  assert.deepEqual(hopsLookup.lookup, { dataset: 'Order', by: 'customer', keys: ['c1'], matched: ['o1', 'o2'], count: 2 });
  // Paths inside the join show as written ("o.customer"), not as the join runs them.
  const paths: string[] = [];
  walk(t.steps[0]!.children!, (n) => {
    if (n.kind === 'path') paths.push(n.name);
  });
  assert.ok(paths.includes('_S._id') && paths.includes('o._id'), JSON.stringify(paths));
  assert.ok(!paths.some((p) => p.startsWith('_S._S') || p.includes("'o'")), JSON.stringify(paths));
  const entityLookup = find(t.steps[1]!.children!, (n) => n.kind === 'lookup')!;
  assert.deepEqual(entityLookup.lookup, { dataset: 'Country', by: '_id', keys: ['no'], matched: ['no'], count: 1 });
  assert.deepEqual(t.properties['orders']!.at(-1)!.value, ['o1', 'o2']);
  assert.deepEqual(t.properties['country']!.at(-1)!.value, { _id: 'no', name: 'Norway' });
  assert.deepEqual(t.created, [
    { _id: 'line-o1', step: t.steps[2]!.id, at: '$.transform.rules.default[2]' },
    { _id: 'line-o2', step: t.steps[2]!.id, at: '$.transform.rules.default[2]' },
  ]);
  assert.deepEqual(t.steps[2]!.created, ['line-o1', 'line-o2']);
  // The order rule set ran below apply-hops, one level down, once per order.
  const nested = find(t.steps[2]!.children!, (n) => n.kind === 'step' && n.at === '$.transform.rules.order[1]')!;
  assert.equal(nested.level, 1);
  assert.deepEqual(nested.changes, [{ property: 'total', action: 'set', value: 10 }]);
  assertDerivations(t, entities[entities.length - 1]!);
});

test('a chain of transforms: one trace per transform and entity', () => {
  const chain = [
    { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'n2', ['multiply', 2, '_S.n']]] } },
    { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'n4', ['multiply', 2, '_S.n2']]] } },
  ];
  const { entities, trace } = compileTracedTransform(chain).run({ _id: 'a', n: 3 });
  assert.deepEqual(entities, [{ _id: 'a', n4: 12 }]);
  assert.deepEqual(trace.entities.map((t) => [t.transform, t.at]), [[0, '$.transform[0].rules'], [1, '$.transform[1].rules']]);
  assertDerivations(trace.entities[1]!, entities[0]!);
});

test('an error is traced up to where it happened', () => {
  const { entities, trace, error } = compileTracedTransform({ type: 'dtl', rules: { default: [['add', 'a', 1], ['fail!', 'stop here']] } }).run({ _id: 'e' });
  assert.deepEqual(entities, []);
  assert.ok(error);
  const t = trace.entities[0]!;
  assert.equal(t.outcome, 'error');
  assert.match(t.error!.msg, /stop here/);
  assert.equal(t.steps[1]!.error !== undefined, true);
});

test('limits: nodes, children per node, list items, string length and depth are bounded, and say so', () => {
  const rules = { default: [['add', 'xs', ['map', ['plus', 1, '_.'], '_S.xs']], ['add', 's', '_S.s']] };
  const xs = Array.from({ length: 200 }, (_, i) => i);
  const limits = { maxChildren: 5, maxListItems: 10, maxStringLength: 8, maxNodes: 40 };
  const { entities, trace } = compileTracedTransform({ type: 'dtl', rules }, { limits }).run({ _id: 'l', xs, s: 'a long string here' });
  assert.deepEqual(entities[0]!['xs'], xs.map((x) => x + 1), 'tracing never changes the result');
  const t = trace.entities[0]!;
  assert.equal(t.truncated, true);
  assert.ok(t.nodes <= 40);
  let count = 0;
  walk(t.steps, (n) => {
    count++;
    if (n.level === 0 && n.kind !== 'step') assert.ok((n.children ?? []).length <= 5);
    if (Array.isArray(n.value)) assert.ok(n.value.length <= 10);
  });
  assert.equal(count, t.nodes);
  const map = find(t.steps, (n) => n.name === 'map')!;
  assert.ok((map.omitted ?? 0) > 0, 'it says how many evaluations it left out');
  assert.equal(map.truncated, true);
  const s = t.properties['s']!.at(-1)!;
  assert.equal(s.value, 'a long s…');
  assert.equal(s.truncated, true);
  const deep = compileTracedTransform({ type: 'dtl', rules: { default: [['add', 'v', ['plus', 1, ['plus', 1, ['plus', 1, ['plus', 1, 1]]]]]] } }, { limits: { maxDepth: 3 } });
  const d = deep.run({ _id: 'd' });
  assert.equal(d.entities[0]!['v'], 5);
  let maxDepth = 0;
  const depth = (nodes: readonly TraceNode[], k: number): void => nodes.forEach((n) => ((maxDepth = Math.max(maxDepth, k)), depth(n.children ?? [], k + 1)));
  depth(d.trace.entities[0]!.steps, 1);
  assert.ok(maxDepth <= 3, `depth ${maxDepth}`);
  assert.equal(d.trace.entities[0]!.properties['v']!.at(-1)!.value, 5, 'property derivations are kept beyond the node limits');
});

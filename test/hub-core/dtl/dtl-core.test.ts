import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, JsonValue } from '../../../hub-core/base/index.js';
import { compileExpression, compileRules } from '../../../hub-core/dtl/index.js';
import { DtlCompileError, DtlRuntimeError } from '../../../hub-core/dtl/index.js';
import { MemoryLookup, lookupKey } from '../../../hub-core/dtl/index.js';
import { isPathString, parsePath, traverse } from '../../../hub-core/dtl/index.js';
import { compileTransform } from '../../../hub-core/dtl/index.js';
import {
  Bytes,
  DateTime,
  Decimal,
  Ni,
  Uri,
  Uuid,
  asList,
  compareCompatible,
  compareValues,
  decode,
  encode,
  isTruthy,
  keyOf,
  kindOf,
  parseTagged,
  toText,
  typedOf,
  valuesEqual,
  type DtlValue,
} from '../../../hub-core/dtl/index.js';

/** Evaluate an expression on a source and return the JSON (tagged) form of the result. */
function ev(expr: JsonValue, source: DtlValue = {}, rules?: JsonObject): JsonValue {
  const c = compileExpression(expr, rules ? { rules } : {});
  assert.deepEqual(c.errors, [], `unexpected compile errors for ${JSON.stringify(expr)}`);
  return encode(c.evaluate({ source }));
}

function dtl(rules: JsonObject, extra: JsonObject = {}): { type: 'dtl'; rules: JsonObject } {
  return { type: 'dtl', rules, ...extra };
}

function run(rules: JsonObject | JsonValue[], entity: JsonObject, options: Parameters<typeof compileTransform>[1] = {}): JsonObject[] {
  const t = compileTransform(Array.isArray(rules) ? rules : dtl(rules), options);
  assert.deepEqual(t.errors, []);
  return t.run(entity).entities;
}

function errorsOf(transform: unknown): { elements: string; msg: string }[] {
  return compileTransform(transform).errors.map((e) => ({ elements: e.elements, msg: e.msg }));
}

// ---------------------------------------------------------------------------------------------------------------------
// Compiler errors

test('compile errors carry the JSON path of the offending element', () => {
  const errors = errorsOf(
    dtl({
      default: [
        ['copy', '*'],
        ['add', 'x', ['nope', 1]],
        ['adx', 'y', 1],
        ['add', 'z'],
        ['add', 's', ['split', 1, '_S.x']],
        ['add', 'a', ['apply', 'missing', '_S.x']],
        ['add', 'b', '_S.a..b'],
        ['eq', 1, 2],
        ['add', 'c', ['add', 'd', 1]],
        'not-a-transform',
      ],
    }),
  );
  const at = (p: string): string | undefined => errors.find((e) => e.elements === p)?.msg;
  assert.match(at('$.transform.rules.default[1][2][0]') ?? '', /unknown function "nope"/);
  assert.match(at('$.transform.rules.default[2][0]') ?? '', /unknown transform function "adx".*did you mean "add"/);
  assert.match(at('$.transform.rules.default[3]') ?? '', /"add" takes exactly 2 arguments, not 1/);
  assert.match(at('$.transform.rules.default[4][2][1]') ?? '', /SEPARATOR of "split" must be a literal string/);
  assert.match(at('$.transform.rules.default[5][2][1]') ?? '', /unknown rule set "missing".*"default"/);
  assert.match(at('$.transform.rules.default[6][2]') ?? '', /empty path element/);
  assert.match(at('$.transform.rules.default[7][0]') ?? '', /"eq" is not a transform function/);
  assert.match(at('$.transform.rules.default[8][2][0]') ?? '', /"add" is a transform function; it cannot be used where a value is expected/);
  assert.match(at('$.transform.rules.default[9]') ?? '', /a transform must be a list/);
  assert.equal(errors.length, 9, JSON.stringify(errors, null, 1));
});

test('compile errors: rule sets, transform shape, chained transforms, config path option', () => {
  assert.deepEqual(errorsOf(dtl({ other: [] })), [
    { elements: '$.transform.rules.default', msg: 'a DTL transform needs a "default" rule set: a list of transform functions' },
  ]);
  assert.equal(errorsOf(dtl({ default: [], other: 'x' } as unknown as JsonObject))[0]?.elements, '$.transform.rules.other');
  assert.equal(errorsOf({ type: 'xml', rules: {} })[0]?.elements, '$.transform.type');
  assert.equal(errorsOf({ type: 'dtl', rules: { default: [] }, id_required: 'yes' })[0]?.elements, '$.transform.id_required');
  assert.equal(errorsOf({ type: 'dtl' })[0]?.elements, '$.transform.rules');
  const chained = errorsOf([dtl({ default: [['copy', '*']] }), dtl({ default: [['bogus']] })]);
  assert.deepEqual(chained.map((e) => e.elements), ['$.transform[1].rules.default[0][0]']);
  const odd = compileTransform(dtl({ 'order-lines': [['add', 'x', ['upper']]], default: [] }), { configPath: '$' });
  assert.deepEqual(odd.errors.map((e) => e.elements), ['$.rules.order-lines[0][2]']);
  const spaced = compileRules({ default: [], 'a b': [['nope']] });
  assert.deepEqual(spaced.errors.map((e) => e.elements), ['$["a b"][0][0]']);
});

test('argument shapes are checked: literal strings, transforms, integers, case arity, dict arity', () => {
  const e = (expr: JsonValue): string[] => compileExpression(expr).errors.map((x) => `${x.elements} ${x.msg}`);
  assert.match(e(['replace', ['concat', 'a'], 'b', 'c'])[0] ?? '', /^\$\[1\] OLD_STRING of "replace" must be a literal string/);
  assert.match(e(['dict', 'a', 1, 'b'])[0] ?? '', /^\$ "dict": takes no argument/);
  assert.match(e(['case', true])[0] ?? '', /needs at least one condition/);
  assert.match(e(['datetime-parse', '%Q', 'x'])[0] ?? '', /^\$\[1\] unsupported directive "%Q"/);
  assert.deepEqual(e(['split', '', 'a']), [], 'the empty separator splits into characters (documented)');
  assert.match(e([1, 2])[0] ?? '', /must be a list starting with a function name/);
  assert.match(e([])[0] ?? '', /empty list is not an expression/);
  assert.match(e(['list', ['list', 1], ['upper']])[0] ?? '', /^\$\[2\] "upper" takes exactly 1 argument, not 0/);
  const t = errorsOf(dtl({ default: [['if', true, 'not-transforms'], ['sleep!', 1.5], ['sleep!', 'x']] }));
  assert.deepEqual(
    t.map((x) => x.elements),
    ['$.transform.rules.default[0][2]', '$.transform.rules.default[1][1]', '$.transform.rules.default[2][1]'],
  );
  // a function expression whose own arguments are wrong reports the inner path
  assert.equal(e(['map', ['lower'], ['list']])[0]?.split(' ')[0], '$[1]');
});

test('a transform with errors refuses to run; compile never throws', () => {
  const t = compileTransform(dtl({ default: [['nope']] }));
  assert.equal(t.ok, false);
  assert.throws(() => t.run({ _id: 'a' }), (e: unknown) => e instanceof DtlCompileError && e.errors.length === 1);
  assert.doesNotThrow(() => compileTransform(null));
  assert.doesNotThrow(() => compileTransform([[]]));
  assert.throws(() => compileExpression(['nope']).evaluate(), DtlCompileError);
});

test('running never re-reads the DTL JSON (compiled once into closures)', () => {
  const rules: JsonObject = { default: [['add', 'x', ['upper', '_S.name']]] };
  const t = compileTransform(dtl(rules));
  ((rules['default'] as JsonValue[])[0] as JsonValue[])[1] = 'changed';
  (rules['default'] as JsonValue[]).push(['filter']);
  assert.deepEqual(t.run({ _id: '1', name: 'a' }).entities, [{ _id: '1', x: 'A' }]);
});

// ---------------------------------------------------------------------------------------------------------------------
// Paths and variables

test('path strings: which strings are paths, quoting, malformed paths', () => {
  for (const s of ['_S', '_S.', '_S.a', '_T.b', '_P._S.x', '_R._T', '_', '_.', '_.x', '_B.q']) assert.equal(isPathString(s), true, s);
  for (const s of ['_id', '_Sx', 'S.a', '_ S', '__', '~:a', 'plain', '']) assert.equal(isPathString(s), false, s);
  assert.deepEqual(parsePath("_S.foo.'john.doe''s'.bar"), { variable: '_S', keys: ['foo', "john.doe's", 'bar'] });
  assert.deepEqual(parsePath('_S.'), { variable: '_S', keys: [] });
  assert.deepEqual(parsePath('_.x'), { variable: '_', keys: ['x'] });
  assert.match(parsePath("_S.'a") as string, /unterminated/);
  assert.deepEqual(parsePath('_S.a.'), { variable: '_S', keys: ['a'] });
  assert.deepEqual(parsePath('_P._T.'), { variable: '_P', keys: ['_T'] });
  assert.match(parsePath('_S.a..') as string, /empty path element/);
  assert.match(parsePath('_S..a') as string, /empty path element/);
  assert.match(parsePath("_S.'a'b") as string, /quoted element must be followed/);
});

test('paths: single values, mapping over lists, flattening, missing values', () => {
  const s: JsonObject = {
    _id: 'p',
    name: 'Ann',
    address: { city: 'Oslo' },
    tags: ['a', 'b'],
    orders: [{ amount: 1, lines: [{ sku: 'x' }, { sku: 'y' }] }, { amount: null }, { amount: [2, 3] }, 'not a dict', { lines: { sku: 'z' } }],
    'a.b': { c: 5 },
    nested: [[{ v: 1 }], [{ v: 2 }]],
  };
  assert.deepEqual(ev('_S.name', s), 'Ann');
  assert.deepEqual(ev('_S.address.city', s), 'Oslo');
  assert.deepEqual(ev('_S.tags', s), ['a', 'b']);
  assert.deepEqual(ev('_S.orders.amount', s), [1, 2, 3]);
  assert.deepEqual(ev('_S.orders.lines.sku', s), ['x', 'y', 'z']);
  assert.deepEqual(ev('_S.nested.v', s), [1, 2]);
  assert.deepEqual(ev("_S.'a.b'.c", s), 5);
  assert.equal(ev('_S.missing', s), null);
  assert.equal(ev('_S.name.first', s), null);
  assert.deepEqual(ev('_S.tags.x', s), []);
  assert.deepEqual(ev('_S.', s), s);
  assert.deepEqual(ev('_S', s), s);
  assert.deepEqual(traverse([{ a: { b: 1 } }, { a: [{ b: 2 }, { b: 3 }] }], ['a', 'b']), [1, 2, 3]);
  // inherited members of Object.prototype are not properties
  assert.equal(ev('_S.constructor', {}), null);
  assert.equal(ev('_S.__proto__', {}), null);
  assert.equal(ev('_S.toString.x', {}), null);
  assert.equal(ev('_S.constructor', JSON.parse('{"constructor": 1}') as JsonObject), 1);
});

test('variables: _T sees earlier adds, _P and _R inside apply, _ in functions, _B bindings', () => {
  const rules = {
    default: [
      ['add', 'type', 'customer'],
      ['add', 'again', '_T.type'],
      ['add', 'orders', ['apply', 'order', '_S.orders']],
      ['add', 'b', '_B.q'],
      ['add', 'whole_target_keys', ['count', ['map', '_.', ['list', '_T.type', '_T.again']]]],
    ],
    order: [
      ['add', 'id', '_S.id'],
      ['add', 'customer', '_P._S.name'],
      ['add', 'parent_type', '_P._T.type'],
      ['add', 'root_name', '_R._S.name'],
      ['add', 'lines', ['apply', 'line', '_S.lines']],
    ],
    line: [
      ['add', 'sku', '_S.sku'],
      ['add', 'order_id', '_P._S.id'],
      ['add', 'customer', '_P._P._S.name'],
      ['add', 'root_type', '_R._T.type'],
      ['add', 'grand_keys', ['count', '_P._P._S.orders']],
      ['add', 'p_is_dict', ['eq', ['count', '_P._P._P'], 0]],
    ],
  };
  const out = run(rules, { _id: 'c1', name: 'Ann', orders: [{ id: 'o1', lines: [{ sku: 'x' }] }] }, { bindings: { q: 'yes' } });
  assert.deepEqual(out, [
    {
      _id: 'c1',
      type: 'customer',
      again: 'customer',
      orders: [
        {
          id: 'o1',
          customer: 'Ann',
          parent_type: 'customer',
          root_name: 'Ann',
          lines: [{ sku: 'x', order_id: 'o1', customer: 'Ann', root_type: 'customer', grand_keys: 1, p_is_dict: true }],
        },
      ],
      b: 'yes',
      whole_target_keys: 2,
    },
  ]);
  // _P outside apply is null; _ outside a function is null; _R is a dict of the root
  assert.equal(ev('_P._S.x', { x: 1 }), null);
  assert.equal(ev('_.', { x: 1 }), null);
  assert.deepEqual(ev('_R._S.x', { x: 1 }), 1);
  assert.deepEqual(ev('_R', { x: 1 }), { _S: { x: 1 }, _T: {} });
  // nested function expressions rebind _ and restore it afterwards
  assert.deepEqual(ev(['map', ['filter', ['gt', '_.', 1], '_.'], ['list', ['list', 1, 2], ['list', 3, 0]]]), [[2], [3]]);
});

test('truthiness: false, null and [] are false, everything else true', () => {
  for (const v of [false, null, []] as DtlValue[]) assert.equal(isTruthy(v), false, JSON.stringify(v));
  for (const v of [true, 0, '', {}, [false], [null], 'false', '~:x'] as DtlValue[]) assert.equal(isTruthy(v), true, JSON.stringify(v));
  assert.equal(ev(['if', ['list'], 'yes', 'no']), 'no');
  assert.equal(ev(['if', 0, 'yes', 'no']), 'yes');
  assert.equal(ev(['if', '', 'yes', 'no']), 'yes');
  assert.deepEqual(run({ default: [['filter', '_S.flag']] }, { _id: '1', flag: 0 }), [{ _id: '1' }]);
  assert.deepEqual(run({ default: [['filter', '_S.flag']] }, { _id: '1', flag: [] }), [{ _id: '1', _deleted: true, _filtered: true }]);
});

test('list coercion: a single value behaves like a one-element list', () => {
  assert.deepEqual(asList(null), []);
  assert.deepEqual(asList(3), [3]);
  assert.deepEqual(asList([3]), [3]);
  assert.equal(ev(['eq', '_S.a', 42], { a: [42] }), true);
  assert.equal(ev(['eq', '_S.a', ['list', 42]], { a: 42 }), true);
  assert.equal(ev(['eq', '_S.a', ['list', 42, 43]], { a: 42 }), false);
  assert.equal(ev(['eq', null, ['list']]), false);
  assert.equal(ev(['count', 'x']), 1);
  assert.equal(ev(['in', 'a', 'a']), true);
  assert.equal(ev(['gt', ['list', 5, 1], ['list', 4, 9]]), true);
  assert.deepEqual(ev(['upper', 'a']), 'A');
  assert.deepEqual(ev(['upper', ['list', 'a']]), ['A']);
});

// ---------------------------------------------------------------------------------------------------------------------
// Rule sets, apply, chained transforms

test('rule sets: only default runs per entity; apply runs named sets; filtered values drop out of apply', () => {
  const rules = {
    default: [['copy', '_id'], ['add', 'adults', ['apply', 'person', '_S.people']], ['add', 'one', ['apply', 'person', '_S.boss']]],
    person: [['filter', ['gte', '_S.age', 18]], ['copy', 'name']],
    unused: [['fail!', 'never runs']],
  };
  const out = run(rules, {
    _id: 'x',
    people: [{ name: 'a', age: 20 }, { name: 'b', age: 10 }, null, { name: 'c', age: 30 }],
    boss: { name: 'd', age: 50 },
  });
  assert.deepEqual(out, [{ _id: 'x', adults: [{ name: 'a' }, { name: 'c' }], one: { name: 'd' } }]);
  // a filtered single value gives null; a discarded one too
  assert.equal(ev(['apply', 'p', '_S.x'], { x: { a: 1 } }, { p: [['discard']] }), null);
  // apply on non-dict values: _S is the value itself
  assert.deepEqual(ev(['apply', 'p', ['list', 1, 2]], {}, { p: [['add', 'v', '_S.']] }), [{ v: 1 }, { v: 2 }]);
});

test('apply can recurse (a tree of children)', () => {
  const rules = { default: [['add', 'tree', ['apply', 'node', '_S.root']]], node: [['copy', 'name'], ['add', 'kids', ['apply', 'node', '_S.children']]] };
  const out = run(rules, { _id: 't', root: { name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] } });
  assert.deepEqual(out[0]?.['tree'], { name: 'a', kids: [{ name: 'b', kids: [{ name: 'c', kids: null }] }] });
});

test('chained transforms: each output entity is a source of the next transform', () => {
  const chain = [
    dtl({ default: [['copy', '*'], ['add', 'step1', true], ['create', ['list', ['dict', '_id', ['concat', '_S._id', '-extra'], 'k', 1]]]] }),
    dtl({ default: [['copy', '*'], ['add', 'step2', ['if', '_S.step1', 'after step 1', 'created in step 1']]] }),
  ];
  const out = run(chain, { _id: 'a' });
  assert.deepEqual(out, [
    { _id: 'a-extra', k: 1, step2: 'created in step 1' },
    { _id: 'a', step1: true, step2: 'after step 1' },
  ]);
  const withFilter = run([dtl({ default: [['copy', '*'], ['filter', false]] }), dtl({ default: [['add', 'seen', true]] })], { _id: 'b', x: 1 });
  assert.deepEqual(withFilter, [{ _id: 'b', _deleted: true, seen: true }]);
});

// ---------------------------------------------------------------------------------------------------------------------
// filter, discard, create, create-child, ids

test('filter writes the entity as deleted with _filtered; discard writes nothing; earlier creates survive', () => {
  const rules = (stop: string): JsonObject => ({ default: [['create', ['dict', '_id', 'made', 'v', 1]], ['add', 'x', 1], [stop, ['eq', '_S.keep', true]], ['add', 'after', 1]] });
  assert.deepEqual(run(rules('filter'), { _id: '1', keep: false }), [{ _id: 'made', v: 1 }, { _id: '1', x: 1, _deleted: true, _filtered: true }]);
  assert.deepEqual(run(rules('discard'), { _id: '1', keep: false }), [{ _id: 'made', v: 1 }]);
  assert.deepEqual(run(rules('filter'), { _id: '1', keep: true }), [{ _id: 'made', v: 1 }, { _id: '1', x: 1, after: 1 }]);
  assert.deepEqual(run(rules('discard'), { _id: '1', keep: true }), [{ _id: 'made', v: 1 }, { _id: '1', x: 1, after: 1 }]);
  assert.deepEqual(run({ default: [['filter']] }, { _id: '2' }), [{ _id: '2', _deleted: true, _filtered: true }]);
  assert.deepEqual(run({ default: [['discard']] }, { _id: '2' }), []);
  // a stop inside an if or case stops the whole rule set
  assert.deepEqual(run({ default: [['if', true, [['discard']]], ['add', 'x', 1]] }, { _id: '3' }), []);
});

test('the target starts with the source _id (and _deleted); a target without a string _id is an error unless id_required is false', () => {
  assert.deepEqual(run({ default: [['add', 'x', 1]] }, { _id: 'a', y: 2 }), [{ _id: 'a', x: 1 }]);
  assert.deepEqual(run({ default: [['add', 'x', '_T._id']] }, { _id: 'a' }), [{ _id: 'a', x: 'a' }]);
  assert.deepEqual(run({ default: [['add', '_id', ['concat', 'p-', '_S._id']]] }, { _id: 'a' }), [{ _id: 'p-a' }]);
  assert.deepEqual(run({ default: [['copy', '*', '_*']] }, { _id: 'a', _deleted: true, _updated: 4, v: 1 }), [{ _id: 'a', _deleted: true, v: 1 }]);
  const noId = compileTransform(dtl({ default: [['remove', '_id']] }));
  assert.throws(
    () => noId.run({ _id: 'a' }),
    (e: unknown) => e instanceof DtlRuntimeError && /no string "_id"/.test(e.message) && e.entityId === 'a',
  );
  const lenient = compileTransform(dtl({ default: [['remove', '_id'], ['create', ['list', 1, { x: 1 }, { _id: 'ok' }]]] }, { id_required: false }));
  assert.deepEqual(lenient.run({ _id: 'a' }).entities, [{ _id: 'ok' }]);
  const strictCreate = compileTransform(dtl({ default: [['create', ['list', { x: 1 }]]] }));
  assert.throws(() => strictCreate.run({ _id: 'a' }), (e: unknown) => e instanceof DtlRuntimeError && e.elements === '$.transform.rules.default[0]');
  assert.throws(() => compileTransform(dtl({ default: [['add', '_id', 5]] })).run({ _id: 'a' }), DtlRuntimeError);
});

test('create and create-child', () => {
  const out = run(
    {
      default: [
        ['create', ['apply', 'order', '_S.orders']],
        ['create-child', ['apply', 'order', '_S.orders']],
        ['create-child', ['list', { _id: 'o1', replaced: true }]],
        ['create', null],
      ],
      order: [['add', '_id', ['concat', 'order-', '_S.id']], ['copy', 'amount']],
    },
    { _id: 'c', orders: [{ id: '1', amount: 5 }, { id: '2', amount: 6 }] },
  );
  assert.deepEqual(out, [
    { _id: 'order-1', amount: 5 },
    { _id: 'order-2', amount: 6 },
    { _id: 'c', $children: [{ _id: 'order-1', amount: 5 }, { _id: 'order-2', amount: 6 }, { _id: 'o1', replaced: true }] },
  ]);
  // created entities are copies: later changes to the target do not leak into them
  const snap = run({ default: [['create', '_T.'], ['add', 'later', 1]] }, { _id: 'z' });
  assert.deepEqual(snap, [{ _id: 'z' }, { _id: 'z', later: 1 }]);
});

test('runtime failures: fail!, trip! and their entity', () => {
  const t = compileTransform(dtl({ default: [['if', ['eq', '_S.bad', true], ['fail!', ['concat', 'bad entity ', '_S._id']]]] }));
  assert.deepEqual(t.run({ _id: 'ok' }).entities, [{ _id: 'ok' }]);
  assert.throws(
    () => t.run({ _id: 'x', bad: true }),
    (e: unknown) => e instanceof DtlRuntimeError && e.kind === 'fail' && e.message === 'bad entity x' && e.entityId === 'x' && e.elements === '$.transform.rules.default[0][2]',
  );
  const trip = compileTransform(dtl({ default: [['trip!', 'too many']] }));
  assert.throws(() => trip.run({ _id: 'y' }), (e: unknown) => e instanceof DtlRuntimeError && e.kind === 'trip');
  const start = Date.now();
  assert.deepEqual(compileTransform(dtl({ default: [['sleep!', 3600]] }), { maxSleepMs: 20 }).run({ _id: 's' }).entities, [{ _id: 's' }]);
  assert.ok(Date.now() - start < 2000, 'sleep! is bounded');
});

test('outputs are plain JSON even when functions make typed values', () => {
  const out = run(
    {
      default: [
        ['add', 'when', ['datetime-parse', '%Y-%m-%d', '_S.d']],
        ['add', 'nested', ['dict', 'when', ['datetime-parse', '%Y-%m-%d', '_S.d'], 'list', ['list', ['datetime-parse', '%Y', '2001']]]],
        ['add', 'applied', ['apply', 'r', ['dict', 't', ['datetime-parse', '%Y', '1999']]]],
        ['merge', ['list', ['dict', 'merged', ['datetime-parse', '%Y', '1998']]]],
      ],
      r: [['copy', '*'], ['rename', 't', 'renamed']],
    },
    { _id: '1', d: '2020-02-03' },
  );
  const expected = {
    _id: '1',
    when: '~t2020-02-03T00:00:00Z',
    nested: { when: '~t2020-02-03T00:00:00Z', list: ['~t2001-01-01T00:00:00Z'] },
    applied: { t: '~t1999-01-01T00:00:00Z', renamed: '~t1999-01-01T00:00:00Z' },
    merged: '~t1998-01-01T00:00:00Z',
  };
  assert.deepEqual(out, [expected]);
  assert.equal(JSON.stringify(out[0]), JSON.stringify(expected));
});

// ---------------------------------------------------------------------------------------------------------------------
// Typed values

test('typed values: decode and encode round-trip the exact tagged text', () => {
  const entity: JsonObject = {
    _id: 'x',
    ni: '~:person:42',
    global: '~:plain',
    when: '~t2024-01-01T10:20:30.123456789Z',
    day: '~t2015-12-31',
    money: '~f1.50',
    big: '~f12345678901234567890.1234567890',
    blob: '~bAAECAwQF',
    id: '~u531A379E-31BB-4CE1-8690-158DCEB64BE6',
    uri: '~rhttp://www.example.org/',
    list: ['~f2', { deep: '~t2000-01-01T00:00:00Z' }],
    notTyped: ['~x1', '~tnot-a-date', '~f1.2.3', '~bnot base64!', '~unot-a-uuid', '~', 'plain'],
  };
  const decoded = decode(entity) as Record<string, DtlValue>;
  assert.ok(decoded['ni'] instanceof Ni && decoded['ni'].namespace === 'person' && decoded['ni'].id === '42');
  assert.ok(decoded['global'] instanceof Ni && decoded['global'].namespace === null);
  assert.ok(decoded['when'] instanceof DateTime && decoded['when'].nanos === 456789);
  assert.ok(decoded['day'] instanceof DateTime && decoded['day'].dateOnly);
  assert.ok(decoded['money'] instanceof Decimal && decoded['money'].mantissa === 150n && decoded['money'].scale === 2);
  assert.ok(decoded['blob'] instanceof Bytes && decoded['blob'].bytes.length === 6);
  assert.ok(decoded['id'] instanceof Uuid && decoded['id'].hex === '531a379e-31bb-4ce1-8690-158dceb64be6');
  assert.ok(decoded['uri'] instanceof Uri && decoded['uri'].uri === 'http://www.example.org/');
  assert.deepEqual(decoded['notTyped'], entity['notTyped']);
  assert.deepEqual(encode(decoded), entity);
  assert.equal(JSON.stringify(decoded), JSON.stringify(entity));
  // nothing typed: the very same object comes back
  const plain = { a: [1, { b: 'x' }] };
  assert.equal(decode(plain), plain);
  assert.equal(encode(plain), plain);
});

test('typed values made by code format canonically', () => {
  assert.equal(new DateTime(Date.UTC(2015, 6, 28, 9, 46), 0).tagged(), '~t2015-07-28T09:46:00Z');
  assert.equal(new DateTime(Date.UTC(2015, 6, 28, 9, 46) + 123, 450000).tagged(), '~t2015-07-28T09:46:00.12345Z');
  assert.equal(DateTime.fromEpochNanos(-1n).tagged(), '~t1969-12-31T23:59:59.999999999Z');
  assert.equal(DateTime.fromEpochNanos(1438076760123450000n).tagged(), '~t2015-07-28T09:46:00.12345Z');
  assert.equal(Ni.of('foo', 'x:y').tagged(), '~:foo:x:y');
  assert.equal(Decimal.parse('-0.050')?.tagged(), '~f-0.050');
  assert.equal(Decimal.parse('1e3')?.tagged(), '~f1000');
  assert.equal(Decimal.parse('1.5e-3')?.tagged(), '~f0.0015');
  assert.equal(Decimal.fromNumber(0.1).add(Decimal.parse('0.2') as Decimal).tagged(), '~f0.3');
  assert.equal((Decimal.parse('1.10') as Decimal).multiply(Decimal.parse('3') as Decimal).normalized(), '3.3');
  assert.equal(Decimal.parse('abc'), undefined);
  assert.equal(new Bytes(new Uint8Array([0, 1, 2])).tagged(), '~bAAEC');
  const offset = parseTagged('~t2015-07-28T09:46:00+02:00') as DateTime;
  assert.equal(offset.iso(), '2015-07-28T07:46:00Z');
  assert.equal(parseTagged('~t2015-02-29T00:00:00Z'), null, 'no 29 February in 2015');
  assert.equal(parseTagged('~t2015-07-28T09:46:00'), null, 'a datetime needs a zone');
});

test('typed values compare by value, in either form', () => {
  assert.equal(valuesEqual('~t2024-01-01T00:00:00Z', '~t2024-01-01T00:00:00.000Z'), true);
  assert.equal(valuesEqual('~t2024-01-01T01:00:00+01:00', '~t2024-01-01T00:00:00Z'), true);
  assert.equal(valuesEqual(typedOf('~t2024-01-01T00:00:00Z'), '~t2024-01-01T00:00:00Z'), true);
  assert.equal(valuesEqual('~f1.50', 1.5), true);
  assert.equal(valuesEqual('~f1.0', 1), true);
  assert.equal(valuesEqual('~f1.50', '~f1.5'), true);
  assert.equal(valuesEqual('~u531A379E-31BB-4CE1-8690-158DCEB64BE6', '~u531a379e-31bb-4ce1-8690-158dceb64be6'), true);
  assert.equal(valuesEqual('~:a:b', 'a:b'), false);
  assert.equal(valuesEqual('~rhttp://x', 'http://x'), false);
  assert.equal(valuesEqual(true, 1), false);
  assert.equal(valuesEqual({ a: 1, b: [1, '~f2'] }, { b: [1, 2], a: 1 }), true);
  assert.equal(valuesEqual({ a: 1 }, { a: 1, b: null }), false);
  assert.equal(keyOf('~f1.50'), keyOf(1.5));
  assert.equal(keyOf({ b: 1, a: '~t2024-01-01T00:00:00Z' }), keyOf({ a: '~t2024-01-01T00:00:00.0Z', b: '~f1.000' }));
  assert.notEqual(keyOf('1'), keyOf(1));
  assert.ok(compareValues('~t2024-01-01T00:00:00.000001Z', '~t2024-01-01T00:00:00Z') > 0, 'microseconds count');
  assert.ok(compareValues('~f0.1', 0.2) < 0);
  assert.ok(compareValues('~f10', 9) > 0);
  assert.equal(compareCompatible('abc', 5), undefined);
  assert.equal(compareCompatible(null, 5), undefined);
  assert.equal(compareCompatible('~f3', 2), 1);
});

test('mixed-type order: null < boolean < numbers < datetimes < uuid < ni < uri < string < dict < list < bytes', () => {
  const ordered: DtlValue[] = [
    null,
    false,
    true,
    -1,
    '~f0.5',
    1,
    '~t1970-01-01T00:00:00Z',
    '~t2024-01-01T00:00:00Z',
    '~u00000000-0000-0000-0000-000000000000',
    '~:a:b',
    '~rhttp://a',
    'A',
    'a',
    'b',
    {},
    { a: 1 },
    { a: 2 },
    { b: 0 },
    [],
    [1],
    [1, 2],
    [2],
    '~bAA==',
  ];
  const shuffled = [...ordered].reverse();
  shuffled.sort(compareValues);
  assert.deepEqual(shuffled, ordered);
  for (let i = 0; i + 1 < ordered.length; i++) assert.ok(compareValues(ordered[i], ordered[i + 1]) < 0, `${JSON.stringify(ordered[i])} < ${JSON.stringify(ordered[i + 1])}`);
  assert.equal(kindOf('~:x'), 'ni');
  assert.equal(kindOf(2.5), 'float');
  assert.equal(toText('~:ns:id'), 'ns:id');
  assert.equal(toText({ b: [1, '~rhttp://x'], a: true }), '{"a": true, "b": [1, "http://x"]}');
});

// ---------------------------------------------------------------------------------------------------------------------
// Lookups

test('MemoryLookup: canonical keys; nulls and deleted entities never match; results in _id order', () => {
  const lookup = new MemoryLookup({
    orders: [
      { _id: 'o3', cust: '~f1.0' },
      { _id: 'o1', cust: 1 },
      { _id: 'o2', cust: [2, 1] },
      { _id: 'o4', cust: null },
      { _id: 'o5', cust: 1, _deleted: true },
      { _id: 'o6', nested: { when: '~t2024-01-01T00:00:00.000Z' } },
    ],
  });
  assert.deepEqual([...lookup.lookupByIndex('orders', ['cust'], [1])].map((e) => e['_id']), ['o1', 'o2', 'o3']);
  assert.deepEqual([...lookup.lookupByIndex('orders', ['cust'], [null])], []);
  assert.deepEqual([...lookup.lookupByIndex('orders', ['nested', 'when'], ['~t2024-01-01T00:00:00Z'])].map((e) => e['_id']), ['o6']);
  assert.deepEqual([...lookup.lookupByIndex('nope', ['cust'], [1])], []);
  assert.equal(lookup.entity('orders', 'o5'), undefined);
  assert.equal(lookup.entity('orders', 'o1')?.['cust'], 1);
  assert.equal(lookupKey('~f1.0'), lookupKey(1));
});

test('the whole target is handed out as a copy (no cycles); own "__proto__" keys stay plain data', () => {
  const out = run(
    { default: [['add', 'x', 1], ['add', 'self', '_T.'], ['add', 'kids', ['apply', 'kid', ['list', 1]]]], kid: [['add', 'parent', '_P._T.'], ['add', 'root', '_R._T.']] },
    { _id: 'a' },
  );
  assert.doesNotThrow(() => JSON.stringify(out));
  assert.deepEqual(out, [{ _id: 'a', x: 1, self: { _id: 'a', x: 1 }, kids: [{ parent: { _id: 'a', x: 1, self: { _id: 'a', x: 1 } }, root: { _id: 'a', x: 1, self: { _id: 'a', x: 1 } } }] }]);
  const source = JSON.parse('{"_id": "p", "__proto__": {"polluted": true}, "constructor": 1}') as JsonObject;
  for (const rules of [[['copy', '*']], [['copy', '__proto__']], [['rename', '__proto__', 'x'], ['add', '__proto__', 2]], [['merge', '_S.']]]) {
    const [t] = run({ default: rules as JsonValue[] }, source);
    assert.ok(t !== undefined);
    assert.equal(Object.getPrototypeOf(t), Object.prototype, JSON.stringify(rules));
    assert.equal((t as Record<string, unknown>)['polluted'], undefined);
  }
  assert.deepEqual(Object.keys(run({ default: [['copy', '*']] }, source)[0] ?? {}).sort(), ['__proto__', '_id', 'constructor']);
});

test('property names with quotes, newlines and other odd characters work in generated accessors', () => {
  const odd = ['a"b', "a'b", 'a\nb', 'a\u2028b', 'a]b', '`${x}`', '\\', ''];
  for (const key of odd) {
    const out = run({ default: [['add', key, 1], ['copy', key], ['add', 'read', ['list', `_S.'${key.replaceAll("'", "''")}'`, `_T.'${key.replaceAll("'", "''")}'`]]] }, { _id: 'k', [key]: 2 });
    assert.deepEqual(out, [{ _id: 'k', [key]: 2, read: [2, 2] }], JSON.stringify(key));
  }
});

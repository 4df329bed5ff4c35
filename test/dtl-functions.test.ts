// Table-driven tests of the DTL functions.
//
// Every function in the registry must have at least one case here (checked below), and every catalogue example
// must evaluate to its documented result. To add a family: add a `const <FAMILY>: ExpressionTable` (and/or a
// TransformTable) block below, with several cases per function (normal values, null, lists, wrong types), and list
// it in EXPRESSION_CASES / TRANSFORM_CASES. Examples from the public documentation of the original service are used
// as cases where it gives them (marked "docs"); the engine must give the documented result.
//
// An expression case evaluates `expr` with `source` as _S (and `rules` for apply) and compares the JSON (tagged) form
// of the result with `result`. `error` instead means the expression must fail to compile or to run with a message
// matching it. A transform case runs `rules` (one transform function, or a list of them) as the default rule set on
// `source` (default {"_id": "1"}) and compares the output entities.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, JsonValue } from '../hub-core/json.js';
import { functionCatalogue } from '../hub-core/dtl/catalogue.js';
import { compileExpression } from '../hub-core/dtl/compiler.js';
import { registry } from '../hub-core/dtl/functions/index.js';
import { compileTransform } from '../hub-core/dtl/transform.js';
import { encode } from '../hub-core/dtl/values.js';

interface ExpressionCase {
  expr: JsonValue;
  source?: JsonObject;
  rules?: JsonObject;
  result?: JsonValue;
  error?: RegExp;
}

interface TransformCase {
  rules: JsonValue;
  source?: JsonObject;
  result?: JsonObject[];
  error?: RegExp;
}

type ExpressionTable = Record<string, ExpressionCase[]>;
type TransformTable = Record<string, TransformCase[]>;

type Outcome = { value: JsonValue } | { error: string };

function evaluateExpression(c: ExpressionCase): Outcome {
  const compiled = compileExpression(c.expr, c.rules ? { rules: c.rules } : {});
  const errors = compiled.errors.filter((e) => e.level === 'error');
  if (errors.length > 0) return { error: errors.map((e) => `${e.elements}: ${e.msg}`).join('; ') };
  try {
    return { value: encode(compiled.evaluate({ source: c.source ?? {} })) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function runTransform(c: TransformCase): Outcome {
  const list = Array.isArray(c.rules) && typeof c.rules[0] === 'string' ? [c.rules] : c.rules;
  const compiled = compileTransform({ type: 'dtl', rules: { default: list } });
  if (!compiled.ok) return { error: compiled.errors.map((e) => `${e.elements}: ${e.msg}`).join('; ') };
  try {
    return { value: compiled.run(c.source ?? { _id: '1' }).entities };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function check(outcome: Outcome, expected: { result?: JsonValue; error?: RegExp }): void {
  if (expected.error !== undefined) {
    assert.ok('error' in outcome, `expected an error matching ${expected.error}, got ${JSON.stringify(outcome)}`);
    assert.match(outcome.error, expected.error);
  } else {
    assert.ok('value' in outcome, `unexpected error: ${'error' in outcome ? outcome.error : ''}`);
    assert.deepEqual(outcome.value, expected.result);
  }
}

const describe = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s.length > 90 ? s.slice(0, 87) + '...' : s;
};

// ---------------------------------------------------------------------------------------------------------------------
// logic

const LOGIC: ExpressionTable = {
  and: [
    { expr: ['and', ['gt', '_S.age', 26], ['eq', '_S.gender', 'male']], source: { age: 30, gender: 'male' }, result: true }, // docs
    { expr: ['and', ['gt', '_S.age', 26], ['eq', '_S.gender', 'male']], source: { age: 20, gender: 'male' }, result: false },
    { expr: ['and', true, 1, 'x'], result: true },
    { expr: ['and', true, null], result: false },
    { expr: ['and', ['list'], true], result: false },
    { expr: ['and', ['list', false], true, true], result: true },
    { expr: ['and'], error: /"and" takes at least 1 argument/ },
  ],
  or: [
    { expr: ['or', ['eq', '_S.category', 'A'], ['eq', '_S.category', 'B']], source: { category: 'B' }, result: true }, // docs
    { expr: ['or', ['eq', '_S.category', 'A'], ['eq', '_S.category', 'B']], source: { category: 'C' }, result: false },
    { expr: ['or', false, null, 'x'], result: true },
    { expr: ['or', null], result: false },
    { expr: ['or', ['list'], ['list', 0]], result: true },
    { expr: ['or'], error: /at least 1 argument/ },
  ],
  not: [
    { expr: ['not', ['or', ['eq', '_S.category', 'A'], ['eq', '_S.category', 'B']]], source: { category: 'C' }, result: true }, // docs
    { expr: ['not', null], result: true },
    { expr: ['not', 1], result: false },
    { expr: ['not', ['list']], result: true },
    { expr: ['not', true, false], result: true },
    { expr: ['not', true, 1], result: false },
    { expr: ['not'], error: /at least 1 argument/ },
  ],
  all: [
    { expr: ['all', ['list', 1, 2, 3]], result: true }, // docs
    { expr: ['all', ['gt', '_.', 2], ['list', 4, 5, 6]], result: true }, // docs
    { expr: ['all', ['lt', '_.', 2], ['list', 1, 3, 5]], result: false }, // docs
    { expr: ['all', null], result: true },
    { expr: ['all', ['list', 1, null]], result: false },
    { expr: ['all', 5], result: true },
    { expr: ['all', ['gt', '_.amount', 10], '_S.orders'], source: { orders: [{ amount: 11 }, { amount: 12 }] }, result: true },
    { expr: ['all', 'f', 1, 2], error: /"all" takes 1 to 2 arguments, not 3/ },
  ],
  any: [
    { expr: ['any', ['list', 1, 2, 3]], result: true }, // docs
    { expr: ['any', ['gt', '_.', 5], ['list', 4, 6, 8]], result: true }, // docs
    { expr: ['any', ['lt', '_.', 2], ['list', 6, 7, 8]], result: false }, // docs
    { expr: ['any', null], result: false },
    { expr: ['any', ['list', null, false, ['list']]], result: false },
    { expr: ['any', 'x'], result: true },
    { expr: ['any'], error: /takes 1 to 2 arguments, not 0/ },
  ],
};

// ---------------------------------------------------------------------------------------------------------------------
// comparisons

const COMPARISONS: ExpressionTable = {
  eq: [
    { expr: ['eq', '_S.age', 42], source: { age: 42 }, result: true }, // docs
    { expr: ['eq', '_S.age', 42], source: { age: [42] }, result: true },
    { expr: ['eq', 1, 1.0], result: true },
    { expr: ['eq', 'a', 'b'], result: false },
    { expr: ['eq', null, null], result: true },
    { expr: ['eq', '_S.missing', null], result: true },
    { expr: ['eq', null, ['list']], result: false },
    { expr: ['eq', ['list', 1, 2], ['list', 1, 2]], result: true },
    { expr: ['eq', ['list', 1, 2], ['list', 2, 1]], result: false },
    { expr: ['eq', { a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }], result: true },
    { expr: ['eq', '~f1.0', 1], result: true },
    { expr: ['eq', '~t2024-01-01T00:00:00Z', '~t2024-01-01T00:00:00.000Z'], result: true },
    { expr: ['eq', '1', 1], result: false },
    { expr: ['eq', true, 1], result: false },
    { expr: ['eq', 1], error: /"eq" takes exactly 2 arguments, not 1/ },
  ],
  neq: [
    { expr: ['neq', '_S.age', 42], source: { age: 42 }, result: false }, // docs
    { expr: ['neq', '_S.age', 42], source: { age: 41 }, result: true },
    { expr: ['neq', null, null], result: false },
    { expr: ['neq', ['list'], null], result: true },
    { expr: ['neq', ['list', 'a'], 'a'], result: false },
    { expr: ['neq', 'a', 'A'], result: true },
    { expr: ['neq', 1, 2, 3], error: /exactly 2 arguments, not 3/ },
  ],
  gt: [
    { expr: ['gt', '_S.age', 42], source: { age: 43 }, result: true }, // docs
    { expr: ['gt', '_S.age', 42], source: { age: 42 }, result: false },
    { expr: ['gt', null, 1], result: false },
    { expr: ['gt', 1, null], result: false },
    { expr: ['gt', ['list', 3, 0], 2], result: true },
    { expr: ['gt', ['list'], 0], result: false },
    { expr: ['gt', 'b', 'a'], result: true },
    { expr: ['gt', 'abc', 5], result: false },
    { expr: ['gt', 5, 'abc'], result: false },
    { expr: ['gt', '~t2024-01-02T00:00:00Z', '~t2024-01-01T00:00:00Z'], result: true },
    { expr: ['gt', '~f1.5', 1], result: true },
    { expr: ['gt', 1], error: /exactly 2 arguments/ },
  ],
  gte: [
    { expr: ['gte', '_S.age', 42], source: { age: 42 }, result: true }, // docs
    { expr: ['gte', 41, 42], result: false },
    { expr: ['gte', null, null], result: false },
    { expr: ['gte', ['list', 5], ['list', 5, 9]], result: true },
    { expr: ['gte', '~f2.00', 2], result: true },
    { expr: ['gte', true, 1], result: false },
    { expr: ['gte'], error: /exactly 2 arguments, not 0/ },
  ],
  lt: [
    { expr: ['lt', '_S.age', 42], source: { age: 41 }, result: true }, // docs
    { expr: ['lt', 42, 42], result: false },
    { expr: ['lt', null, 42], result: false },
    { expr: ['lt', ['list', 1, 100], 2], result: true },
    { expr: ['lt', 'A', 'a'], result: true },
    { expr: ['lt', '~t2020-01-01T00:00:00Z', '~t2021-01-01T00:00:00Z'], result: true },
    { expr: ['lt', 'a', ['list', 1]], result: false },
    { expr: ['lt', 1, 2, 3], error: /exactly 2 arguments/ },
  ],
  lte: [
    { expr: ['lte', '_S.age', 42], source: { age: 42 }, result: true }, // docs
    { expr: ['lte', 43, 42], result: false },
    { expr: ['lte', 1, null], result: false },
    { expr: ['lte', ['list', 2, 9], ['list', 2]], result: true },
    { expr: ['lte', false, true], result: true },
    { expr: ['lte', '2', 3], result: false },
    { expr: ['lte', 1], error: /exactly 2 arguments/ },
  ],
};

// ---------------------------------------------------------------------------------------------------------------------
// conditionals

const CONDITIONALS: ExpressionTable = {
  if: [
    { expr: ['if', ['gt', '_S.age', 42], 1, 2], source: { age: 50 }, result: 1 }, // docs
    { expr: ['if', ['gt', '_S.age', 42], 1, 2], source: { age: 10 }, result: 2 }, // docs
    { expr: ['if', null, 'then', 'else'], result: 'else' },
    { expr: ['if', ['list', null], 'then', 'else'], result: 'then' },
    { expr: ['if', false, 'then'], result: null },
    { expr: ['if', true, ['list', 1, 2]], result: [1, 2] },
    { expr: ['if', true], error: /"if" takes 2 to 3 arguments, not 1/ },
  ],
  case: [
    { expr: ['case', ['gte', '_S.age', 18], 'adult', ['gte', '_S.age', 13], 'teenager', 'child'], source: { age: 30 }, result: 'adult' },
    { expr: ['case', ['gte', '_S.age', 18], 'adult', ['gte', '_S.age', 13], 'teenager', 'child'], source: { age: 13 }, result: 'teenager' },
    { expr: ['case', ['gte', '_S.age', 18], 'adult', ['gte', '_S.age', 13], 'teenager', 'child'], source: {}, result: 'child' },
    { expr: ['case', null, 1, ['list'], 2], result: null },
    { expr: ['case', ['list', 0], ['list', 'a', 'b']], result: ['a', 'b'] },
    { expr: ['case', true], error: /needs at least one condition/ },
  ],
  'case-eq': [
    { expr: ['case-eq', '_S.country', 'NO', 'Norway', 'SE', 'Sweden', 'Other'], source: { country: 'NO' }, result: 'Norway' },
    { expr: ['case-eq', '_S.country', 'NO', 'Norway', 'SE', 'Sweden', 'Other'], source: { country: 'SE' }, result: 'Sweden' },
    { expr: ['case-eq', '_S.country', 'NO', 'Norway', 'SE', 'Sweden', 'Other'], source: {}, result: 'Other' },
    { expr: ['case-eq', '_S.code', 45, 'DK', 47, 'NO'], source: { code: 46 }, result: null },
    { expr: ['case-eq', '_S.code', null, 'none', 47, 'NO'], source: {}, result: 'none' },
    { expr: ['case-eq', ['list', 'a'], 'a', 'one-element list equals the value'], result: 'one-element list equals the value' },
    { expr: ['case-eq', 'x', 'y'], error: /needs a value and at least one value\/result pair/ },
  ],
};

// ---------------------------------------------------------------------------------------------------------------------
// nulls

const NULLS: ExpressionTable = {
  coalesce: [
    { expr: ['coalesce', '_S.tags'], source: { tags: [null, 'a', 'b'] }, result: 'a' }, // docs
    { expr: ['coalesce', ['gt', '_.expenses', 1000], '_S.hobbies'], source: { hobbies: [{ expenses: 10 }, { expenses: 2000 }] }, result: { expenses: 2000 } }, // docs
    { expr: ['coalesce', null], result: null },
    { expr: ['coalesce', 5], result: 5 },
    { expr: ['coalesce', ['list', null, null]], result: null },
    { expr: ['coalesce', ['list', null, ['list', null, 1]]], result: [null, 1] },
    { expr: ['coalesce', ['gt', '_.', 10], ['list', 1, 'x', 2]], result: null },
    { expr: ['coalesce', 'f', 'g', 'h'], error: /takes 1 to 2 arguments, not 3/ },
  ],
  'coalesce-args': [
    { expr: ['coalesce-args', '_S.nickname', '_S.name', 'anonymous'], source: { name: 'Ann' }, result: 'Ann' },
    { expr: ['coalesce-args', '_S.nickname', '_S.name', 'anonymous'], source: {}, result: 'anonymous' },
    { expr: ['coalesce-args', null, ['list'], ['list', null, 2], 'x'], result: 'x' },
    { expr: ['coalesce-args', null], result: null },
    { expr: ['coalesce-args', 0, 1], result: 0 },
    { expr: ['coalesce-args', ['list', 1, null], 2], result: [1, null] },
    { expr: ['coalesce-args'], error: /at least 1 argument/ },
  ],
  'if-null': [
    { expr: ['if-null', null, 2], result: 2 }, // docs
    { expr: ['if-null', 1, 2], result: 1 }, // docs
    { expr: ['if-null', ['list', null], 2], result: 2 }, // docs
    { expr: ['if-null', ['list', null, 123], 2], result: 2 }, // docs
    { expr: ['if-null', ['list', 1, '12345'], 2], result: [1, '12345'] }, // docs
    { expr: ['if-null', ['list'], 'fallback'], result: 'fallback' },
    { expr: ['if-null', false, 'fallback'], result: false },
    { expr: ['if-null', 1], error: /exactly 2 arguments/ },
  ],
  'is-null': [
    { expr: ['is-null', null], result: true }, // docs
    { expr: ['is-null', 1], result: false }, // docs
    { expr: ['is-null', ['list']], result: true }, // docs
    { expr: ['is-null', ['list', null]], result: true }, // docs
    { expr: ['is-null', ['list', null, 123]], result: true }, // docs
    { expr: ['is-null', ['list', 1, '12345']], result: false }, // docs
    { expr: ['is-null', '_S.missing'], result: true },
    { expr: ['is-null', ''], result: false },
    { expr: ['is-null', 1, 2], error: /exactly 1 argument, not 2/ },
  ],
  'is-not-null': [
    { expr: ['is-not-null', null], result: false }, // docs
    { expr: ['is-not-null', 1], result: true }, // docs
    { expr: ['is-not-null', ['list']], result: false }, // docs
    { expr: ['is-not-null', ['list', null]], result: false }, // docs
    { expr: ['is-not-null', ['list', null, 123]], result: false }, // docs
    { expr: ['is-not-null', ['list', 1, '12345']], result: true }, // docs
    { expr: ['is-not-null', { a: null }], result: true },
    { expr: ['is-not-null'], error: /exactly 1 argument, not 0/ },
  ],
};

// ---------------------------------------------------------------------------------------------------------------------
// lists

const LISTS: ExpressionTable = {
  list: [
    { expr: ['list'], result: [] }, // docs
    { expr: ['list', 'a', 'b', 'c'], result: ['a', 'b', 'c'] }, // docs
    { expr: ['list', 'a', ['list', 'b'], 'c'], result: ['a', ['b'], 'c'] }, // docs
    { expr: ['list', null, '_S.x', '_S.tags'], source: { x: 1, tags: [2, 3] }, result: [null, 1, [2, 3]] },
    { expr: ['list', ['datetime-parse', '%Y', '2020'], 1, 2, 3], result: ['~t2020-01-01T00:00:00Z', 1, 2, 3] },
    { expr: ['list', ['nope']], error: /unknown function "nope"/ },
  ],
  first: [
    { expr: ['first', ['list', 'a', 'b', 'c']], result: 'a' }, // docs
    { expr: ['first', '_S.tags'], source: { tags: ['x', 'y'] }, result: 'x' }, // docs
    { expr: ['first', 123], result: 123 }, // docs
    { expr: ['first', null], result: null },
    { expr: ['first', ['list']], result: null },
    { expr: ['first', ['list', ['list', 1, 2], 3]], result: [1, 2] },
    { expr: ['first'], error: /exactly 1 argument/ },
  ],
  last: [
    { expr: ['last', ['list', 'a', 'b', 'c']], result: 'c' }, // docs
    { expr: ['last', '_S.tags'], source: { tags: ['x', 'y'] }, result: 'y' }, // docs
    { expr: ['last', 'x'], result: 'x' },
    { expr: ['last', null], result: null },
    { expr: ['last', ['list']], result: null },
    { expr: ['last', 1, 2], error: /exactly 1 argument, not 2/ },
  ],
  count: [
    { expr: ['count', ['list', 2, 4, 6]], result: 3 }, // docs
    { expr: ['count', null], result: 0 }, // docs
    { expr: ['count', 123], result: 1 }, // docs
    { expr: ['count', '_S.orders'], source: { orders: [{}, {}] }, result: 2 }, // docs
    { expr: ['count', ['list', null]], result: 1 },
    { expr: ['count', { a: 1, b: 2 }], result: 1 },
    { expr: ['count'], error: /exactly 1 argument/ },
  ],
  'is-empty': [
    { expr: ['is-empty', '_S.hobbies'], source: { hobbies: [] }, result: true }, // docs
    { expr: ['is-empty', '_S.hobbies'], source: { hobbies: ['x'] }, result: false },
    { expr: ['is-empty', null], result: true },
    { expr: ['is-empty', ['list', null]], result: false },
    { expr: ['is-empty', ''], result: false },
    { expr: ['is-empty', {}], result: false },
    { expr: ['is-empty'], error: /exactly 1 argument/ },
  ],
  'is-not-empty': [
    { expr: ['is-not-empty', '_S.hobbies'], source: { hobbies: ['chess'] }, result: true }, // docs
    { expr: ['is-not-empty', '_S.hobbies'], source: {}, result: false },
    { expr: ['is-not-empty', null], result: false },
    { expr: ['is-not-empty', ['list']], result: false },
    { expr: ['is-not-empty', 0], result: true },
    { expr: ['is-not-empty', 1, 2], error: /exactly 1 argument/ },
  ],
  in: [
    { expr: ['in', 'a', ['list', 'a', 'b', 'c']], result: true }, // docs
    { expr: ['in', 'd', ['list', 'a', 'b', 'c']], result: false }, // docs
    { expr: ['in', ['list', 10], 10], result: true }, // docs
    { expr: ['in', ['list'], 10], result: false }, // docs
    { expr: ['in', null, ['list', null]], result: false }, // docs
    { expr: ['in', ['list', null], ['list', 1, null, 2]], result: true }, // docs
    { expr: ['in', ['list', 'a', 'c'], ['list', 'a', 'b', 'c']], result: true }, // docs
    { expr: ['in', ['list', 'a', 'c', 'd'], ['list', 'a', 'b', 'c']], result: false }, // docs
    { expr: ['in', 1, null], result: false },
    { expr: ['in', '~f1.0', ['list', 2, 1]], result: true },
    { expr: ['in', { a: 1 }, ['list', { a: 1 }]], result: true },
    { expr: ['in', '_S.x', '_S.many'], source: { x: [5, 60], many: Array.from({ length: 100 }, (_, i) => i) }, result: true },
    { expr: ['in', '_S.x', '_S.many'], source: { x: [5, 600], many: Array.from({ length: 100 }, (_, i) => i) }, result: false },
    { expr: ['in', 'a'], error: /exactly 2 arguments/ },
  ],
  map: [
    { expr: ['map', ['lower', '_.'], ['list', 'A', 'B', 'C']], result: ['a', 'b', 'c'] }, // docs
    { expr: ['map', ['first', '_.'], ['list', ['list', 'A', 'A'], ['list', 'B', 'C']]], result: ['A', 'B'] },
    { expr: ['map', ['upper', '_.name'], '_S.people'], source: { people: [{ name: 'x' }, { name: 'y' }] }, result: ['X', 'Y'] },
    { expr: ['map', '_.', null], result: [] },
    { expr: ['map', ['list', '_.', '_.'], 'x'], result: [['x', 'x']] },
    { expr: ['map', ['upper', '_.'], ['list', 1, 'a']], result: [null, 'A'] },
    { expr: ['map', ['lower', '_.']], error: /exactly 2 arguments, not 1/ },
  ],
  filter: [
    { expr: ['filter', ['gt', '_.age', 42], ['list', { age: 30 }, { age: 50 }, { age: 40 }]], result: [{ age: 50 }] }, // docs
    { expr: ['filter', ['gt', '_.amount', 100], '_S.orders'], source: { orders: [{ amount: 200 }, { amount: 5 }] }, result: [{ amount: 200 }] }, // docs
    { expr: ['filter', '_.', ['list', 1, null, false, 2, ['list']]], result: [1, 2] },
    { expr: ['filter', true, null], result: [] },
    { expr: ['filter', true, 'x'], result: ['x'] },
    { expr: ['filter', ['eq', '_.', 'a']], error: /exactly 2 arguments, not 1/ },
  ],
};

// ---------------------------------------------------------------------------------------------------------------------
// dictionaries

const DICTIONARIES: ExpressionTable = {
  dict: [
    { expr: ['dict'], result: {} }, // docs
    { expr: ['dict', ['list', ['list', 'A', 1], ['list', 'B', 2], ['list', 'C', 3]]], result: { A: 1, B: 2, C: 3 } }, // docs
    { expr: ['dict', ['list', 'X', 123, ['list', 'A', 1]]], result: { A: 1 } }, // docs
    { expr: ['dict', 'a', ['upper', 'a'], ['lower', 'B'], 'B'], result: { a: 'A', b: 'B' } }, // docs
    { expr: ['dict', null], result: {} },
    { expr: ['dict', ['list', ['list', 'k', 1], ['list', 'k', 2]]], result: { k: 2 } },
    { expr: ['dict', '_S.d'], source: { d: { x: 1 } }, result: { x: 1 } },
    { expr: ['dict', 1, 'one', 'two', 2], result: { two: 2 } },
    { expr: ['dict', 'k', ['datetime-parse', '%Y', '2001']], result: { k: '~t2001-01-01T00:00:00Z' } },
    { expr: ['dict', 'a', 1, 'b'], error: /"dict": takes no argument, one list/ },
  ],
  apply: [
    {
      expr: ['apply', 'order', '_S.orders'],
      source: { orders: [{ id: 1, amount: 10 }, { id: 2, amount: 20 }] },
      rules: { order: [['copy', 'amount']] },
      result: [{ amount: 10 }, { amount: 20 }],
    },
    { expr: ['apply', 'order', '_S.order'], source: { order: { amount: 5 } }, rules: { order: [['copy', 'amount']] }, result: { amount: 5 } },
    { expr: ['apply', 'order', null], rules: { order: [['copy', 'amount']] }, result: null },
    { expr: ['apply', 'order', ['list', { a: 1 }, null, { a: 2 }]], rules: { order: [['filter', ['eq', '_S.a', 2]], ['copy', '*']] }, result: [{ a: 2 }] },
    { expr: ['apply', 'v', ['list', 'x', 5]], rules: { v: [['add', 'value', '_S.']] }, result: [{ value: 'x' }, { value: 5 }] },
    { expr: ['apply', 'missing', '_S.x'], rules: { order: [] }, error: /\$\[1\]: unknown rule set "missing"; the transform defines "order"/ },
    { expr: ['apply', ['concat', 'a'], '_S.x'], error: /RULE_ID of "apply" must be the name of a rule set/ },
  ],
};

// ---------------------------------------------------------------------------------------------------------------------
// strings

const STRINGS: ExpressionTable = {
  string: [
    { expr: ['string', 1], result: '1' }, // docs
    { expr: ['string', 'hello'], result: 'hello' }, // docs
    {
      expr: ['string', ['list', 'abc', ['list', 1, 2, 3], { b: 2, a: 1 }, '~rhttp://www.bouvet.no/', 124.4, 12345]],
      result: ['abc', '[1, 2, 3]', '{"a": 1, "b": 2}', 'http://www.bouvet.no/', '124.4', '12345'],
    }, // docs
    { expr: ['string', null], result: null },
    { expr: ['string', ['list', null, true]], result: ['true'] },
    { expr: ['string', '~:ns:id'], result: 'ns:id' },
    { expr: ['string', '~f1.50'], result: '1.50' },
    { expr: ['string', '~t2015-07-28T09:46:00.12345Z'], result: '2015-07-28T09:46:00.12345Z' },
    { expr: ['string', ['datetime-parse', '%Y', '2001']], result: '2001-01-01T00:00:00Z' },
    { expr: ['string'], error: /exactly 1 argument/ },
  ],
  concat: [
    { expr: ['concat', ['list', 'a', 'b', 'c']], result: 'abc' }, // docs
    { expr: ['concat', '_S.tags'], source: { tags: ['x', 'y'] }, result: 'xy' }, // docs
    { expr: ['concat', 'Hello ', '_S.name', '!'], source: { name: 'John' }, result: 'Hello John!' }, // docs
    { expr: ['concat', 'a', ['list', 'b', 'c'], 'd', 123, ['list', '!']], result: 'abcd!' }, // docs
    { expr: ['concat', 123, 3.14], result: '' }, // docs
    { expr: ['concat', ['list', '_S.firstname', ' ', '_S.lastname']], source: { firstname: 'A', lastname: 'B' }, result: 'A B' }, // docs
    { expr: ['concat', null], result: '' },
    { expr: ['concat', ['list', ['list', 'nested'], 'b']], result: 'b' },
    { expr: ['concat', '~:ns:id', 'x'], result: 'x' },
    { expr: ['concat'], error: /at least 1 argument/ },
  ],
  split: [
    { expr: ['split', '-', 'a-b-c'], result: ['a', 'b', 'c'] }, // docs
    { expr: ['split', '-', ['list', 'a-b', 'c-d', 'e']], result: ['a', 'b', 'c', 'd', 'e'] }, // docs
    { expr: ['split', '-', '_S.uuid'], source: { uuid: '1-2' }, result: ['1', '2'] }, // docs
    { expr: ['split', '  two  words\n'], result: ['two', 'words'] },
    { expr: ['split', ',', null], result: [] },
    { expr: ['split', ',', 123], result: [] },
    { expr: ['split', '-', ['list', 'a-', 5]], result: ['a', ''] },
    { expr: ['split', ', ', 'a, b,c'], result: ['a', 'b,c'] },
    { expr: ['split', '', 'abc'], error: /separator must not be empty/ },
    { expr: ['split', 1, 'abc'], error: /SEPARATOR of "split" must be a literal string/ },
  ],
  lower: [
    { expr: ['lower', ['list', 'A', 'B', 'C']], result: ['a', 'b', 'c'] }, // docs
    { expr: ['lower', '_S.name'], source: { name: 'ÆØÅ Ann' }, result: 'æøå ann' }, // docs
    { expr: ['lower', null], result: null },
    { expr: ['lower', 123], result: null },
    { expr: ['lower', ['list', 'A', 1, null, '~:X']], result: ['a'] },
    { expr: ['lower'], error: /exactly 1 argument/ },
  ],
  upper: [
    { expr: ['upper', ['list', 'a', 'b', 'c']], result: ['A', 'B', 'C'] }, // docs
    { expr: ['upper', '_S.name'], source: { name: 'Ann' }, result: 'ANN' }, // docs
    { expr: ['upper', null], result: null },
    { expr: ['upper', true], result: null },
    { expr: ['upper', ['list', 'a', { b: 1 }]], result: ['A'] },
    { expr: ['upper', 'a', 'b'], error: /exactly 1 argument, not 2/ },
  ],
  replace: [
    { expr: ['replace', 'http://', 'https://', 'http://www.sesam.io/'], result: 'https://www.sesam.io/' }, // docs
    { expr: ['replace', ':', '.', '_S.date'], source: { date: '10:15:00' }, result: '10.15.00' }, // docs
    { expr: ['replace', 'a', 'b', null], result: null },
    { expr: ['replace', 'a', 'b', ['list', 'aa', 1, 'ba']], result: ['bb', 'bb'] },
    { expr: ['replace', 'a', '$&$&', 'abc'], result: '$&$&bc' },
    { expr: ['replace', '.', '', 'a.b.c'], result: 'abc' },
    { expr: ['replace', 'a', 'b', 1], result: null },
    { expr: ['replace', ['list', 'a'], 'b', 'c'], error: /OLD_STRING of "replace" must be a literal string/ },
  ],
  matches: [
    { expr: ['matches', 'a*p*a', ['list', 'alpha', 'alpaca']], result: true }, // docs
    { expr: ['matches', '*_sport', '_S.tags'], source: { tags: ['ski_sport', 'golf_sport'] }, result: true }, // docs
    { expr: ['matches', '*_sport', '_S.tags'], source: { tags: ['ski_sport', 'chess'] }, result: false },
    { expr: ['matches', 'a?c', 'abc'], result: true },
    { expr: ['matches', 'a.c', 'abc'], result: false },
    { expr: ['matches', 'a.c', 'a.c'], result: true },
    { expr: ['matches', '*', null], result: false },
    { expr: ['matches', '*', ['list']], result: false },
    { expr: ['matches', '*', ['list', 'x', 1]], result: false },
    { expr: ['matches', '_S.p', 'abc'], source: { p: ['a*', 'z*'] }, result: true },
    { expr: ['matches', 'x*'], error: /exactly 2 arguments/ },
  ],
};

// ---------------------------------------------------------------------------------------------------------------------
// numbers

const NUMBERS: ExpressionTable = {
  integer: [
    { expr: ['integer', '1'], result: 1 }, // docs
    { expr: ['integer', ['list', '1', '~rhttp://www.bouvet.no/', 124.4, 12345]], result: [1, 124, 12345] }, // docs
    { expr: ['integer', ['integer', 0], ['list', '1', '~rhttp://www.bouvet.no/', '10^2', 12345]], result: [1, 0, 0, 12345] }, // docs
    { expr: ['integer', ['string', 'n/a'], ['list', '1', '~rhttp://www.bouvet.no/', '10^2', 12345]], result: [1, 'n/a', 'n/a', 12345] }, // docs
    { expr: ['integer', ['string', '_.'], ['list', '1', '~rhttp://www.bouvet.no/', '10^2', 12345]], result: [1, 'http://www.bouvet.no/', '10^2', 12345] }, // docs
    { expr: ['integer', null], result: null },
    { expr: ['integer', '12.5'], result: null },
    { expr: ['integer', -3.7], result: -3 },
    { expr: ['integer', '~f-2.9'], result: -2 },
    { expr: ['integer', ' 42 '], result: 42 },
    { expr: ['integer', true], result: null },
    { expr: ['integer', ['list', null, '2']], result: [2] },
    { expr: ['integer', 0, ['list', null, 'x']], result: [0] },
    { expr: ['integer', 1, 2, 3], error: /takes 1 to 2 arguments, not 3/ },
  ],
};

// ---------------------------------------------------------------------------------------------------------------------
// datetime

const DATETIME: ExpressionTable = {
  'datetime-parse': [
    { expr: ['datetime-parse', '%Y-%m-%dT%H:%M:%S.%fZ', '2015-07-28T09:46:00.12345Z'], result: '~t2015-07-28T09:46:00.12345Z' }, // docs
    { expr: ['datetime-parse', '%Y-%m-%dT%H:%M:%S%z', '2015-07-28T09:46:00+0200'], result: '~t2015-07-28T07:46:00Z' }, // docs
    { expr: ['datetime-parse', '%d.%m.%Y', '28.07.2015'], result: '~t2015-07-28T00:00:00Z' }, // docs
    { expr: ['datetime-parse', '%d.%m.%Y', ['list', '28.07.2015', '01.01.1970']], result: ['~t2015-07-28T00:00:00Z', '~t1970-01-01T00:00:00Z'] }, // docs
    { expr: ['datetime-parse', '%Y-%m-%d', null], result: null },
    { expr: ['datetime-parse', '%Y-%m-%d', 'not a date'], result: null },
    { expr: ['datetime-parse', '%Y-%m-%d', '2015-02-30'], result: null },
    { expr: ['datetime-parse', '%Y', 2015], result: null },
    { expr: ['datetime-parse', '%Y-%m-%d', ['list', '2015-01-01', 5, 'x', '2016-01-01']], result: ['~t2015-01-01T00:00:00Z', '~t2016-01-01T00:00:00Z'] },
    { expr: ['datetime-parse', '%I:%M %p', '01:30 PM'], result: '~t1900-01-01T13:30:00Z' },
    { expr: ['datetime-parse', '%I %p', '12 am'], result: '~t1900-01-01T00:00:00Z' },
    { expr: ['datetime-parse', '%d %b %Y', '05 mar 2021'], result: '~t2021-03-05T00:00:00Z' },
    { expr: ['datetime-parse', '%B %e, %Y', 'July 4, 1976'], result: '~t1976-07-04T00:00:00Z' },
    { expr: ['datetime-parse', '%y%m%d', '991231'], result: '~t1999-12-31T00:00:00Z' },
    { expr: ['datetime-parse', '%y%m%d', '150101'], result: '~t2015-01-01T00:00:00Z' },
    { expr: ['datetime-parse', '%Y-%j', '2016-366'], result: '~t2016-12-31T00:00:00Z' },
    { expr: ['datetime-parse', '%H:%M:%S.%f%z', '10:00:00.123456789-01:30'], result: '~t1900-01-01T11:30:00.123456789Z' },
    { expr: ['datetime-parse', '%Y%%%m', '2020%05'], result: '~t2020-05-01T00:00:00Z' },
    { expr: ['datetime-parse', '%Y-%m-%d %H:%M', '2020-05-01   10:30'], result: '~t2020-05-01T10:30:00Z' },
    { expr: ['datetime-parse', '%Q', 'x'], error: /unsupported directive "%Q"/ },
    { expr: ['datetime-parse', 5, 'x'], error: /FORMAT of "datetime-parse" must be a literal string/ },
  ],
  'datetime-format': [
    { expr: ['datetime-format', '%Y-%m-%dT%H:%M:%SZ', ['datetime-parse', '%Y-%m-%d', '2015-07-28']], result: '2015-07-28T00:00:00Z' }, // docs
    { expr: ['datetime-format', '%d.%m.%Y %H:%M', '_S.updated'], source: { updated: '~t2024-02-29T13:05:00Z' }, result: '29.02.2024 13:05' },
    { expr: ['datetime-format', '%Y', null], result: null },
    { expr: ['datetime-format', '%Y', ['list', '~t2020-05-05T00:00:00Z', 'x', 5, '2021-01-01']], result: ['2020'] },
    { expr: ['datetime-format', '%S.%f', '~t2020-01-01T00:00:07.1234567Z'], result: '07.123456' },
    { expr: ['datetime-format', '%a %A %b %B %j %e %y', '~t2021-03-05T00:00:00Z'], result: 'Fri Friday Mar March 064 5 21' },
    { expr: ['datetime-format', '%I:%M %p %z %Z %%', '~t2021-03-05T15:04:00Z'], result: '03:04 PM +0000 UTC %' },
    { expr: ['datetime-format', '%Y-%m-%d', '~t0099-12-31'], result: '0099-12-31' },
    { expr: ['datetime-format', '%Y', 'not a datetime'], result: null },
    { expr: ['datetime-format', '%K', '~t2020-01-01T00:00:00Z'], error: /unsupported directive "%K"/ },
  ],
  now: [
    { expr: ['gt', ['now'], '~t2020-01-01T00:00:00Z'], result: true },
    { expr: ['lt', ['now'], '~t2200-01-01T00:00:00Z'], result: true },
    { expr: ['datetime-format', '%Y', ['now']], result: String(new Date().getUTCFullYear()) },
    { expr: ['now', 1], error: /"now" takes exactly 0 arguments, not 1/ },
  ],
};

// ---------------------------------------------------------------------------------------------------------------------
// misc

const MISC: ExpressionTable = {
  literal: [
    { expr: ['literal', '_S.foo'], source: { foo: 1 }, result: '_S.foo' }, // docs
    { expr: ['literal', { foo: 1, bar: 2 }], result: { foo: 1, bar: 2 } }, // docs
    { expr: ['literal', ['upper', 'hello']], result: ['upper', 'hello'] }, // docs
    { expr: ['literal', null], result: null },
    { expr: ['literal', ['nope', 'not compiled']], result: ['nope', 'not compiled'] },
    { expr: ['literal'], error: /exactly 1 argument, not 0/ },
  ],
};

// ---------------------------------------------------------------------------------------------------------------------
// transforms

const TRANSFORMS: TransformTable = {
  add: [
    { rules: ['add', 'age', 26], result: [{ _id: '1', age: 26 }] }, // docs
    { rules: ['add', 'upper_name', ['upper', '_S.name']], source: { _id: '1', name: 'ann' }, result: [{ _id: '1', upper_name: 'ANN' }] }, // docs
    { rules: ['add', ['concat', 'x-', '_S.key'], '_S.value'], source: { _id: '1', key: 'k', value: 7 }, result: [{ _id: '1', 'x-k': 7 }] }, // docs
    { rules: ['add', 'x', null], result: [{ _id: '1', x: null }] },
    { rules: ['add', ['list', 'a', 'b', 3], '_S.v'], source: { _id: '1', v: [1, 2] }, result: [{ _id: '1', a: [1, 2], b: [1, 2] }] },
    { rules: [['add', 'x', 1], ['add', 'x', 2]], result: [{ _id: '1', x: 2 }] },
    { rules: ['add', 'when', ['datetime-parse', '%Y', '2020']], result: [{ _id: '1', when: '~t2020-01-01T00:00:00Z' }] },
    { rules: ['add', 5, 1], error: /PROPERTY of "add" must be a property name/ },
    { rules: ['add', 'x'], error: /exactly 2 arguments, not 1/ },
  ],
  'add-if': [
    { rules: ['add-if', 'foo', null], result: [{ _id: '1' }] }, // docs
    { rules: ['add-if', 'foo', ['list']], result: [{ _id: '1', foo: [] }] }, // docs
    { rules: ['add-if', 'foo', ['list', null]], result: [{ _id: '1', foo: [null] }] }, // docs
    { rules: ['add-if', 'foo', 123], result: [{ _id: '1', foo: 123 }] }, // docs
    { rules: ['add-if', 'foo', ['list', 123]], result: [{ _id: '1', foo: [123] }] }, // docs
    { rules: ['add-if', 'foo', ['list', 123, 456]], result: [{ _id: '1', foo: [123, 456] }] }, // docs
    { rules: ['add-if', 'foo', ['gte', '_.', 18], null], result: [{ _id: '1' }] }, // docs
    { rules: ['add-if', 'foo', ['gte', '_.', 18], ['list']], result: [{ _id: '1' }] }, // docs
    { rules: ['add-if', 'foo', ['gte', '_.', 18], ['list', null]], result: [{ _id: '1' }] }, // docs
    { rules: ['add-if', 'foo', ['gte', '_.', 18], 12], result: [{ _id: '1' }] }, // docs
    { rules: ['add-if', 'foo', ['gte', '_.', 18], 123], result: [{ _id: '1', foo: 123 }] }, // docs
    { rules: ['add-if', 'foo', ['gte', '_.', 18], ['list', 123]], result: [{ _id: '1', foo: [123] }] }, // docs
    { rules: ['add-if', 'foo', 'a', 'b', 'c'], error: /takes 2 to 3 arguments, not 4/ },
  ],
  default: [
    { rules: ['default', 'age', 26], result: [{ _id: '1', age: 26 }] }, // docs
    { rules: [['add', 'age', 1], ['default', 'age', 26]], result: [{ _id: '1', age: 1 }] },
    { rules: [['add', 'age', null], ['default', 'age', 26]], result: [{ _id: '1', age: null }] },
    { rules: ['default', ['concat', 'x-', '_S.key'], '_S.value'], source: { _id: '1', key: 'k', value: [1] }, result: [{ _id: '1', 'x-k': [1] }] }, // docs
    { rules: ['default', '_id', 'other'], result: [{ _id: '1' }] },
    { rules: ['default', { a: 1 }, 26], error: /PROPERTY of "default" must be a property name/ },
  ],
  copy: [
    { rules: ['copy', 'age'], source: { _id: '1', age: 36, name: 'x' }, result: [{ _id: '1', age: 36 }] }, // docs
    { rules: ['copy', 'a*', 'ab*'], source: { _id: '1', a: 1, ab: 2, ac: 3, b: 4 }, result: [{ _id: '1', a: 1, ac: 3 }] }, // docs
    { rules: ['copy', ['list', 'a*', 'b*'], ['list', 'ab*', 'ba*']], source: { _id: '1', ax: 1, ab: 2, bx: 3, ba: 4, c: 5 }, result: [{ _id: '1', ax: 1, bx: 3 }] }, // docs
    { rules: ['copy', ['a*', 'c'], 'a?'], source: { _id: '1', a: 1, ab: 2, abc: 3, c: 4 }, result: [{ _id: '1', a: 1, abc: 3, c: 4 }] },
    { rules: ['copy', '*', '_*'], source: { _id: '1', _updated: 3, x: 1, y: null }, result: [{ _id: '1', x: 1, y: null }] },
    { rules: ['copy', '*'], source: { _id: '1', _deleted: false, x: [1, { y: 2 }] }, result: [{ _id: '1', _deleted: false, x: [1, { y: 2 }] }] },
    { rules: ['copy', ['list', 'missing', 'x']], source: { _id: '1', x: null }, result: [{ _id: '1', x: null }] },
    { rules: ['copy', ['concat', 'n', 'ame']], source: { _id: '1', name: 'dynamic pattern', x: 1 }, result: [{ _id: '1', name: 'dynamic pattern' }] },
    { rules: ['copy', 5], error: /INCLUDE_PROPERTIES of "copy" must be a pattern string or a list of patterns/ },
  ],
  rename: [
    { rules: ['rename', 'age', 'current_age'], source: { _id: '1', age: 40 }, result: [{ _id: '1', current_age: 40 }] }, // docs
    { rules: ['rename', ['concat', 'in-', '_S.key'], ['concat', 'out-', '_S.key']], source: { _id: '1', key: 'a', 'in-a': 5 }, result: [{ _id: '1', 'out-a': 5 }] }, // docs
    { rules: ['rename', 'missing', 'x'], result: [{ _id: '1' }] },
    { rules: ['rename', 'v', 'w'], source: { _id: '1', v: null }, result: [{ _id: '1', w: null }] },
    { rules: ['rename', 'a'], error: /exactly 2 arguments/ },
  ],
  remove: [
    { rules: [['copy', '*'], ['remove', 'age']], source: { _id: '1', age: 3, name: 'x' }, result: [{ _id: '1', name: 'x' }] }, // docs
    { rules: [['copy', '*'], ['remove', 'temp_*']], source: { _id: '1', temp_a: 1, temp_b: 2, keep: 3 }, result: [{ _id: '1', keep: 3 }] }, // docs
    { rules: ['remove', 'not-there'], result: [{ _id: '1' }] },
    { rules: [['copy', '*'], ['remove', ['list', 'a', 'b?']]], source: { _id: '1', a: 1, bc: 2, bcd: 3 }, result: [{ _id: '1', bcd: 3 }] },
    { rules: ['remove'], error: /exactly 1 argument, not 0/ },
  ],
  merge: [
    { rules: ['merge', ['list', { a: 1 }, { a: 2, b: 3 }]], result: [{ _id: '1', a: 2, b: 3 }] }, // docs
    { rules: ['merge', '_S.orders'], source: { _id: '1', orders: [{ _id: 'o', x: 1 }, { y: 2 }] }, result: [{ _id: '1', x: 1, y: 2 }] }, // docs
    { rules: ['merge', null], result: [{ _id: '1' }] },
    { rules: ['merge', ['list', 1, 'x', { _deleted: true, z: 1 }]], result: [{ _id: '1', z: 1 }] },
    { rules: ['merge', { nested: { _keep: 'inner underscore kept' } }], result: [{ _id: '1', nested: { _keep: 'inner underscore kept' } }] },
    { rules: ['merge'], error: /exactly 1 argument/ },
  ],
  'merge-union': [
    { rules: ['merge-union', ['list', { a: 1 }, { a: 2, b: 3 }]], result: [{ _id: '1', a: [1, 2], b: 3 }] }, // docs
    { rules: ['merge-union', ['list', { a: [1, 2] }, { a: 2 }, { a: [3, 1] }]], result: [{ _id: '1', a: [1, 2, 3] }] },
    { rules: ['merge-union', ['list', { a: 1 }, { a: 1 }]], result: [{ _id: '1', a: 1 }] },
    { rules: ['merge-union', null], result: [{ _id: '1' }] },
    { rules: ['merge-union', ['list', 'x', { _x: 1 }]], result: [{ _id: '1' }] },
    { rules: ['merge-union', 1, 2], error: /exactly 1 argument, not 2/ },
  ],
  'make-ni': [
    { rules: ['make-ni', 'soccer', 'referee', 'ref'], source: { _id: '1', referee: 'john.doe' }, result: [{ _id: '1', ref: '~:soccer:john.doe' }] }, // docs
    { rules: ['make-ni', 'hockey', 'players'], source: { _id: '1', players: ['a', 7, 'b'] }, result: [{ _id: '1', 'players-ni': ['~:hockey:a', '~:hockey:b'] }] }, // docs
    { rules: ['make-ni', 'hockey', 'players'], source: { _id: '1', players: [7, null] }, result: [{ _id: '1' }] },
    { rules: ['make-ni', 'hockey', 'players'], source: { _id: '1', players: null }, result: [{ _id: '1' }] },
    { rules: ['make-ni', 'hockey', 'players'], source: { _id: '1', players: '~:already:ni' }, result: [{ _id: '1' }] },
    { rules: ['make-ni', 'hockey', ['concat', 'p']], error: /FROM_PROPERTY of "make-ni" must be a literal string/ },
  ],
  create: [
    { rules: ['create', '_S.orders'], source: { _id: '1', orders: [{ _id: 'o1', n: 1 }, { _id: 'o2', n: 2 }] }, result: [{ _id: 'o1', n: 1 }, { _id: 'o2', n: 2 }, { _id: '1' }] }, // docs
    { rules: ['create', ['apply', 'order', '_S.orders']], source: { _id: '1', orders: [] }, error: /unknown rule set "order"/ },
    { rules: ['create', null], result: [{ _id: '1' }] },
    { rules: ['create', { _id: 'single' }], result: [{ _id: 'single' }, { _id: '1' }] },
    { rules: ['create', ['dict', '_id', 'd', 'when', ['datetime-parse', '%Y', '2000']]], result: [{ _id: 'd', when: '~t2000-01-01T00:00:00Z' }, { _id: '1' }] },
    { rules: ['create', ['list', { name: 'no id' }]], error: /create: \{"name":"no id"\} is not an entity/ },
    { rules: ['create', 'not an entity'], error: /is not an entity/ },
  ],
  'create-child': [
    { rules: ['create-child', '_S.orders'], source: { _id: '1', orders: [{ _id: 'o1' }, { _id: 'o2' }] }, result: [{ _id: '1', $children: [{ _id: 'o1' }, { _id: 'o2' }] }] }, // docs
    { rules: ['create-child', null], result: [{ _id: '1' }] },
    { rules: [['create-child', { _id: 'a', v: 1 }], ['create-child', ['list', { _id: 'b' }, { _id: 'a', v: 2 }]]], result: [{ _id: '1', $children: [{ _id: 'a', v: 2 }, { _id: 'b' }] }] },
    { rules: ['create-child', ['list', 5]], error: /create-child: 5 is not an entity/ },
  ],
  filter: [
    { rules: ['filter', ['gt', '_S.age', 42]], source: { _id: '1', age: 50 }, result: [{ _id: '1' }] }, // docs
    { rules: ['filter', ['gt', '_S.age', 42]], source: { _id: '1', age: 30 }, result: [{ _id: '1', _deleted: true, _filtered: true }] }, // docs
    { rules: ['filter', ['eq', '_S.type', 'person']], source: { _id: '1', type: 'person' }, result: [{ _id: '1' }] }, // docs
    { rules: ['filter'], result: [{ _id: '1', _deleted: true, _filtered: true }] }, // docs
    { rules: ['filter', null], result: [{ _id: '1', _deleted: true, _filtered: true }] },
    { rules: ['filter', ['list', 0]], result: [{ _id: '1' }] },
    { rules: ['filter', true, false], error: /"filter" takes 0 to 1 arguments, not 2/ },
  ],
  discard: [
    { rules: ['discard', ['gt', '_S.age', 42]], source: { _id: '1', age: 30 }, result: [] }, // docs
    { rules: ['discard', ['eq', '_S.type', 'person']], source: { _id: '1', type: 'person' }, result: [{ _id: '1' }] }, // docs
    { rules: ['discard'], result: [] }, // docs
    { rules: ['discard', ['list']], result: [] },
    { rules: [['add', 'x', 1], ['discard', 'yes'], ['add', 'y', 2]], result: [{ _id: '1', x: 1, y: 2 }] },
    { rules: ['discard', 1, 2], error: /0 to 1 arguments, not 2/ },
  ],
  comment: [
    { rules: ['comment', 'This is a comment'], result: [{ _id: '1' }] }, // docs
    { rules: ['comment', 'First line', 'Second line', 'Third line'], result: [{ _id: '1' }] }, // docs
    { rules: ['comment'], result: [{ _id: '1' }] },
    { rules: ['comment', ['nope', 'not compiled'], ['add', 'never', 'added']], result: [{ _id: '1' }] },
  ],
  if: [
    { rules: ['if', ['gt', '_S.age', 18], ['add', 'type', 'adult'], ['add', 'type', 'child']], source: { _id: '1', age: 20 }, result: [{ _id: '1', type: 'adult' }] }, // docs
    { rules: ['if', ['gt', '_S.age', 18], ['add', 'type', 'adult'], ['add', 'type', 'child']], source: { _id: '1', age: 2 }, result: [{ _id: '1', type: 'child' }] }, // docs
    {
      rules: ['if', ['eq', '_S.type', 'person'], [['add', 'type', 'person'], ['copy', ['list', 'name', 'age']]]],
      source: { _id: '1', type: 'person', name: 'n', age: 3, x: 0 },
      result: [{ _id: '1', type: 'person', name: 'n', age: 3 }],
    }, // docs
    { rules: ['if', null, ['add', 'x', 1]], result: [{ _id: '1' }] },
    { rules: ['if', true, [], ['add', 'x', 1]], result: [{ _id: '1' }] },
    { rules: ['if', true, 'x'], error: /THEN of "if" must be a transform function or a list of transform functions/ },
    { rules: ['if', true, ['upper', 'x']], error: /"upper" is not a transform function/ },
  ],
  case: [
    {
      rules: ['case', ['gte', '_S.age', 18], ['add', 'group', 'adult'], ['gte', '_S.age', 13], ['add', 'group', 'teenager'], ['gte', '_S.age', 2], ['add', 'group', 'toddler'], ['lt', '_S.age', 2], ['add', 'group', 'baby'], ['add', 'group', 'unknown']],
      source: { _id: '1', age: 15 },
      result: [{ _id: '1', group: 'teenager' }],
    }, // docs
    {
      rules: ['case', ['gte', '_S.age', 18], ['add', 'group', 'adult'], ['lt', '_S.age', 2], ['add', 'group', 'baby'], ['add', 'group', 'unknown']],
      source: { _id: '1' },
      result: [{ _id: '1', group: 'unknown' }],
    }, // docs
    { rules: ['case', false, ['add', 'x', 1]], result: [{ _id: '1' }] },
    { rules: ['case', ['list', null], [['add', 'x', 1], ['add', 'y', 2]]], result: [{ _id: '1', x: 1, y: 2 }] },
    { rules: ['case', true, 'not transforms'], error: /expected a transform function or a list of transform functions/ },
  ],
  'case-eq': [
    {
      rules: ['case-eq', '_S.country', 'NO', ['add', 'country', 'Norway'], 'SE', ['add', 'country', 'Sweden'], ['add', 'country', 'Other']],
      source: { _id: '1', country: 'SE' },
      result: [{ _id: '1', country: 'Sweden' }],
    }, // docs
    {
      rules: ['case-eq', '_S.country', 'NO', ['add', 'country', 'Norway'], 'SE', ['add', 'country', 'Sweden'], ['add', 'country', 'Other']],
      source: { _id: '1', country: 'DK' },
      result: [{ _id: '1', country: 'Other' }],
    }, // docs
    {
      rules: ['case-eq', '_S.dialing_code', 45, ['add', 'country_code', 'DK'], 46, ['add', 'country_code', 'SE'], 47, ['add', 'country_code', 'NO']],
      source: { _id: '1', dialing_code: 46 },
      result: [{ _id: '1', country_code: 'SE' }],
    }, // docs
    {
      rules: ['case-eq', '_S.dialing_code', 45, ['add', 'country_code', 'DK'], 47, ['add', 'country_code', 'NO']],
      source: { _id: '1', dialing_code: 1 },
      result: [{ _id: '1' }],
    }, // docs
    { rules: ['case-eq', '_S.missing', null, ['add', 'was', 'null']], result: [{ _id: '1', was: 'null' }] },
    { rules: ['case-eq', '_S.x', 1], error: /needs a value and at least one value\/transforms pair/ },
  ],
  'fail!': [
    { rules: ['fail!', 'Processing stopped because of invalid input. Please review.'], error: /^Processing stopped because of invalid input\. Please review\.$/ }, // docs
    { rules: ['if', ['eq', '_S.ok', true], [], ['fail!', ['concat', 'bad ', '_S._id']]], source: { _id: 'x', ok: false }, error: /^bad x$/ },
    { rules: ['if', ['eq', '_S.ok', true], [], ['fail!', 'bad']], source: { _id: 'x', ok: true }, result: [{ _id: 'x' }] },
    { rules: ['fail!', null], error: /fail! was called/ },
    { rules: ['fail!'], error: /exactly 1 argument/ },
  ],
  'trip!': [
    { rules: ['trip!', 'Circuit breaker tripped because of invalid input.'], error: /^Circuit breaker tripped because of invalid input\.$/ }, // docs
    { rules: ['trip!', ['list', 'first', 'second']], error: /^first$/ },
    { rules: ['if', false, ['trip!', 'never']], result: [{ _id: '1' }] },
    { rules: ['trip!', 'a', 'b'], error: /exactly 1 argument, not 2/ },
  ],
  'sleep!': [
    { rules: ['sleep!', 0], result: [{ _id: '1' }] },
    { rules: ['sleep!', '_S.seconds'], source: { _id: '1', seconds: null }, result: [{ _id: '1' }] },
    { rules: ['sleep!', 'x'], error: /PERIOD of "sleep!" must be an integer or an integer expression/ },
    { rules: ['sleep!', 0.5], error: /PERIOD of "sleep!" must be an integer/ },
  ],
};

const EXPRESSION_CASES: ExpressionTable = { ...LOGIC, ...COMPARISONS, ...CONDITIONALS, ...NULLS, ...LISTS, ...DICTIONARIES, ...STRINGS, ...NUMBERS, ...DATETIME, ...MISC };
const TRANSFORM_CASES: TransformTable = { ...TRANSFORMS };

// ---------------------------------------------------------------------------------------------------------------------
// The cases

for (const [name, cases] of Object.entries(EXPRESSION_CASES)) {
  cases.forEach((c, i) => {
    test(`${name} #${i + 1}: ${describe(c.expr)}`, () => check(evaluateExpression(c), c));
  });
}

for (const [name, cases] of Object.entries(TRANSFORM_CASES)) {
  cases.forEach((c, i) => {
    test(`transform ${name} #${i + 1}: ${describe(c.rules)}`, () => check(runTransform(c), c));
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// Registry, tables and catalogue agree

test('every function in the registry has table cases, and every table names a registered function', () => {
  const missing: string[] = [];
  for (const spec of registry.all()) {
    const table = spec.kind === 'expression' ? EXPRESSION_CASES : TRANSFORM_CASES;
    if ((table[spec.name] ?? []).length === 0) missing.push(`${spec.kind} ${spec.name}`);
  }
  assert.deepEqual(missing, [], 'functions without test cases');
  for (const name of Object.keys(EXPRESSION_CASES)) assert.ok(registry.expression(name), `no expression function "${name}"`);
  for (const name of Object.keys(TRANSFORM_CASES)) assert.ok(registry.transform(name), `no transform function "${name}"`);
});

test('the catalogue has every function with a one-line description and examples, and is plain JSON', () => {
  const catalogue = functionCatalogue();
  assert.equal(catalogue.length, registry.all().length);
  assert.deepEqual(JSON.parse(JSON.stringify(catalogue)), catalogue);
  for (const doc of catalogue) {
    assert.ok(doc.description.length > 10 && !doc.description.includes('\n'), `description of ${doc.name}`);
    assert.ok(doc.examples.length > 0, `examples of ${doc.name}`);
    assert.ok(doc.family.length > 0 && doc.signature !== undefined, `family/signature of ${doc.name}`);
    for (const e of doc.examples) assert.ok((e.result === undefined) !== (e.error === undefined), `${doc.name}: an example has either a result or an error`);
  }
  const names = catalogue.map((d) => `${d.kind} ${d.name}`);
  assert.equal(new Set(names).size, names.length, 'no duplicates');
  const families = new Set(catalogue.map((d) => d.family));
  for (const f of ['transforms', 'logic', 'comparisons', 'conditionals', 'nulls', 'lists', 'dictionaries', 'strings', 'numbers', 'datetime', 'misc']) {
    assert.ok(families.has(f), `family ${f}`);
  }
});

for (const doc of functionCatalogue()) {
  test(`catalogue examples of ${doc.kind} ${doc.name} give their documented results`, () => {
    for (const e of doc.examples) {
      const expected = { ...(e.result !== undefined ? { result: e.result } : {}), ...(e.error !== undefined ? { error: new RegExp(e.error.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) } : {}) };
      if (doc.kind === 'expression') {
        check(evaluateExpression({ expr: e.expression, ...(e.source ? { source: e.source } : {}), ...(e.rules ? { rules: e.rules } : {}) }), expected);
      } else {
        check(runTransform({ rules: e.expression, ...(e.source ? { source: e.source } : {}) }), expected);
      }
    }
  });
}

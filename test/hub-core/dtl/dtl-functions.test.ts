// Table-driven tests of the DTL functions.
//
// Every function in the registry must have at least one case here (checked below), and every catalogue example
// must evaluate to its documented result. The tables live in test/dtl-cases/<family>.ts, with several cases per function (normal
// values, null, lists, wrong types); test/hub-core/dtl/dtl-cases/index.ts merges them. Examples from the public documentation of the original service are used
// as cases where it gives them (marked "docs"); the engine must give the documented result.
//
// An expression case evaluates `expr` with `source` as _S (and `rules` for apply) and compares the JSON (tagged) form
// of the result with `result`. `error` instead means the expression must fail to compile or to run with a message
// matching it. A transform case runs `rules` (one transform function, or a list of them) as the default rule set on
// `source` (default {"_id": "1"}) and compares the output entities.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJson, type JsonValue } from '../../../hub-core/base/index.js';
import { EXPRESSION_CASES, TRANSFORM_CASES } from './dtl-cases/index.js';
import type { ExpressionCase, TransformCase } from './dtl-cases/types.js';
import { functionCatalogue } from '../../../hub-core/dtl/index.js';
import { compileExpression } from '../../../hub-core/dtl/index.js';
import { registry } from '../../../hub-core/dtl/index.js';
import { compileTransform } from '../../../hub-core/dtl/index.js';
import { encode } from '../../../hub-core/dtl/index.js';


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
  // Integers beyond ±2^53 (hash128's examples) are written as plain digits and read back exactly (exact-json.ts).
  assert.deepEqual(parseJson(JSON.stringify(catalogue)), catalogue);
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

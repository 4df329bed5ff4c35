import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, REPO } from '../../helpers/hub-process.js';
import { registry } from '../../../hub-core/dtl/index.js';

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

function datahub(args: string[], input?: string): Result {
  const r = spawnSync(process.execPath, [CLI, 'dtl', ...args], { cwd: REPO, input, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function expectUsageError(r: Result, pattern: RegExp): void {
  assert.equal(r.status, 2, `exit code (stderr: ${r.stderr})`);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trimEnd().split('\n').length, 1, `one line on stderr: ${JSON.stringify(r.stderr)}`);
  assert.match(r.stderr, pattern);
}

const dir = mkdtempSync(join(tmpdir(), 'dtl-cli-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

test('dtl eval prints the result as JSON, typed values tagged', () => {
  const r = datahub(['eval', '["concat", "Hello ", "_S.name", "!"]', '--source', '{"name": "John"}']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '"Hello John!"\n');
  const t = datahub(['eval', '["list", ["datetime-parse", "%d.%m.%Y", "28.07.2015"], "~f1.50", {"a": 1}]']);
  assert.equal(t.status, 0, t.stderr);
  assert.deepEqual(JSON.parse(t.stdout), ['~t2015-07-28T00:00:00Z', '~f1.50', { a: 1 }]);
  assert.equal(datahub(['eval', '"_S.x"', '--source', '{"x": null}']).stdout, 'null\n');
});

test('dtl eval: invalid input exits with code 2 and one line on stderr', () => {
  expectUsageError(datahub(['eval', '["upper", ']), /datahub dtl: the expression is not valid JSON/);
  expectUsageError(datahub(['eval', '["upper", "a"]', '--source', '{bad']), /--source is not valid JSON/);
  expectUsageError(datahub(['eval', '["uper", "a"]']), /invalid expression: \$\[0\]: unknown function "uper"; did you mean "upper"\?/);
  expectUsageError(datahub(['eval', '["upper"]']), /\$: "upper" takes exactly 1 argument, not 0/);
  expectUsageError(datahub(['eval']), /give exactly one expression/);
  expectUsageError(datahub(['eval', '1', '--nope']), /Unknown option '--nope'/);
  expectUsageError(datahub(['frobnicate']), /unknown dtl command "frobnicate"/);
});

test('dtl eval --batch answers one JSON line per input line', () => {
  const lines = [
    { expr: ['upper', '_S.name'], source: { name: 'ann' } },
    { expr: ['upper', '_S.name'], source: { name: 'bob' } },
    { expr: ['nope'] },
    { source: {} },
    { expr: ['count', '_S.x'] },
    { expr: ['datetime-parse', '%Y', '1999'] },
  ].map((l) => JSON.stringify(l));
  const r = datahub(['eval', '--batch'], [...lines.slice(0, 3), 'not json', '', ...lines.slice(3)].join('\n') + '\n');
  assert.equal(r.status, 0, r.stderr);
  const out = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown);
  assert.equal(out.length, 7, 'blank lines are skipped');
  assert.deepEqual(out[0], 'ANN');
  assert.deepEqual(out[1], 'BOB');
  assert.match((out[2] as { error: string }).error, /unknown function "nope"/);
  assert.match((out[3] as { error: string }).error, /not valid JSON/);
  assert.match((out[4] as { error: string }).error, /\{"expr": \.\.\., "source": \.\.\.\}/);
  assert.deepEqual(out.slice(5), [0, '~t1999-01-01T00:00:00Z']);
  expectUsageError(datahub(['eval', '--batch', '["x"]']), /--batch reads expressions from stdin/);
});

test('dtl run transforms a JSON array of entities', () => {
  const input = file('input.json', [
    { _id: '1', name: 'ann', age: 30, orders: [{ _id: 'o1', amount: 5 }] },
    { _id: '2', name: 'bob', age: 10, orders: [] },
  ]);
  const transform = file('transform.json', {
    type: 'dtl',
    rules: {
      default: [['copy', '_id'], ['add', 'name', ['upper', '_S.name']], ['add', 'orders', ['apply', 'order', '_S.orders']], ['filter', ['gte', '_S.age', 18]]],
      order: [['copy', 'amount']],
    },
  });
  const r = datahub(['run', '--rules', transform, '--input', input]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [
    { _id: '1', name: 'ANN', orders: [{ amount: 5 }] },
    { _id: '2', name: 'BOB', orders: [], _deleted: true, _filtered: true },
  ]);
  // a bare rules object, and a list of chained transforms
  const bare = file('bare.json', { default: [['add', 'x', 1]] });
  assert.deepEqual(JSON.parse(datahub(['run', '--rules', bare, '--input', input]).stdout), [{ _id: '1', x: 1 }, { _id: '2', x: 1 }]);
  const chain = file('chain.json', [{ type: 'dtl', rules: { default: [['add', 'x', 1]] } }, { type: 'dtl', rules: { default: [['add', 'y', ['count', '_S.x']]] } }]);
  assert.deepEqual(JSON.parse(datahub(['run', '--rules', chain, '--input', input]).stdout), [{ _id: '1', y: 1 }, { _id: '2', y: 1 }]);
});

test('dtl run: invalid rules or input exit with code 2; a failing transform with code 1', () => {
  const input = file('in2.json', [{ _id: 'a' }]);
  expectUsageError(datahub(['run', '--rules', file('bad-rules.json', { default: [['add', 'x', ['nope']]] }), '--input', input]), /invalid DTL: \$\.default\[0\]\[2\]\[0\]: unknown function "nope"/);
  expectUsageError(
    datahub(['run', '--rules', file('bad-transform.json', { type: 'dtl', rules: { default: [['apply', 'x']] } }), '--input', input]),
    /invalid DTL: \$\.rules\.default\[0\]\[0\]: "apply" is not a transform function/,
  );
  expectUsageError(datahub(['run', '--rules', file('ok.json', { default: [] }), '--input', file('obj.json', { _id: 'a' })]), /must hold a JSON array of entities/);
  expectUsageError(datahub(['run', '--rules', file('ok2.json', { default: [] }), '--input', file('bad.json', '[{"_id":')]), /input file .* is not valid JSON/);
  expectUsageError(datahub(['run', '--rules', join(dir, 'missing.json'), '--input', input]), /cannot read rules file .*ENOENT/);
  expectUsageError(datahub(['run', '--rules', file('ok3.json', { default: [] })]), /needs --rules <file> and --input <file>/);
  expectUsageError(datahub(['run', '--rules', file('ok4.json', { default: [] }), '--input', file('nonobj.json', [1])]), /entity #0 of the input is not a JSON object/);
  const failing = datahub(['run', '--rules', file('fail.json', { default: [['fail!', ['concat', 'bad ', '_S._id']]] }), '--input', input]);
  assert.equal(failing.status, 1);
  assert.equal(failing.stdout, '');
  assert.match(failing.stderr, /^datahub dtl: fail: bad a \(at \$\.rules\.default\[0\]\)\n$/);
});

test('dtl run --lookup gives in-memory datasets; dtl functions prints the catalogue', () => {
  const input = file('in3.json', [{ _id: 'a' }]);
  const lookup = file('lookup.json', { other: [{ _id: 'x' }] });
  const r = datahub(['run', '--rules', file('ok5.json', { default: [['add', 'y', 1]] }), '--input', input, '--lookup', lookup]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [{ _id: 'a', y: 1 }]);
  expectUsageError(datahub(['run', '--rules', file('ok6.json', { default: [] }), '--input', input, '--lookup', file('badlookup.json', { other: 1 })]), /lookup file must be an object/);
  const f = datahub(['functions', '--json']);
  assert.equal(f.status, 0);
  const catalogue = JSON.parse(f.stdout) as { name: string }[];
  assert.equal(catalogue.length, registry.all().length);
  assert.ok(catalogue.some((d) => d.name === 'add'));
});

// hub/dtl/dtl-functions-numbers.rst: ["is-float", 1.0] is true and ["is-float", 1] false. The command line keeps a
// float literal as written, as a pipe's transform does; entities given as data are plain JSON.
test('dtl eval and dtl run keep float literals of the DTL as written (is-float of 1.0)', () => {
  const one = (expr: string, extra: string[] = []): string => {
    const r = datahub(['eval', expr, ...extra]);
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  };
  assert.equal(one('["is-float", 1.0]'), 'true');
  assert.equal(one('["is-float", 1]'), 'false');
  assert.equal(one('["is-float", ["list", 1.0, "12345"]]'), 'true');
  assert.equal(one('["is-decimal", 1.0]'), 'false');
  assert.equal(one('["is-float", "_S.x"]', ['--source', '{"x": 1.0}']), 'false', 'entity data is plain JSON: 1.0 is the integer 1');
  const batch = datahub(['eval', '--batch'], '{"expr": ["is-float", 1.0]}\n{"expr": ["is-float", "_S.x"], "source": {"x": 2.0}}\n');
  assert.equal(batch.stdout, 'true\nfalse\n', batch.stderr);
  const rules = file('float-rules.json', '{"default": [["copy", "_id"], ["add", "f", ["is-float", 1.0]], ["add", "i", ["is-float", 1]]]}');
  const input = file('float-input.json', [{ _id: 'a' }]);
  const run = datahub(['run', '--rules', rules, '--input', input]);
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout) as Record<string, unknown>[];
  assert.equal(out[0]?.['f'], true);
  assert.equal(out[0]?.['i'], false);
  expectUsageError(datahub(['eval', '1}, "transform": {']), /the expression is not valid JSON/);
});

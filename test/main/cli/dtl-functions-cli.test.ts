// `datahub dtl functions` in words: the list, one function in full, and a search that finds nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { CLI } from '../../helpers/hub-process.js';

const dtl = (...args: string[]): { status: number | null; stdout: string } => {
  const r = spawnSync(process.execPath, [CLI, 'dtl', 'functions', ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout };
};

test('datahub dtl functions lists every function in a line of words', () => {
  const r = dtl();
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^\d+ DTL functions/);
  assert.match(r.stdout, /^concat +One string made of all the strings among the arguments/m);
  assert.doesNotMatch(r.stdout, /^\[|^\{/, 'words, not JSON');
});

test('a function name gives its signature, parameters and examples with their results', () => {
  const r = dtl('concat');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^concat {2}\(expression function, strings\)$/m);
  assert.match(r.stdout, /Example: \["concat","Hello ","_S.name","!"\]\n {4}on \{"name":"John"\}\n {4}gives "Hello John!"/);
});

test('a word finds the functions that mention it; none found is exit 1', () => {
  const r = dtl('upper-case');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^upper /m);
  const none = dtl('no-such-function-word');
  assert.equal(none.status, 1);
  assert.match(none.stdout, /No DTL function matches "no-such-function-word"/);
});

// An expected file written by the service may hold integers beyond ±2^53: `hash128` gives 128-bit integers
// (hub/dtl/dtl-functions-misc.rst: ["hash128", "murmur3", "abc"] returns 79267961763742113019008347020647561319).
// The hub holds such integers exactly, as integers (written as plain JSON integers); `datahub test` reads them from
// an expected file exactly too, so the service's expected output passes, and a hash that differs in its last digit
// fails. test/fixtures/projects/big-integers is a project of our own with such expected files (see its README).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, REPO, removeDir, tempDir } from '../../helpers/hub-process.js';

const FIXTURE = join(REPO, 'test', 'fixtures', 'projects', 'big-integers');

function project(expectedText: string): string {
  const dir = tempDir('datahub-bigint-');
  const node = join(dir, 'node');
  for (const sub of ['pipes', 'expected']) mkdirSync(join(node, sub), { recursive: true });
  writeFileSync(join(node, 'node-metadata.conf.json'), JSON.stringify({ _id: 'node', type: 'metadata' }));
  writeFileSync(
    join(node, 'pipes', 'hashes.conf.json'),
    JSON.stringify({
      _id: 'hashes',
      type: 'pipe',
      source: { type: 'embedded', entities: [{ _id: 'a', text: 'abc' }] },
      transform: { type: 'dtl', rules: { default: [['add', '_id', '_S._id'], ['add', 'hash', ['hash128', 'murmur3', '_S.text']]] } },
    }),
  );
  writeFileSync(join(node, 'expected', 'hashes.test.json'), '{}\n');
  // Written by hand from the documentation's example, as the service would write the expected file.
  writeFileSync(join(node, 'expected', 'hashes.json'), expectedText);
  return dir;
}

function runTest(dir: string): { status: number | null; report: { passed: number; failed: number } } {
  const r = spawnSync(process.execPath, [CLI, 'test', dir, '--json'], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, report: JSON.parse(r.stdout) as { passed: number; failed: number } };
}

test("an expected file's 128-bit integer is compared exactly: the documented hash128 of \"abc\" passes", () => {
  const dir = project('[\n  {\n    "_id": "a",\n    "hash": 79267961763742113019008347020647561319\n  }\n]\n');
  try {
    const { status, report } = runTest(dir);
    assert.deepEqual([status, report.passed, report.failed], [0, 1, 0]);
  } finally {
    removeDir(dir);
  }
});

test('a 128-bit integer that differs in its last digit fails (it is not rounded to a float)', () => {
  const dir = project('[{"_id": "a", "hash": 79267961763742113019008347020647561318}]');
  try {
    const { status, report } = runTest(dir);
    assert.deepEqual([status, report.passed, report.failed], [1, 0, 1]);
  } finally {
    removeDir(dir);
  }
});

test('the big-integers project passes: hash128 as plain integers, big integers from configuration, read back from a dataset', () => {
  const { status, report } = runTest(FIXTURE);
  assert.deepEqual([status, report.passed, report.failed], [0, 3, 0]);
});

test('--update writes the hashes as plain JSON integers (as the service writes them), not as decimals', () => {
  const dir = project('[]\n');
  try {
    const r = spawnSync(process.execPath, [CLI, 'test', dir, '--update'], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const text = readFileSync(join(dir, 'node', 'expected', 'hashes.json'), 'utf8');
    assert.match(text, /"hash": 79267961763742113019008347020647561319\n/);
  } finally {
    removeDir(dir);
  }
});

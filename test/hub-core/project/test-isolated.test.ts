// `datahub test` runs tests whose pipes share nothing apart and side by side: a group whose pipes fail and never
// settle cannot change the result of another group's test, and --json / --junit say per test which pipes it ran and
// how long each took. The project is our own: two closures with no pipe or dataset in common.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, REPO, removeDir, tempDir } from '../../helpers/hub-process.js';

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATAHUB_PIPE_WORKERS: '2' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

interface PipeTiming {
  pipe: string;
  ms: number;
  runs: number;
  status: string;
}
interface Report {
  passed: number;
  failed: number;
  tests: { name: string; status: string; diffs: unknown[]; pipes: PipeTiming[] }[];
  groups: { tests: string[]; pipes: string[]; rounds: number; converged: boolean }[];
}

let dir: string;

const pipe = (id: string, source: unknown, rules: unknown[], sink: string): string =>
  `${JSON.stringify({ _id: id, type: 'pipe', source, transform: { type: 'dtl', rules: { default: rules } }, sink: { type: 'dataset', dataset: sink } }, null, 2)}\n`;

before(() => {
  dir = tempDir('datahub-isolated-');
  const pipes = join(dir, 'node', 'pipes');
  const expected = join(dir, 'node', 'expected');
  mkdirSync(pipes, { recursive: true });
  mkdirSync(expected, { recursive: true });
  const write = (file: string, text: string): void => writeFileSync(join(dir, 'node', file), text);
  // Group A: a seed and a pipe labelling its entities.
  write('pipes/a-seed.conf.json', pipe('a-seed', { type: 'embedded', entities: [{ _id: '1', n: 2 }, { _id: '2', n: 5 }] }, [['copy', '*']], 'a-seed'));
  write('pipes/a-label.conf.json', pipe('a-label', { type: 'dataset', dataset: 'a-seed' }, [['copy', '*'], ['add', 'label', ['concat', 'item-', '_S._id']]], 'a-label'));
  write('expected/a-label.test.json', '{}\n');
  // Worked out by hand from the DTL reference (hub/dtl/transforms "copy", "add"; functions "concat").
  write('expected/a-label.json', `${JSON.stringify([{ _id: '1', n: 2, label: 'item-1' }, { _id: '2', n: 5, label: 'item-2' }], null, 2)}\n`);
  // Group B: two pipes that keep changing each other (["now"] stamps every pass) and one that fails.
  write('pipes/b-seed.conf.json', pipe('b-seed', { type: 'embedded', entities: [{ _id: 's1' }] }, [['copy', '*']], 'b-y'));
  write('pipes/b-stamp.conf.json', pipe('b-stamp', { type: 'dataset', dataset: 'b-y' }, [['copy', '*'], ['add', 'at', ['now']]], 'b-x'));
  write('pipes/b-back.conf.json', pipe('b-back', { type: 'dataset', dataset: 'b-x' }, [['copy', '*']], 'b-y'));
  write('pipes/b-broken.conf.json', pipe('b-broken', { type: 'dataset', dataset: 'b-x' }, [['copy', '*'], ['add', 'n', ['fail!', 'never']]], 'b-broken'));
  write('expected/b-broken.test.json', '{}\n');
  write('expected/b-broken.json', '[]\n');
});

after(() => {
  if (dir) removeDir(dir);
});

test('a group that fails and never settles does not change the other group’s result; per-test pipes and timings are reported', async () => {
  // The passing test alone: its result when nothing else runs.
  const alone = await runCli(['test', dir, '--filter', 'a-label', '--json']);
  const aloneReport = JSON.parse(alone.stdout) as Report;
  assert.equal(aloneReport.tests[0]!.status, 'passed', alone.stdout);

  const junit = join(dir, 'report.xml');
  const r = await runCli(['test', dir, '--json', '--junit', junit, '--max-rounds', '6']);
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout) as Report;
  const a = report.tests.find((t) => t.name === 'a-label')!;
  const b = report.tests.find((t) => t.name === 'b-broken')!;
  assert.equal(a.status, 'passed');
  assert.deepEqual(a.diffs, aloneReport.tests[0]!.diffs);
  assert.equal(b.status, 'failed');
  // Two groups, run apart: only B's rounds hit the limit.
  assert.equal(report.groups.length, 2);
  const groupA = report.groups.find((g) => g.tests.includes('a-label'))!;
  const groupB = report.groups.find((g) => g.tests.includes('b-broken'))!;
  assert.deepEqual([...groupA.pipes].sort(), ['a-label', 'a-seed']);
  assert.deepEqual([...groupB.pipes].sort(), ['b-back', 'b-broken', 'b-seed', 'b-stamp']);
  assert.equal(groupA.converged, true);
  assert.equal(groupB.converged, false);
  assert.equal(groupB.rounds, 6);
  assert.ok(groupA.rounds < 6, `group A settled on its own: ${groupA.rounds} rounds`);
  // Per test: the pipes it ran, each with its time.
  assert.deepEqual(a.pipes.map((p) => p.pipe).sort(), ['a-label', 'a-seed']);
  for (const p of a.pipes) {
    assert.ok(Number.isInteger(p.ms) && p.ms >= 0, `${p.pipe} has a time: ${p.ms}`);
    assert.ok(p.runs >= 1);
  }
  assert.deepEqual(b.pipes.map((p) => p.pipe).sort(), ['b-back', 'b-broken', 'b-seed', 'b-stamp']);
  assert.equal(b.pipes.find((p) => p.pipe === 'b-broken')!.status, 'failed');
  assert.ok(b.pipes.find((p) => p.pipe === 'b-stamp')!.runs >= 6, 'the looping pipe ran every round');

  const xml = readFileSync(junit, 'utf8');
  assert.match(xml, /<testcase classname="pipe a-label" name="a-label" time="\d+\.\d{3}">\s*<properties>\s*(<property name="pipe a-(seed|label)" value="\d+ ms, \d+ run\(s\)"\/>\s*){2}<\/properties>\s*<\/testcase>/);
  assert.match(xml, /<testcase classname="pipe b-broken" name="b-broken" time="[\d.]+">\s*<properties>\s*(<property name="pipe b-[a-z]+" value="\d+ ms, \d+ run\(s\)"\/>\s*){4}<\/properties>\s*<failure /);

  // The lines say so too.
  const lines = await runCli(['test', dir, '--max-rounds', '6']);
  assert.match(lines.stdout, /^2 groups of tests with no pipe or dataset in common ran apart, side by side$/m);
  assert.match(lines.stdout, /^✔ a-label$/m);
  assert.match(lines.stdout, /^✘ b-broken$/m);
});

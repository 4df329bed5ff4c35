// `datahub run` and `datahub test` on a project with a pipe whose source type nobody knows (a typo): an error of that
// pipe and exit code 1, as serving it would refuse it — not "skipped". A type this hub knows but does not pump
// (it runs on the service) is still skipped.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, removeDir, tempDir } from '../../helpers/hub-process.js';

const project = tempDir('datahub-unknown-type-');
after(() => removeDir(project));

function write(file: string, value: unknown): void {
  mkdirSync(join(project, 'node', file, '..'), { recursive: true });
  writeFileSync(join(project, 'node', file), JSON.stringify(value, null, 2) + '\n');
}

write('pipes/people.conf.json', { _id: 'people', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] } });
write('pipes/typo.conf.json', { _id: 'typo', type: 'pipe', source: { type: 'datset', dataset: 'people' } });

const cli = (...args: string[]): { status: number | null; stdout: string; stderr: string } => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

test('datahub run: an unknown source type fails its pipe, exit 1', () => {
  const r = cli('run', project);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /typo: .*FAILED \(pipes\/typo\.conf\.json:5\): \$\.source\.type: unknown source type "datset"/, 'its file and the line of "type"');
  assert.doesNotMatch(r.stdout, /typo: skipped/);
  assert.match(r.stdout, /people: 1 run\(s\), 1 processed/, 'the other pipes still run');
});

test('datahub test: the same pipe error fails the command even with no test reading it', () => {
  const r = cli('test', project);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /typo: .*FAILED \(pipes\/typo\.conf\.json:5\): .*unknown source type "datset"/);
  assert.match(r.stdout, /^0 passed, 0 failed; 1 pipe\(s\) failed during the run \(typo\)$/m, 'the closing line names it, as the exit code says');
});

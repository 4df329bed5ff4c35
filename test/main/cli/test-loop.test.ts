// The test loop of `datahub test` (issue 35), driven through the real CLI: --changed <git-ref> runs only the tests the
// files that differ from a commit affect (with why), --watch re-runs the affected tests on every save, --accept writes
// the actual output (or one entity of it) into the expected file and nothing else.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, REPO, removeDir, tempDir } from '../../helpers/hub-process.js';

const dirs: string[] = [];
after(() => dirs.forEach(removeDir));

const pipe = (id: string, rest: Record<string, unknown>): Record<string, unknown> => ({ _id: id, type: 'pipe', ...rest });
const copyOf = (ds: string): Record<string, unknown> => ({ source: { type: 'dataset', dataset: ds }, transform: { type: 'dtl', rules: { default: [['copy', '*']] } } });

function write(dir: string, files: Record<string, unknown>): void {
  for (const [file, value] of Object.entries(files)) {
    mkdirSync(join(dir, 'node', file, '..'), { recursive: true });
    writeFileSync(join(dir, 'node', file), typeof value === 'string' ? value : JSON.stringify(value, null, 2) + '\n');
  }
}

/**
 * people (embedded) -> people-copy (source) ; lookup joins people-copy through hops ; orders (embedded) alone ;
 * every pipe has a test whose expected file holds its output.
 */
function project(): string {
  const dir = tempDir('datahub-loop-');
  dirs.push(dir);
  write(dir, {
    'pipes/people.conf.json': pipe('people', { source: { type: 'embedded', entities: [{ _id: 'p1', name: 'Ann' }, { _id: 'p2', name: 'Bo' }] } }),
    'pipes/people-copy.conf.json': pipe('people-copy', copyOf('people')),
    'pipes/orders.conf.json': pipe('orders', { source: { type: 'embedded', entities: [{ _id: 'o1', who: 'p1' }] } }),
    'pipes/order-people.conf.json': pipe('order-people', {
      source: { type: 'dataset', dataset: 'orders' },
      transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'name', ['first', ['hops', { datasets: ['people-copy P'], where: [['eq', '_S.who', 'P._id']], return: 'P.name' }]]]] } },
    }),
    'expected/people.test.json': {},
    'expected/people.json': [{ _id: 'p1', name: 'Ann' }, { _id: 'p2', name: 'Bo' }],
    'expected/people-copy.test.json': {},
    'expected/people-copy.json': [{ _id: 'p1', name: 'Ann' }, { _id: 'p2', name: 'Bo' }],
    'expected/orders.test.json': {},
    'expected/orders.json': [{ _id: 'o1', who: 'p1' }],
    'expected/order-people.test.json': {},
    'expected/order-people.json': [{ _id: 'o1', name: 'Ann', who: 'p1' }],
  });
  return dir;
}

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO, encoding: 'utf8', timeout: 90_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function git(dir: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** The names of the tests a run checked, from its ✔/✘ lines. */
const ran = (stdout: string): string[] => [...stdout.matchAll(/^[✔✘-] (\S+)/gm)].map((m) => m[1]!).sort();

test('--changed runs only the tests the files changed since a commit affect, and says why each one is in', () => {
  const dir = project();
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'start');

  // Nothing changed: nothing to run.
  const none = cli('test', dir, '--changed', 'HEAD');
  assert.equal(none.status, 0, none.stderr);
  assert.match(none.stdout, /^0 file\(s\) changed since HEAD \([0-9a-f]{12}\); 0 test\(s\) affected$/m);
  assert.match(none.stdout, /No test is affected by the changes since HEAD: nothing to run/);
  assert.deepEqual(ran(none.stdout), []);

  // A changed pipe upstream of a hops join: its test, its reader's, and the join's (the hops chain named).
  write(dir, { 'pipes/people.conf.json': pipe('people', { source: { type: 'embedded', entities: [{ _id: 'p1', name: 'Ann' }, { _id: 'p2', name: 'Bob' }] } }) });
  const r = cli('test', dir, '--changed', 'HEAD');
  assert.match(r.stdout, /^1 file\(s\) changed since HEAD \([0-9a-f]{12}\); 3 test\(s\) affected:$/m);
  assert.match(r.stdout, /^ {2}people: pipe people changed \(pipes\/people\.conf\.json\)$/m);
  assert.match(r.stdout, /^ {2}people-copy: downstream of pipe people changed \(pipes\/people\.conf\.json\): people → people-copy \(source "people"\)$/m);
  assert.match(r.stdout, /^ {2}order-people: downstream of .*: people → people-copy \(source "people"\) → order-people \(hops "people-copy"\)$/m);
  assert.deepEqual(ran(r.stdout), ['order-people', 'people', 'people-copy']);
  assert.match(r.stdout, /^1 passed, 2 failed$/m);
  assert.equal(r.status, 1);
  // Only the pipes those tests need ran: orders is upstream of order-people; nothing else.
  assert.match(r.stdout, /^Ran 4 pipe\(s\)/m);

  // Back as committed, then an untracked expected file and a changed .test.json: their tests only. --json says why too.
  write(dir, { 'pipes/people.conf.json': pipe('people', { source: { type: 'embedded', entities: [{ _id: 'p1', name: 'Ann' }, { _id: 'p2', name: 'Bo' }] } }) });
  write(dir, { 'expected/orders.test.json': { file: 'orders-new.json' }, 'expected/orders-new.json': [{ _id: 'o1', who: 'p1' }] });
  const j = cli('test', dir, '--changed', 'HEAD', '--json');
  assert.equal(j.status, 0, j.stdout + j.stderr);
  const report = JSON.parse(j.stdout) as { passed: number; tests: { name: string }[]; selection: { tests: { name: string; reasons: string[] }[] } };
  assert.deepEqual(report.tests.map((t) => t.name), ['orders']);
  assert.deepEqual(report.selection.tests, [{ name: 'orders', reasons: ['expected/orders.test.json changed', 'expected/orders-new.json changed'] }]);
  assert.equal(report.passed, 1);

  // test-env.json: every test; --filter and --pipe narrow the selection.
  write(dir, { 'test-env.json': { 'node-env': 'test' } });
  const all = cli('test', dir, '--changed', 'HEAD');
  assert.match(all.stdout, /4 test\(s\) affected:/);
  assert.match(all.stdout, /^ {2}people: test-env\.json changed: every test$/m);
  assert.deepEqual(ran(all.stdout), ['order-people', 'orders', 'people', 'people-copy']);
  const filtered = cli('test', dir, '--changed', 'HEAD', '--filter', '*people*');
  assert.match(filtered.stdout, /^--pipe\/--filter keep 3 of them$/m);
  assert.deepEqual(ran(filtered.stdout), ['order-people', 'people', 'people-copy']);
  const piped = cli('test', dir, '--changed', 'HEAD', '--pipe', 'orders', '--pipe', 'people-copy');
  assert.deepEqual(ran(piped.stdout), ['orders', 'people-copy']);
  assert.match(piped.stdout, /^Ran 3 pipe\(s\)/m);
  rmSync(join(dir, 'node', 'test-env.json'));

  // A deleted pipe file: the tests downstream of what it wrote (its own test then names a pipe that is gone).
  rmSync(join(dir, 'node', 'pipes', 'people-copy.conf.json'));
  const del = cli('test', dir, '--changed', 'HEAD', '--filter', '*people*');
  assert.match(del.stdout, /^ {2}people-copy: pipe people-copy removed \(pipes\/people-copy\.conf\.json\)$/m);
  assert.match(del.stdout, /^ {2}order-people: downstream of pipe people-copy removed .*→ order-people \(hops "people-copy"\)$/m);
  assert.deepEqual(ran(del.stdout), ['order-people', 'people-copy']);
});

test('--changed says clearly when the folder is not in a git repository or the commit is unknown', () => {
  const dir = project();
  const bare = cli('test', dir, '--changed', 'HEAD');
  assert.equal(bare.status, 2);
  assert.match(bare.stderr, /^datahub test: .* is not in a git repository, so there is nothing to compare with "HEAD"/);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'start');
  const unknown = cli('test', dir, '--changed', 'no-such-branch');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^datahub test: "no-such-branch" is not a commit of the git repository at /);
  const option = cli('test', dir, '--changed=--output=x');
  assert.equal(option.status, 2);
  assert.match(option.stderr, /--changed needs a git commit/);
});

/** A `datahub test --watch` child whose stdout is read as it comes. */
function watchSession(dir: string, ...args: string[]): { child: ReturnType<typeof spawn>; output: () => string; waitFor: (re: RegExp, from: number, ms?: number) => Promise<number> } {
  const child = spawn(process.execPath, [CLI, 'test', '--watch', dir, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const waitFor = (re: RegExp, from: number, ms = 60_000): Promise<number> =>
    new Promise((resolve, reject) => {
      const started = Date.now();
      const look = (): void => {
        const m = re.exec(out.slice(from));
        if (m) return resolve(from + m.index + m[0].length);
        if (child.exitCode !== null) return reject(new Error(`the watch ended (${child.exitCode}):\n${out}`));
        if (Date.now() - started > ms) return reject(new Error(`no ${re} in ${ms} ms:\n${out.slice(from)}`));
        setTimeout(look, 20);
      };
      look();
    });
  return { child, output: () => out, waitFor };
}

const WATCHING = /^Watching for changes \(Ctrl\+C to stop\)…$/m;

test('--watch runs every test, then after each save exactly the tests the change affects, and ends with 0 on SIGTERM', async () => {
  const dir = project();
  const w = watchSession(dir);
  try {
    let at = await w.waitFor(WATCHING, 0);
    assert.deepEqual(ran(w.output().slice(0, at)), ['order-people', 'orders', 'people', 'people-copy']);

    // One pipe edited: its test and the hops join downstream of it, nothing else.
    const mark = w.output().length;
    write(dir, { 'pipes/people-copy.conf.json': pipe('people-copy', { ...copyOf('people'), transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'seen', true]] } } }) });
    at = await w.waitFor(WATCHING, mark);
    let block = w.output().slice(mark, at);
    assert.match(block, /^↻ pipes\/people-copy\.conf\.json changed: 2 affected test\(s\):$/m);
    assert.match(block, /^ {2}order-people: downstream of pipe people-copy changed \(pipes\/people-copy\.conf\.json\): people-copy → order-people \(hops "people-copy"\)$/m);
    assert.deepEqual(ran(block), ['order-people', 'people-copy']);
    assert.match(block, /^✘ people-copy$/m);
    assert.match(block, /^1 passed, 1 failed$/m);
    assert.match(block, /^Result \d+ ms after the change was seen\.$/m);

    // The expected file updated to match: only that test.
    const mark2 = w.output().length;
    write(dir, { 'expected/people-copy.json': [{ _id: 'p1', name: 'Ann', seen: true }, { _id: 'p2', name: 'Bo', seen: true }] });
    at = await w.waitFor(WATCHING, mark2);
    block = w.output().slice(mark2, at);
    assert.match(block, /^↻ expected\/people-copy\.json changed: 1 affected test\(s\):$/m);
    assert.deepEqual(ran(block), ['people-copy']);
    assert.match(block, /^1 passed, 0 failed$/m);

    // A save that changes nothing runs nothing (no new block); a README is no test's business.
    const mark3 = w.output().length;
    write(dir, { 'pipes/orders.conf.json': readFileSync(join(dir, 'node', 'pipes', 'orders.conf.json'), 'utf8'), 'README.md': 'notes' });
    write(dir, { 'expected/orders.test.json': { ignore: false } });
    at = await w.waitFor(WATCHING, mark3);
    block = w.output().slice(mark3, at);
    assert.match(block, /^↻ expected\/orders\.test\.json changed: 1 affected test\(s\):$/m);
    assert.deepEqual(ran(block), ['orders']);
  } finally {
    w.child.kill('SIGTERM');
  }
  const code = await new Promise<number | null>((resolve) => (w.child.exitCode !== null ? resolve(w.child.exitCode) : w.child.on('exit', (c) => resolve(c))));
  assert.equal(code, 0, w.output());
});

test('--watch keeps its hub between saves, yet each result is the one a fresh run gives: a dataset no pipe writes any more is gone', async () => {
  const dir = project();
  const w = watchSession(dir);
  try {
    await w.waitFor(WATCHING, 0);
    // people-copy now writes another dataset: the hops join of order-people finds nothing in "people-copy", as a
    // fresh hub would (the kept hub still had that dataset from the run before).
    const mark = w.output().length;
    write(dir, { 'pipes/people-copy.conf.json': pipe('people-copy', { ...copyOf('people'), sink: { type: 'dataset', dataset: 'people-copy-2' } }) });
    let at = await w.waitFor(WATCHING, mark);
    let block = w.output().slice(mark, at);
    assert.deepEqual(ran(block), ['order-people', 'people-copy']);
    assert.match(block, /^✘ order-people$/m);
    assert.match(block, /^ {4}o1: differs$/m);
    assert.match(block, /^✔ people-copy$/m);

    // Back as it was: the join finds Ann again.
    const mark2 = w.output().length;
    write(dir, { 'pipes/people-copy.conf.json': pipe('people-copy', copyOf('people')) });
    at = await w.waitFor(WATCHING, mark2);
    block = w.output().slice(mark2, at);
    assert.deepEqual(ran(block), ['order-people', 'people-copy']);
    assert.match(block, /^2 passed, 0 failed$/m);

    // An embedded entity removed: gone from the output downstream too (its pipes start afresh, no delete left over).
    const mark3 = w.output().length;
    write(dir, { 'pipes/people.conf.json': pipe('people', { source: { type: 'embedded', entities: [{ _id: 'p1', name: 'Ann' }] } }), 'expected/people-copy.test.json': { ignore_deletes: false } });
    at = await w.waitFor(WATCHING, mark3);
    block = w.output().slice(mark3, at);
    assert.match(block, /^✘ people-copy$/m);
    assert.match(block, /^ {4}p2: missing \(expected, but not in the output\)$/m);
    assert.doesNotMatch(block, /_deleted/);
  } finally {
    w.child.kill('SIGTERM');
  }
  const code = await new Promise<number | null>((resolve) => (w.child.exitCode !== null ? resolve(w.child.exitCode) : w.child.on('exit', (c) => resolve(c))));
  assert.equal(code, 0, w.output());
});

test('--accept writes the output, or one entity of it, into the expected file, keeping its layout, and nothing else', () => {
  const dir = tempDir('datahub-accept-');
  dirs.push(dir);
  write(dir, {
    'pipes/people.conf.json': pipe('people', { source: { type: 'embedded', entities: [{ _id: 'p1', name: 'Ann' }, { _id: 'p2', name: 'Bob' }, { _id: 'p3', name: 'Cy' }] } }),
    'pipes/people-copy.conf.json': pipe('people-copy', copyOf('people')),
    'expected/people.test.json': {},
    'expected/people-copy.test.json': {},
    // A layout of its own: four spaces, one entity a line, a "_" property the comparison leaves out.
    'expected/people.json': '[\n    {"_id": "p1", "name": "Ann", "_note": "kept"},\n    {"_id": "p2", "name": "Bo"},\n    {"_id": "p4", "name": "Dee"}\n]\n',
  });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'start');
  const file = join(dir, 'node', 'expected', 'people.json');
  const original = readFileSync(file, 'utf8');
  const status = (): string => git(dir, 'status', '--porcelain').trim();

  // One changed entity: exactly its value, nothing else in the file, no other file.
  const one = cli('test', '--accept', 'people', '--entity', 'p2', dir);
  assert.equal(one.status, 0, one.stdout + one.stderr);
  assert.match(one.stdout, /^Accepted entity p2 of the output of pipe people into expected\/people\.json: 1 changed, 0 added, 0 removed$/m);
  assert.equal(readFileSync(file, 'utf8'), original.replace('"Bo"', '"Bob"'));
  assert.equal(status(), 'M node/expected/people.json');
  git(dir, 'commit', '-qam', 'accept p2');

  // An entity only the output has: added where its id sorts; the other lines as they were.
  const added = cli('test', '--accept', 'people', '--entity', 'p3', dir);
  assert.equal(added.status, 0, added.stderr);
  const text = readFileSync(file, 'utf8');
  assert.deepEqual(
    (JSON.parse(text) as { _id: string }[]).map((e) => e._id),
    ['p1', 'p2', 'p3', 'p4'],
  );
  assert.ok(text.includes('    {"_id": "p1", "name": "Ann", "_note": "kept"},\n    {"_id": "p2", "name": "Bob"},\n'), text);
  assert.ok(text.includes('{"_id": "p4", "name": "Dee"}\n]\n'), text);
  assert.equal(status(), 'M node/expected/people.json');
  git(dir, 'commit', '-qam', 'accept p3');

  // The whole output: p4 (expected, not output) goes; p1 keeps its "_" property (its content is the output's).
  const whole = cli('test', '--accept', 'people', dir);
  assert.equal(whole.status, 0, whole.stderr);
  assert.match(whole.stdout, /: 0 changed, 0 added, 1 removed$/m);
  const after = readFileSync(file, 'utf8');
  assert.deepEqual(JSON.parse(after), [{ _id: 'p1', name: 'Ann', _note: 'kept' }, { _id: 'p2', name: 'Bob' }, { _id: 'p3', name: 'Cy' }]);
  assert.ok(after.startsWith('[\n    {"_id": "p1", "name": "Ann", "_note": "kept"},\n    {"_id": "p2", "name": "Bob"},\n'), after);
  assert.equal(status(), 'M node/expected/people.json');
  git(dir, 'commit', '-qam', 'accept people');
  assert.equal(cli('test', dir, '--pipe', 'people').status, 0);

  // Again: nothing to accept, nothing written. An entity in neither: a usage error.
  const again = cli('test', '--accept', 'people', dir);
  assert.equal(again.status, 0);
  assert.match(again.stdout, /^Nothing to accept: expected\/people\.json already holds the output of pipe people$/m);
  assert.equal(status(), '');
  const unknown = cli('test', '--accept', 'people', '--entity', 'nobody', dir);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /entity "nobody" is neither in expected\/people\.json nor in the output of pipe people/);
  assert.equal(cli('test', '--accept', 'nosuch', dir).status, 2);

  // A test without an expected file: a new file, in the layout --update writes.
  const fresh = cli('test', '--accept', 'people-copy', dir);
  assert.equal(fresh.status, 0, fresh.stderr);
  assert.equal(
    readFileSync(join(dir, 'node', 'expected', 'people-copy.json'), 'utf8'),
    `${JSON.stringify([{ _id: 'p1', name: 'Ann' }, { _id: 'p2', name: 'Bob' }, { _id: 'p3', name: 'Cy' }], null, 2)}\n`,
  );
  assert.equal(status(), '?? node/expected/people-copy.json');
});

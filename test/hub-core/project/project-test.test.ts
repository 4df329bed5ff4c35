// Project tests (`datahub test` / `datahub run`): expected-file normalisation and diffs, running a project's pipes in
// dependency order until nothing changes, the CLI's output and exit codes on sample projects, and the pipe stage
// endpoints (`/pipes/<id>/entities?stage=`, `/pipes/<id>/generate-schema-definition`) over HTTP.
import { describe, test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, REPO, removeDir, startHub, tempDir, type HubProcess } from '../../helpers/hub-process.js';
import { diffEntities, expectedFileText, formatDiffs, normaliseEntities, parseTestSpec } from '../../../hub-core/project/index.js';
import { pipeRunOrder } from '../../../hub-core/project/index.js';
import { effectivePipeConfig, type EffectivePipe } from '../../../hub-core/pipes/index.js';
import type { JsonObject } from '../../../hub-core/base/index.js';

const PROJECTS = join(REPO, 'test', 'fixtures', 'projects');

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], cwd = REPO): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A private copy of a fixture project (tests that write must not touch the fixtures). */
function copyProject(name: string): string {
  const dir = tempDir('datahub-project-copy-');
  cpSync(join(PROJECTS, name), dir, { recursive: true });
  return dir;
}

const SPEC_DEFAULTS = { blacklist: [], ignoreDeletes: true, fieldsToSortBy: ['_id'] };

describe('expected-file comparison', () => {
  test('a spec has the documented defaults; wrong types are refused', () => {
    const spec = parseTestSpec('orders', {});
    assert.deepEqual(spec, {
      name: 'orders',
      pipe: 'orders',
      file: 'orders.json',
      ignore: false,
      blacklist: [],
      stage: 'sink',
      endpoint: 'json',
      ignoreDeletes: true,
      fieldsToSortBy: ['_id'],
      parameters: {},
    });
    assert.throws(() => parseTestSpec('x', []), /must hold a JSON object/);
    assert.throws(() => parseTestSpec('x', { blacklist: 'a.b' }), /"blacklist" must be a list of strings/);
    assert.throws(() => parseTestSpec('x', { ignore_deletes: 'no' }), /"ignore_deletes" must be true or false/);
    assert.throws(() => parseTestSpec('x', { stage: 'middle' }), /"stage" must be one of/);
  });

  test('"_" properties other than _id and _deleted: true go at every depth (as the client filters), deletes go unless ignore_deletes is false, -0 becomes 0, keys are sorted', () => {
    const input: JsonObject[] = [
      { _id: 'b', _updated: 3, _ts: 123, _previous: null, z: -0, a: { _keep: 1, y: 2.0 } },
      { _id: 'a', _deleted: true, v: 1 },
      { _id: 'c', _deleted: false, v: 2 },
    ];
    const out = normaliseEntities(input, SPEC_DEFAULTS);
    assert.equal(JSON.stringify(out), '[{"_id":"b","a":{"y":2},"z":0},{"_id":"c","v":2}]');
    const nested = normaliseEntities([{ _id: 'n', kids: [{ _id: 'k', _deleted: true, _ts: 1, x: 1 }] }], SPEC_DEFAULTS);
    assert.deepEqual(nested[0], { _id: 'n', kids: [{ _id: 'k', _deleted: true, x: 1 }] }, 'nested _id and _deleted: true stay');
    const withDeletes = normaliseEntities(input, { ...SPEC_DEFAULTS, ignoreDeletes: false });
    assert.deepEqual(withDeletes[0], { _deleted: true, _id: 'a', v: 1 });
    assert.equal(withDeletes.length, 3);
    assert.equal(input[0]!['_updated'], 3, 'the input is not modified');
  });

  test('blacklist paths are dotted, "*" matches any key or list element, and lists are looked through', () => {
    const e: JsonObject = {
      _id: '1',
      stamp: 't',
      audit: { created: { at: 1, by: 'x' }, changed: { at: 2, by: 'y' } },
      tags: [{ kind: 'a', seen: 1 }, { kind: 'b', seen: 2 }],
      lines: [{ meta: { at: 1, keep: true } }, { meta: { at: 2, keep: false } }],
      nothing: null,
    };
    const [out] = normaliseEntities([e], { ...SPEC_DEFAULTS, blacklist: ['stamp', 'audit.*.at', 'tags[].seen', 'lines.meta.at', 'nothing.deeper', 'absent.x'] });
    assert.deepEqual(out, {
      _id: '1',
      audit: { changed: { by: 'y' }, created: { by: 'x' } },
      lines: [{ meta: { keep: true } }, { meta: { keep: false } }],
      nothing: null,
      tags: [{ kind: 'a' }, { kind: 'b' }],
    });
  });

  test('blacklist entries are shell patterns: "*" crosses dots, "\\." is a dot in a name, "[seq]" a set', () => {
    const e: JsonObject = { _id: '1', 'a.b': 1, ab: 2, meta: { x1: 1, x2: 2, y: 3 }, keep: 4 };
    const [out] = normaliseEntities([e], { ...SPEC_DEFAULTS, blacklist: ['a\\.b', 'meta.x[12]'] });
    assert.deepEqual(out, { _id: '1', ab: 2, keep: 4, meta: { y: 3 } });
    const [all] = normaliseEntities([e], { ...SPEC_DEFAULTS, blacklist: ['me*'] });
    assert.equal(all?.['meta'], undefined, '"me*" matches meta and everything under it');
  });

  test('entities are sorted by fields_to_sort_by, then by their whole content', () => {
    const list: JsonObject[] = [
      { _id: '1', n: 3 },
      { _id: '2', n: 1 },
      { _id: '3', n: 2 },
      { _id: '0', n: 1, x: 'b' },
      { _id: '4', n: 10 },
      { _id: '5', n: null },
    ];
    assert.deepEqual(normaliseEntities(list, SPEC_DEFAULTS).map((e) => e['_id']), ['0', '1', '2', '3', '4', '5']);
    assert.deepEqual(normaliseEntities(list, { ...SPEC_DEFAULTS, fieldsToSortBy: ['n'] }).map((e) => e['_id']), ['5', '0', '2', '3', '1', '4']);
  });

  test('diffs name each entity id: missing, unexpected, and the differing properties', () => {
    const expected: JsonObject[] = [{ _id: 'a', v: 1, o: { x: 1, y: 2 } }, { _id: 'b' }, { _id: 'c', v: 1 }];
    const actual: JsonObject[] = [{ _id: 'a', v: 2, o: { x: 1 } }, { _id: 'c', v: 1 }, { _id: 'd' }];
    const diffs = diffEntities(expected, actual);
    assert.deepEqual(
      diffs.map((d) => [d.id, d.kind, d.changes.map((c) => c.path)]),
      [
        ['a', 'changed', ['o.y', 'v']],
        ['b', 'missing', []],
        ['d', 'unexpected', []],
      ],
    );
    const text = formatDiffs(diffs).join('\n');
    assert.match(text, /a: differs\n {4}o\.y:\n {6}- expected 2\n {6}\+ actual {3}\(absent\)/);
    assert.deepEqual(diffEntities(expected, expected), []);
  });

  test('the expected-file text is stable: indented, sorted keys, final newline', () => {
    const text = expectedFileText(normaliseEntities([{ z: 1, _id: 'x', a: [3, 1] }], SPEC_DEFAULTS));
    assert.equal(text, '[\n  {\n    "_id": "x",\n    "a": [\n      3,\n      1\n    ],\n    "z": 1\n  }\n]\n');
  });
});

describe('run order', () => {
  test('a pipe reading a dataset, or hopping into one, runs after the pipe that writes it', () => {
    const pipe = (id: string, source: JsonObject, sink: string, transform?: JsonObject): [string, EffectivePipe] => [
      id,
      effectivePipeConfig({ _id: id, type: 'pipe', source, sink: { type: 'dataset', dataset: sink }, ...(transform ? { transform } : {}) }),
    ];
    const hops = { type: 'dtl', rules: { default: [['add', 'n', ['hops', { datasets: ['zz-lookup l'], where: ['eq', '_S.k', 'l._id'] }]]] } };
    const pipes = new Map([
      pipe('a-report', { type: 'dataset', dataset: 'middle' }, 'report', hops),
      pipe('b-middle', { type: 'dataset', dataset: 'raw' }, 'middle'),
      pipe('c-raw', { type: 'embedded', entities: [] }, 'raw'),
      pipe('d-lookup', { type: 'embedded', entities: [] }, 'zz-lookup'),
    ]);
    const order = pipeRunOrder(pipes);
    assert.deepEqual(order, ['c-raw', 'b-middle', 'd-lookup', 'a-report']);
  });
});

describe('datahub test and datahub run', () => {
  test('the sample projects pass (the project folder, its node/ folder, or the current directory)', async () => {
    const shop = await runCli(['test', join(PROJECTS, 'shop')]);
    assert.equal(shop.code, 0, shop.stdout + shop.stderr);
    for (const name of ['countries', 'customer-report', 'customers-all', 'customers']) assert.match(shop.stdout, new RegExp(`^✔ ${name}$`, 'm'));
    assert.match(shop.stdout, /^4 passed, 0 failed$/m);
    assert.match(shop.stdout, /^Ran 3 pipe\(s\) in 2 round\(s\)$/m);

    const library = await runCli(['test', join(PROJECTS, 'library', 'node')]);
    assert.equal(library.code, 0, library.stdout + library.stderr);
    assert.match(library.stdout, /^✔ catalogue-preview$/m);
    assert.match(library.stdout, /^4 passed, 0 failed$/m);

    const cwd = await runCli(['test'], join(PROJECTS, 'library'));
    assert.equal(cwd.code, 0, cwd.stdout + cwd.stderr);
    assert.match(cwd.stdout, /^4 passed, 0 failed$/m);
  });

  test('the sample workspace a first start opens passes its own tests: a conditional source, a hops join, typed values', async () => {
    const sample = await runCli(['test', join(REPO, 'resources', 'sample-workspace')]);
    assert.equal(sample.code, 0, sample.stdout + sample.stderr);
    for (const name of ['customer-orders', 'orders', 'people-enriched']) assert.match(sample.stdout, new RegExp(`^✔ ${name}$`, 'm'));
    assert.match(sample.stdout, /^3 passed, 0 failed$/m);
    const joined = JSON.parse(readFileSync(join(REPO, 'resources', 'sample-workspace', 'node', 'expected', 'customer-orders.json'), 'utf8')) as JsonObject[];
    const ada = joined.find((e) => e['_id'] === 'ada');
    assert.equal(ada?.['order_count'], 2, "Ada's two orders joined from the orders dataset");
    assert.equal(ada?.['total'], '~f149.40');
  });

  test('a project with conditional test alternatives ($ENV(node-env) from test-env.json), a merge source ($ids as NIs) and typed values passes', async () => {
    const crm = await runCli(['test', join(PROJECTS, 'crm')]);
    assert.equal(crm.code, 0, crm.stdout + crm.stderr);
    assert.match(crm.stdout, /^✔ person$/m);
    assert.match(crm.stdout, /^1 passed, 0 failed$/m);
    const merged = JSON.parse(readFileSync(join(PROJECTS, 'crm', 'node', 'expected', 'person.json'), 'utf8')) as JsonObject[];
    const ada = merged.find((e) => e['_id'] === 'c1');
    assert.deepEqual(ada?.['$ids'], ['~:c1', '~:e7'], 'the CRM and ERP records of Ada merged by email');
    assert.equal(ada?.['credit_limit'], '~f1500.50');
    assert.equal(ada?.['customer_since'], '~t2019-03-01T00:00:00Z');
  });

  test('the expected files hold typed values, joined values and deletes', () => {
    const report = JSON.parse(readFileSync(join(PROJECTS, 'shop', 'node', 'expected', 'customer-report.json'), 'utf8')) as JsonObject[];
    assert.deepEqual(report[0], {
      _id: 'c1',
      audit: { report: { by: 'report-pipe' }, source: { by: 'customers' } },
      born: '~t1980-02-01T00:00:00Z',
      country_name: 'Norway',
      credit: '~f120.50',
      name: 'Ada',
    });
    const all = JSON.parse(readFileSync(join(PROJECTS, 'shop', 'node', 'expected', 'customers-all.json'), 'utf8')) as JsonObject[];
    assert.ok(all.some((e) => e['_id'] === 'c4' && e['_deleted'] === true));
  });

  test('a failing project prints a diff per entity id and exits 1', async () => {
    const r = await runCli(['test', join(PROJECTS, 'broken')]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^✘ items-out$/m);
    assert.match(r.stdout, /^✔ items$/m);
    assert.match(r.stdout, /^- skipped \(ignored\)$/m);
    const diff = r.stdout.slice(r.stdout.indexOf('✘ items-out'), r.stdout.indexOf('✔ items\n'));
    assert.equal(
      diff,
      [
        '✘ items-out',
        '    expected/items-out.json vs the sink output of pipe items-out:',
        '    i1: differs',
        '        price:',
        '          - expected "~f10.50"',
        '          + actual   "~f10.00"',
        '    i2: unexpected (in the output, but not expected)',
        '        + actual   {"_id":"i2","in_stock":false,"label":"SAW","price":"~f25.50"}',
        '    i3: differs',
        '        in_stock:',
        '          - expected (absent)',
        '          + actual   true',
        '    i4: missing (expected, but not in the output)',
        '        - expected {"_id":"i4","in_stock":false,"label":"PLANE","price":"~f45.00"}',
        '',
      ].join('\n'),
    );
    assert.match(r.stdout, /^1 passed, 1 failed, 1 ignored$/m);
  });

  test('--update rewrites the expected files from the output; the project then passes, and a second update changes nothing', async () => {
    const dir = copyProject('broken');
    try {
      const u = await runCli(['test', dir, '--update']);
      assert.equal(u.code, 0, u.stdout + u.stderr);
      assert.match(u.stdout, /^✔ items-out \(wrote expected\/items-out\.json\)$/m);
      const file = join(dir, 'node', 'expected', 'items-out.json');
      const text = readFileSync(file, 'utf8');
      assert.deepEqual((JSON.parse(text) as JsonObject[]).map((e) => e['_id']), ['i1', 'i2', 'i3']);
      assert.equal((JSON.parse(text) as JsonObject[])[0]!['price'], '~f10.00');
      const t = await runCli(['test', dir]);
      assert.equal(t.code, 0, t.stdout + t.stderr);
      assert.match(t.stdout, /^2 passed, 0 failed, 1 ignored$/m);
      await runCli(['test', dir, '--update']);
      assert.equal(readFileSync(file, 'utf8'), text);
    } finally {
      removeDir(dir);
    }
  });

  test('an expected file\'s "file" stays inside expected/: --update never writes outside the project', async () => {
    const dir = copyProject('broken');
    try {
      const spec = join(dir, 'node', 'expected', 'items-out.test.json');
      writeFileSync(spec, JSON.stringify({ file: '../../../outside/x.json' }));
      const u = await runCli(['test', dir, '--update']);
      assert.notEqual(u.code, 0, 'the run fails');
      assert.match(u.stdout + u.stderr, /items-out\.test\.json.*"file" must name a file inside expected\//);
      assert.ok(!existsSync(join(dir, '..', 'outside')), 'nothing was written outside the project');
      assert.throws(() => parseTestSpec('x', { file: '/etc/passwd' }), /inside expected\//);
      assert.throws(() => parseTestSpec('x', { file: 'a\\..\\..\\b.json' }), /inside expected\//);
      assert.equal(parseTestSpec('x', { file: 'sub/x.json' }).file, 'sub/x.json');
    } finally {
      removeDir(dir);
    }
  });

  test('a pipe that fails fails its test', async () => {
    const dir = copyProject('broken');
    try {
      const path = join(dir, 'node', 'pipes', 'items-out.conf.json');
      const pipe = JSON.parse(readFileSync(path, 'utf8')) as JsonObject;
      pipe['transform'] = { type: 'dtl', rules: { default: [['fail!', 'items-out broke']] } };
      writeFileSync(path, JSON.stringify(pipe));
      const r = await runCli(['test', dir]);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /^✘ items-out\n {4}pipe "items-out" failed: .*items-out broke/m);
    } finally {
      removeDir(dir);
    }
  });

  test('as the client judges: an invalid pipe cannot be verified, an expected file naming no pipe is reported, an invalid output pipe fails without a test', async () => {
    const dir = copyProject('broken');
    try {
      const path = join(dir, 'node', 'pipes', 'items-out.conf.json');
      const pipe = JSON.parse(readFileSync(path, 'utf8')) as JsonObject;
      pipe['transform'] = { type: 'dtl', rules: { default: [['no-such-function']] } };
      writeFileSync(path, JSON.stringify(pipe));
      writeFileSync(join(dir, 'node', 'expected', 'ghost.test.json'), '{}');
      writeFileSync(join(dir, 'node', 'expected', 'ghost.json'), '[]');
      writeFileSync(
        join(dir, 'node', 'pipes', 'outbound.conf.json'),
        JSON.stringify({ _id: 'outbound', type: 'pipe', source: { type: 'dataset', dataset: 'items' }, sink: { type: 'http_endpoint' }, transform: { type: 'dtl', rules: {} } }),
      );
      const r = await runCli(['test', dir]);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /^✘ items-out\n {4}pipe "items-out" has an invalid config, cannot verify it: .*no-such-function/m);
      assert.match(r.stdout, /^✘ ghost\n {4}expected\/ghost\.test\.json names pipe "ghost", which does not exist/m);
      assert.match(r.stdout, /^✘ outbound\n {4}pipe "outbound" has an invalid config, cannot verify it: .*default/m, 'an output pipe no test names still fails when it is invalid');
      assert.match(r.stdout, /^1 passed, 3 failed, 1 ignored$/m);
    } finally {
      removeDir(dir);
    }
  });

  test('datahub run prints what each pipe did', async () => {
    const r = await runCli(['run', join(PROJECTS, 'library')]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^Ran 3 pipe\(s\) in 2 round\(s\)$/m);
    assert.match(r.stdout, /^ {2}authors: 1 run\(s\), 2 processed, 2 changed$/m);
    assert.match(r.stdout, /^ {2}books: 1 run\(s\), 4 processed, 4 changed$/m);
    assert.match(r.stdout, /^ {2}catalogue: 2 run\(s\), 4 processed, 4 changed$/m);
    assert.doesNotMatch(r.stdout, /passed/);
  });

  test('pipes that keep changing each other stop at the round limit', async () => {
    const dir = tempDir('datahub-project-cycle-');
    try {
      const pipes = join(dir, 'node', 'pipes');
      mkdirSync(pipes, { recursive: true });
      const write = (id: string, source: JsonObject, sink: string, rules: unknown[] = [['copy', '*']]): void =>
        writeFileSync(join(pipes, `${id}.conf.json`), JSON.stringify({ _id: id, type: 'pipe', source, transform: { type: 'dtl', rules: { default: rules } }, sink: { type: 'dataset', dataset: sink } }));
      write('seed', { type: 'embedded', entities: [{ _id: 's1' }] }, 'y');
      write('stamp', { type: 'dataset', dataset: 'y' }, 'x', [['copy', '*'], ['add', 'at', ['now']]]);
      write('back', { type: 'dataset', dataset: 'x' }, 'y');
      const r = await runCli(['run', dir, '--max-rounds', '3']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /^Ran 3 pipe\(s\) in 3 round\(s\) — still changing after 3 rounds \(--max-rounds\)$/m);
      assert.match(r.stdout, /^ {2}stamp: 3 run\(s\)/m);
      assert.match(r.stdout, /^ {2}seed: 1 run\(s\)/m);
    } finally {
      removeDir(dir);
    }
  });

  test('usage errors and projects that cannot load exit 2', async () => {
    const missing = await runCli(['test', join(PROJECTS, 'no-such-project')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /is not a folder/);
    const notProject = await runCli(['test', join(REPO, 'test', 'fixtures')]);
    assert.equal(notProject.code, 2);
    assert.match(notProject.stderr, /is not a project/);
    const updateRun = await runCli(['run', '--update', join(PROJECTS, 'shop')]);
    assert.equal(updateRun.code, 2);
    const rounds = await runCli(['test', '--max-rounds', '0', join(PROJECTS, 'shop')]);
    assert.equal(rounds.code, 2);
    const dir = tempDir('datahub-project-bad-');
    try {
      mkdirSync(join(dir, 'node', 'pipes'), { recursive: true });
      writeFileSync(join(dir, 'node', 'pipes', 'bad.conf.json'), '{ not json');
      const bad = await runCli(['test', dir]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /cannot be loaded.*bad\.conf\.json/);
    } finally {
      removeDir(dir);
    }
  });
});

describe('pipe stages over HTTP', () => {
  let hub: HubProcess;
  let project: string;
  before(async () => {
    project = copyProject('library');
    hub = await startHub({ args: ['--workspace', project] });
  });
  after(async () => {
    await hub.stop();
    removeDir(hub.dataDir);
    removeDir(project);
  });

  const entities = (pipe: string, query = ''): Promise<JsonObject[]> => hub.json<JsonObject[]>(`/pipes/${pipe}/entities${query}`);

  async function runPump(pipe: string): Promise<void> {
    const before = (await hub.json<{ runs: number }>(`/pipes/${pipe}/pump`)).runs;
    const res = await hub.fetch(`/pipes/${pipe}/pump`, { method: 'POST', body: new URLSearchParams({ operation: 'start' }) });
    assert.equal(res.status, 200, await res.text());
    for (let i = 0; i < 500; i++) {
      const info = await hub.json<{ runs: number; 'is-running': boolean }>(`/pipes/${pipe}/pump`);
      if (info.runs > before && !info['is-running']) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail(`pump of ${pipe} did not finish`);
  }

  test('source, before-transforms and after-transforms are computed without writing anything', async () => {
    const source = await entities('books', '?stage=source');
    assert.deepEqual(source.map((e) => e['_id']), ['b1', 'b2', 'b3', 'b4']);
    assert.equal(source[0]!['price'], '12.90');
    assert.deepEqual(await entities('books', '?stage=before-transforms'), source);
    const after = await entities('books', '?stage=after-transforms');
    assert.equal(after[0]!['price'], '~f12.90');
    assert.equal(after[0]!['published'], '~t1974-05-01T00:00:00Z');
    assert.equal((await entities('books', '?stage=after-transforms&limit=2')).length, 2);
    // The sink stage (the default) is what would enter the sink, computed like the others: the sink dataset was never
    // written, and reading the stages created no dataset.
    const sink = await entities('books');
    assert.deepEqual(sink.map((e) => e['_id']), ['b1', 'b2', 'b3', 'b4']);
    assert.equal(sink[0]!['price'], '~f12.90');
    assert.equal(sink[3]!['_deleted'], true, 'a deleted source entity enters the sink deleted');
    assert.equal((await hub.fetch('/datasets/books')).status, 404);
  });

  test('the sink stage is what enters the sink, not what the sink dataset holds (limit, since); a dataset source honours since', async () => {
    await runPump('authors');
    await runPump('books');
    const books = await hub.json<JsonObject[]>('/datasets/books/entities');
    assert.equal(books.length, 4);
    // A dataset source gives entities with the hub's bookkeeping (_updated, _ts, ...); the sink is given them without.
    const source = await entities('catalogue', '?stage=source');
    assert.equal(typeof source[0]!['_updated'], 'number');
    assert.deepEqual(await entities('books', '?limit=0'), []);
    assert.deepEqual(await entities('books', '?stage=source&limit=0'), []);
    const limited = await entities('catalogue', '?stage=source&limit=1');
    assert.deepEqual(limited.map((e) => e['_id']), ['b1']);
    const rest = await entities('catalogue', `?since=${String(limited[0]!['_updated'])}`);
    assert.deepEqual(rest.map((e) => e['_id']), ['b2', 'b3', 'b4']);
    for (const e of rest) assert.equal(e['_updated'], undefined, `no bookkeeping in ${JSON.stringify(e)}`);
    await hub.json('/pipes', { method: 'POST', json: [{ _id: 'books-copy', type: 'pipe', source: { type: 'dataset', dataset: 'books' }, pump: { mode: 'manual' } }] });
    const copy = await entities('books-copy');
    assert.deepEqual(copy.map((e) => e['_id']), ['b1', 'b2', 'b3', 'b4']);
    assert.deepEqual(Object.keys(copy[0]!).filter((k) => k.startsWith('_')).sort(), ['_deleted', '_id']);
    assert.equal((await hub.fetch('/datasets/books-copy')).status, 404, 'the stages of a pipe that never ran write nothing');

    // catalogue reads the books dataset and hops into authors; its sink dataset is not written by this.
    const catalogue = await entities('catalogue', '?stage=after-transforms');
    assert.equal(catalogue.length, 4);
    assert.deepEqual(catalogue[0], {
      _id: 'b1',
      title: 'THE DISPOSSESSED',
      price: '~f12.90',
      published: '~t1974-05-01T00:00:00Z',
      thick: true,
      author: { name: 'Ursula K. Le Guin', born: '1929' },
    });
    const since = await entities('catalogue', `?stage=source&since=${String(limited[0]!['_updated'])}`);
    assert.deepEqual(since.map((e) => e['_id']), ['b2', 'b3', 'b4']);
    assert.deepEqual(await entities('catalogue'), catalogue, 'without bookkeeping or namespaces, the sink is given the transform output');
    assert.equal((await hub.fetch('/datasets/catalogue')).status, 404);
  });

  test('generate-schema-definition describes the sink-stage entities', async () => {
    const schema = await hub.json<{ 'sample-size': number; properties: Record<string, { types: string[] }> }>('/pipes/books/generate-schema-definition');
    assert.equal(schema['sample-size'], 4);
    assert.deepEqual(schema.properties['price']!.types, ['decimal']);
    assert.deepEqual(schema.properties['published']!.types, ['datetime']);
    const keys = await hub.json<{ keys: string[] }>('/pipes/books/generate-schema-definition?keys_only=true&sample_size=2');
    assert.ok(keys.keys.includes('title') && keys.keys.includes('tags'));
  });

  test('an unknown pipe is 404, an unknown stage 400', async () => {
    assert.equal((await hub.fetch('/pipes/nope/entities')).status, 404);
    assert.equal((await hub.fetch('/pipes/nope/generate-schema-definition')).status, 404);
    const bad = await hub.fetch('/pipes/books/entities?stage=middle');
    assert.equal(bad.status, 400);
    const since = await hub.fetch('/pipes/catalogue/entities?stage=sink&since=abc');
    assert.equal(since.status, 400);
    assert.match(((await since.json()) as { detail: string }).detail, /integer offset/);
  });
});

describe('datahub test: one test at a time, results for CI', () => {
  test('--pipe checks only that pipe’s tests and runs only it and its upstream pipes', async () => {
    // customer-report reads customers and hops into countries: all three run. customers reads embedded data only.
    const report = await runCli(['test', join(PROJECTS, 'shop'), '--pipe', 'customer-report', '--json']);
    assert.equal(report.code, 0, report.stdout + report.stderr);
    const parsed = JSON.parse(report.stdout) as { passed: number; failed: number; pipes: { pipe: string }[]; tests: { name: string; status: string }[] };
    assert.deepEqual(parsed.pipes.map((p) => p.pipe).sort(), ['countries', 'customer-report', 'customers']);
    assert.deepEqual(parsed.tests.map((t) => [t.name, t.status]), [['customer-report', 'passed']]);

    const customers = await runCli(['test', join(PROJECTS, 'shop'), '--pipe', 'customers', '--json']);
    assert.equal(customers.code, 0, customers.stderr);
    const only = JSON.parse(customers.stdout) as { pipes: { pipe: string }[]; tests: { name: string }[] };
    assert.deepEqual(only.pipes.map((p) => p.pipe), ['customers'], 'nothing downstream or beside it runs');
    assert.deepEqual(only.tests.map((t) => t.name).sort(), ['customers', 'customers-all'], 'both tests of the pipe');
  });

  test('--filter picks tests by name (text, or a whole-name pattern) and runs what they need', async () => {
    const byText = await runCli(['test', join(PROJECTS, 'shop'), '--filter', 'report']);
    assert.equal(byText.code, 0, byText.stderr);
    assert.match(byText.stdout, /^✔ customer-report$/m);
    assert.match(byText.stdout, /^1 passed, 0 failed$/m);
    assert.match(byText.stdout, /^Ran 3 pipe\(s\)/m);
    const byPattern = await runCli(['test', join(PROJECTS, 'shop'), '--filter', 'customers-*']);
    assert.equal(byPattern.code, 0, byPattern.stderr);
    assert.match(byPattern.stdout, /^✔ customers-all$/m);
    assert.match(byPattern.stdout, /^1 passed, 0 failed$/m);
    assert.match(byPattern.stdout, /^Ran 1 pipe\(s\)/m);
  });

  test('nothing to select, or a pipe that does not exist, is a usage error that says so', async () => {
    const none = await runCli(['test', join(PROJECTS, 'shop'), '--filter', 'nope']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no test matches --filter "nope"/);
    const unknown = await runCli(['run', join(PROJECTS, 'shop'), '--pipe', 'ghost']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no pipe "ghost" in the project/);
    const wrong = await runCli(['run', join(PROJECTS, 'shop'), '--junit', 'x.xml']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--junit belongs to "datahub test"/);
  });

  test('--junit writes a report CI systems read: a testcase per test, failures with their diff', async () => {
    const dir = copyProject('shop');
    const report = join(dir, 'junit.xml');
    try {
      // Break one expectation by hand: the first customer's expected name changes.
      const file = join(dir, 'node', 'expected', 'customers.json');
      const expected = JSON.parse(readFileSync(file, 'utf8')) as JsonObject[];
      const first = expected[0]!;
      const key = Object.keys(first).find((k) => typeof first[k] === 'string' && k !== '_id')!;
      first[key] = 'Not <the> "same" & changed';
      writeFileSync(file, JSON.stringify(expected, null, 2));
      const run = await runCli(['test', dir, '--junit', report]);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      const xml = readFileSync(report, 'utf8');
      assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>/);
      assert.match(xml, /<testsuite name="datahub test" tests="4" failures="1" skipped="0" errors="0"/);
      // Each case's time is that of the pipes it ran, named one by one as its properties.
      assert.match(xml, /<testcase classname="pipe customers" name="customers-all" time="\d+\.\d{3}">\s*<properties>[^]*?<property name="pipe customers" value="\d+ ms, \d+ run\(s\)"\/>[^]*?<\/properties>\s*<\/testcase>/);
      const failure = /<testcase classname="pipe customers" name="customers" time="[\d.]+">\s*<properties>[^<]*(?:<property [^>]*>\s*)+<\/properties>\s*<failure message="([^"]*)">([^<]*)<\/failure>/.exec(xml);
      assert.ok(failure, xml);
      assert.match(failure[1]!, /expected\/customers.json vs the sink output of pipe customers/);
      assert.ok(failure[2]!.includes('Not &lt;the&gt; \\&quot;same\\&quot; &amp; changed'), `the diff is in the report, escaped: ${failure[2]!}`);
    } finally {
      removeDir(dir);
    }
  });
});

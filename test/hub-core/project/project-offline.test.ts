// `datahub test` and `datahub run` on a project of the shape other teams write for the service: pipes that need
// what no offline hub has (an outside system it cannot reach, a microservice, a system the project lacks, a SQL or
// LDAP source, a rest transform) are offline, not failed, and say why; a pipe that needs a variable the test
// environment does not set is not run while every other pipe runs; the closing line names every pipe that failed
// during the run, so that it and the exit code agree; an empty output says so before what is missing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { CLI, REPO, removeDir, tempDir } from '../../helpers/hub-process.js';

const dirs: string[] = [];
after(() => dirs.forEach(removeDir));

function project(files: Record<string, unknown>): string {
  const dir = tempDir('datahub-offline-');
  dirs.push(dir);
  for (const [file, value] of Object.entries(files)) {
    mkdirSync(join(dir, 'node', file, '..'), { recursive: true });
    writeFileSync(join(dir, 'node', file), JSON.stringify(value, null, 2) + '\n');
  }
  return dir;
}

interface PipeReport {
  pipe: string;
  status: string;
  error: string | null;
  location?: string | null;
}
interface Report {
  passed: number;
  failed: number;
  pipes: PipeReport[];
  pipes_failed: string[];
  pipes_offline: string[];
  pipes_not_run: string[];
  tests: { name: string; status: string }[];
}

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO, encoding: 'utf8', timeout: 90_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A port on 127.0.0.1 that nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const pipe = (id: string, rest: Record<string, unknown>): Record<string, unknown> => ({ _id: id, type: 'pipe', ...rest });
const people = { type: 'embedded', entities: [{ _id: 'p1', name: 'Ann' }, { _id: 'p2', name: 'Bo' }] };

test('pipes that need an outside system are offline with the reason; every other pipe runs and passes', async () => {
  const port = await closedPort();
  const dir = project({
    'systems/crm.conf.json': { _id: 'crm', type: 'system:url', base_url: `http://127.0.0.1:${port}/api/` },
    'systems/mailer.conf.json': { _id: 'mailer', type: 'system:microservice', docker: { image: 'acme/mailer:1', environment: { TOKEN: '$SECRET(mailer-token)' } } },
    'systems/erp.conf.json': { _id: 'erp', type: 'system:mssql', host: 'erp.invalid', database: 'erp' },
    'systems/crm-out.conf.json': { _id: 'crm-out', type: 'system:url', base_url: `http://127.0.0.1:${port}/in/`, headers: { authorization: 'Bearer $SECRET(crm-token)' } },
    'pipes/people.conf.json': pipe('people', { source: people }),
    'pipes/to-crm.conf.json': pipe('to-crm', { source: { type: 'dataset', dataset: 'people' }, sink: { type: 'json', system: 'crm-out', url: 'persons' } }),
    'pipes/crm-person.conf.json': pipe('crm-person', { source: { type: 'json', system: 'crm', url: 'persons' } }),
    'pipes/erp-order.conf.json': pipe('erp-order', { source: { type: 'sql', system: 'erp', table: 'orders' } }),
    'pipes/directory-user.conf.json': pipe('directory-user', { source: { type: 'ldap', system: 'ad', search_base: 'dc=acme,dc=example' } }),
    'pipes/welcome-mail.conf.json': pipe('welcome-mail', { source: { type: 'dataset', dataset: 'people' }, sink: { type: 'json', system: 'mailer', url: 'send' } }),
    'pipes/to-gone.conf.json': pipe('to-gone', { source: { type: 'dataset', dataset: 'people' }, sink: { type: 'json', system: 'not-in-project', url: 'x' } }),
    'pipes/enrich.conf.json': pipe('enrich', { source: { type: 'dataset', dataset: 'people' }, transform: [{ type: 'rest', system: 'crm', operation: 'lookup' }] }),
    'pipes/people-copy.conf.json': pipe('people-copy', {
      source: { type: 'dataset', dataset: 'people' },
      transform: { type: 'dtl', rules: { default: [['copy', '*']] } },
      sink: { type: 'dataset', dataset: 'people-copy', indexes: ['$ids', '_S.name'] },
    }),
    'expected/people-copy.test.json': { _note: 'copy of the embedded people; the $ids index form: the dataset sink page (configuration-sinks-dataset.rst, "indexes")' },
    'expected/people-copy.json': [{ _id: 'p1', name: 'Ann' }, { _id: 'p2', name: 'Bo' }],
  });
  const r = cli('test', dir, '--json');
  const report = JSON.parse(r.stdout) as Report;
  const status = Object.fromEntries(report.pipes.map((p) => [p.pipe, p.status]));
  assert.deepEqual(status, {
    people: 'ok',
    'people-copy': 'ok',
    'crm-person': 'offline',
    'erp-order': 'offline',
    'directory-user': 'offline',
    'welcome-mail': 'offline',
    'to-gone': 'offline',
    'to-crm': 'offline',
    enrich: 'offline',
  });
  const reason = (id: string): string => report.pipes.find((p) => p.pipe === id)?.error ?? '';
  assert.match(reason('crm-person'), /cannot reach system "crm"/);
  assert.match(reason('erp-order'), /sql source reads from an outside system \(system "erp"\)/);
  assert.match(reason('directory-user'), /ldap source/);
  assert.match(reason('welcome-mail'), /system "mailer", a microservice .* outbox/);
  assert.match(reason('welcome-mail'), /not set here: \$SECRET\(mailer-token\)$/, 'an unset secret of the microservice does not stop it, and is named');
  assert.match(reason('to-gone'), /system "not-in-project" is not in this project/);
  assert.match(reason('to-crm'), /cannot reach system "crm-out" .*outbox; not set here: \$SECRET\(crm-token\)/, 'an unset secret only needed to reach it is named, not a failure');
  assert.match(reason('enrich'), /rest transform calls an outside service \(system "crm"\)/);
  assert.equal(report.passed, 1);
  assert.equal(report.failed, 0);
  assert.deepEqual(report.pipes_failed, []);
  assert.equal(report.pipes_offline.length, 7);
  assert.equal(r.status, 0, r.stderr);

  const text = cli('test', dir);
  assert.equal(text.status, 0);
  assert.match(text.stdout, /^7 pipe\(s\) offline, needing outside systems \(their reasons above\): /m);
  assert.match(text.stdout, /^1 passed, 0 failed$/m);
  assert.match(text.stdout, /welcome-mail: .*offline: the json sink pushes to system "mailer"/);
});

test('an unset variable stops only the pipes that need it; the closing line and the exit code agree', () => {
  const dir = project({
    'test-env.json': { 'node-env': 'test' },
    'pipes/people.conf.json': pipe('people', { source: people }),
    'pipes/by-env.conf.json': pipe('by-env', { source: { type: 'conditional', condition: '$ENV(people-source)', alternatives: { test: people } } }),
    'pipes/broken.conf.json': pipe('broken', {
      source: { type: 'dataset', dataset: 'people' },
      transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'n', ['fail!', 'no n for this one']]] } },
    }),
    'pipes/shout.conf.json': pipe('shout', {
      source: { type: 'dataset', dataset: 'people' },
      transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'loud', ['upper', '_S.name']]] } },
    }),
    'expected/shout.test.json': {},
    'expected/shout.json': [{ _id: 'p1', loud: 'ANN' }, { _id: 'p2', loud: 'BO' }],
    'pipes/nobody.conf.json': pipe('nobody', {
      source: { type: 'dataset', dataset: 'people' },
      transform: { type: 'dtl', rules: { default: [['filter', ['eq', '_S.name', 'Cy']], ['copy', '*']] } },
    }),
    'expected/nobody.test.json': {},
    'expected/nobody.json': [{ _id: 'p1', name: 'Ann' }, { _id: 'p2', name: 'Bo' }],
    'expected/by-env.test.json': {},
    'expected/by-env.json': [{ _id: 'p1', name: 'Ann' }, { _id: 'p2', name: 'Bo' }],
  });
  const r = cli('test', dir);
  assert.equal(r.status, 1, 'a pipe failed during the run');
  assert.match(r.stdout, /by-env: not run: unknown environment variable "people-source"/);
  assert.match(r.stdout, /^✔ shout$/m, 'the other pipes run');
  // The failed pipe's file and the line of the element its error names ("fail!" sits on line 20 of the file above).
  assert.match(r.stdout, /broken: .*FAILED \(pipes\/broken\.conf\.json:20\): the pipe configuration is invalid: \$\.transform\.rules\.default\[1\]\[2\]\[0\]/);
  assert.match(r.stdout, /^✘ by-env\n {4}pipe "by-env" was not run: unknown environment variable "people-source"/m);
  assert.match(r.stdout, /^✘ nobody\n.*\n {4}output empty: 0 of 2\n {4}p1: missing/m, 'an empty output says so first');
  assert.match(r.stdout, /^! pipe by-env not run: unknown environment variable "people-source"/m);
  assert.match(r.stdout, /^1 passed, 2 failed; 1 pipe\(s\) failed during the run \(broken\)$/m);

  const json = JSON.parse(cli('test', dir, '--json').stdout) as Report;
  assert.deepEqual(json.pipes_failed, ['broken']);
  assert.equal(json.pipes.find((p) => p.pipe === 'broken')?.location, 'pipes/broken.conf.json:20');
  assert.deepEqual(json.pipes_not_run, ['by-env']);
});

test('a single-file export (a JSON list of components) is a project: run, tested, and written back into its list', async () => {
  const dir = tempDir('datahub-export-');
  dirs.push(dir);
  const file = join(dir, 'node-config.json');
  writeFileSync(
    file,
    JSON.stringify([
      { _id: 'node', type: 'metadata' },
      { _id: 'crm', type: 'system:url', base_url: 'http://crm.invalid/' },
      pipe('people', { source: people }),
      pipe('greet', {
        source: { type: 'dataset', dataset: 'people' },
        transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'text', ['concat', '$ENV(greeting)', ' ', '_S.name']]] } },
      }),
    ]),
  );
  writeFileSync(join(dir, 'test-env.json'), JSON.stringify({ greeting: 'Hi' }));
  mkdirSync(join(dir, 'expected'));
  writeFileSync(join(dir, 'expected', 'greet.test.json'), '{}');
  writeFileSync(join(dir, 'expected', 'greet.json'), JSON.stringify([{ _id: 'p1', text: 'Hi Ann' }, { _id: 'p2', text: 'Hi Bo' }]));
  const r = cli('test', file);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^✔ greet$/m);
  assert.match(r.stdout, /^1 passed, 0 failed$/m);

  const { Workspace } = await import('../../../hub-core/project/index.js');
  const { Hub } = await import('../../../hub-core/hub.js');
  const data = tempDir('datahub-export-data-');
  dirs.push(data);
  const hub = new Hub(data);
  const ws = new Workspace(hub, file);
  try {
    ws.open({ watch: false });
    assert.deepEqual(hub.pipes.ids().sort(), ['greet', 'people']);
    hub.config.put({ _id: 'extra', type: 'pipe', source: { type: 'embedded', entities: [] } });
    const list = JSON.parse(readFileSync(file, 'utf8')) as { _id: string }[];
    assert.deepEqual(list.map((c) => c._id), ['node', 'crm', 'people', 'greet', 'extra'], 'a new pipe joins the export\'s list');
  } finally {
    ws.close();
    hub.close();
  }
});

test('a property that differs only by its namespace says so in the diff', async () => {
  const { diffEntities, formatDiffs } = await import('../../../hub-core/project/index.js');
  // The expected file names "name"; the output kept the source's namespace ("crm:name"): the value is null on the
  // expected side's name only because of the namespace.
  const lines = formatDiffs(diffEntities([{ _id: 'p1', name: 'Ann', age: 3 }], [{ _id: 'p1', 'crm:name': 'Ann', age: 4 }]));
  assert.deepEqual(lines, [
    'p1: differs',
    '    age:',
    '      - expected 3',
    '      + actual   4',
    '    crm:name:',
    '      - expected (absent)',
    '      + actual   "Ann"',
    '      (the expected entity has it as "name": a namespace differs (namespaced identifiers))',
    '    name:',
    '      - expected "Ann"',
    '      + actual   (absent)',
    '      (the output has it as "crm:name": a namespace differs (namespaced identifiers))',
  ]);
});

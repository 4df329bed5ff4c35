// `datahub sample pull`: a second hub plays the remote instance holding the pipe's source dataset; the CLI reads a
// sample from it (through a connection the app stored, its token in the real OS keychain, or an address with the
// token in $DATAHUB_REMOTE_TOKEN), scrubs it, and pins it as the pipe's conditional source's "test" alternative.
// The project then tests offline: the remote is stopped before `datahub test` runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, REPO, removeDir, startHub, tempDir, type HubProcess } from '../../helpers/hub-process.js';
import { ConnectionStore } from '../../../main/remote/connections.js';
import { OsKeychain } from '../../../main/secrets/keychain.js';

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

// The real people on the remote instance: what must never reach the project folder is their e-mails and SSNs.
const PEOPLE = [
  { _id: 'p1', name: 'Kari Nordmann', email: 'kari.nordmann@example.no', ssn: '23072451376', country: 'NO', ref: 'person-23072451376' },
  { _id: 'p2', name: 'Ola Hansen', email: 'ola.hansen@example.no', ssn: '12052427741', country: 'NO', ref: 'person-12052427741' },
  { _id: 'p3', name: 'Sven Berg', email: 'sven.berg@example.se', ssn: '19640823123', country: 'SE', ref: 'person-19640823123' },
  { _id: 'p4', name: 'Ingrid Lie', email: 'ingrid.lie@example.no', ssn: '01018012345', country: 'NO', ref: 'person-01018012345' },
];

// The pipe's file in a layout of its own (compact transform on one line, four-space indents) that must survive.
const TRANSFORM_LINE = `    "transform": {"type": "dtl", "rules": {"default": [["copy", "name"], ["add", "greeting", ["concat", "Hello ", "_S.name"]]]}}`;
const PIPE_TEXT = `{
    "_id": "person",
    "type": "pipe",
    "source": {
        "type": "dataset",
        "dataset": "crm-person"
    },
${TRANSFORM_LINE}
}
`;

let remote: HubProcess;
let appData: string;
let project: string;
let store: ConnectionStore;

before(async () => {
  remote = await startHub();
  await remote.json('/datasets/crm-person/entities', { method: 'POST', json: PEOPLE });
  appData = tempDir('datahub-app-');
  store = new ConnectionStore(appData, new OsKeychain());
  await store.add({ kind: 'instance', label: 'Staging', url: remote.api, token: remote.token });
  project = tempDir('datahub-sample-project-');
  mkdirSync(join(project, 'node', 'pipes'), { recursive: true });
  mkdirSync(join(project, 'node', 'expected'), { recursive: true });
  writeFileSync(join(project, 'node', 'pipes', 'person.conf.json'), PIPE_TEXT);
  writeFileSync(join(project, 'node', 'expected', 'person.test.json'), '{}\n');
  // Worked out by hand: the three Norwegians the filter keeps, with "copy name" and the DTL concat of the greeting
  // (hub/dtl/functions "concat"); names are not scrubbed, so they are known in advance.
  const expected = PEOPLE.filter((p) => p.country === 'NO').map((p) => ({ _id: p._id, name: p.name, greeting: `Hello ${p.name}` }));
  writeFileSync(join(project, 'node', 'expected', 'person.json'), `${JSON.stringify(expected, null, 2)}\n`);
});

after(async () => {
  for (const c of store?.list() ?? []) await store.remove(c.id).catch(() => false);
  await remote?.stop();
  if (remote) removeDir(remote.dataDir);
  if (appData) removeDir(appData);
  if (project) removeDir(project);
});

const pipeFile = (): string => readFileSync(join(project, 'node', 'pipes', 'person.conf.json'), 'utf8');

test('a filtered sample of 3 is pinned as the test alternative, scrubbed before it is written, the rest of the file as it was', async () => {
  const args = ['sample', 'pull', 'person', project, '--from', 'Staging', '--data', appData, '--count', '3', '--filter', '["eq", "_S.country", "NO"]', '--scrub', '*email*,*SSN*'];
  const r = await runCli(args);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Pinned 3 entities of dataset "crm-person" on Staging as the test alternative of pipe person/);
  assert.match(r.stdout, /scrubbed 6 properties/);
  const text = pipeFile();
  for (const p of PEOPLE) {
    assert.ok(!text.includes(p.email), `the file holds ${p.email}`);
    assert.ok(!text.includes(p.ssn), `the file holds ${p.ssn}`);
  }
  assert.ok(text.includes(TRANSFORM_LINE), `the transform line lost its layout:\n${text}`);
  assert.ok(text.startsWith('{\n    "_id": "person",\n    "type": "pipe",\n'), text);
  const pipe = JSON.parse(text) as { source: { type: string; condition: string; alternatives: Record<string, { type: string; dataset?: string; entities?: Record<string, unknown>[] }> } };
  assert.equal(pipe.source.type, 'conditional');
  assert.equal(pipe.source.condition, '$ENV(node-env)');
  assert.deepEqual(pipe.source.alternatives['prod'], { type: 'dataset', dataset: 'crm-person' });
  const test = pipe.source.alternatives['test']!;
  assert.equal(test.type, 'embedded');
  const entities = test.entities!;
  assert.deepEqual(entities.map((e) => e['_id']).sort(), ['p1', 'p2', 'p4']);
  for (const e of entities) {
    const real = PEOPLE.find((p) => p._id === e['_id'])!;
    assert.equal(e['name'], real.name, 'a property no pattern names is kept');
    assert.equal(e['country'], 'NO');
    // Same type and shape: the @ and dots where they were, digits for digits.
    assert.equal(typeof e['email'], 'string');
    assert.notEqual(e['email'], real.email);
    assert.equal((e['email'] as string).length, real.email.length);
    assert.equal((e['email'] as string).indexOf('@'), real.email.indexOf('@'));
    assert.match(e['ssn'] as string, /^\d{11}$/);
    // The SSN inside another value is replaced by the same fake.
    assert.equal(e['ref'], `person-${e['ssn'] as string}`);
    assert.deepEqual(Object.keys(e).filter((k) => k.startsWith('_')), ['_id'], 'no bookkeeping of the instance');
  }
  const env = JSON.parse(readFileSync(join(project, 'node', 'test-env.json'), 'utf8')) as Record<string, string>;
  assert.deepEqual(env, { 'node-env': 'test' });

  // Stable: the same input gives the same fakes, so a second pull changes nothing.
  const again = await runCli(args);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(pipeFile(), text);
});

test('an address with the token from the environment works too; bad --from values are usage errors', async () => {
  const noToken = await runCli(['sample', 'pull', 'person', project, '--from', remote.api, '--data', appData, '--count', '1'], { DATAHUB_REMOTE_TOKEN: '' });
  assert.equal(noToken.code, 2);
  assert.match(noToken.stderr, /needs the instance's token in \$DATAHUB_REMOTE_TOKEN/);
  const unknown = await runCli(['sample', 'pull', 'person', project, '--from', 'Production', '--data', appData]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no remote instance connection "Production".*its instances: "Staging"/);
  const noPipe = await runCli(['sample', 'pull', 'nobody', project, '--from', 'Staging', '--data', appData]);
  assert.equal(noPipe.code, 2);
  assert.match(noPipe.stderr, /no pipe "nobody"/);
  const badFilter = await runCli(['sample', 'pull', 'person', project, '--from', 'Staging', '--data', appData, '--filter', '["eq", "_S.country"']);
  assert.equal(badFilter.code, 2);
  assert.match(badFilter.stderr, /the filter is not JSON/);

  const before = pipeFile();
  const r = await runCli(['sample', 'pull', 'person', project, '--from', remote.api, '--count', '3', '--filter', '["eq", "_S.country", "NO"]', '--scrub', '*email*,*ssn*', '--data', appData], {
    DATAHUB_REMOTE_TOKEN: remote.token,
  });
  assert.equal(r.code, 0, r.stderr);
  // The conditional exists already: only the test alternative's entities are replaced, by the same stable fakes.
  assert.equal(pipeFile(), before);
  assert.ok(!r.stdout.includes(remote.token) && !r.stderr.includes(remote.token), 'the token is never printed');
});

test('datahub sample --help says where --from comes from and how a token is given without the keychain', async () => {
  const r = await runCli(['sample', '--help']);
  assert.equal(r.code, 0);
  for (const words of ['datahub sample pull <pipe>', '--from', '--count', '--filter', '--scrub', 'DATAHUB_REMOTE_TOKEN', 'OS keychain', '$ENV(node-env)']) assert.ok(r.stdout.includes(words), `the help mentions ${words}`);
});

test('the sampled project runs and tests offline: the remote instance is gone', async () => {
  await remote.stop();
  const r = await runCli(['test', project]);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /✔ person/);
  assert.match(r.stdout, /1 passed, 0 failed/);
});

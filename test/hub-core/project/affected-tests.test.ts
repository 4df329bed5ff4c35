// Which tests a change to a project's files affects (hub-core/project/affected-tests.ts), and why: a changed pipe's tests and
// those downstream of it (source, merge/union sources, hops, apply-hops, lookup-entity), a pipe's old sink dataset,
// changed systems, expected and .test.json files, and every test for test-env.json and node metadata.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { affectedTests, configSnapshot } from '../../../hub-core/project/index.js';
import { removeDir, tempDir } from '../../helpers/hub-process.js';

const dirs: string[] = [];
after(() => dirs.forEach(removeDir));

const pipe = (id: string, rest: Record<string, unknown>): Record<string, unknown> => ({ _id: id, type: 'pipe', ...rest });
const fromDs = (ds: string): Record<string, unknown> => ({ source: { type: 'dataset', dataset: ds } });

/** a -> b (source) -> c (hops into b) ; m merges b and x ; l looks up c ; u unions x ; x alone; s uses system crm. */
function write(dir: string, files: Record<string, unknown>): void {
  for (const [file, value] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), JSON.stringify(value, null, 2) + '\n');
  }
}

function project(): string {
  const dir = tempDir('datahub-affected-');
  dirs.push(dir);
  const files: Record<string, unknown> = {
    'pipes/a.conf.json': pipe('a', { source: { type: 'embedded', entities: [{ _id: '1' }] } }),
    'pipes/b.conf.json': pipe('b', fromDs('a')),
    'pipes/c.conf.json': pipe('c', {
      source: { type: 'embedded', entities: [] },
      transform: { type: 'dtl', rules: { default: [['add', 'x', ['hops', { datasets: ['b B'], where: ['eq', '_S._id', 'B._id'] }]]] } },
    }),
    'pipes/d.conf.json': pipe('d', {
      source: { type: 'embedded', entities: [] },
      transform: { type: 'dtl', rules: { default: [['add', 'x', ['apply-hops', 'r', { datasets: ['a A'], where: ['eq', '_S._id', 'A._id'] }]]], r: [] } },
    }),
    'pipes/l.conf.json': pipe('l', { source: { type: 'embedded', entities: [] }, transform: { type: 'dtl', rules: { default: [['add', 'x', ['lookup-entity', 'c', '_S._id']]] } } }),
    'pipes/m.conf.json': pipe('m', { source: { type: 'merge', datasets: ['b B', 'x X'], equality: [] } }),
    'pipes/u.conf.json': pipe('u', { source: { type: 'union_datasets', datasets: ['x', 'y'] } }),
    'pipes/x.conf.json': pipe('x', { source: { type: 'embedded', entities: [] } }),
    'pipes/s.conf.json': pipe('s', { source: { type: 'json', system: 'crm', url: 'p' } }),
    'systems/crm.conf.json': { _id: 'crm', type: 'system:url', base_url: 'http://crm.invalid/' },
    'node-metadata.conf.json': { _id: 'node', type: 'metadata' },
  };
  for (const id of ['a', 'b', 'c', 'd', 'l', 'm', 'u', 'x', 's']) {
    files[`expected/${id}.test.json`] = {};
    files[`expected/${id}.json`] = [];
  }
  files['expected/c-other.test.json'] = { pipe: 'c', file: 'shared.json' };
  files['expected/shared.json'] = [];
  write(dir, files);
  return dir;
}

const names = (dir: string, files: string[], before?: Map<string, never[]> | ReturnType<typeof configSnapshot>): string[] =>
  affectedTests(dir, { files, ...(before ? { before } : {}) }).tests.map((t) => t.spec.name);

test('a changed pipe affects its tests and those downstream through sources, merges, hops, apply-hops and lookup-entity', () => {
  const dir = project();
  const before = configSnapshot(dir);
  write(dir, { 'pipes/a.conf.json': pipe('a', { source: { type: 'embedded', entities: [{ _id: '2' }] } }) });
  const sel = affectedTests(dir, { files: ['pipes/a.conf.json'], before });
  assert.deepEqual(
    sel.tests.map((t) => t.spec.name),
    ['a', 'b', 'c-other', 'c', 'd', 'l', 'm'],
  );
  assert.equal(sel.all, null);
  assert.deepEqual(sel.changedPipes, ['a']);
  const why = Object.fromEntries(sel.tests.map((t) => [t.spec.name, t.reasons.join(' | ')]));
  assert.equal(why['a'], 'pipe a changed (pipes/a.conf.json)');
  assert.equal(why['b'], 'downstream of pipe a changed (pipes/a.conf.json): a → b (source "a")');
  assert.equal(why['c'], 'downstream of pipe a changed (pipes/a.conf.json): a → b (source "a") → c (hops "b")');
  assert.equal(why['d'], 'downstream of pipe a changed (pipes/a.conf.json): a → d (apply-hops "a")');
  assert.equal(why['l'], 'downstream of pipe a changed (pipes/a.conf.json): a → b (source "a") → c (hops "b") → l (lookup-entity "c")');
  assert.equal(why['m'], 'downstream of pipe a changed (pipes/a.conf.json): a → b (source "a") → m (merge source "b")');

  // x feeds the merge and the union only.
  assert.deepEqual(names(dir, ['pipes/x.conf.json']), ['m', 'u', 'x']);
});

test('saving a file with the same content affects nothing; a file without a known before counts as changed', () => {
  const dir = project();
  const before = configSnapshot(dir);
  write(dir, { 'pipes/x.conf.json': pipe('x', { source: { type: 'embedded', entities: [] } }) });
  const sel = affectedTests(dir, { files: ['pipes/x.conf.json'], before });
  assert.deepEqual(sel.tests, []);
  assert.deepEqual(sel.unrelated, ['pipes/x.conf.json']);
  assert.deepEqual(names(dir, ['pipes/x.conf.json']), ['m', 'u', 'x']);
});

test('a removed pipe, or one that moved its sink, affects the readers of what it wrote', () => {
  const dir = project();
  const before = configSnapshot(dir);
  rmSync(join(dir, 'pipes/b.conf.json'));
  const sel = affectedTests(dir, { files: ['pipes/b.conf.json'], before });
  assert.deepEqual(sel.tests.map((t) => t.spec.name), ['b', 'c-other', 'c', 'l', 'm']);
  assert.match(sel.tests[0]!.reasons[0]!, /^pipe b removed/);

  const dir2 = project();
  const before2 = configSnapshot(dir2);
  write(dir2, { 'pipes/x.conf.json': pipe('x', { source: { type: 'embedded', entities: [] }, sink: { type: 'dataset', dataset: 'y' } }) });
  // x now writes y (read by u) and no longer x (read by m and u).
  assert.deepEqual(names(dir2, ['pipes/x.conf.json'], before2), ['m', 'u', 'x']);
});

test('a changed system affects the pipes naming it; expected and .test.json files their tests; test-env and metadata all', () => {
  const dir = project();
  const before = configSnapshot(dir);
  write(dir, { 'systems/crm.conf.json': { _id: 'crm', type: 'system:url', base_url: 'http://crm2.invalid/' } });
  const sys = affectedTests(dir, { files: ['systems/crm.conf.json'], before });
  assert.deepEqual(sys.tests.map((t) => [t.spec.name, t.reasons]), [['s', ['pipe s uses system crm changed (systems/crm.conf.json)']]]);

  const exp = affectedTests(dir, { files: ['expected/shared.json', 'expected/b.test.json', 'expected/gone.json', 'README.md'] });
  assert.deepEqual(exp.tests.map((t) => [t.spec.name, t.reasons]), [
    ['b', ['expected/b.test.json changed']],
    ['c-other', ['expected/shared.json changed']],
  ]);
  assert.deepEqual(exp.unrelated, ['README.md', 'expected/gone.json']);

  const env = affectedTests(dir, { files: ['test-env.json'] });
  assert.equal(env.all, 'test-env.json changed');
  assert.equal(env.tests.length, 10);
  write(dir, { 'node-metadata.conf.json': { _id: 'node', type: 'metadata', global_defaults: { x: 1 } } });
  const meta = affectedTests(dir, { files: ['node-metadata.conf.json'], before });
  assert.equal(meta.all, 'the node metadata changed (node-metadata.conf.json)');
  assert.equal(meta.tests.length, 10);
  assert.deepEqual(meta.tests[0]!.reasons, ['the node metadata changed (node-metadata.conf.json): every test']);
});

// Namespaced identifiers end to end over HTTP, rule by rule as the service documents them (datanav/docs
// hub/features/namespaces.rst, hub/dtl/namespaces.rst, entity-data-model.rst): sources that add namespaces, the
// namespace-aware add/copy/remove, sinks that remove them, $ids only from the merge source, and every path that
// computes a pipe's output (pump, stages, preview, publishers, receivers) agreeing. Then `datahub test` on the
// namespaces fixture project, whose expected files were written by hand from those rules.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, useHub, tempDir, removeDir } from '../../helpers/hub-process.js';
import { pushEntities, runPump } from '../../helpers/api.js';
import type { JsonObject } from '../../../hub-core/base/index.js';
import { addNamespaces, addsNamespaces, removeNamespaces, removesNamespaces } from '../../../hub-core/pipes/index.js';
import { MAINTAINED_PROPERTIES } from '../../../hub-core/base/index.js';

const PROJECT = join(REPO, 'test', 'fixtures', 'projects', 'namespaces');
/** Unqualified references (_S.x, _T.x, joins, a merge's equality, $ENV in a condition); expected files by hand. */
const UNQUALIFIED = join(REPO, 'test', 'fixtures', 'projects', 'namespaces-unqualified');
const hub = useHub();

const dtl = (...steps: unknown[]): JsonObject => ({ type: 'dtl', rules: { default: steps } }) as JsonObject;
const BOOKKEEPING = ['_updated', '_ts', '_hash', '_previous', '_deleted'];
/** An entity without the hub's bookkeeping (and `_deleted: false`), keys sorted, for comparing outputs. */
const content = (e: JsonObject): JsonObject =>
  Object.fromEntries(
    Object.entries(e)
      .filter(([k, v]) => !BOOKKEEPING.includes(k) || (k === '_deleted' && v === true))
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  ) as JsonObject;
const byId = (list: JsonObject[]): JsonObject[] => list.map(content).sort((a, b) => String(a['_id']).localeCompare(String(b['_id'])));

async function createPipes(...pipes: JsonObject[]): Promise<void> {
  await hub.json('/pipes', { method: 'POST', json: pipes.map((p) => ({ type: 'pipe', pump: { mode: 'manual' }, ...p })) });
}
const stage = (pipe: string, s: string): Promise<JsonObject[]> => hub.json<JsonObject[]>(`/pipes/${pipe}/entities?stage=${s}`);
const datasetEntities = (id: string): Promise<JsonObject[]> => hub.json<JsonObject[]>(`/datasets/${id}/entities`);

describe('namespaced identifiers on, over HTTP', () => {
  before(async () => {
    await hub.json('/metadata', { method: 'PUT', json: { _id: 'node', type: 'metadata', namespaced_identifiers: true } });
    await hub.json('/env', { method: 'PUT', json: { 'node-env': 'test' } });
  });

  describe('sources add namespaces before the first transform', () => {
    test('the embedded alternative a conditional source picks: _id in the identity namespace, every property in the property namespace', async () => {
      await createPipes({
        _id: 'people',
        source: {
          type: 'conditional',
          condition: '$ENV(node-env)',
          alternatives: { prod: { type: 'json', url: 'http://127.0.0.1:9/people' }, test: { type: 'embedded', entities: [{ _id: '1', name: 'Ada', _deleted: false }] } },
        },
      });
      assert.deepEqual((await stage('people', 'source')).map(content), [{ _id: '1', name: 'Ada' }], 'the source stage is the source as it is');
      assert.deepEqual((await stage('people', 'before-transforms')).map(content), [{ _id: 'people:1', 'people:name': 'Ada' }]);
      await runPump(hub, 'people');
      const written = await datasetEntities('people');
      assert.deepEqual(written.map(content), [{ _id: 'people:1', 'people:name': 'Ada' }], 'a dataset sink keeps them, and no $ids are added');
    });

    test('namespaces.identity and .property replace the pipe id; add_namespaces: false and a dataset source add none', async () => {
      await createPipes(
        { _id: 'hr', namespaces: { identity: 'emp', property: 'hr-v2' }, source: { type: 'embedded', entities: [{ _id: '7', name: 'Grace' }] } },
        { _id: 'hr-plain', add_namespaces: false, source: { type: 'embedded', entities: [{ _id: '7', name: 'Grace' }] } },
        { _id: 'hr-copy', source: { type: 'dataset', dataset: 'hr' } },
      );
      assert.deepEqual((await stage('hr', 'sink')).map(content), [{ _id: 'emp:7', 'hr-v2:name': 'Grace' }]);
      assert.deepEqual((await stage('hr-plain', 'sink')).map(content), [{ _id: '7', name: 'Grace' }]);
      await runPump(hub, 'hr');
      assert.deepEqual((await stage('hr-copy', 'sink')).map(content), [{ _id: 'emp:7', 'hr-v2:name': 'Grace' }], 'a dataset source adds nothing');
    });

    test('as apply-ns with its defaults: nested dicts and lists too, "$" properties and names with a namespace as they are; a non-dataset sink takes it all off again', async () => {
      const entity = { _id: '9', address: { city: 'Oslo', 'geo:lat': 59.9 }, tags: [{ k: 'a' }], $meta: { x: 1 } };
      await createPipes(
        { _id: 'nest', source: { type: 'embedded', entities: [entity] } },
        { _id: 'nest-out', source: { type: 'embedded', entities: [entity] }, sink: { type: 'http_endpoint' } },
      );
      assert.deepEqual((await stage('nest', 'sink')).map(content), [
        { _id: 'nest:9', 'nest:address': { 'nest:city': 'Oslo', 'geo:lat': 59.9 }, 'nest:tags': [{ 'nest:k': 'a' }], $meta: { x: 1 } },
      ]);
      assert.deepEqual((await stage('nest-out', 'sink')).map(content), [{ _id: '9', address: { city: 'Oslo', lat: 59.9 }, tags: [{ k: 'a' }], $meta: { x: 1 } }]);
    });

    test('a pipe\'s namespaced_identifiers: false turns it all off for that pipe', async () => {
      await createPipes({ _id: 'plain', namespaced_identifiers: false, source: { type: 'embedded', entities: [{ _id: '1', a: 1 }] }, transform: dtl(['copy', '*'], ['add', 'b', 2]) });
      assert.deepEqual((await stage('plain', 'sink')).map(content), [{ _id: '1', a: 1, b: 2 }]);
    });
  });

  describe('DTL with namespaces on, in a pipe', () => {
    test('add prefixes unqualified names and gives _id the identity namespace; copy/remove patterns match any namespace; copy "ns:*" copies a namespace', async () => {
      await pushEntities(hub, 'mixed', [{ _id: 'm1', 'crm:name': 'Ada', 'crm:tmp': 1, 'erp:name': 'A. L.', 'erp:tmp': 2, other: 3 }]);
      await createPipes(
        { _id: 'shape', source: { type: 'dataset', dataset: 'mixed' }, transform: dtl(['copy', '*', 'other'], ['remove', 'tmp'], ['add', 'seen', true], ['add', '_id', 'x1']) },
        { _id: 'only-crm', source: { type: 'dataset', dataset: 'mixed' }, transform: dtl(['copy', 'crm:*'], ['add', '::plain', 1], ['add', 'rdf:type', ['ni', 'acme', 'x']]) },
      );
      assert.deepEqual((await stage('shape', 'sink')).map(content), [{ _id: 'shape:x1', 'crm:name': 'Ada', 'erp:name': 'A. L.', 'shape:seen': true }]);
      assert.deepEqual((await stage('only-crm', 'sink')).map(content), [{ _id: 'm1', 'crm:name': 'Ada', 'crm:tmp': 1, plain: 1, 'rdf:type': '~:acme:x' }]);
    });
  });

  describe('sinks remove namespaces, except the dataset sink', () => {
    test('every non-dataset sink takes them off _id, property names and NI values; remove_namespaces: false keeps them', async () => {
      await pushEntities(hub, 'typed', [{ _id: 'acme:1', 'acme:name': 'Widget', 'rdf:type': '~:acme:x', 'acme:parts': [{ 'acme:id': '~:acme:p1' }] }]);
      await createPipes(
        { _id: 'typed-out', source: { type: 'dataset', dataset: 'typed' }, sink: { type: 'http_endpoint' } },
        { _id: 'typed-keep', source: { type: 'dataset', dataset: 'typed' }, sink: { type: 'http_endpoint' }, remove_namespaces: false },
        { _id: 'typed-copy', source: { type: 'dataset', dataset: 'typed' } },
      );
      const removed = { _id: '1', name: 'Widget', type: '~:x', parts: [{ id: '~:p1' }] };
      assert.deepEqual((await stage('typed-out', 'sink')).map(content), [removed]);
      assert.deepEqual((await stage('typed-out', 'after-transforms')).map(content)[0]?.['rdf:type'], '~:acme:x', 'removed after the last transform');
      assert.deepEqual((await stage('typed-keep', 'sink')).map(content)[0]?.['rdf:type'], '~:acme:x');
      assert.deepEqual((await stage('typed-copy', 'sink')).map(content)[0]?.['rdf:type'], '~:acme:x', 'a dataset sink keeps them');
      const published = await hub.json<JsonObject[]>('/publishers/typed-out/entities');
      assert.deepEqual(published.map(content), [removed], 'the published output is the sink stage');
    });

    test('removeNamespaces is pure and leaves global NIs and plain strings alone', () => {
      const e = { _id: 'a:b:c', 'x:y': 'plain:text', z: '~:q', w: ['~:n:1', 2] } as JsonObject;
      const copy = structuredClone(e);
      assert.deepEqual(removeNamespaces(e), { _id: 'b:c', y: 'plain:text', z: '~:q', w: ['~:1', 2] });
      assert.deepEqual(e, copy, 'the entity given is unchanged');
    });
  });

  describe('$ids', () => {
    test('a pipe does not add $ids to what it writes; the merge source lists the merged identities as NIs', async () => {
      await createPipes(
        { _id: 'left', source: { type: 'embedded', entities: [{ _id: 'l1', key: 'k' }] } },
        { _id: 'right', source: { type: 'embedded', entities: [{ _id: 'r1', key: 'k' }] } },
        { _id: 'both', source: { type: 'merge', version: 2, datasets: ['left l', 'right r'], equality: [['eq', 'l.left:key', 'r.right:key']], identity: 'first' } },
      );
      await runPump(hub, 'left');
      await runPump(hub, 'right');
      const left = await datasetEntities('left');
      assert.equal(left[0]?.['$ids'], undefined, 'no $ids on an entity a pipe wrote');
      await runPump(hub, 'both');
      const [merged] = await datasetEntities('both');
      assert.deepEqual(content(merged!), { _id: 'left:l1', $ids: ['~:left:l1', '~:right:r1'], 'left:key': 'k', 'right:key': 'k' });
    });
  });

  describe('every path that computes a pipe\'s output gives the same answer', () => {
    const TRANSFORM = dtl(['copy', '*'], ['add', 'label', ['concat', '_S.src:name', '!']], ['add', 'rdf:type', ['ni', 'acme', 'thing']]);
    const SAMPLE = [
      { _id: 'a', name: 'Ada' },
      { _id: 'b', name: 'Bob' },
    ];

    test('pump, /entities?stage=sink, the preview, the publisher and the JSON Push receiver', async () => {
      await pushEntities(hub, 'src-data', SAMPLE);
      await createPipes(
        // the receiver: an http_endpoint source adds namespaces by default
        { _id: 'src', source: { type: 'http_endpoint' }, transform: TRANSFORM },
        // the same rules over a dataset, pumped into a dataset (add_namespaces given, so it namespaces like the receiver)
        { _id: 'src-pumped', add_namespaces: true, namespaces: { identity: 'src', property: 'src' }, source: { type: 'dataset', dataset: 'src-data' }, transform: TRANSFORM },
        // and published (a non-dataset sink: namespaces removed)
        { _id: 'src-published', add_namespaces: true, namespaces: { identity: 'src', property: 'src' }, source: { type: 'dataset', dataset: 'src-data' }, transform: TRANSFORM, sink: { type: 'http_endpoint' } },
      );
      await hub.json('/receivers/src/entities', { method: 'POST', json: SAMPLE });
      await runPump(hub, 'src-pumped');
      const expected = [
        { _id: 'src:a', 'src:name': 'Ada', 'src:label': 'Ada!', 'rdf:type': '~:acme:thing' },
        { _id: 'src:b', 'src:name': 'Bob', 'src:label': 'Bob!', 'rdf:type': '~:acme:thing' },
      ];
      const received = byId(await datasetEntities('src'));
      const pumped = byId(await datasetEntities('src-pumped'));
      const stageSink = byId(await stage('src-pumped', 'sink'));
      const preview = byId((await hub.json<{ stages: { sink: JsonObject[] } }>('/pipes/src/preview', { method: 'POST', json: { entities: SAMPLE } })).stages.sink);
      assert.deepEqual(received, expected, 'the receiver');
      assert.deepEqual(pumped, expected, 'the pump');
      assert.deepEqual(stageSink, expected, '/pipes/<id>/entities?stage=sink');
      assert.deepEqual(preview, expected, 'the preview');

      const removed = expected.map((e) => removeNamespaces(e));
      assert.deepEqual(removed[0], { _id: 'a', name: 'Ada', label: 'Ada!', type: '~:thing' });
      const published = byId(await hub.json<JsonObject[]>('/publishers/src-published/entities'));
      const publishedStage = byId(await stage('src-published', 'sink'));
      const publishedPreview = byId((await hub.json<{ stages: { sink: JsonObject[] } }>('/pipes/src-published/preview', { method: 'POST', json: {} })).stages.sink);
      assert.deepEqual(published, removed, 'the publisher');
      assert.deepEqual(publishedStage, removed, 'the sink stage of the publishing pipe');
      assert.deepEqual(publishedPreview, removed, 'its preview');
    });
  });

});

describe('the documented defaults', () => {
  const none = (): undefined => undefined;
  test('add_namespaces: true for embedded, sql, csv, json, http_endpoint, ldap and kafka sources (with namespaced identifiers on), overridable', () => {
    for (const type of ['embedded', 'sql', 'csv', 'json', 'http_endpoint', 'ldap', 'kafka']) assert.equal(addsNamespaces({ source: { type } }, true, none), true, type);
    for (const type of ['dataset', 'merge', 'union_datasets', 'rest']) assert.equal(addsNamespaces({ source: { type } }, true, none), false, type);
    assert.equal(addsNamespaces({ source: { type: 'embedded' } }, false, none), false, 'off without namespaced identifiers');
    assert.equal(addsNamespaces({ source: { type: 'dataset' }, add_namespaces: true }, false, none), true, 'the pipe says so');
    assert.equal(addsNamespaces({ source: { type: 'sql', add_namespaces: false } }, true, none), false, 'the source says so');
    const conditional = { source: { type: 'conditional', condition: '$ENV(node-env)', alternatives: { prod: { type: 'dataset', dataset: 'x' }, test: { type: 'embedded' } } } };
    assert.equal(addsNamespaces(conditional, true, () => 'test'), true, 'the alternative the condition picks');
    assert.equal(addsNamespaces(conditional, true, () => 'prod'), false);
  });

  test('remove_namespaces: true for every sink but the dataset sink (with namespaced identifiers on), overridable', () => {
    for (const type of ['sql', 'rest', 'json', 'elasticsearch', 'solr', 'mail', 'sms', 'kafka', 'csv_endpoint', 'http_endpoint']) {
      assert.equal(removesNamespaces({ sink: { type } }, true), true, type);
    }
    assert.equal(removesNamespaces({ sink: { type: 'dataset' } }, true), false);
    assert.equal(removesNamespaces({}, true), false, 'the default sink is a dataset');
    assert.equal(removesNamespaces({ sink: { type: 'sql' } }, false), false, 'off without namespaced identifiers');
    assert.equal(removesNamespaces({ sink: { type: 'sql', remove_namespaces: false } }, true), false);
    assert.equal(removesNamespaces({ sink: { type: 'dataset' }, remove_namespaces: true }, true), true);
  });
});

describe('datahub test on the namespaces project (expected files written by hand from the documented rules)', () => {
  const CLI = join(REPO, 'bin', 'datahub.js');
  const runCli = (args: string[]): Promise<{ code: number | null; out: string }> =>
    new Promise((done, fail) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', fail);
      child.on('close', (code) => {
        clearTimeout(timer);
        done({ code, out });
      });
    });

  test('it passes: inbound pipes, a merge with hops, outbound pipes with non-dataset sinks (one checked as published CSV)', async () => {
    const r = await runCli(['test', PROJECT]);
    assert.equal(r.code, 0, r.out);
    for (const name of ['company-csv', 'crm-company', 'crm-person', 'erp-employee', 'legacy-feed', 'person', 'person-out']) assert.match(r.out, new RegExp(`^✔ ${name}$`, 'm'));
    assert.match(r.out, /^7 passed, 0 failed$/m);
  });

  test('unqualified references match in every namespace end to end (namespaces-unqualified: paths, hops, merge, $ENV condition)', async () => {
    const r = await runCli(['test', UNQUALIFIED]);
    assert.equal(r.code, 0, r.out);
    for (const name of ['crm-contact', 'order-customer', 'person', 'person-orders', 'shop-customer', 'shop-order']) assert.match(r.out, new RegExp(`^✔ ${name}$`, 'm'));
    assert.match(r.out, /^6 passed, 0 failed$/m);
  });

  test('as the client judges deletes: with ignore_deletes a deleted entity counts where the expected file has it deleted, and must then match', async () => {
    const dir = tempDir('datahub-ns-project-');
    try {
      cpSync(PROJECT, dir, { recursive: true });
      const pipePath = join(dir, 'pipes', 'legacy-feed.conf.json');
      const pipe = JSON.parse(readFileSync(pipePath, 'utf8')) as { source: { entities: JsonObject[] } };
      pipe.source.entities.push({ _id: 'x3', _deleted: true, code: 'Z' });
      writeFileSync(pipePath, JSON.stringify(pipe));
      const expectedPath = join(dir, 'expected', 'legacy-feed.json');
      const live = { _id: 'x1', code: 'A', seen: true };
      const check = async (expected: JsonObject[]): Promise<{ code: number | null; out: string }> => {
        writeFileSync(expectedPath, JSON.stringify(expected));
        return runCli(['test', dir, '--pipe', 'legacy-feed']);
      };
      assert.equal((await check([live])).code, 0, 'an unexpected delete in the output is left out');
      assert.equal((await check([live, { _id: 'x3', _deleted: true, code: 'Z', seen: true }])).code, 0, 'an expected delete is compared');
      const wrong = await check([live, { _id: 'x3', _deleted: true, code: 'other', seen: true }]);
      assert.equal(wrong.code, 1, wrong.out);
      assert.match(wrong.out, /x3: differs\n {8}code:/);
    } finally {
      removeDir(dir);
    }
  });

  test('with namespaced identifiers off in the node metadata, the same project fails (the expected files depend on them)', async () => {
    const dir = tempDir('datahub-ns-project-');
    try {
      cpSync(PROJECT, dir, { recursive: true });
      const md = join(dir, 'node-metadata.conf.json');
      writeFileSync(md, JSON.stringify({ ...(JSON.parse(readFileSync(md, 'utf8')) as JsonObject), namespaced_identifiers: false }));
      const r = await runCli(['test', dir]);
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, /^✘ crm-person$/m);
      assert.match(r.out, /^✘ person-out$/m);
      assert.match(r.out, /^✔ legacy-feed$/m, 'the pipe that had them off anyway still passes');
    } finally {
      removeDir(dir);
    }
  });
});

test('add_namespaces: entities of one shape in a row, then another shape, each get their own names and values', () => {
  const ns = { enabled: true, propertyNamespace: 'crm', identityNamespace: 'crm' } as Parameters<typeof addNamespaces>[1];
  const a = { _id: '1', name: 'Ann', $meta: { raw: true }, _updated: 4, home: { city: 'Oslo' }, tags: [{ t: 'x' }] };
  const b = { _id: '2', name: 'Bo', $meta: { raw: false }, _updated: 5, home: { city: 'Bergen' }, tags: [] };
  // Worked out from the rules: "_" and "$" names stay, "$" values are left alone, _id goes into the identity
  // namespace, other names (nested ones too) into the property namespace; the maintained `_updated` is dropped.
  const expectA = { _id: 'crm:1', 'crm:name': 'Ann', $meta: { raw: true }, 'crm:home': { 'crm:city': 'Oslo' }, 'crm:tags': [{ 'crm:t': 'x' }] };
  const expectB = { _id: 'crm:2', 'crm:name': 'Bo', $meta: { raw: false }, 'crm:home': { 'crm:city': 'Bergen' }, 'crm:tags': [] };
  assert.deepEqual(addNamespaces(a, ns, MAINTAINED_PROPERTIES), expectA);
  assert.deepEqual(addNamespaces(b, ns, MAINTAINED_PROPERTIES), expectB);
  // Same keys, but without a drop list this time: `_updated` is kept.
  assert.deepEqual(addNamespaces(b, ns), { ...expectB, _updated: 5 });
  // Another shape, then the first again; "__proto__" (an "_" name) stays an ordinary property; a tagged id is left.
  const odd = JSON.parse('{"_id":"~:other:3","__proto__":{"x":1},"other:n":1}') as JsonObject;
  const out = addNamespaces(odd, ns);
  assert.deepEqual(Object.keys(out), ['_id', '__proto__', 'other:n']);
  assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { 'crm:x': 1 });
  assert.equal(out['_id'], '~:other:3');
  assert.deepEqual(addNamespaces(a, ns, MAINTAINED_PROPERTIES), expectA);
  assert.deepEqual(addNamespaces({ ...a, _id: 7 }, { ...ns, propertyNamespace: null }), { _id: 7, name: 'Ann', $meta: { raw: true }, _updated: 4, home: { city: 'Oslo' }, tags: [{ t: 'x' }] });
});

// Search across configs (issue 17.8): which pipes read, write or join a dataset, call a DTL function, use a system, a
// secret or an env variable — the pure search over configuration entities, and GET /api/config-search on a real hub.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configReferences, pathText, searchConfigs, type ConfigSearchHit } from '../../../hub-core/config/index.js';
import type { ConfigEntity } from '../../../hub-core/config/index.js';
import { expectError } from '../../helpers/api.js';
import { useHub } from '../../helpers/hub-process.js';

const FUNCTIONS = new Set(['copy', 'add', 'concat', 'hops', 'eq', 'lookup-entity', 'list', 'apply-hops']);

const SYSTEM: ConfigEntity = {
  _id: 'crm', type: 'system:url', base_url: '$ENV(crm-url)/api', authentication: 'basic', username: 'svc', password: '$SECRET(crm-password)',
};
const READER: ConfigEntity = {
  _id: 'person-crm', type: 'pipe',
  source: { type: 'json', system: 'crm', url: '/persons' },
  transform: {
    type: 'dtl',
    rules: {
      default: [
        ['copy', '_id'],
        ['add', 'name', ['concat', '_S.first', ' ', '_S.last']],
        ['add', 'orders', ['hops', { datasets: ['erp-order eo'], where: ['eq', 'eo.person', '_S._id'] }]],
      ],
    },
  },
};
const MERGER: ConfigEntity = {
  _id: 'person-merged', type: 'pipe',
  source: { type: 'merge', datasets: ['person-crm pc', 'erp-person ep'], equality: [] },
  transform: [{ type: 'dtl', rules: { default: [['copy', '*'], ['add', 'code', ['lookup-entity', 'code-table', '_S.code']]] } }],
  sink: { type: 'dataset', dataset: 'person' },
  pump: { schedule_interval: '$ENV(interval)' },
};
const EMBEDDED: ConfigEntity = {
  _id: 'codes', type: 'pipe',
  source: { type: 'embedded', entities: [{ _id: 'x', dataset: 'not-a-reference', v: '$SECRET(in-data)' }] },
};

const names = (hits: ConfigSearchHit[]): string[] => hits.map((h) => `${h.kind}:${h.id}`);

describe('the references a configuration makes', () => {
  test('a pipe reads its source datasets and systems, joins with hops and lookup-entity, calls functions and writes its sink', () => {
    const refs = configReferences(MERGER, FUNCTIONS).map((r) => `${r.kind} ${r.name} ${r.role} ${r.where}`);
    assert.deepEqual(refs, [
      'dataset person-crm reads source.datasets[0]',
      'dataset erp-person reads source.datasets[1]',
      'function copy calls transform[0].rules.default[0]',
      'function add calls transform[0].rules.default[1]',
      'function lookup-entity calls transform[0].rules.default[1][2]',
      'dataset code-table joins transform[0].rules.default[1][2][1]',
      'dataset person writes sink.dataset',
      'env interval uses pump.schedule_interval',
    ]);
    const reader = configReferences(READER, FUNCTIONS).map((r) => `${r.kind} ${r.name} ${r.role} ${r.where}`);
    assert.ok(reader.includes('system crm uses source.system'));
    assert.ok(reader.includes('dataset erp-order joins transform.rules.default[2][2][1].datasets[0]'), reader.join('\n'));
    assert.ok(reader.includes('function concat calls transform.rules.default[1][2]'));
    // No sink: the pipe writes the dataset named by its id (an implied default: no place in the file).
    assert.ok(reader.includes('dataset person-crm writes '), reader.join('\n'));
  });

  test('a system uses its variables and secrets; an embedded source\'s entities are data, not references', () => {
    assert.deepEqual(configReferences(SYSTEM, FUNCTIONS).map((r) => `${r.kind} ${r.name} ${r.where}`), ['env crm-url base_url', 'secret crm-password password']);
    const refs = configReferences(EMBEDDED, FUNCTIONS).map((r) => `${r.kind} ${r.name}`);
    assert.ok(!refs.includes('dataset not-a-reference'), refs.join(', '));
    assert.ok(refs.includes('dataset codes'), 'the default sink dataset');
  });

  test('paths read as text', () => {
    assert.equal(pathText(['source', 'datasets', 1]), 'source.datasets[1]');
    assert.equal(pathText(['metadata', 'a b', 0]), 'metadata["a b"][0]');
  });
});

describe('searching', () => {
  const all = [EMBEDDED, SYSTEM, MERGER, READER];
  test('which pipes read or join a dataset: by kind, exact or contained, case-insensitive', () => {
    assert.deepEqual(names(searchConfigs(all, { q: 'person-crm', kinds: ['dataset'], exact: true }, FUNCTIONS)), ['pipe:person-crm', 'pipe:person-merged']);
    assert.deepEqual(names(searchConfigs(all, { q: 'ERP-', kinds: ['dataset'] }, FUNCTIONS)), ['pipe:person-crm', 'pipe:person-merged']);
    const hit = searchConfigs(all, { q: 'erp-order', kinds: ['dataset'] }, FUNCTIONS)[0]!;
    assert.equal(hit.id, 'person-crm');
    assert.deepEqual(hit.matches.map((m) => m.role), ['joins']);
    assert.deepEqual(hit.matches[0]!.path, ['transform', 'rules', 'default', 2, 2, 1, 'datasets', 0]);
  });

  test('a function, a system, a secret, a variable; systems after pipes; nothing found is an empty list', () => {
    assert.deepEqual(names(searchConfigs(all, { q: 'concat', kinds: ['function'], exact: true }, FUNCTIONS)), ['pipe:person-crm']);
    assert.deepEqual(names(searchConfigs(all, { q: 'crm', kinds: ['system'], exact: true }, FUNCTIONS)), ['pipe:person-crm']);
    assert.deepEqual(names(searchConfigs(all, { q: 'crm-password', kinds: ['secret'] }, FUNCTIONS)), ['system:crm']);
    assert.deepEqual(names(searchConfigs(all, { q: '', kinds: ['env'] }, FUNCTIONS)), ['pipe:person-merged', 'system:crm']);
    assert.deepEqual(names(searchConfigs(all, { q: 'crm' }, FUNCTIONS)), ['pipe:person-crm', 'pipe:person-merged', 'system:crm']);
    assert.deepEqual(searchConfigs(all, { q: 'nowhere' }, FUNCTIONS), []);
  });
});

describe('GET /api/config-search', () => {
  const h = useHub();
  test('answers from the stored configuration with the DTL catalogue\'s functions', async () => {
    assert.equal((await h.fetch('/config', { method: 'PUT', json: [SYSTEM, READER, MERGER, EMBEDDED] })).status, 200);
    const byDataset = await h.json<ConfigSearchHit[]>('/config-search?q=person-crm&kind=dataset&exact=true');
    assert.deepEqual(byDataset.map((x) => [x.id, x.matches.map((m) => `${m.role} ${m.where}`)]), [
      ['person-crm', ['writes ']],
      ['person-merged', ['reads source.datasets[0]']],
    ]);
    const byFunction = await h.json<ConfigSearchHit[]>('/config-search?q=hops&kind=function&exact=true');
    assert.deepEqual(byFunction.map((x) => x.id), ['person-crm']);
    const bySecret = await h.json<ConfigSearchHit[]>('/config-search?q=crm-password&kind=secret,env');
    assert.deepEqual(bySecret.map((x) => `${x.kind}:${x.id}`), ['system:crm']);
    assert.deepEqual(await h.json('/config-search?q=zzz'), []);
  });

  test('an unknown kind is a 400 that names the kinds', async () => {
    const body = await expectError(await h.fetch('/config-search?q=x&kind=dataset,pipes'), 400, 'unknown kind');
    assert.match(`${body.error} ${String(body.detail)}`, /kind/);
  });
});

// The config JSON Schema served at GET /api/config-schema: every real project file validates, and realistic
// mistakes are rejected at the path a user would look at.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { startHub, removeDir, REPO, type HubProcess } from '../../helpers/hub-process.js';

type Json = Record<string, unknown>;

let hub: HubProcess;
let validate: ValidateFunction;

before(async () => {
  hub = await startHub();
  const res = await hub.fetch('/config-schema');
  assert.equal(res.status, 200);
  const schema = (await res.json()) as Json;
  // Editors read "enumDescriptions"; for ajv it is an annotation.
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, keywords: ['enumDescriptions'] });
  validate = ajv.compile(schema);
});

after(async () => {
  if (!hub) return;
  await hub.stop();
  removeDir(hub.dataDir);
});

function projectConfigFiles(): string[] {
  const roots = [join(REPO, 'resources', 'sample-workspace', 'node')];
  const projects = join(REPO, 'test', 'fixtures', 'projects');
  for (const name of readdirSync(projects)) roots.push(join(projects, name, 'node'));
  const files: string[] = [];
  for (const root of roots) {
    for (const kind of ['pipes', 'systems']) {
      const dir = join(root, kind);
      if (!existsSync(dir)) continue;
      for (const f of readdirSync(dir)) if (f.endsWith('.conf.json')) files.push(join(dir, f));
    }
  }
  return files;
}

function errorsOf(config: Json): ErrorObject[] {
  return validate(config) ? [] : (validate.errors ?? []);
}

const show = (errors: readonly ErrorObject[]): string => errors.map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n');

test('the schema needs no token-less access and is JSON Schema draft-07', async () => {
  const anonymous = await fetch(`${hub.api}/config-schema`);
  assert.equal(anonymous.status, 401, 'the schema is behind the same authentication as the rest of /api');
  const schema = await hub.json<Json>('/config-schema');
  assert.equal(schema['$schema'], 'http://json-schema.org/draft-07/schema#');
});

test('every pipe and system of the sample workspace and the test projects validates', () => {
  const files = projectConfigFiles();
  assert.ok(files.length >= 15, `expected the project files, found ${files.length}`);
  for (const file of files) {
    const config = JSON.parse(readFileSync(file, 'utf8')) as Json;
    const errors = errorsOf(config);
    assert.deepEqual(errors, [], `${file}:\n${show(errors)}`);
  }
});

test('realistic configurations beyond the fixtures validate', () => {
  const good: Json[] = [
    {
      _id: 'orders',
      type: 'pipe',
      source: { type: 'union_datasets', datasets: ['orders-a', 'orders-b'], prefix_ids: false, custom_option: 1 },
      transform: [
        { type: 'dtl', rules: { default: [['copy', '*'], ['apply', 'line', '_S.lines']], line: [['add', 'sku', '_S.sku']] } },
        { type: 'dtl', rules: { default: [['filter', ['is-not-null', '_S.sku']]] } },
      ],
      sink: { type: 'json', system: 'erp', url: 'orders', headers: { 'x-key': '$SECRET(erp-key)' } },
      pump: { cron_expression: '0 3 * * *', mode: 'scheduled', run_at_startup: true, max_retries_per_entity: 3, dead_letter_dataset: 'orders-dead' },
      metadata: { '$config-group': 'erp', tags: ['anything'] },
      add_namespaces: false,
    },
    { _id: 'interval-env', type: 'pipe', source: { dataset: 'x' }, pump: { schedule_interval: '$ENV(interval)' } },
    { _id: 'db', type: 'system:postgresql', host: 'db.local', port: 5432, database: 'crm', username: 'u', password: '$SECRET(pw)' },
    { _id: 'svc', type: 'system:microservice', docker: { image: 'acme/svc:1', port: 5000 } },
    { _id: 'odd', type: 'system:something-new', whatever: true },
  ];
  for (const config of good) {
    const errors = errorsOf(config);
    assert.deepEqual(errors, [], `${String(config['_id'])}:\n${show(errors)}`);
  }
});

interface Mistake {
  what: string;
  config: Json;
  /** The instancePath and the keyword of an error the validator must report. */
  path: string;
  keyword: string;
  /** Optional: a detail the error must carry (the misspelled key, the missing property). */
  param?: [string, unknown];
}

const pipe = (extra: Json): Json => ({ _id: 'p', type: 'pipe', source: { type: 'dataset', dataset: 'd' }, ...extra });

const MISTAKES: Mistake[] = [
  { what: 'misspelled top-level key', config: { ...pipe({}), sourse: { type: 'dataset' } }, path: '', keyword: 'additionalProperties', param: ['additionalProperty', 'sourse'] },
  { what: 'misspelled pump option', config: pipe({ pump: { schedule_intervall: 60 } }), path: '/pump', keyword: 'additionalProperties', param: ['additionalProperty', 'schedule_intervall'] },
  { what: 'interval as a plain string', config: pipe({ pump: { schedule_interval: '60' } }), path: '/pump/schedule_interval', keyword: 'pattern' },
  { what: 'unknown pump mode', config: pipe({ pump: { mode: 'auto' } }), path: '/pump/mode', keyword: 'enum' },
  { what: 'unknown source type', config: pipe({ source: { type: 'datset', dataset: 'd' } }), path: '/source/type', keyword: 'enum' },
  { what: 'dataset source without a dataset', config: pipe({ source: { type: 'dataset', datset: 'd' } }), path: '/source', keyword: 'required', param: ['missingProperty', 'dataset'] },
  { what: 'json source without a system', config: pipe({ source: { type: 'json', url: 'x' } }), path: '/source', keyword: 'required', param: ['missingProperty', 'system'] },
  { what: 'conditional alternative broken', config: pipe({ source: { type: 'conditional', condition: '$ENV(node-env)', alternatives: { test: { type: 'embedded' } } } }), path: '/source/alternatives/test', keyword: 'required', param: ['missingProperty', 'entities'] },
  { what: 'rules without a default rule set', config: pipe({ transform: { type: 'dtl', rules: { main: [] } } }), path: '/transform/rules', keyword: 'required', param: ['missingProperty', 'default'] },
  // (a rule set written as one transform, "default": ["copy", "*"], is valid: issue 13)
  { what: 'a rule step that is not a list', config: pipe({ transform: { type: 'dtl', rules: { default: [['copy', '*'], 'copy'] } } }), path: '/transform/rules/default/1', keyword: 'type' },
  { what: 'indexes as a string', config: pipe({ sink: { type: 'dataset', indexes: '_S.x' } }), path: '/sink/indexes', keyword: 'type' },
  { what: 'run_at_startup as "yes"', config: pipe({ pump: { run_at_startup: 'yes' } }), path: '/pump/run_at_startup', keyword: 'pattern' },
  { what: 'type "pipes"', config: { _id: 'p', type: 'pipes', source: { dataset: 'd' } }, path: '/type', keyword: 'pattern' },
  { what: 'system type without the "system:" prefix', config: { _id: 's', type: 'url', base_url: 'http://x/' }, path: '/type', keyword: 'pattern' },
  { what: 'base_url without a scheme', config: { _id: 's', type: 'system:url', base_url: 'example.org/api' }, path: '/base_url', keyword: 'pattern' },
  { what: 'registry keywords as one string', config: pipe({ metadata: { registry: { keywords: 'people, towns' } } }), path: '/metadata/registry/keywords', keyword: 'type' },
  { what: 'a registry keyword that is not a string', config: pipe({ metadata: { registry: { keywords: ['people', 42] } } }), path: '/metadata/registry/keywords/1', keyword: 'type' },
  { what: 'a registry licence that is not text', config: pipe({ metadata: { registry: { license: ['CC0-1.0'] } } }), path: '/metadata/registry/license', keyword: 'type' },
  { what: 'database port as text', config: { _id: 's', type: 'system:mysql', port: 'three thousand' }, path: '/port', keyword: 'pattern' },
];

test('metadata.registry: the editor suggests SPDX licences, and any licence text and a list of keywords validate', async () => {
  type Props<T> = { properties: T };
  const schema = await hub.json<{ definitions: { pipe: Props<{ metadata: Props<{ registry: Props<Record<string, { examples?: string[] }>> }> }> } }>('/config-schema');
  const registry = schema.definitions.pipe.properties.metadata.properties.registry.properties;
  assert.deepEqual(Object.keys(registry).sort(), ['description', 'keywords', 'license', 'name']);
  for (const id of ['CC0-1.0', 'CC-BY-4.0', 'ODbL-1.0']) assert.ok(registry['license']?.examples?.includes(id), `the licence completion offers ${id}`);
  for (const license of ['CC-BY-4.0', 'Free for non-commercial use, ask us otherwise']) {
    const errors = errorsOf(pipe({ metadata: { registry: { name: 'People', description: 'who', keywords: ['people', 'towns'], license } } }));
    assert.deepEqual(errors, [], show(errors));
  }
});

for (const m of MISTAKES) {
  test(`rejected with a useful path: ${m.what}`, () => {
    const errors = errorsOf(m.config);
    assert.ok(errors.length > 0, `${m.what}: accepted`);
    const hit = errors.find((e) => e.instancePath === m.path && e.keyword === m.keyword);
    assert.ok(hit, `${m.what}: expected ${m.keyword} at "${m.path}", got:\n${show(errors)}`);
    if (m.param) assert.equal((hit.params as Record<string, unknown>)[m.param[0]], m.param[1], `${m.what}: ${show([hit])}`);
  });
}

test('every "new pipe" template validates against the schema, and the hub stores it as a valid pipe that runs', async () => {
  const templates = await hub.json<{ id: string; label: string; needsDataset: boolean; config: Json }[]>('/pipe-templates');
  assert.deepEqual(
    templates.map((t) => t.id),
    ['dataset', 'embedded', 'http_endpoint'],
  );
  const fill = (v: unknown, id: string): unknown =>
    v === '{pipe}' ? id : v === '{dataset}' ? 'template-src' : Array.isArray(v) ? v.map((x) => fill(x, id)) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, id)])) : v;
  for (const t of templates) {
    const config = fill(t.config, `from-${t.id}`) as Json;
    assert.equal(validate(config), true, `${t.id}: ${JSON.stringify(validate.errors)}`);
    await hub.json('/pipes', { method: 'POST', json: [config] });
    const info = await hub.json<{ runtime: { 'is-valid-config': boolean; 'supported-operations': string[] } }>(`/pipes/from-${t.id}`);
    assert.equal(info.runtime['is-valid-config'], true, t.id);
    assert.equal(info.runtime['supported-operations'].includes('start'), t.id !== 'http_endpoint', `${t.id}: a receiver's pump has nothing to start`);
  }
});

test('configuration the service accepts validates too: $ENV pump mode, one-transform rule sets, conditional and emit_children transforms, indexes "$ids", the mail sink', () => {
  const configs: Json[] = [
    pipe({ pump: { mode: '$ENV(pump-mode)' } }),
    pipe({ transform: { type: 'dtl', rules: { default: ['copy', '*'] } } }),
    pipe({
      transform: [
        { type: 'conditional', condition: '$ENV(node-env)', alternatives: { prod: { type: 'rest', system: 's', operation: 'o' }, test: [{ type: 'dtl', rules: { default: [['copy', '*']] } }] } },
        { type: 'emit_children' },
      ],
    }),
    pipe({ sink: { type: 'dataset', indexes: '$ids' } }),
    pipe({ sink: { type: 'mail', system: 'our-smtp-server', body_template: 'Body: {{ m }}', subject_template: 'Subject: {{ s }}', recipients: 'foo@bar.com', mail_from: 'all@of.us' } }),
  ];
  for (const config of configs) assert.deepEqual(errorsOf(config), [], `${JSON.stringify(config)}:\n${show(errorsOf(config))}`);
});

// Lineage of entities across pipes (issue 36) on a project of our own (test/fixtures/projects/lineage): a merge of two
// sources, a hops join and an emit_children step. The expected sources, steps and reasons are worked out by hand from
// the pipes' configuration and the docs each pipe's `_note` cites.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir, REPO, type HubProcess } from '../../helpers/hub-process.js';
import { expectError, pushEntities, runPump } from '../../helpers/api.js';

type Json = Record<string, unknown>;
interface Ref {
  dataset: string;
  entity: string;
  offset: number | null;
}
interface Origin {
  pipe: string;
  step: string;
  at: string | null;
  source: (Ref & { property: string }) | null;
}
interface UpStep {
  depth: number;
  pipe: string;
  output: Ref;
  source: Ref | null;
  contributors: Ref[];
  joined: { dataset: string; entities: string[] }[];
  parent: string | null;
  via: string;
  why: { reason: string; detail: Json | null } | null;
  properties?: Record<string, Origin>;
}
interface DownStep {
  depth: number;
  pipe: string;
  input: Ref;
  role: string;
  output: Ref;
  'from-this-version': boolean | null;
}
interface Answer<S> {
  steps: S[];
  cut: string[];
}

const PROJECT = join(REPO, 'test', 'fixtures', 'projects', 'lineage');
let hub: HubProcess;

before(async () => {
  hub = await startHub();
  const pipes = readdirSync(join(PROJECT, 'node', 'pipes')).map((f) => JSON.parse(readFileSync(join(PROJECT, 'node', 'pipes', f), 'utf8')) as Json);
  const input = JSON.parse(readFileSync(join(PROJECT, 'input.json'), 'utf8')) as Record<string, Json[]>;
  for (const [dataset, entities] of Object.entries(input)) if (!dataset.startsWith('_')) await pushEntities(hub, dataset, entities);
  await hub.json('/pipes', { method: 'POST', json: pipes });
  for (const id of ['global-person', 'person-company', 'person-roles']) {
    const r = await runPump<{ status: string; reason_why_stopped: string | null }>(hub, id);
    assert.equal(r.status, 'completed', `${id}: ${r.reason_why_stopped ?? ''}`);
  }
});

after(async () => {
  if (!hub) return;
  await hub.stop();
  removeDir(hub.dataDir);
});

const lineage = <S>(dataset: string, id: string, query: string): Promise<Answer<S>> =>
  hub.json<Answer<S>>(`/datasets/${encodeURIComponent(dataset)}/entities/${encodeURIComponent(id)}/lineage?${query}`);

const offsetOf = async (dataset: string, id: string): Promise<number> =>
  (await hub.json<Json>(`/datasets/${encodeURIComponent(dataset)}/entity?entity_id=${encodeURIComponent(id)}`))['_updated'] as number;

test('upstream of an emitted child: its parent, the join and both members of the merge, in that order', async () => {
  const { steps, cut } = await lineage<UpStep>('person-roles', 'ann-admin', 'direction=up');
  assert.deepEqual(cut, []);
  assert.deepEqual(
    steps.map((s) => [s.depth, s.pipe, `${s.output.dataset}/${s.output.entity}`]),
    [
      [0, 'person-roles', 'person-roles/ann-admin'],
      [1, 'person-company', 'person-company/ann'],
      [2, 'global-person', 'global-person/ann'],
    ],
  );
  const [roles, company, merged] = steps as [UpStep, UpStep, UpStep];
  // emit_children: the child came out of the $children of the entity the first transform made of person-company/ann.
  assert.equal(roles.via, 'emit_children');
  assert.equal(roles.parent, 'ann');
  assert.deepEqual(roles.source, { dataset: 'person-company', entity: 'ann', offset: await offsetOf('person-company', 'ann') });
  assert.equal(roles.properties?.['role']?.step, 'add', JSON.stringify(roles));
  assert.equal(roles.properties?.['role']?.at, '$.transform[0].rules.default[0]');
  // hops: person-company/ann joined company c1 (its company), and nothing else.
  assert.deepEqual(company.joined.map((j) => [j.dataset, j.entities]), [['company', ['c1']]]);
  assert.deepEqual(company.source, { dataset: 'global-person', entity: 'ann', offset: await offsetOf('global-person', 'ann') });
  // merge: crm-person/ann and hr-person/h-1 share the email; the merged entity has crm's id (identity first).
  assert.deepEqual(
    merged.contributors.map((c) => [c.dataset, c.entity]),
    [
      ['crm-person', 'ann'],
      ['hr-person', 'h-1'],
    ],
  );
  assert.equal(merged.contributors[1]!.offset, await offsetOf('hr-person', 'h-1'));
  assert.equal(merged.why?.reason, 'read', 'a merge source is read whole every run');
  // Without a transform, a merged property comes from the member that has it.
  assert.deepEqual(merged.properties?.['title']?.source, { dataset: 'hr-person', entity: 'h-1', offset: merged.contributors[1]!.offset, property: 'title' });
  assert.deepEqual(merged.properties?.['name']?.source, { dataset: 'crm-person', entity: 'ann', offset: merged.contributors[0]!.offset, property: 'name' });
});

test('each property of the joined entity names the rule that set it and the source property it came from', async () => {
  const { steps } = await lineage<UpStep>('person-company', 'ann', 'direction=up&depth=1');
  assert.equal(steps.length, 1);
  assert.equal(steps[0]!.why?.reason, 'new', 'the first run saw global-person/ann for the first time');
  assert.ok(steps.length === 1 && (await lineage<UpStep>('person-company', 'ann', 'direction=up&depth=1')).cut.length === 1, 'the walk says it was cut at depth 1');
  const props = steps[0]!.properties!;
  const src = { dataset: 'global-person', entity: 'ann', offset: await offsetOf('global-person', 'ann') };
  assert.deepEqual(props['name'], { pipe: 'person-company', step: 'copy', at: '$.transform.rules.default[0]', source: { ...src, property: 'name' } });
  assert.deepEqual(props['contact'], { pipe: 'person-company', step: 'rename', at: '$.transform.rules.default[2]', source: { ...src, property: 'email' } });
  assert.equal(props['company_name']?.step, 'add');
  assert.equal(props['company_name']?.at, '$.transform.rules.default[3]');
});

test('downstream of a joined company and of a merge member: the entities made from them, step by step', async () => {
  const fromCompany = await lineage<DownStep>('company', 'c1', 'direction=down');
  assert.deepEqual(
    fromCompany.steps.map((s) => [s.depth, s.pipe, s.role, `${s.output.dataset}/${s.output.entity}`]),
    [
      [0, 'person-company', 'joined', 'person-company/ann'],
      [1, 'person-roles', 'source', 'person-roles/ann-admin'],
      [1, 'person-roles', 'source', 'person-roles/ann-dev'],
    ],
  );
  const fromCrm = await lineage<DownStep>('crm-person', 'ann', 'direction=down');
  assert.deepEqual(
    fromCrm.steps.map((s) => [s.depth, s.pipe, s.role, `${s.output.dataset}/${s.output.entity}`, s['from-this-version']]),
    [
      [0, 'global-person', 'merged', 'global-person/ann', true],
      [1, 'person-company', 'source', 'person-company/ann', true],
      [2, 'person-roles', 'source', 'person-roles/ann-admin', true],
      [2, 'person-roles', 'source', 'person-roles/ann-dev', true],
    ],
  );
  // Bob has no roles: nothing comes out of person-roles for him.
  const fromBob = await lineage<DownStep>('crm-person', 'bob', 'direction=down');
  assert.deepEqual(fromBob.steps.map((s) => s.pipe), ['global-person', 'person-company']);
});

test('a changed company is the reason its person is processed again: in the run summary and the lineage', async () => {
  await pushEntities(hub, 'company', [{ _id: 'c1', name: 'Acme Inc' }]);
  const r = await runPump<{ processed: number }>(hub, 'person-company');
  assert.equal(r.processed, 1, 'only the person that joined c1');
  const events = await hub.json<Json[]>('/pipes/person-company/log?reverse=true');
  const completed = events.find((e) => e['event_type'] === 'pump-completed');
  assert.deepEqual(completed?.['processed_reasons'], { 'dependency:company': 1 });
  const { steps } = await lineage<UpStep>('person-company', 'ann', 'direction=up&depth=1');
  assert.equal(steps[0]!.why?.reason, 'dependency');
  assert.deepEqual(steps[0]!.why?.detail, { joined: [{ dataset: 'company', key: '"c1"', ids: ['c1'] }] });
  // The first run's summary counted the new entities.
  const first = events.filter((e) => e['event_type'] === 'pump-completed').at(-1);
  assert.deepEqual(first?.['processed_reasons'], { new: 3 });
});

test('bad requests are 4xx JSON errors, and the route needs the token', async () => {
  const base = '/datasets/person-company/entities/ann/lineage';
  await expectError(await hub.fetch(base), 400, 'no direction');
  await expectError(await hub.fetch(`${base}?direction=sideways`), 400, 'an unknown direction');
  await expectError(await hub.fetch(`${base}?direction=up&depth=0`), 400, 'depth 0');
  await expectError(await hub.fetch(`${base}?direction=up&depth=11`), 400, 'depth past the bound');
  await expectError(await hub.fetch(`${base}?direction=up&depth=two`), 400, 'a depth that is no number');
  await expectError(await hub.fetch('/datasets/nowhere/entities/ann/lineage?direction=up'), 404, 'an unknown dataset');
  await expectError(await hub.fetch('/datasets/person-company/entities/nobody/lineage?direction=down'), 404, 'an unknown entity');
  const res = await fetch(`${hub.url}/api${base}?direction=up`);
  assert.equal(res.status, 401);
});

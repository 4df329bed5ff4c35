// Tracing over HTTP and on the command line: `"trace": true` on POST /pipes/<id>/preview and /dtl/preview, tracing
// the source entity of an output entity (`"source-of"`), joins against the hub's own datasets, bad requests as 4xx,
// and `datahub dtl run --trace` in words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, REPO, useHub } from '../../helpers/hub-process.js';
import { expectError, pushEntities, runPump } from '../../helpers/api.js';
import type { JsonObject } from '../../../hub-core/base/index.js';
import type { EntityTrace, TransformTrace } from '../../../hub-core/dtl/index.js';
import type { PipePreview } from '../../../hub-core/preview/index.js';

const hub = useHub();

const TRANSFORM = {
  type: 'dtl',
  rules: {
    default: [
      ['copy', '_id'],
      ['add', 'name', ['upper', '_S.name']],
      ['add', 'city', ['first', ['hops', { datasets: ['cities c'], where: ['eq', '_S.city', 'c._id'], return: 'c.name' }]]],
      ['filter', ['gt', '_S.age', 17]],
    ],
  },
};

test('POST /pipes/<id>/preview with "trace": each sample entity\'s trace, equal to what the preview output', async () => {
  await pushEntities(hub, 'cities', [{ _id: 'osl', name: 'Oslo' }]);
  await pushEntities(hub, 'people', [
    { _id: 'ann', name: 'Ann', city: 'osl', age: 40 },
    { _id: 'kid', name: 'Kid', city: 'osl', age: 5 },
  ]);
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'people-out', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, transform: TRANSFORM }] });
  const preview = await hub.json<PipePreview>('/pipes/people-out/preview', { method: 'POST', json: { trace: true } });
  assert.equal(preview.results.length, 2);
  const [ann, kid] = preview.results.map((r) => (r.trace as TransformTrace).entities[0] as EntityTrace);
  assert.ok(ann && kid);
  assert.equal(ann.outcome, 'output');
  const out = preview.results[0]!['after-transforms'][0]!;
  for (const [prop, value] of Object.entries(out)) assert.deepEqual(ann.properties[prop]!.at(-1)!.value, value, prop);
  assert.equal(ann.properties['city']!.at(-1)!.at, '$.transform.rules.default[2]');
  const hops = ann.steps[2]!.children!.find((n) => n.name === 'first')!.children!.find((n) => n.name === 'hops')!;
  assert.deepEqual(hops.children!.find((n) => n.kind === 'lookup')!.lookup, { dataset: 'cities', by: '_id', keys: ['osl'], matched: ['osl'], count: 1 });
  assert.equal(kid.outcome, 'filtered');
  assert.equal(kid.stoppedBy!.at, '$.transform.rules.default[3]');
  assert.match(kid.stoppedBy!.reason, /false/);

  // Without "trace" nothing is traced.
  const plain = await hub.json<PipePreview>('/pipes/people-out/preview', { method: 'POST', json: {} });
  assert.equal(plain.results[0]!.trace, undefined);

  // A draft: the trace follows the draft's transform.
  const draft = { source: { type: 'dataset', dataset: 'people' }, transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'n', ['length', '_S.name']]] } } };
  const d = await hub.json<PipePreview>('/pipes/people-out/preview', { method: 'POST', json: { config: draft, trace: true, entities: [{ _id: 'x', name: 'abcd' }] } });
  const t = (d.results[0]!.trace as TransformTrace).entities[0]!;
  assert.deepEqual(t.properties['n']!.at(-1), { action: 'set', step: t.steps[1]!.id, name: 'add', at: '$.transform.rules.default[1]', value: 4 });
});

test('"source-of": an entity of the pipe\'s output traced by re-running the source entity that made it', async () => {
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'renamed', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, transform: { type: 'dtl', rules: { default: [['add', '_id', ['concat', 'p-', '_S._id']], ['add', 'age', '_S.age']] } } }],
  });
  await runPump(hub, 'renamed');
  const stored = await hub.json<JsonObject[]>('/datasets/renamed/entities');
  assert.ok(stored.some((e) => e['_id'] === 'p-kid'));
  const preview = await hub.json<PipePreview>('/pipes/renamed/preview', { method: 'POST', json: { 'source-of': 'p-kid', trace: true } });
  assert.deepEqual(preview.stages.source.map((e) => e['_id']), ['kid']);
  const t = (preview.results[0]!.trace as TransformTrace).entities[0]!;
  assert.deepEqual(t.properties['_id']!.map((e) => [e.name, e.value]), [['(source)', 'kid'], ['add', 'p-kid']]);
  assert.equal(t.properties['age']!.at(-1)!.value, 5);
  await expectError(await hub.fetch('/pipes/renamed/preview', { method: 'POST', json: { 'source-of': 'nobody', trace: true } }), 404, 'no source entity makes it');
  await expectError(await hub.fetch('/pipes/renamed/preview', { method: 'POST', json: { 'source-of': 'p-kid', entities: [] } }), 400, 'both a sample and source-of');
  await expectError(await hub.fetch('/pipes/renamed/preview', { method: 'POST', json: { trace: 'yes' } }), 400, 'trace is a boolean');
});

test('POST /dtl/preview with "trace": the trace of each entity beside its output', async () => {
  const body = { transform: TRANSFORM, entities: [{ _id: 'ann', name: 'Ann', city: 'osl', age: 40 }], trace: true };
  const res = await hub.json<{ ok: boolean; results: { entities: JsonObject[]; trace: TransformTrace }[] }>('/dtl/preview', { method: 'POST', json: body });
  assert.equal(res.ok, true);
  const r = res.results[0]!;
  assert.deepEqual(r.entities, [{ _id: 'ann', name: 'ANN', city: 'Oslo' }]);
  const t = r.trace.entities[0]!;
  assert.deepEqual(Object.fromEntries(Object.entries(t.properties).map(([k, ev]) => [k, ev.at(-1)!.value])), r.entities[0]);
  const untraced = await hub.json<{ results: JsonObject[] }>('/dtl/preview', { method: 'POST', json: { ...body, trace: false } });
  assert.equal((untraced.results[0] as { trace?: unknown }).trace, undefined);
});

test('datahub dtl run --trace prints each entity\'s derivation in words, then its output', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dtl-trace-'));
  try {
    const rules = join(dir, 'rules.json');
    const input = join(dir, 'input.json');
    writeFileSync(rules, JSON.stringify({ default: [['copy', '_id'], ['add', 'kind', ['if', ['gt', '_S.age', 17], 'adult', 'child']], ['discard', ['neq', '_S._id', 'x']]] }));
    writeFileSync(input, JSON.stringify([{ _id: 'a', age: 40 }, { _id: 'x', age: 3 }]));
    const r = spawnSync(process.execPath, [CLI, 'dtl', 'run', '--rules', rules, '--input', input, '--trace'], { cwd: REPO, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Entity "a" through the transform at \$: output/);
    assert.match(r.stdout, /kind = "adult" {2}set by add at \$\.default\[1\]/);
    assert.match(r.stdout, /if → "adult" \(took then\)/);
    assert.match(r.stdout, /Output: \[\{"_id":"a","kind":"adult"\}\]/);
    assert.match(r.stdout, /Entity "x" through the transform at \$: discarded \(nothing output\)/);
    assert.match(r.stdout, /stopped by discard at \$\.default\[2\]: its condition gave false/);
    assert.match(r.stdout, /kind = "child" {2}set by add/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('only the first 50 sample entities of a preview are traced', async () => {
  const entities = Array.from({ length: 60 }, (_, i) => ({ _id: `e${i}`, name: `n${i}`, age: 30 }));
  const preview = await hub.json<PipePreview>('/pipes/people-out/preview', { method: 'POST', json: { entities, trace: true } });
  assert.equal(preview.results.length, 60);
  assert.equal(preview.results.filter((r) => r.trace !== undefined).length, 50);
  assert.equal(preview.results[59]!['after-transforms'][0]!['name'], 'N59', 'the rest are still transformed');
});

// Pipes API (spec §2.2, §2.3, §4.1) against the real hub over HTTP.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { expectError } from '../../helpers/api.js';

type Json = Record<string, unknown>;

interface ConfigError {
  elements: string;
  level: string;
  msg: string;
}

interface PipeInfo {
  _id: string;
  cached_response_info: { age: number; timestamp: string };
  config: {
    original: Json;
    effective: Json & { _id: string; type: string; source: Json; sink: Json; pump: unknown; principals?: unknown };
  };
  runtime: {
    'is-running': boolean;
    'is-valid-config': boolean;
    'is-disabled'?: boolean;
    'config-errors': ConfigError[];
    dependencies?: string[];
    'supported-operations'?: string[];
  };
}

let hub: HubProcess;

before(async () => {
  hub = await startHub();
});

after(async () => {
  if (!hub) return;
  await hub.stop();
  removeDir(hub.dataDir);
});

const p = (id: string): string => `/pipes/${encodeURIComponent(id)}`;

function postPipes(configs: unknown[], force = false): Promise<Response> {
  return hub.fetch(`/pipes${force ? '?force=true' : ''}`, { method: 'POST', json: configs });
}

/** Checks the required fields of pipe information (spec §2.3). */
function checkPipeInfo(info: PipeInfo, id: string): void {
  assert.equal(info._id, id);
  assert.equal(typeof info.cached_response_info.age, 'number');
  assert.ok(info.cached_response_info.age >= 0);
  assert.equal(typeof info.cached_response_info.timestamp, 'string');
  assert.ok(!Number.isNaN(Date.parse(info.cached_response_info.timestamp)), 'timestamp is a date-time');
  assert.equal(info.config.original._id, id);
  assert.equal(typeof info.config.original.type, 'string');
  const eff = info.config.effective;
  assert.equal(eff._id, id);
  assert.equal(eff.type, 'pipe');
  assert.equal(typeof eff.source.type, 'string');
  assert.equal(typeof eff.sink.type, 'string');
  assert.ok(eff.pump !== null && typeof eff.pump === 'object' && !Array.isArray(eff.pump), 'effective pump is an object');
  assert.equal(typeof info.runtime['is-running'], 'boolean');
  assert.equal(typeof info.runtime['is-valid-config'], 'boolean');
  assert.ok(Array.isArray(info.runtime['config-errors']));
  for (const e of info.runtime['config-errors']) {
    assert.equal(typeof e.elements, 'string');
    assert.equal(typeof e.level, 'string');
    assert.equal(typeof e.msg, 'string');
    assert.ok(e.msg.length > 0);
  }
  assert.ok(Array.isArray(info.runtime.dependencies), 'runtime.dependencies is an array');
  assert.ok(Array.isArray(info.runtime['supported-operations']), 'runtime.supported-operations is an array');
  for (const op of info.runtime['supported-operations']!) assert.equal(typeof op, 'string');
}

async function pipeIds(): Promise<string[]> {
  return (await hub.json<PipeInfo[]>('/pipes')).map((x) => x._id);
}

test('POST /pipes creates a pipe and answers with its pipe information', async () => {
  const config = { _id: 'p1', type: 'pipe', source: { type: 'dataset', dataset: 'in1' } };
  const res = await postPipes([config]);
  assert.equal(res.status, 200, await res.clone().text());
  const created = (await res.json()) as PipeInfo[];
  assert.ok(Array.isArray(created));
  assert.equal(created.length, 1);
  const info = created[0]!;
  checkPipeInfo(info, 'p1');
  assert.deepEqual(info.config.original, config);
  assert.equal(info.config.effective.source.type, 'dataset');
  assert.equal(info.config.effective.source['dataset'], 'in1');
  assert.equal(info.config.effective.sink.type, 'dataset');
  assert.equal(info.config.effective.sink['dataset'], 'p1', 'the sink defaults to a dataset named after the pipe');
  assert.equal(info.runtime['is-running'], false);
  assert.equal(info.runtime['is-valid-config'], true);
  assert.deepEqual(info.runtime['config-errors'], []);
  assert.deepEqual(info.runtime.dependencies, ['in1'], 'runtime.dependencies lists the source dataset');

  const one = await hub.json<PipeInfo>(p('p1'));
  checkPipeInfo(one, 'p1');
  assert.deepEqual(one.config, info.config);
  assert.deepEqual(one.runtime.dependencies, ['in1']);
  assert.ok((await pipeIds()).includes('p1'));
});

test('POST /pipes creates several pipes at once; ids may contain a colon; sink.dataset is kept when given', async () => {
  const res = await postPipes([
    { _id: 'ns:p2', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'target2' } },
    { _id: 'p3', type: 'pipe', source: { type: 'dataset', dataset: 'ns:p2' }, sink: { type: 'http_endpoint' } },
  ]);
  assert.equal(res.status, 200, await res.clone().text());
  const created = (await res.json()) as PipeInfo[];
  assert.deepEqual(
    created.map((x) => x._id),
    ['ns:p2', 'p3'],
  );
  checkPipeInfo(created[0]!, 'ns:p2');
  checkPipeInfo(created[1]!, 'p3');
  assert.equal(created[0]!.config.effective.source.type, 'http_endpoint');
  assert.equal(created[0]!.config.effective.sink['dataset'], 'target2');
  assert.equal(created[1]!.config.effective.sink.type, 'http_endpoint');
  assert.ok(created[1]!.runtime.dependencies!.includes('ns:p2'));

  const one = await hub.json<PipeInfo>(p('ns:p2'));
  assert.equal(one._id, 'ns:p2');
  const ids = await pipeIds();
  assert.ok(ids.includes('ns:p2') && ids.includes('p3'));
});

test('POST /pipes with an existing pipe id answers 409 and changes nothing', async () => {
  const before = await hub.json<Json>(`${p('p1')}/config`);
  await expectError(await postPipes([{ _id: 'p1', type: 'pipe', source: { type: 'dataset', dataset: 'other' } }]), 409, 'existing pipe');
  assert.deepEqual(await hub.json<Json>(`${p('p1')}/config`), before, 'the existing pipe is unchanged');

  // One new pipe and one existing one in the same request: nothing is created.
  await expectError(
    await postPipes([
      { _id: 'p-new', type: 'pipe', source: { type: 'dataset', dataset: 'x' } },
      { _id: 'p1', type: 'pipe', source: { type: 'dataset', dataset: 'x' } },
    ]),
    409,
    'batch with an existing pipe',
  );
  await expectError(await hub.fetch(p('p-new')), 404, 'pipe of a refused batch');
  // Even with force an existing pipe is not overwritten by POST.
  await expectError(await postPipes([{ _id: 'p1', type: 'pipe', source: { type: 'dataset', dataset: 'other' } }], true), 409, 'existing pipe with force');
  assert.deepEqual(await hub.json<Json>(`${p('p1')}/config`), before);
});

/** Invalid configurations and the JSON path their config-error names. */
const INVALID: { name: string; config: Json; elements: string }[] = [
  { name: 'unknown source type', config: { _id: 'bad-source-type', type: 'pipe', source: { type: 'no_such_source' } }, elements: '$.source.type' },
  { name: 'missing source', config: { _id: 'bad-no-source', type: 'pipe', sink: { type: 'dataset' } }, elements: '$.source' },
  {
    name: 'bad index expression',
    config: { _id: 'bad-index', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'bad-index-ds', indexes: ['_S.ok', 'type'] } },
    elements: '$.sink.indexes[1]',
  },
  {
    name: 'dataset source without dataset',
    config: { _id: 'bad-dataset-source', type: 'pipe', source: { type: 'dataset' } },
    elements: '$.source.dataset',
  },
  {
    name: 'a pipe that feeds itself (source dataset = sink dataset)',
    config: {
      _id: 'bad-loop',
      type: 'pipe',
      source: { type: 'dataset', dataset: 'loop-ds' },
      sink: { type: 'dataset', dataset: 'loop-ds' },
      transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'n', ['plus', 1, ['if', ['is-null', '_S.n'], 0, '_S.n']]]] } },
    },
    elements: '$.source.dataset',
  },
  {
    name: 'a pipe that reads the dataset named after it (its default sink)',
    config: { _id: 'bad-loop-default', type: 'pipe', source: { type: 'dataset', dataset: 'bad-loop-default' } },
    elements: '$.source.dataset',
  },
  {
    name: 'dtl transform without rules',
    config: { _id: 'bad-transform', type: 'pipe', source: { type: 'dataset', dataset: 'x' }, transform: { type: 'dtl' } },
    elements: '$.transform.rules',
  },
];

test('POST /pipes with an invalid configuration answers 400 without force and stores nothing', async () => {
  const cases = [
    ...INVALID,
    { name: 'type not "pipe"', config: { _id: 'bad-type', type: 'pipes', source: { type: 'dataset', dataset: 'x' } }, elements: '$.type' },
  ];
  for (const c of cases) {
    await expectError(await postPipes([c.config]), 400, c.name);
    await expectError(await hub.fetch(p(c.config['_id'] as string)), 404, `${c.name}: pipe not stored`);
    assert.ok(!(await pipeIds()).includes(c.config['_id'] as string), `${c.name}: not listed`);
    const history = await hub.json<unknown[]>(`/config-history/entity?entity_id=${encodeURIComponent(c.config['_id'] as string)}`);
    assert.deepEqual(history, [], `${c.name}: nothing was recorded in the config history`);
  }
  // A valid pipe next to an invalid one is not stored either.
  await expectError(
    await postPipes([{ _id: 'good-with-bad', type: 'pipe', source: { type: 'dataset', dataset: 'x' } }, INVALID[0]!.config]),
    400,
    'valid and invalid pipe in one request',
  );
  await expectError(await hub.fetch(p('good-with-bad')), 404, 'valid pipe of a refused batch');
});

test('POST /pipes?force=true stores an invalid pipe with is-valid-config false and the JSON path of the error', async () => {
  // The sink dataset of the bad-index pipe exists already: declaring its indexes must not break the forced save.
  await hub.json('/datasets/bad-index-ds/entities', { method: 'POST', json: [{ _id: 'e1', type: 'x' }] });
  for (const c of INVALID) {
    const res = await postPipes([c.config], true);
    assert.equal(res.status, 200, `${c.name}: ${await res.clone().text()}`);
    const [info] = (await res.json()) as PipeInfo[];
    checkPipeInfo(info!, c.config['_id'] as string);
    assert.equal(info!.runtime['is-valid-config'], false, `${c.name}: is-valid-config`);
    const errors = info!.runtime['config-errors'].filter((e) => e.level === 'error');
    assert.ok(
      errors.some((e) => e.elements === c.elements),
      `${c.name}: an error at ${c.elements}; got ${JSON.stringify(info!.runtime['config-errors'])}`,
    );
    assert.deepEqual(info!.config.original, c.config, `${c.name}: the original config is stored as sent`);
    // Stored: readable again, with the same verdict.
    assert.deepEqual(await hub.json(`${p(c.config['_id'] as string)}/config`), c.config);
    const again = await hub.json<PipeInfo>(p(c.config['_id'] as string));
    assert.equal(again.runtime['is-valid-config'], false);
    assert.ok(again.runtime['config-errors'].some((e) => e.elements === c.elements && e.level === 'error'));
  }
  // The valid index of the forced pipe is declared on its sink dataset; the invalid one is not.
  const indexes = await hub.json<{ expression: string }[]>('/datasets/bad-index-ds/indexes');
  assert.deepEqual(
    indexes.map((ix) => ix.expression),
    ['_S.ok'],
  );
});

test('a pipe whose type is not "pipe" is never stored as another kind of configuration, even with force', async () => {
  for (const type of ['pipes', 'system:url', 'metadata']) {
    const id = `wrong-type-${type.replace(':', '-')}`;
    const res = await postPipes([{ _id: id, type, source: { type: 'dataset', dataset: 'x' }, base_url: 'http://localhost/' }], true);
    // A configuration entity's type decides what it is; /pipes must not create a system or metadata.
    await expectError(res, 400, `type ${type} with force`);
    await expectError(await hub.fetch(p(id)), 404, `type ${type}: no pipe`);
    await expectError(await hub.fetch(`/systems/${id}`), 404, `type ${type}: no system`);
    const config = await hub.json<Json[]>('/config');
    assert.ok(!config.some((e) => e['_id'] === id), `type ${type}: not in the node configuration`);
  }
  // Nor through PUT /pipes/<id>/config.
  await expectError(
    await hub.fetch(`${p('p1')}/config?force=true`, { method: 'PUT', json: { _id: 'p1', type: 'system:url', base_url: 'http://localhost/' } }),
    400,
    'PUT a system type into a pipe',
  );
  assert.equal((await hub.json<Json>(`${p('p1')}/config`))['type'], 'pipe');
  await expectError(await hub.fetch('/systems/p1'), 404, 'no system p1');
});

test('a known but unsupported source type is accepted with a warning', async () => {
  const config = { _id: 'sql-pipe', type: 'pipe', source: { type: 'sql', system: 'db', table: 'customers' } };
  const res = await postPipes([config]);
  assert.equal(res.status, 200, await res.clone().text());
  const [info] = (await res.json()) as PipeInfo[];
  checkPipeInfo(info!, 'sql-pipe');
  assert.equal(info!.runtime['is-valid-config'], true, 'warnings do not make the config invalid');
  const warning = info!.runtime['config-errors'].find((e) => e.level === 'warning');
  assert.ok(warning, `a warning-level config-error: ${JSON.stringify(info!.runtime['config-errors'])}`);
  assert.equal(warning.elements, '$.source.type');
  assert.ok(!info!.runtime['config-errors'].some((e) => e.level === 'error'));
  assert.equal(info!.config.effective.source.type, 'sql');
});

test('GET and PUT /pipes/<id>/config round-trip', async () => {
  const config = await hub.json<Json>(`${p('p1')}/config`);
  assert.deepEqual(config, { _id: 'p1', type: 'pipe', source: { type: 'dataset', dataset: 'in1' } });

  const updated = {
    _id: 'p1',
    type: 'pipe',
    metadata: { registry: { description: 'people', keywords: ['a', 'b'], license: 'CC0' } },
    source: { type: 'dataset', dataset: 'in2' },
    sink: { type: 'dataset', dataset: 'out-p1', indexes: ['_S.type'] },
    pump: { schedule_interval: 60 },
  };
  const res = await hub.fetch(`${p('p1')}/config`, { method: 'PUT', json: updated });
  assert.equal(res.status, 200, await res.clone().text());
  const info = (await res.json()) as PipeInfo;
  checkPipeInfo(info, 'p1');
  assert.deepEqual(info.config.original, updated);
  assert.equal(info.config.effective.sink['dataset'], 'out-p1');
  assert.equal((info.config.effective.pump as Json)['schedule_interval'], 60);
  assert.deepEqual(info.runtime.dependencies, ['in2']);
  assert.deepEqual(await hub.json(`${p('p1')}/config`), updated, 'GET returns what PUT stored');
  assert.deepEqual((await hub.json<PipeInfo>(p('p1'))).config.original, updated);

  // The same configuration again is fine.
  assert.equal((await hub.fetch(`${p('p1')}/config`, { method: 'PUT', json: updated })).status, 200);
  assert.deepEqual(await hub.json(`${p('p1')}/config`), updated);
});

test('PUT /pipes/<id>/config refuses a mismatching _id and invalid configs (without force)', async () => {
  const before = await hub.json<Json>(`${p('p1')}/config`);
  await expectError(
    await hub.fetch(`${p('p1')}/config`, { method: 'PUT', json: { ...before, _id: 'p-other' } }),
    400,
    'mismatching _id',
  );
  await expectError(
    await hub.fetch(`${p('p1')}/config?force=true`, { method: 'PUT', json: { ...before, _id: 'p-other' } }),
    400,
    'mismatching _id with force',
  );
  await expectError(await hub.fetch(p('p-other')), 404, 'no pipe created under the body id');
  await expectError(
    await hub.fetch(`${p('p1')}/config`, { method: 'PUT', json: { ...before, source: { type: 'no_such_source' } } }),
    400,
    'invalid config',
  );
  assert.deepEqual(await hub.json(`${p('p1')}/config`), before, 'refused PUTs change nothing');

  // With force the invalid configuration is stored and reported.
  const forced = { ...before, source: { type: 'no_such_source' } };
  const res = await hub.fetch(`${p('p1')}/config?force=true`, { method: 'PUT', json: forced });
  assert.equal(res.status, 200, await res.clone().text());
  const info = (await res.json()) as PipeInfo;
  assert.equal(info.runtime['is-valid-config'], false);
  assert.ok(info.runtime['config-errors'].some((e) => e.elements === '$.source.type' && e.level === 'error'));
  assert.deepEqual(await hub.json(`${p('p1')}/config`), forced);

  // And a valid configuration makes it valid again.
  const fixed = await hub.json<PipeInfo>(`${p('p1')}/config`, { method: 'PUT', json: before });
  assert.equal(fixed.runtime['is-valid-config'], true);
  assert.deepEqual(fixed.runtime['config-errors'], []);
});

test('DELETE /pipes/<id> removes the pipe', async () => {
  const created = await hub.json<PipeInfo[]>('/pipes', { method: 'POST', json: [{ _id: 'to-delete', type: 'pipe', source: { type: 'dataset', dataset: 'x' } }] });
  assert.equal(created[0]!._id, 'to-delete');
  const res = await hub.fetch(p('to-delete'), { method: 'DELETE' });
  assert.equal(res.status, 200, await res.clone().text());
  await expectError(await hub.fetch(p('to-delete')), 404, 'deleted pipe');
  await expectError(await hub.fetch(`${p('to-delete')}/config`), 404, 'deleted pipe config');
  assert.ok(!(await pipeIds()).includes('to-delete'));
  await expectError(await hub.fetch(p('to-delete'), { method: 'DELETE' }), 404, 'deleting twice');
  // The id is free again.
  const again = await hub.json<PipeInfo[]>('/pipes', { method: 'POST', json: [{ _id: 'to-delete', type: 'pipe', source: { type: 'dataset', dataset: 'y' } }] });
  assert.deepEqual(again[0]!.runtime.dependencies, ['y']);
  assert.equal((await hub.fetch(p('to-delete'), { method: 'DELETE' })).status, 200);
});

test('an unknown pipe answers 404 on every pipe route', async () => {
  const id = encodeURIComponent('no-such-pipe');
  const routes: [string, string, RequestInit & { json?: unknown }][] = [
    ['GET', `/pipes/${id}`, {}],
    ['DELETE', `/pipes/${id}`, {}],
    ['GET', `/pipes/${id}/config`, {}],
    ['PUT', `/pipes/${id}/config`, { json: { _id: 'no-such-pipe', type: 'pipe', source: { type: 'dataset', dataset: 'x' } } }],
    ['PUT', `/pipes/${id}/config?force=true`, { json: { _id: 'no-such-pipe', type: 'pipe', source: { type: 'dataset', dataset: 'x' } } }],
    ['GET', `/pipes/${id}/entities`, {}],
    ['GET', `/pipes/${id}/entities?stage=source&limit=1`, {}],
    ['GET', `/pipes/${id}/log`, {}],
    ['GET', `/pipes/${id}/generate-schema-definition`, {}],
    ['GET', `/pipes/${id}/pump`, {}],
    ['POST', `/pipes/${id}/pump`, { body: new URLSearchParams({ operation: 'start' }) }],
    ['POST', `/pipes/${id}/webhook`, { json: { token: 'x' } }],
    ['GET', `/pipes/${id}/entity-types/source`, {}],
    ['GET', `/pipes/${id}/entity-types/sink`, {}],
  ];
  for (const [method, path, init] of routes) {
    await expectError(await hub.fetch(path, { ...init, method }), 404, `${method} ${path}`);
  }
  // PUT to an unknown pipe does not create it.
  await expectError(await hub.fetch(`/pipes/${id}`), 404, 'PUT did not create the pipe');
});

test('GET /pipes lists pipe information for every pipe', async () => {
  const list = await hub.json<PipeInfo[]>('/pipes');
  assert.ok(Array.isArray(list));
  for (const info of list) checkPipeInfo(info, info._id);
  const ids = list.map((x) => x._id);
  for (const id of ['p1', 'ns:p2', 'p3', 'sql-pipe', ...INVALID.map((c) => c.config['_id'] as string)]) {
    assert.ok(ids.includes(id), `${id} listed`);
  }
  const verbose = await hub.json<PipeInfo[]>('/pipes?verbose=true');
  assert.deepEqual(
    verbose.map((x) => x._id),
    ids,
  );
});

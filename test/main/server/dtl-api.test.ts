import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { removeDir, startHub, type HubProcess } from '../../helpers/hub-process.js';

describe('DTL over the API', () => {
  let hub: HubProcess;
  before(async () => {
    hub = await startHub();
  });
  after(async () => {
    await hub.stop();
    removeDir(hub.dataDir);
  });

  test('GET /api/dtl/functions serves the one function catalogue', async () => {
    const list = await hub.json<{ name: string; family: string; description: string; examples: unknown[] }[]>('/dtl/functions');
    const names = new Set(list.map((f) => f.name));
    for (const n of ['add', 'copy', 'hops', 'datetime-parse', 'concat', 'sorted', 'ni', 'url-quote']) assert.ok(names.has(n), n);
    assert.ok(list.every((f) => f.description.length > 0 && f.examples.length > 0));
  });

  test('POST /api/dtl/preview transforms sample entities and writes nothing', async () => {
    await hub.json('/datasets/countries/entities', { method: 'POST', json: [{ _id: 'no', name: 'Norway' }] });
    const datasets = async (): Promise<unknown[]> =>
      (await hub.json<Record<string, unknown>[]>('/datasets')).map(({ cached_response_info: _c, ...rest }) => rest);
    const before = await datasets();
    const res = await hub.json<{ ok: boolean; results: { entities?: unknown[]; error?: { msg: string } }[] }>('/dtl/preview', {
      method: 'POST',
      json: {
        transform: {
          type: 'dtl',
          rules: {
            default: [
              ['copy', '_id'],
              ['add', 'name', ['upper', '_S.name']],
              ['add', 'country', ['hops', { datasets: ['countries c'], where: ['eq', '_S.country', 'c._id'], return: 'c.name' }]],
              ['if', ['eq', '_S.name', 'boom'], ['fail!', 'no booms']],
            ],
          },
        },
        entities: [
          { _id: '1', name: 'ada', country: 'no' },
          { _id: '2', name: 'boom' },
        ],
      },
    });
    assert.equal(res.ok, true);
    assert.deepEqual(res.results[0]?.entities, [{ _id: '1', name: 'ADA', country: ['Norway'] }]);
    assert.match(res.results[1]?.error?.msg ?? '', /no booms/);
    assert.deepEqual(await datasets(), before, 'nothing was written');
  });

  test('a preview with an unknown function answers its compile errors with JSON paths', async () => {
    const res = await hub.json<{ ok: boolean; errors: { elements: string; msg: string }[] }>('/dtl/preview', {
      method: 'POST',
      json: { transform: { type: 'dtl', rules: { default: [['add', 'x', ['no-such-fn', 1]]] } }, entities: [{ _id: '1' }] },
    });
    assert.equal(res.ok, false);
    assert.equal(res.errors[0]?.elements, '$.transform.rules.default[0][2][0]');
    assert.match(res.errors[0]?.msg ?? '', /no-such-fn/);
  });
  test("with a pipe and namespaced identifiers on, /dtl/preview answers the pipe's after-transforms stage (the embedded source's namespaces added first)", async () => {
    const transform = { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'who', ['path', 'name', '_S']]] } };
    await hub.json('/pipes', { method: 'POST', json: [{ _id: 'ns-dtl', type: 'pipe', source: { type: 'embedded', entities: [] }, transform }] });
    await hub.json('/metadata', { method: 'PUT', json: { namespaced_identifiers: true } });
    try {
      const sample = [{ _id: '1', name: 'Ann' }];
      const dtl = await hub.json<{ ok: boolean; results: { entities: Record<string, unknown>[] }[] }>('/dtl/preview', {
        method: 'POST',
        json: { transform, entities: sample, pipe: 'ns-dtl' },
      });
      const pipe = await hub.json<{ stages: Record<string, Record<string, unknown>[]> }>('/pipes/ns-dtl/preview', {
        method: 'POST',
        json: { entities: sample },
      });
      assert.equal(dtl.ok, true);
      assert.deepEqual(dtl.results[0]?.entities, pipe.stages['after-transforms']);
      assert.deepEqual(dtl.results[0]?.entities, [{ _id: 'ns-dtl:1', 'ns-dtl:who': 'Ann' }], 'add_namespaces, then add in the pipe namespace');
      assert.deepEqual(pipe.stages['before-transforms'], [{ _id: 'ns-dtl:1', 'ns-dtl:name': 'Ann' }]);
      assert.deepEqual(pipe.stages['sink'], pipe.stages['after-transforms'], 'a dataset sink keeps the namespaces and gets no $ids');
    } finally {
      await hub.json('/metadata', { method: 'DELETE' });
    }
  });
});

// POST /pipes/<id>/preview over HTTP against the real hub: every stage of a draft configuration at once (source,
// before-transforms, after-transforms, sink), sample entities from the source or the request, per-entity runtime
// errors, compile errors by JSON path, the sink step (bookkeeping dropped, namespaces removed for non-dataset sinks), bad
// drafts answered in words, and nothing written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import type { JsonObject } from '../../../hub-core/base/index.js';

interface Preview {
  'config-errors': { elements: string; level: string; msg: string }[];
  'is-valid-config': boolean;
  'transform-compiles': boolean;
  sample: 'request' | 'source';
  'source-error': string | null;
  'more-in-source': boolean;
  stages: Record<'source' | 'before-transforms' | 'after-transforms' | 'sink', JsonObject[]>;
  results: { 'after-transforms': JsonObject[]; sink: JsonObject[]; error: { kind: string; msg: string; elements: string | null } | null; chain?: unknown[] }[];
}

let hub: HubProcess;

const PIPE = {
  _id: 'shout',
  type: 'pipe',
  source: { type: 'dataset', dataset: 'crew' },
  transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'loud', ['upper', '_S.name']]] } },
  pump: { mode: 'manual' },
};
const dtl = (...steps: unknown[]): JsonObject => ({ type: 'dtl', rules: { default: steps } }) as JsonObject;
const draft = (changes: JsonObject): JsonObject => ({ ...PIPE, ...changes }) as JsonObject;
const preview = (body: unknown, id = 'shout'): Promise<Preview> => hub.json<Preview>(`/pipes/${id}/preview`, { method: 'POST', json: body });
const ids = (list: JsonObject[]): unknown[] => list.map((e) => e['_id']);

before(async () => {
  hub = await startHub();
  await hub.json('/datasets/crew/entities', {
    method: 'POST',
    json: [{ _id: 'ada', name: 'Ada' }, { _id: 'alan', name: 'Alan' }, { _id: 'grace', name: 'Grace' }],
  });
  await hub.json('/pipes', { method: 'POST', json: [PIPE] });
  // One real run, so that the sink dataset, the pump's position and the execution log exist and can be compared.
  await hub.fetch('/pipes/shout/pump', { method: 'POST', body: new URLSearchParams({ operation: 'start' }) });
  for (let i = 0; i < 500 && (await hub.json<{ runs: number; 'is-running': boolean }>('/pipes/shout/pump')).runs < 1; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
});

after(async () => {
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

/** Everything a write would change: datasets with their counts and ends, the pump's position, runs and log. */
async function footprint(): Promise<unknown> {
  const datasets = await hub.json<{ _id: string; count: number; 'max-updated': number | null; 'deleted-count': number }[]>('/datasets');
  const pump = await hub.json<JsonObject>('/pipes/shout/pump');
  const log = await hub.json<JsonObject[]>('/pipes/shout/log');
  return {
    datasets: datasets.map((d) => [d._id, d.count, d['deleted-count'], d['max-updated']]).sort(),
    pump: [pump['last-seen'], pump['runs']],
    log: log.length,
  };
}

test('every stage of the stored configuration or a draft, for source entities or a given sample', async () => {
  const before = await footprint();

  const stored = await preview({});
  assert.equal(stored.sample, 'source');
  assert.deepEqual(ids(stored.stages.source), ['ada', 'alan', 'grace']);
  assert.equal(typeof stored.stages.source[0]!['_updated'], 'number', 'the source gives entities as the dataset holds them');
  assert.deepEqual(stored.stages['before-transforms'], stored.stages.source);
  assert.deepEqual(stored.stages['after-transforms'], [{ _id: 'ada', loud: 'ADA' }, { _id: 'alan', loud: 'ALAN' }, { _id: 'grace', loud: 'GRACE' }]);
  assert.deepEqual(stored.stages.sink, stored.stages['after-transforms']);
  assert.equal(stored['is-valid-config'], true);
  assert.deepEqual(stored.results[1], { 'after-transforms': [{ _id: 'alan', loud: 'ALAN' }], sink: [{ _id: 'alan', loud: 'ALAN' }], error: null });

  // The draft, not the stored pipe, is what runs; copying everything shows the sink step dropping the bookkeeping.
  const copied = await preview({ config: draft({ transform: dtl(['copy', '*'], ['add', 'quiet', ['lower', '_S.name']]) }) });
  assert.equal(copied.stages['after-transforms'][0]!['quiet'], 'ada');
  assert.equal(typeof copied.stages['after-transforms'][0]!['_updated'], 'number', 'copy * copies the source bookkeeping');
  assert.deepEqual(copied.stages.sink[0], { _id: 'ada', _deleted: false, name: 'Ada', quiet: 'ada' }, 'the sink is given the entity without it');

  // A draft source; a sample limit; a sample from the request.
  const embedded = await preview({ config: draft({ source: { type: 'embedded', entities: [{ _id: 'x', name: 'Xena' }, { _id: 'y', name: 'Yan' }] } }), limit: 1 });
  assert.deepEqual(embedded.stages.source, [{ _id: 'x', name: 'Xena' }]);
  assert.equal(embedded['more-in-source'], true);
  assert.deepEqual(embedded.stages.sink, [{ _id: 'x', loud: 'XENA' }]);
  const given = await preview({ entities: [{ _id: 'linus', name: 'Linus' }] });
  assert.equal(given.sample, 'request');
  assert.deepEqual(given.stages.source, [{ _id: 'linus', name: 'Linus' }]);
  assert.deepEqual(given.stages.sink, [{ _id: 'linus', loud: 'LINUS' }]);

  // A filter: the filtered entity enters the sink as a deletion; a discarded one never reaches it.
  const filtered = await preview({
    config: draft({ transform: dtl(['copy', '_id'], ['discard', ['neq', '_S._id', 'grace']], ['filter', ['neq', '_S._id', 'alan']], ['add', 'loud', ['upper', '_S.name']]) }),
  });
  assert.deepEqual(filtered.stages.sink, [{ _id: 'ada', loud: 'ADA' }, { _id: 'alan', _deleted: true, _filtered: true }]);
  assert.deepEqual(filtered.results[2], { 'after-transforms': [], sink: [], error: null }, 'grace was discarded');

  // A runtime error belongs to the entity that raised it; the others still run.
  const failing = await preview({ config: draft({ transform: dtl(['copy', '_id'], ['if', ['eq', '_S._id', 'alan'], ['fail!', 'no alans here']]) }) });
  assert.match(failing.results[1]!.error?.msg ?? '', /no alans here/);
  assert.equal(failing.results[0]!.error, null);
  assert.deepEqual(ids(failing.stages.sink), ['ada', 'grace']);

  // A chain of transforms also shows what each of them made; a failing one ends the chain for that entity.
  const chained = await preview({
    entities: [{ _id: 'a', name: 'Ann' }, { _id: 'b', name: 'Bob' }],
    config: draft({ transform: [dtl(['copy', '*'], ['add', 'n', 1]), dtl(['copy', '*'], ['if', ['eq', '_S._id', 'b'], ['fail!', 'no b']], ['add', 'm', 2])] }),
  });
  assert.deepEqual(chained.results[0]!.chain, [{ entities: [{ _id: 'a', name: 'Ann', n: 1 }] }, { entities: [{ _id: 'a', name: 'Ann', n: 1, m: 2 }] }]);
  assert.deepEqual(chained.results[1]!.chain?.[0], { entities: [{ _id: 'b', name: 'Bob', n: 1 }] });
  assert.match(JSON.stringify(chained.results[1]!.chain?.[1]), /no b/);
  assert.match(chained.results[1]!.error?.msg ?? '', /no b/);

  // A compile error: reported at its JSON path like the pipe's config-errors; the source is still shown.
  const broken = await preview({ config: draft({ transform: dtl(['copy', '_id'], ['add', 'loud', ['shoutify', '_S.name']]) }) });
  assert.equal(broken['transform-compiles'], false);
  assert.equal(broken['is-valid-config'], false);
  const problem = broken['config-errors'].find((e) => e.level === 'error');
  assert.equal(problem?.elements, '$.transform.rules.default[1][2][0]');
  assert.match(problem?.msg ?? '', /shoutify/);
  assert.equal(broken.stages.source.length, 3);
  assert.deepEqual(broken.stages.sink, []);

  assert.deepEqual(await footprint(), before, 'no preview wrote anything');
  assert.deepEqual((await hub.json<JsonObject>('/pipes/shout/config'))['transform'], PIPE.transform, 'the stored pipe is unchanged');
});

test('with namespaced identifiers on, add names the property in the pipe namespace, a dataset sink keeps it, another sink removes it; no $ids are added', async () => {
  await hub.json('/metadata', { method: 'PUT', json: { namespaced_identifiers: true } });
  try {
    const p = await preview({ entities: [{ _id: 'ada', name: 'Ada' }] });
    assert.deepEqual(p.stages['after-transforms'], [{ _id: 'ada', 'shout:loud': 'ADA' }]);
    assert.deepEqual(p.stages.sink, [{ _id: 'ada', 'shout:loud': 'ADA' }]);
    const sink = await hub.json<JsonObject[]>('/pipes/shout/entities?stage=sink&limit=1');
    assert.deepEqual(sink, [{ _id: 'ada', 'shout:loud': 'ADA' }]);
    const after = await hub.json<JsonObject[]>('/pipes/shout/entities?stage=after-transforms&limit=1');
    assert.deepEqual(after, [{ _id: 'ada', 'shout:loud': 'ADA' }]);
    const outbound = await preview({ config: draft({ sink: { type: 'http_endpoint' } }), entities: [{ _id: 'ada', name: 'Ada' }] });
    assert.deepEqual(outbound.stages.sink, [{ _id: 'ada', loud: 'ADA' }], 'a non-dataset sink gets the names without namespaces');

    // The preview's sink stage is what a pump run then writes, for a pipe without a transform too.
    await hub.json('/pipes', { method: 'POST', json: [{ _id: 'crew-copy', type: 'pipe', source: { type: 'dataset', dataset: 'crew' }, pump: { mode: 'manual' } }] });
    const expected = (await preview({}, 'crew-copy')).stages.sink;
    assert.deepEqual(expected[0], { _id: 'ada', _deleted: false, name: 'Ada' });
    await hub.fetch('/pipes/crew-copy/pump', { method: 'POST', body: new URLSearchParams({ operation: 'start' }) });
    for (let i = 0; i < 500 && (await hub.json<{ runs: number }>('/pipes/crew-copy/pump')).runs < 1; i++) await new Promise((r) => setTimeout(r, 20));
    const written = await hub.json<JsonObject[]>('/datasets/crew-copy/entities');
    const content = (e: JsonObject): JsonObject => Object.fromEntries(Object.entries(e).filter(([k]) => !['_updated', '_ts', '_hash', '_previous'].includes(k)));
    assert.deepEqual(written.map(content), expected);
  } finally {
    await hub.json('/metadata', { method: 'DELETE' });
  }
});

test('a bad request is a 400 in words; a bad draft is answered with its problems, never a 500', async () => {
  const post = (body: string | object, id = 'shout'): Promise<Response> =>
    hub.fetch(`/pipes/${id}/preview`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const expect400 = async (body: string | object, pattern: RegExp): Promise<void> => {
    const res = await post(body);
    const text = await res.text();
    assert.equal(res.status, 400, text);
    assert.match(text, pattern);
  };
  await expect400('{"config": ', /malformed JSON/);
  await expect400({ config: 'not a pipe' }, /the draft configuration must be a JSON object/);
  await expect400({ config: [PIPE] }, /got an array/);
  await expect400({ entities: [1] }, /sample entity #1 is not a JSON object/);
  await expect400({ limit: 5000 }, /limit/);

  const unknown = await preview({ config: draft({ source: { type: 'nope' } }) });
  assert.match(unknown['source-error'] ?? '', /does not pump a nope source/);
  assert.ok(unknown['config-errors'].some((e) => e.elements === '$.source.type' && /unknown source type/.test(e.msg)));
  assert.deepEqual(unknown.stages.source, []);
  // With a sample, a draft whose source cannot be read still shows what its transform makes of it.
  const sampled = await preview({ config: draft({ source: { type: 'nope' } }), entities: [{ _id: 'z', name: 'Zoe' }] });
  assert.equal(sampled['source-error'], null);
  assert.deepEqual(sampled.stages.sink, [{ _id: 'z', loud: 'ZOE' }]);

  const pushed = await preview({ config: draft({ source: { type: 'http_endpoint' } }) });
  assert.match(pushed['source-error'] ?? '', /JSON Push/);
  const variable = await preview({ config: draft({ source: { type: 'dataset', dataset: '$ENV(no-such-variable)' } }) });
  assert.match(variable['source-error'] ?? '', /unknown environment variable "no-such-variable"/);

  assert.equal((await hub.fetch('/pipes/ghost/preview', { method: 'POST', json: {} })).status, 404, 'a pipe that does not exist has no stored configuration');
  const fresh = await preview({ config: { ...PIPE, _id: 'ghost' } }, 'ghost');
  assert.deepEqual(ids(fresh.stages.sink), ['ada', 'alan', 'grace'], 'a configuration not stored yet can be previewed');
  assert.equal((await hub.fetch('/pipes/ghost')).status, 404, 'and is not stored by it');
});

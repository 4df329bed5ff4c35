// Pump sources beyond dataset/embedded (conditional, union_datasets, merge_datasets, json) and $ENV/$SECRET
// substitution in pipe configuration, against the real hub over HTTP.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { pushEntities, runPump } from '../../helpers/api.js';

type Json = Record<string, unknown>;

interface LastRun {
  status: string;
  processed: number;
  changes: number;
  reason_why_stopped: string | null;
  offline?: boolean;
  offline_reason?: string;
}

interface PumpInfo {
  'is-running': boolean;
  'last-seen': string | null;
  runs: number;
  'last-run': LastRun | null;
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
async function createPipe(config: Json, h = hub): Promise<void> {
  await h.json('/pipes', { method: 'POST', json: [{ type: 'pipe', pump: { schedule_interval: 3600 }, ...config }] });
}

async function setPipe(id: string, config: Json, h = hub): Promise<void> {
  await h.json(`${p(id)}/config`, { method: 'PUT', json: { _id: id, type: 'pipe', pump: { schedule_interval: 3600 }, ...config } });
}

const push = (dataset: string, entities: Json[], h = hub): Promise<void> => pushEntities(h, dataset, entities);

async function setEnv(vars: Record<string, string>): Promise<void> {
  await hub.json('/env', { method: 'POST', json: vars });
}

function pump(id: string, h = hub): Promise<PumpInfo> {
  return h.json<PumpInfo>(`${p(id)}/pump`);
}

/** Start a run and wait until it has ended; returns its summary. */
const run = (id: string, h = hub): Promise<LastRun> => runPump<LastRun>(h, id);

async function latest(dataset: string, h = hub): Promise<Map<string, Json>> {
  const list = await h.json<Json[]>(`/datasets/${encodeURIComponent(dataset)}/entities?history=false`);
  return new Map(list.map((e) => [e['_id'] as string, e]));
}

async function live(dataset: string, h = hub): Promise<string[]> {
  return [...(await latest(dataset, h)).values()].filter((e) => e['_deleted'] !== true).map((e) => e['_id'] as string).sort();
}

// 1. $ENV and $SECRET

test('$ENV is replaced whole and inside strings; $SECRET in a pipe stays as written (secrets are for systems); the log keeps the references', async () => {
  await setEnv({ greeting: 'hello', who: 'world' });
  await hub.json('/secrets', { method: 'POST', json: { 'api-key': 's3cr3t-value-123' } });
  await createPipe({
    _id: 'vars',
    source: {
      type: 'embedded',
      entities: [{ _id: 'a', whole: '$ENV(greeting)', embedded: '$ENV(greeting), $ENV(who)!', key: '$SECRET(api-key)', n: 1, list: ['$ENV(who)'] }],
    },
  });
  const r = await run('vars');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  const a = (await latest('vars')).get('a');
  assert.equal(a?.['whole'], 'hello');
  assert.equal(a?.['embedded'], 'hello, world!');
  assert.equal(a?.['key'], '$SECRET(api-key)', 'an entity never carries a secret value');
  assert.equal(a?.['n'], 1);
  assert.deepEqual(a?.['list'], ['world']);

  const logText = await (await hub.fetch(`${p('vars')}/log`)).text();
  assert.ok(!logText.includes('s3cr3t-value-123'), 'the secret value is not in the execution log');
  const log = JSON.parse(logText) as Json[];
  const started = log.find((e) => e['event_type'] === 'pump-started');
  assert.ok(started);
  const entities = (started['source'] as Json)['entities'] as Json[];
  assert.equal(entities[0]?.['key'], '$SECRET(api-key)', 'the log shows the configuration as written');
  assert.equal(entities[0]?.['whole'], '$ENV(greeting)');
});

test('an unknown $ENV fails the run with a clear reason; $SECRET in a pipe is not replaced, known or not', async () => {
  await createPipe({ _id: 'vars-bad-env', source: { type: 'embedded', entities: [{ _id: 'a', v: 'x-$ENV(no-such-var)' }] } });
  let r = await run('vars-bad-env');
  assert.equal(r.status, 'failed');
  assert.match(r.reason_why_stopped ?? '', /unknown environment variable "no-such-var"/);
  assert.equal((await hub.fetch('/datasets/vars-bad-env/entities')).status, 404, 'nothing was written');

  await hub.json('/secrets', { method: 'POST', json: { inner: 'do-not-splice' } });
  await createPipe({ _id: 'vars-inner-secret', source: { type: 'embedded', entities: [{ _id: 'a', v: 'Bearer $SECRET(inner)', w: '$SECRET(no-such-secret)' }] } });
  r = await run('vars-inner-secret');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  const a = (await latest('vars-inner-secret')).get('a');
  assert.equal(a?.['v'], 'Bearer $SECRET(inner)');
  assert.equal(a?.['w'], '$SECRET(no-such-secret)');
});

// 2. conditional

test('a conditional source reads the alternative its condition names; a missing alternative fails clearly', async () => {
  await setEnv({ 'node-env': 'test' });
  await push('cond-prod-data', [{ _id: 'p1' }, { _id: 'p2' }]);
  await createPipe({
    _id: 'cond',
    source: {
      type: 'conditional',
      condition: '$ENV(node-env)',
      alternatives: {
        test: { type: 'embedded', entities: [{ _id: 't1' }] },
        prod: { type: 'dataset', dataset: 'cond-prod-data' },
      },
    },
  });
  const info = await hub.json<{ runtime: { 'config-errors': Json[]; 'supported-operations': string[] } }>(p('cond'));
  assert.deepEqual(info.runtime['config-errors'], [], 'the conditional source is run by this hub: no warning');
  assert.ok(info.runtime['supported-operations'].includes('start'));

  let r = await run('cond');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  assert.deepEqual(await live('cond'), ['t1']);

  await setEnv({ 'node-env': 'prod' });
  r = await run('cond');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  assert.equal(r.processed, 2);
  assert.deepEqual((await live('cond')).filter((id) => id.startsWith('p')), ['p1', 'p2']);
  assert.match((await pump('cond'))['last-seen'] ?? '', /^\["prod",/, 'the position is kept with the condition it belongs to');
  assert.equal((await run('cond')).processed, 0, 'the dataset alternative continues where it left off');
  await push('cond-prod-data', [{ _id: 'p3' }]);
  assert.equal((await run('cond')).processed, 1);

  await setEnv({ 'node-env': 'staging' });
  r = await run('cond');
  assert.equal(r.status, 'failed');
  assert.match(r.reason_why_stopped ?? '', /no alternative for "staging"/);
  assert.match(r.reason_why_stopped ?? '', /"test", "prod"/);
});

// 3. union_datasets, merge_datasets

test('union_datasets reads each dataset in turn with prefixed ids and continues per dataset', async () => {
  await push('men', [{ _id: 'dave' }, { _id: 'bob' }]);
  await push('women', [{ _id: 'claire' }]);
  await createPipe({ _id: 'people', source: { type: 'union_datasets', datasets: ['men', 'women'] } });
  let r = await run('people');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  assert.equal(r.processed, 3);
  assert.deepEqual(await live('people'), ['men:bob', 'men:dave', 'women:claire']);
  const seen = JSON.parse((await pump('people'))['last-seen'] ?? 'null') as Json;
  assert.equal(typeof seen['men'], 'number');
  assert.equal(typeof seen['women'], 'number');

  await push('women', [{ _id: 'eve' }, { _id: 'claire', _deleted: true }]);
  r = await run('people');
  assert.equal(r.processed, 2, 'only the new changes of women are read');
  assert.deepEqual(await live('people'), ['men:bob', 'men:dave', 'women:eve']);
  assert.equal((await run('people')).processed, 0);

  await createPipe({ _id: 'people-plain', source: { type: 'union_datasets', datasets: ['men', 'women'], prefix_ids: false } });
  await run('people-plain');
  assert.deepEqual(await live('people-plain'), ['bob', 'dave', 'eve']);

  await createPipe({ _id: 'union-bad', source: { type: 'union_datasets', datasets: 'men' } });
  r = await run('union-bad');
  assert.equal(r.status, 'failed');
  assert.match(r.reason_why_stopped ?? '', /"datasets"/);
});

test('merge_datasets "latest" keeps the newest version of each id across datasets', async () => {
  await push('md-a', [{ _id: 'x', from: 'a' }, { _id: 'only-a', from: 'a' }]);
  await push('md-b', [{ _id: 'x', from: 'b' }]);
  await createPipe({ _id: 'md-latest', source: { type: 'merge_datasets', datasets: ['md-a', 'md-b'] } });
  let r = await run('md-latest');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  let sink = await latest('md-latest');
  assert.equal(sink.get('x')?.['from'], 'b', 'md-b wrote x last');
  assert.equal(sink.get('only-a')?.['from'], 'a');

  await push('md-a', [{ _id: 'x', from: 'a2' }]);
  r = await run('md-latest');
  assert.equal(r.processed, 1);
  sink = await latest('md-latest');
  assert.equal(sink.get('x')?.['from'], 'a2');
  const seen = JSON.parse((await pump('md-latest'))['last-seen'] ?? 'null') as Json;
  assert.deepEqual(Object.keys(seen).sort(), ['md-a', 'md-b']);
});

test('merge_datasets "all" keys each dataset\'s version under its dataset id', async () => {
  await push('mda-a', [{ _id: 'x', v: 1 }, { _id: 'y', v: 2 }]);
  await push('mda-b', [{ _id: 'x', w: 3 }]);
  await createPipe({ _id: 'md-all', source: { type: 'merge_datasets', datasets: ['mda-a', 'mda-b'], strategy: 'all' } });
  let r = await run('md-all');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  let sink = await latest('md-all');
  assert.equal((sink.get('x')?.['mda-a'] as Json)['v'], 1);
  assert.equal((sink.get('x')?.['mda-b'] as Json)['w'], 3);
  assert.equal(sink.get('y')?.['mda-b'], undefined);

  await push('mda-a', [{ _id: 'x', _deleted: true }, { _id: 'y', _deleted: true }]);
  r = await run('md-all');
  sink = await latest('md-all');
  assert.equal(sink.get('x')?.['mda-a'], undefined, 'a deleted version drops out of the merged entity');
  assert.equal((sink.get('x')?.['mda-b'] as Json)['w'], 3);
  assert.equal(sink.get('y')?.['_deleted'], true, 'deleted in every dataset: deleted');

  await setPipe('md-all', { source: { type: 'merge_datasets', datasets: ['mda-a'], strategy: 'newest' } });
  r = await run('md-all');
  assert.equal(r.status, 'failed');
  assert.match(r.reason_why_stopped ?? '', /unknown merge_datasets strategy "newest"/);
});

test('merge joins entities by equality rules, transitively, with composite ids; deleted entities stay apart', async () => {
  await push('mA', [{ _id: 'a1', f1: 1 }, { _id: 'a2', f1: 2 }]);
  await push('mB', [{ _id: 'b1', f1: 1, f2: 'x' }, { _id: 'b2', f1: 3 }]);
  await push('mC', [{ _id: 'c1', f3: 'X' }, { _id: 'c2', _deleted: true, f3: 'Y' }, { _id: 'c3', _deleted: true, f3: 'X' }]);
  const source = {
    type: 'merge',
    version: 2,
    datasets: ['mA a', 'mB b', 'mC c'],
    equality: [
      ['eq', 'a.f1', 'b.f1'],
      ['eq', 'b.f2', ['lower', 'c.f3']],
    ],
  };
  await createPipe({ _id: 'merged', source });
  let r = await run('merged');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  let sink = await latest('merged');
  const abc = sink.get('0|a1|1|b1|2|c1');
  assert.ok(abc, `merged a1, b1 and c1; got ${[...sink.keys()].join(', ')}`);
  assert.deepEqual(abc['f1'], [1, 1]);
  assert.equal(abc['f2'], 'x');
  assert.equal(abc['f3'], 'X');
  // The merge page's example prints plain ids; the entity data model says `$ids` always holds NIs.
  assert.deepEqual(abc['$ids'], ['~:a1', '~:b1', '~:c1']);
  assert.equal(sink.get('0|a2')?.['f1'], 2);
  assert.equal(sink.get('1|b2')?.['f1'], 3);
  assert.equal(sink.get('2|c2')?.['_deleted'], true);
  assert.equal(sink.get('2|c3')?.['_deleted'], true, 'a deleted entity is not merged, though its f3 matches');
  assert.deepEqual(await live('merged'), ['0|a1|1|b1|2|c1', '0|a2', '1|b2']);

  // b1 no longer matches c1: the merged entity splits, and its old id is deleted.
  await push('mB', [{ _id: 'b1', f1: 1, f2: 'other' }]);
  r = await run('merged');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  sink = await latest('merged');
  assert.deepEqual(await live('merged'), ['0|a1|1|b1', '0|a2', '1|b2', '2|c1']);
  assert.equal(sink.get('0|a1|1|b1|2|c1')?.['_deleted'], true);

  // equality_sets, identity "first" and the compact strategy.
  await createPipe({
    _id: 'merged-first',
    source: { type: 'merge', datasets: ['mA a', 'mB b'], equality_sets: [['a.f1', 'b.f1']], identity: 'first', strategy: 'compact' },
  });
  r = await run('merged-first');
  assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
  sink = await latest('merged-first');
  assert.equal(sink.get('a1')?.['f1'], 1, 'compact: duplicates removed, a single value unwrapped');
  assert.deepEqual(sink.get('a1')?.['$ids'], ['~:a1', '~:b1']);
  assert.deepEqual(await live('merged-first'), ['a1', 'a2', 'b2']);

  await createPipe({ _id: 'merged-bad', source: { type: 'merge', datasets: ['mA a'], equality: [['eq', 'a.f1', 'z.f1']] } });
  r = await run('merged-bad');
  assert.equal(r.status, 'failed');
  assert.match(r.reason_why_stopped ?? '', /refers to no dataset alias/);
});

// 4. json (JSON Pull from another hub)

test('a json source reads JSON Pull from a second hub through a system:url with a $SECRET header', async () => {
  const a = await startHub();
  try {
    await push('x', [{ _id: 'e1', v: 1 }, { _id: 'e2', v: 2 }], a);
    await hub.json('/systems', {
      method: 'POST',
      json: [{ _id: 'a', type: 'system:url', base_url: `${a.url}/api/`, headers: { Authorization: '$SECRET(a-token)' } }],
    });
    await hub.json('/systems/a/secrets', { method: 'PUT', json: { 'a-token': `Bearer ${a.token}` } });

    // Incremental: the position is the _updated of the last entity read, sent as `since`.
    await createPipe({ _id: 'pull', source: { type: 'json', system: 'a', url: 'datasets/x/entities', supports_since: true } });
    let r = await run('pull');
    assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
    assert.equal(r.processed, 2);
    let sink = await latest('pull');
    assert.equal(sink.get('e1')?.['v'], 1);
    assert.equal(sink.get('e2')?.['v'], 2);
    const remote = await a.json<Json[]>('/datasets/x/entities');
    assert.equal((await pump('pull'))['last-seen'], String(remote[remote.length - 1]?.['_updated']));

    await push('x', [{ _id: 'e2', v: 20 }, { _id: 'e3', v: 3 }], a);
    r = await run('pull');
    assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
    assert.equal(r.processed, 2, 'only what changed after the last run is read');
    sink = await latest('pull');
    assert.equal(sink.get('e2')?.['v'], 20);
    assert.equal(sink.get('e3')?.['v'], 3);
    assert.equal((await run('pull')).processed, 0);

    // Paged with page_size (limit), from the beginning.
    await createPipe({ _id: 'pull-paged', source: { type: 'json', system: 'a', url: 'datasets/x/entities?history=false', supports_since: true, page_size: 1 } });
    r = await run('pull-paged');
    assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
    assert.deepEqual(await live('pull-paged'), ['e1', 'e2', 'e3']);

    // Without supports_since (the default) every run reads the whole resource; what is gone is deleted.
    await createPipe({ _id: 'pull-full', source: { type: 'json', system: 'a', url: 'datasets/x/entities?history=false&deleted=false' } });
    r = await run('pull-full');
    assert.equal(r.processed, 3);
    await push('x', [{ _id: 'e1', _deleted: true }], a);
    r = await run('pull-full');
    assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
    assert.equal(r.processed, 2);
    assert.deepEqual(await live('pull-full'), ['e2', 'e3']);

    const logText = await (await hub.fetch(`${p('pull')}/log`)).text();
    assert.ok(!logText.includes(a.token), 'the token is not in the execution log');

    // A wrong secret: the remote hub refuses, and the run fails saying so (without the secret).
    await hub.json('/systems/a/secrets', { method: 'PUT', json: { 'a-token': 'Bearer wrong-token-value' } });
    r = await run('pull');
    assert.equal(r.status, 'failed');
    assert.match(r.reason_why_stopped ?? '', /HTTP 401/);
    assert.ok(!(r.reason_why_stopped ?? '').includes('wrong-token-value'));

    await createPipe({ _id: 'pull-nosys', source: { type: 'json', system: 'nope', url: 'x' } });
    // A system the project does not hold: the run is offline (nothing read, nothing deleted), and says why.
    r = await run('pull-nosys');
    assert.equal(r.status, 'completed', r.reason_why_stopped ?? '');
    assert.equal(r.offline, true);
    assert.match(r.offline_reason ?? '', /system "nope" is not in this project/);
  } finally {
    await a.stop();
    removeDir(a.dataDir);
  }
});

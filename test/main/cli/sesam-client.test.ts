// The hosted service's own command-line client (sesam-py) against the local hub: its calls replayed over HTTP
// (test/helpers/sesam-client.ts) for upload → status → run → verify → test → wipe on a project in the client's layout
// (test/fixtures/projects/sesam-client), asserting what the client asserts; the internal scheduler
// (/pipes/run-all-pipes and its status, log and stop), node settings the client writes, rejected config, and $ENV in DTL.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO, useHub } from '../../helpers/hub-process.js';
import { ClientHttpError, SesamClient, type ClientPipe } from '../../helpers/sesam-client.js';

const PROJECT = join(REPO, 'test', 'fixtures', 'projects', 'sesam-client');

interface Json {
  [k: string]: unknown;
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('the node as the sesam client sees it', () => {
  const hub = useHub();
  let client: SesamClient;

  before(() => {
    client = new SesamClient(hub.api, hub.token);
  });

  test('the token names a subscription (the node id) and the status document says developer mode', async () => {
    const info = await client.apiInfo();
    const status = info['status'] as Json;
    assert.equal(status['developer_mode'], true, 'the client refuses most commands without status.developer_mode');
    assert.equal(client.subscriptionId(), info['node_id'], 'the first key of the principals object is the node id');
    assert.match(String(status['node_start_time']), /^\d{4}-\d\d-\d\dT/);
    assert.equal(status['node_start_time'], info['node_start_time']);
    const plain = await hub.json<Json>('/status');
    assert.equal(plain['node_start_time'], info['node_start_time'], 'GET /status carries the same start time');
    // Without the trailing slash too (the client builds "<node>/api").
    const res = await fetch(hub.api, { headers: { authorization: `bearer ${hub.token}` } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { status: Json }).status['developer_mode'], true);
  });

  test('every pipe in GET /pipes has runtime.state: null before its first run, then how its runs end, "disabled" when switched off', async () => {
    await hub.json('/pipes', {
      method: 'POST',
      json: [
        { _id: 'st-ok', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] }, pump: { mode: 'scheduled', schedule_interval: 3600 } },
        { _id: 'st-bad', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] }, transform: { type: 'dtl', rules: { default: [['fail!', 'no']] } }, pump: { mode: 'scheduled', schedule_interval: 3600 } },
        { _id: 'st-manual', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] }, pump: { mode: 'manual' } },
      ],
    });
    const state = async (id: string): Promise<unknown> => (await hub.json<ClientPipe[]>('/pipes')).find((p) => p._id === id)!.runtime.state;
    const pipes = await hub.json<ClientPipe[]>('/pipes');
    for (const p of pipes) assert.ok('state' in p.runtime, `${p._id} has runtime.state`);
    assert.equal(await state('st-ok'), null);
    assert.equal(await state('st-manual'), null, 'a manual pump before its first run');
    for (const id of ['st-ok', 'st-bad']) await hub.json(`/pipes/${id}/pump`, { method: 'POST', json: { operation: 'start' } });
    assert.equal(await waitFor('st-ok finished', async () => ((await state('st-ok')) === 'finished' ? true : undefined)), true);
    assert.equal(await waitFor('st-bad failed', async () => ((await state('st-bad')) === 'failed' ? true : undefined)), true);
    await hub.json('/pipes/st-ok/pump', { method: 'POST', json: { operation: 'disable' } });
    assert.equal(await state('st-ok'), 'disabled');
    for (const id of ['st-ok', 'st-bad', 'st-manual']) await hub.json(`/pipes/${id}`, { method: 'DELETE' });
  });

  test('$ENV(...) inside DTL expressions is replaced like elsewhere in config; an unknown one fails the run with its name', async () => {
    await hub.json('/env', { method: 'PUT', json: { 'node-env': 'test', greeting: 'Hello' } });
    const rules = [['copy', '_id'], ['add', 'is_test', ['eq', '$ENV(node-env)', 'test']], ['add', 'text', ['concat', '$ENV(greeting), ', '_S.name']]];
    await hub.json('/pipes', {
      method: 'POST',
      json: [{ _id: 'env-dtl', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a', name: 'Ada' }] }, transform: { type: 'dtl', rules: { default: rules } }, pump: { mode: 'manual' } }],
    });
    await hub.json('/pipes/env-dtl/pump', { method: 'POST', json: { operation: 'start' } });
    const stored = await waitFor('the run', async () => (await hub.json<Json[]>('/datasets/env-dtl/entities'))[0]);
    assert.equal(stored['is_test'], true);
    assert.equal(stored['text'], 'Hello, Ada');
    // The stored config keeps the reference; a changed variable is used from then on.
    assert.deepEqual((await hub.json<Json>('/pipes/env-dtl/config'))['transform'], { type: 'dtl', rules: { default: rules } });
    await hub.json('/env', { method: 'PUT', json: { 'node-env': 'prod', greeting: 'Hi' } });
    const preview = await hub.json<Json[]>('/pipes/env-dtl/entities?stage=sink');
    assert.equal(preview[0]!['is_test'], false);
    assert.equal(preview[0]!['text'], 'Hi, Ada');
    await hub.json('/env', { method: 'PUT', json: {} });
    await hub.json('/pipes/env-dtl/pump', { method: 'POST', json: { operation: 'start' } });
    const failed = await waitFor('the failed run', async () => {
      const p = (await hub.json<ClientPipe[]>('/pipes')).find((x) => x._id === 'env-dtl')!;
      return p.runtime.state === 'failed' ? p : undefined;
    });
    const lastRun = failed.runtime['last-run'] as Json;
    assert.match(String(lastRun['reason_why_stopped']), /unknown environment variable "node-env"/);
    const stage = await hub.fetch('/pipes/env-dtl/entities?stage=sink');
    assert.equal(stage.status, 400);
    // The reference is resolved lazily: the entity whose transform evaluates it fails, naming the variable.
    const problem = (await stage.json()) as { error: string; detail: unknown };
    assert.match(`${problem.error}: ${String(problem.detail)}`, /unknown environment variable "node-env"/);
    await hub.json('/pipes/env-dtl', { method: 'DELETE' });
  });
});

describe('the internal scheduler: POST /pipes/run-all-pipes and its status, log and stop', () => {
  const hub = useHub();
  let client: SesamClient;

  before(() => {
    client = new SesamClient(hub.api, hub.token);
  });

  const embedded = (id: string, entities: Json[], extra: Json = {}): Json => ({ _id: id, type: 'pipe', source: { type: 'embedded', entities }, pump: { mode: 'manual' }, ...extra });

  test('sync: resets the pipes, deletes sink datasets, runs upstream first until nothing changes, answers success', async () => {
    await hub.json('/pipes', {
      method: 'POST',
      json: [
        { _id: 'b-copy', type: 'pipe', source: { type: 'dataset', dataset: 'a-src' }, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'seen', true]] } }, pump: { mode: 'manual' } },
        embedded('a-src', [{ _id: '1', v: 1 }, { _id: '2', v: 2 }]),
      ],
    });
    // A stale entity in a sink dataset: the run deletes the dataset first.
    await hub.json('/datasets/b-copy/entities', { method: 'POST', json: [{ _id: 'stale' }] });
    const answer = await client.runInternalScheduler({ extraZeroRuns: 2, maxRuns: 10, maxRunTime: 60, requestMode: 'sync' });
    assert.equal(answer['status'], 'success', JSON.stringify(answer));
    assert.match(String(answer['additional_info']), /Ran 2 pipe\(s\) in 3 round\(s\) until 2 rounds in a row changed nothing/);
    const copied = await hub.json<Json[]>('/datasets/b-copy/entities');
    assert.deepEqual(copied.map((e) => [e['_id'], e['seen']]), [['1', true], ['2', true]], 'the stale entity went with the deleted dataset');
    const log = await client.schedulerLog(undefined, String(answer['token']));
    const text = log.map((l) => l.logdata).join('\n');
    assert.match(text, /Running 2 pipe\(s\): a-src, b-copy/, 'upstream first');
    assert.match(text, /Reset 2 pipe\(s\) and deleted 1 sink dataset\(s\): b-copy/, 'a-src had no dataset yet');
    assert.match(text, /Round 3 done: no changes \(2 of 2 such rounds\)/);
    for (const l of log) assert.deepEqual(Object.keys(l).sort(), ['logdata', 'loglevel', 'timestamp']);
    // `since` gives the lines after a timestamp only.
    const later = await client.schedulerLog(log[1]!.timestamp, String(answer['token']));
    assert.deepEqual(later, log.slice(2));
    const status = await client.schedulerStatus(String(answer['token']));
    assert.equal(status['status'], 'success');

    // Without the reset, the datasets stay and the pumps continue where they were: nothing changes.
    await hub.json('/datasets/b-copy/entities', { method: 'POST', json: [{ _id: 'kept' }] });
    const again = await client.runInternalScheduler({ extraZeroRuns: 1, resetPipesAndDeleteSinkDatasets: false, requestMode: 'sync' });
    assert.equal(again['status'], 'success');
    assert.ok((await hub.json<Json[]>('/datasets/b-copy/entities')).some((e) => e['_id'] === 'kept'));
  });

  test('async: answers a token at once; status and log follow the run to its end', async () => {
    const first = await client.runInternalScheduler({ requestMode: 'async', outputRunStatistics: true });
    assert.equal(typeof first['token'], 'string');
    const result = await client.run({ requestMode: 'async', outputRunStatistics: true });
    assert.equal(result.status, 'finished', JSON.stringify(result.result));
    assert.match(String((result.result as Json)['additional_info']), /a-src: 1 run\(s\), 2 processed, 2 changed/);
    assert.ok(result.log.some((l) => /Round 1 done/.test(l.logdata)));
    const timestamps = result.log.map((l) => l.timestamp);
    assert.deepEqual([...new Set(timestamps)], timestamps, 'no line is read twice');
    const unknown = await client.schedulerStatus('no-such-token');
    assert.equal(unknown['status'], 'not-running');
  });

  test('a broken pipe ends the run "failed", naming the pipe and the reason in the log and in additional_info', async () => {
    await hub.json('/pipes', { method: 'POST', json: [{ _id: 'c-broken', type: 'pipe', source: { type: 'dataset', dataset: 'a-src' }, transform: { type: 'dtl', rules: { default: [['fail!', 'the price is missing']] } }, pump: { mode: 'manual' } }] });
    const answer = await client.runInternalScheduler({ requestMode: 'sync', maxRuns: 5 });
    assert.equal(answer['status'], 'failed');
    assert.match(String(answer['additional_info']), /1 pipe\(s\) failed: 'c-broken': .*the price is missing/);
    const log = await client.schedulerLog(undefined, String(answer['token']));
    const error = log.find((l) => l.loglevel === 'ERROR' && l.logdata.includes("Pipe 'c-broken' failed"));
    assert.ok(error, JSON.stringify(log));
    assert.match(error.logdata, /the price is missing/);
    // What the client makes of it.
    const run = await client.run({ requestMode: 'sync', maxRuns: 5 });
    assert.equal(run.status, 'failed');
    await hub.json('/pipes/c-broken', { method: 'DELETE' });
  });

  test('a second run while one runs is refused with 409 and the running one\'s token; stop ends the running one', async () => {
    const slow = Array.from({ length: 200 }, (_, i) => ({ _id: `s${i}` }));
    await hub.json('/pipes', {
      method: 'POST',
      json: [embedded('d-slow', slow, { batch_size: 1, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['sleep!', 1]] } } })],
    });
    const first = await client.runInternalScheduler({ requestMode: 'async' });
    const token = String(first['token']);
    await waitFor('the slow pipe to run', async () => ((await hub.json<ClientPipe[]>('/pipes')).find((p) => p._id === 'd-slow')!.runtime.state === 'running' ? true : undefined));
    const second = await client.runInternalScheduler({ requestMode: 'sync' }).catch((e: unknown) => e);
    assert.ok(second instanceof ClientHttpError);
    assert.equal(second.status, 409);
    const body = second.parsedResponse as Json;
    assert.match(String(body['error']), /already running/);
    assert.ok(String(body['detail']).includes(token), 'names the running one');
    assert.equal((await client.schedulerStatus(token))['status'], 'running');

    const stopped = await client.stopInternalScheduler(30);
    assert.equal(stopped['status'], 'failed', JSON.stringify(stopped));
    assert.match(String(stopped['additional_info']), /stopped by request/);
    const status = await client.schedulerStatus(token);
    assert.equal(status['status'], 'failed');
    const slowInfo = (await hub.json<ClientPipe[]>('/pipes')).find((p) => p._id === 'd-slow')!;
    assert.equal(slowInfo.runtime.state, 'stopped', 'the pipe that was running stopped');
    assert.ok(((slowInfo.runtime['last-run'] as Json)['processed'] as number) < 200);
    // Nothing runs now: stopping again says so, and a new run may start.
    assert.equal((await client.stopInternalScheduler())['status'], 'not-running');
    await hub.json('/pipes/d-slow', { method: 'DELETE' });
  });

  test('input pipes fed over HTTP keep their data with delete_input_datasets=False (the client sends it when testdata/ exists)', async () => {
    await hub.json('/pipes', {
      method: 'POST',
      json: [
        { _id: 'e-in', type: 'pipe', source: { type: 'http_endpoint' } },
        { _id: 'e-out', type: 'pipe', source: { type: 'dataset', dataset: 'e-in' }, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'n', ['integer', '_S.v']]] } }, pump: { mode: 'manual' } },
      ],
    });
    await client.json('POST', '/receivers/e-in/entities', { json: [{ _id: 'x', v: '7' }] });
    const kept = await client.runInternalScheduler({ requestMode: 'sync', deleteInputDatasets: false });
    assert.equal(kept['status'], 'success', JSON.stringify(kept));
    assert.deepEqual((await hub.json<Json[]>('/datasets/e-out/entities')).map((e) => [e['_id'], e['n']]), [['x', 7]]);
    const log = (await client.schedulerLog(undefined, String(kept['token']))).map((l) => l.logdata).join('\n');
    assert.doesNotMatch(log, /skipped/, 'a receiver pipe is not a skipped pipe');
    // By default the input datasets go too.
    const wiped = await client.runInternalScheduler({ requestMode: 'sync' });
    assert.equal(wiped['status'], 'success');
    assert.equal((await hub.fetch('/datasets/e-in')).status, 404);
    assert.deepEqual(await hub.json<Json[]>('/datasets/e-out/entities'), []);
    for (const id of ['e-in', 'e-out']) await hub.json(`/pipes/${id}`, { method: 'DELETE' });
  });

  test('max_run_time ends a run that takes too long as "failed", saying so', async () => {
    const slow = Array.from({ length: 200 }, (_, i) => ({ _id: `t${i}` }));
    await hub.json('/pipes', { method: 'POST', json: [embedded('f-slow', slow, { batch_size: 1, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['sleep!', 1]] } } })] });
    const answer = await client.runInternalScheduler({ requestMode: 'sync', maxRunTime: 1 });
    assert.equal(answer['status'], 'failed');
    assert.match(String(answer['additional_info']), /max_run_time of 1 seconds reached/);
    await hub.json('/pipes/f-slow', { method: 'DELETE' });
  });

  test('bad parameters are refused with a clear 400', async () => {
    for (const [query, what] of [
      ['request_mode=later', 'request_mode'],
      ['scheduler_mode=lazy', 'scheduler_mode'],
      ['max_runs=0', 'max_runs'],
      ['delete_input_datasets=maybe', 'delete_input_datasets'],
      ['extra_zero_runs=-1', 'extra_zero_runs'],
    ] as const) {
      const res = await hub.fetch(`/pipes/run-all-pipes?${query}`, { method: 'POST' });
      assert.equal(res.status, 400, query);
      const body = (await res.json()) as { error: string; detail: string };
      assert.match(`${body.error} ${body.detail}`, new RegExp(what), query);
    }
    const log = await hub.fetch('/pipes/get-run-all-pipes-log?since=yesterday');
    assert.equal(log.status, 400);
    const unknown = await hub.fetch('/pipes/get-run-all-pipes-log?token=nope');
    assert.equal(unknown.status, 404);
  });
});

describe('upload → status → run → verify → test → wipe, as the sesam client does them', () => {
  const hub = useHub();
  let client: SesamClient;

  before(() => {
    client = new SesamClient(hub.api, hub.token);
  });

  test('upload: env and the config zip go up; user pipes stay off while disable_user_pipes is set; no pipe is left deploying', async () => {
    assert.equal(((await client.apiInfo())['status'] as Json)['developer_mode'], true);
    await client.upload(PROJECT);
    const pipes = await client.getPipes();
    assert.deepEqual(pipes.map((p) => p._id).sort(), ['orders', 'people', 'person-audit', 'person-endpoint', 'person-summary']);
    for (const p of pipes) assert.notEqual(p.runtime.state, 'Deploying');
    assert.deepEqual(
      Object.fromEntries(pipes.map((p) => [p._id, SesamClient.pipeType(p)])),
      { orders: 'internal', people: 'input', 'person-audit': 'output', 'person-endpoint': 'endpoint', 'person-summary': 'internal' },
      'the pipe types the client derives from the effective config',
    );
    assert.deepEqual(await hub.json('/env'), { 'node-env': 'test', 'erp-url': 'http://127.0.0.1:9/erp/' });
    const md = await hub.json<Json>('/metadata');
    assert.deepEqual(md['task_manager'], { disable_user_pipes: true });
    // The pipes have schedule_interval 1, but nothing is scheduled while user pipes are disabled.
    for (const id of ['people', 'orders', 'person-summary']) {
      const pump = await hub.json<Json>(`/pipes/${id}/pump`);
      assert.equal(pump['scheduler-disabled'], true, id);
      assert.equal(pump['next-run'], null, `${id} has no next run`);
      assert.equal(pump['last-run'], null, `${id} has not run`);
    }
    assert.equal((await hub.json<Json[]>('/datasets')).filter((d) => !String(d['_id']).startsWith('system:')).length, 0, 'no pipe wrote anything');
  });

  test('status: the node config (zip) and env match the local files once the client drops its own task_manager setting', async () => {
    const status = await client.status(PROJECT);
    assert.deepEqual(status.remoteFiles, status.localFiles);
    assert.deepEqual(status.localFiles, [
      'node-metadata.conf.json',
      'pipes/orders.conf.json',
      'pipes/people.conf.json',
      'pipes/person-audit.conf.json',
      'pipes/person-endpoint.conf.json',
      'pipes/person-summary.conf.json',
      'systems/erp.conf.json',
    ]);
    assert.deepEqual(status.differing, []);
    assert.equal(status.envDiffers, false);
  });

  test('run: the internal scheduler runs the project to completion (sync, the client default)', async () => {
    const run = await client.run({ requestMode: 'sync' });
    assert.equal(run.status, 'finished', JSON.stringify(run.result));
    assert.ok(run.log.length > 0, 'the client prints the scheduler log');
    const summary = await hub.json<Json[]>('/datasets/person-summary/entities');
    assert.equal(summary.length, 3);
  });

  test('verify: every output and endpoint pipe has a test; the expected files (blacklist, stage) match', async () => {
    const report = await client.verify(PROJECT);
    assert.deepEqual(report.errors, []);
    assert.deepEqual(report.failed, []);
    assert.deepEqual(report.missing, []);
    assert.equal(report.ran, 2, 'person-endpoint (two specs) and person-audit (ignored)');
    // For xml/csv specs the client enables a disabled endpoint pump first; this one is not disabled.
    assert.equal((await hub.json<Json>('/pipes/person-endpoint/pump'))['is-disabled'], false);
    const published = await hub.json<Json[]>('/publishers/person-endpoint/entities');
    assert.deepEqual(published.map((e) => e['_id']).sort(), ['1', '2', '3']);
  });

  test('verify fails where the output differs from the expected file', async () => {
    await hub.json('/env', { method: 'PUT', json: { 'node-env': 'prod', 'erp-url': 'http://127.0.0.1:9/erp/' } });
    // The production branch of the DTL: person-summary is re-run from scratch by the scheduler, the ERP source is not
    // reachable, so only the env changes matter for people: run without resetting the input pipe's data.
    const run = await client.run({ requestMode: 'sync', deleteInputDatasets: false });
    // The ERP cannot be reached: its pipe is offline (reads nothing, says why) rather than failed, so the run finishes.
    assert.equal(run.status, 'finished', 'orders is offline: the ERP of "prod" cannot be reached');
    const orders = await hub.json<Json>('/pipes/orders/pump');
    assert.match(JSON.stringify(orders), /offline_reason[^,]*cannot reach system/);
    const report = await client.verify(PROJECT);
    assert.deepEqual(report.failed.sort(), ['person-endpoint', 'person-endpoint-source']);
    assert.match(report.errors.join('\n'), /production/);
    await hub.json('/env', { method: 'PUT', json: { 'node-env': 'test', 'erp-url': 'http://127.0.0.1:9/erp/' } });
  });

  test('test: upload, run (async, as long CI runs do) and verify in one go', async () => {
    await client.upload(PROJECT);
    const run = await client.run({ requestMode: 'async' });
    assert.equal(run.status, 'finished', JSON.stringify(run.result));
    const report = await client.verify(PROJECT);
    assert.deepEqual([report.failed, report.missing, report.errors], [[], [], []]);
  });

  test('a rejected upload answers validation_errors per entity, and nothing changes', async () => {
    const before = await hub.json<Json[]>('/config');
    const bad = [
      { _id: 'node', type: 'metadata' },
      { _id: 'good', type: 'pipe', source: { type: 'embedded', entities: [] } },
      { _id: 'bad-sink', type: 'pipe', source: { type: 'embedded', entities: [] }, sink: { type: 'teleport' } },
      { _id: 'bad-dtl', type: 'pipe', source: { type: 'dataset', dataset: 'x' }, transform: { type: 'dtl', rules: { default: [['no-such-function', 1]] } } },
    ];
    const err = await client.json('PUT', '/config', { json: bad }).catch((e: unknown) => e);
    assert.ok(err instanceof ClientHttpError);
    assert.equal(err.status, 400);
    const body = err.parsedResponse as { validation_errors: { 'posted-config': Json; 'config-errors': Json[] }[] };
    assert.deepEqual(body.validation_errors.map((v) => v['posted-config']['_id']), ['bad-sink', 'bad-dtl']);
    for (const v of body.validation_errors) {
      assert.deepEqual(v['posted-config'], bad.find((b) => b._id === v['posted-config']['_id']), 'the posted config as it was sent');
      const errors = v['config-errors'].filter((e) => e['level'] === 'error');
      assert.ok(errors.length > 0);
      for (const e of errors) assert.equal(typeof e['msg'], 'string');
    }
    assert.match(JSON.stringify(body.validation_errors[0]!['config-errors']), /teleport/);
    assert.match(JSON.stringify(body.validation_errors[1]!['config-errors']), /no-such-function/);
    assert.deepEqual(await hub.json<Json[]>('/config'), before, 'nothing was stored');
    // A zip upload is refused the same way.
    const zipErr = await client.json('PUT', '/config', { body: SesamClient.zipProject(PROJECT).slice(0, 40), contentType: 'application/zip' }).catch((e: unknown) => e);
    assert.ok(zipErr instanceof ClientHttpError && zipErr.status === 400);
  });

  test('delete all sink datasets, restart and reset: {"message": "OK"}, and node_start_time moves', async () => {
    const deleted = await client.json<Json>('POST', '/pipes/delete-all-sink-datasets');
    assert.equal(deleted['message'], 'OK');
    assert.deepEqual(deleted['deleted'], ['orders', 'people', 'person-summary']);
    assert.equal(await hub.fetch('/datasets/people').then((r) => r.status), 404);
    const before = (await client.apiInfo())['node_start_time'];
    assert.deepEqual(await client.json('POST', '/restart'), { message: 'OK' });
    const after1 = (await client.apiInfo())['node_start_time'];
    assert.notEqual(after1, before);
    assert.equal((await client.getPipes()).length, 5, 'a restart keeps everything');
    assert.deepEqual(await client.json('POST', '/reset'), { message: 'OK' });
    assert.notEqual((await client.apiInfo())['node_start_time'], after1);
    assert.deepEqual(await client.getPipes(), []);
    assert.deepEqual(await hub.json('/env'), {});
    assert.deepEqual(await hub.json('/config'), []);
  });

  test('wipe: config, env and pipes go', async () => {
    await client.upload(PROJECT);
    await client.wipe(PROJECT);
    assert.deepEqual(await client.getPipes(), []);
    assert.deepEqual(await hub.json('/env'), {});
    assert.deepEqual(await hub.json('/config'), []);
  });
});

export { ClientHttpError, PROJECT };

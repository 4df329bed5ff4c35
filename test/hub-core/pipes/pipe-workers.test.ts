// Pipe workers (issue 22.3): pipes that share no dataset run at the same time in worker threads while the hub's
// thread stays the one writer. The same project gives the same datasets with workers as without (its expected files
// are worked out by hand from the DTL rules); a worker that runs out of its heap in a runaway transform fails that
// pipe's run in words and the hub goes on; the worker count set by flag or environment is the one the hub reports.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, REPO, removeDir, tempDir, useHub, type HubProcess } from '../../helpers/hub-process.js';
import { Hub } from '../../../hub-core/hub.js';
import { workerRequest } from '../../../hub-core/pipes/index.js';
import { pushEntities, runPump } from '../../helpers/api.js';

type Json = Record<string, unknown>;
const PARALLEL = join(REPO, 'test', 'fixtures', 'projects', 'parallel');

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The name and nice value of each thread of a process (Linux). */
function threadNices(pid: number): { name: string; nice: number }[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // After "pid (comm) ", the 17th field is the nice value.
    return { name: readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
  });
}

interface Report {
  passed: number;
  failed: number;
  pipes: { pipe: string; status: string; error: string | null }[];
  pipe_workers: { count: number; started: number };
}

test('two independent chains and a join over both give the same datasets with two workers as with one', async () => {
  for (const workers of ['2', '1']) {
    const res = await runCli(['test', PARALLEL, '--workers', workers, '--json']);
    assert.equal(res.code, 0, `--workers ${workers}: ${res.stdout}${res.stderr}`);
    const report = JSON.parse(res.stdout) as Report;
    assert.equal(report.passed, 3, `--workers ${workers}: every expected file matches`);
    assert.equal(report.failed, 0);
    assert.ok(report.pipes.every((p) => p.status === 'ok'), JSON.stringify(report.pipes));
    assert.equal(report.pipe_workers.count, Number(workers), 'the count given is the count used');
    if (workers === '2') assert.equal(report.pipe_workers.started, 2, 'the two chains ran in two workers at the same time');
    else assert.equal(report.pipe_workers.started, 0, 'one worker: every pipe on the hub thread, as before workers existed');
  }
  // Without --workers a test run keeps its pipes on the hub's thread, as --watch does: on test data starting
  // workers and handing batches over costs more than the pipes (docs/cli.md).
  const plain = await runCli(['test', PARALLEL, '--json']);
  assert.equal(plain.code, 0, plain.stderr);
  const report = JSON.parse(plain.stdout) as Report;
  assert.equal(report.passed, 3);
  assert.deepEqual([report.pipe_workers.count, report.pipe_workers.started], [1, 0], 'no worker started');
  // The environment variable sets it too; a bad value is a usage error.
  const env = await runCli(['test', PARALLEL, '--json'], { DATAHUB_PIPE_WORKERS: '0' });
  assert.equal(env.code, 0, env.stderr);
  assert.equal((JSON.parse(env.stdout) as Report).pipe_workers.count, 0);
  const bad = await runCli(['test', PARALLEL, '--workers', 'many']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--workers must be a whole number/);
});

describe('a worker that runs out of memory', () => {
  // A small worker heap: the runaway fills it before the transform's own bound (dtl/work-limit.ts) is reached.
  const hub = useHub({ env: { DATAHUB_PIPE_WORKERS: '2', DATAHUB_PIPE_WORKER_MEMORY_MB: '64' } });
  const RUNAWAY = { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'grid', ['map', ['range', 0, 2000], ['range', 0, 2000]]]] } };

  test('fails that pipe in words, and the hub and the other pipes go on', async () => {
    await pushEntities(hub, 'many', Array.from({ length: 200 }, (_, i) => ({ _id: `e${i}`, n: i })));
    await hub.json('/pipes', {
      method: 'POST',
      json: [
        { _id: 'runaway', type: 'pipe', source: { type: 'dataset', dataset: 'many' }, transform: RUNAWAY, pump: { mode: 'manual' } },
        { _id: 'plain', type: 'pipe', source: { type: 'dataset', dataset: 'many' }, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'm', ['plus', 1, '_S.n']]] } }, pump: { mode: 'manual' } },
      ],
    });
    const status = await hub.json<Json>('/status');
    assert.deepEqual((status['pipe_workers'] as Json)['count'], 2, 'GET /status shows the worker count set');

    const failed = await runPump<{ status: string; reason_why_stopped: string }>(hub, 'runaway', 'start', 60_000);
    assert.equal(failed.status, 'failed');
    assert.match(failed.reason_why_stopped, /needs more memory than the hub allows/);
    assert.match(failed.reason_why_stopped, /worker thread running it used up its 64 MB heap/);
    assert.equal(hub.child.exitCode, null, 'the hub process is alive');
    assert.equal((await hub.fetch('/health')).status, 200);
    const log = await hub.json<Json[]>('/pipes/runaway/log?reverse=true');
    assert.match(String(log.find((e) => e['event_type'] === 'pump-failed')?.['reason_why_stopped']), /more memory/);

    const ok = await runPump<{ status: string; processed: number }>(hub, 'plain', 'start', 30_000);
    assert.equal(ok.status, 'completed');
    assert.equal(ok.processed, 200);
    const e7 = await hub.json<Json>('/datasets/plain/entities/e7');
    assert.equal(e7['m'], 8);
  });
});

describe('a join run in a worker', () => {
  const hub = useHub({ env: { DATAHUB_PIPE_WORKERS: '2' } });

  test('gets the index it needs from the writer, and dependency tracking re-runs what a change touches', async () => {
    await pushEntities(hub, 'cities', [
      { _id: 'c1', code: 'OSL', name: 'Oslo' },
      { _id: 'c2', code: 'BGO', name: 'Bergen' },
    ]);
    await pushEntities(hub, 'trips', [
      { _id: 't1', to: 'BGO' },
      { _id: 't2', to: 'OSL' },
      { _id: 't3', to: 'TRD' },
    ]);
    const hops = { datasets: ['cities c'], where: ['eq', '_S.to', 'c.code'], return: 'c.name' };
    await hub.json('/pipes', {
      method: 'POST',
      json: [{ _id: 'trip-cities', type: 'pipe', source: { type: 'dataset', dataset: 'trips' }, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'city', ['hops', hops]]] } }, pump: { mode: 'manual' } }],
    });
    const first = await runPump<{ status: string; processed: number }>(hub, 'trip-cities', 'start', 30_000);
    assert.equal(first.status, 'completed');
    const workers = (await hub.json<Json>('/status'))['pipe_workers'] as Json;
    assert.equal(workers['started'], 1, 'the run went to a worker');
    if (process.platform === 'linux') {
      // The worker runs below the hub's thread (the one writer, which also answers the API), as /status says.
      assert.equal(workers['nice'], 10);
      const threads = threadNices(hub.child.pid!);
      // One thread runs lower: the pipe worker (the hub's other worker threads, e.g. the JSON parsers, do not).
      assert.deepEqual(threads.filter((t) => t.nice !== 0), [{ name: 'WorkerThread', nice: 10 }], JSON.stringify(threads));
      assert.equal(threads.find((t) => t.name === 'MainThread')?.nice, 0);
    }
    const city = async (id: string): Promise<unknown> => (await hub.json<Json>(`/datasets/trip-cities/entities/${id}`))['city'];
    assert.deepEqual(await city('t1'), ['Bergen']);
    assert.deepEqual(await city('t2'), ['Oslo']);
    assert.deepEqual(await city('t3'), []);
    const indexes = (await hub.json<{ indexes: { expression: string }[] }>('/datasets/cities')).indexes.map((i) => i.expression);
    assert.ok(indexes.includes('_S.code'), `the join's index was declared on the joined dataset: ${JSON.stringify(indexes)}`);

    // Bergen is renamed and Trondheim arrives: the next run processes t1 and t3 again, and only them.
    await pushEntities(hub, 'cities', [
      { _id: 'c2', code: 'BGO', name: 'Bjørgvin' },
      { _id: 'c3', code: 'TRD', name: 'Trondheim' },
    ]);
    const second = await runPump<{ status: string; processed: number }>(hub, 'trip-cities', 'start', 30_000);
    assert.equal(second.status, 'completed');
    assert.equal(second.processed, 2);
    assert.deepEqual(await city('t1'), ['Bjørgvin']);
    assert.deepEqual(await city('t2'), ['Oslo']);
    assert.deepEqual(await city('t3'), ['Trondheim']);
  });
});

describe('a run in workers that trips its sink\'s circuit breaker', () => {
  const hub = useHub({ env: { DATAHUB_PIPE_WORKERS: '2' } });

  test('keeps the batches before the tripping one, holds that one as uncommitted, and the position stays after the last written', async () => {
    // 200 entities in batches of 10 with a limit of 55 changes per run: batches 1-5 (50 changes) are written, the
    // sixth would make 60. The writer may write batches the workers have ready in one transaction; that changes none
    // of this.
    await pushEntities(hub, 'many', Array.from({ length: 200 }, (_, i) => ({ _id: `g${String(i).padStart(3, '0')}`, i })));
    await hub.json('/pipes', {
      method: 'POST',
      json: [{ _id: 'guarded-copy', type: 'pipe', batch_size: 10, source: { type: 'dataset', dataset: 'many' }, sink: { circuit_breaker_threshold_count: 55 }, transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'twice', ['multiply', 2, '_S.i']]] } }, pump: { mode: 'manual' } }],
    });
    const run = await runPump<{ status: string; reason_why_stopped?: string }>(hub, 'guarded-copy', 'start', 30_000);
    assert.equal(run.status, 'failed');
    assert.match(run.reason_why_stopped ?? '', /circuit breaker/);
    const info = await hub.json<{ count: number; 'circuit-breaker': { tripped: boolean; 'pending-count': number } }>('/datasets/guarded-copy');
    assert.equal(info.count, 50);
    assert.equal(info['circuit-breaker'].tripped, true);
    assert.equal(info['circuit-breaker']['pending-count'], 10);
    assert.equal((await hub.json<Json>('/datasets/guarded-copy/entities/g049'))['twice'], 98);
    assert.equal((await hub.fetch('/datasets/guarded-copy/entities/g050')).status, 404);
    const last = (await hub.json<Json>('/datasets/many/entities/g049'))['_updated'];
    assert.equal((await hub.json<Json>('/pipes/guarded-copy/pump'))['last-seen'], String(last));
  });
});

describe('with --workers 0', () => {
  const hub = useHub({ args: ['--workers', '0'] });

  test('every pipe runs on the hub thread and GET /status says so', async () => {
    await pushEntities(hub, 'few', [{ _id: 'a', n: 1 }]);
    await hub.json('/pipes', { method: 'POST', json: [{ _id: 'copy', type: 'pipe', source: { type: 'dataset', dataset: 'few' }, pump: { mode: 'manual' } }] });
    const run = await runPump<{ status: string }>(hub, 'copy');
    assert.equal(run.status, 'completed');
    const workers = (await hub.json<Json>('/status'))['pipe_workers'] as Json;
    assert.equal(workers['count'], 0);
    assert.equal(workers['started'], 0, 'no worker thread was started');
  });
});

describe('one large pipe read in parts by both workers', () => {
  const parts = useHub({ env: { DATAHUB_PIPE_WORKERS: '2' } });
  const single = useHub({ env: { DATAHUB_PIPE_WORKERS: '1' } });
  // 300 people; 60 of them changed afterwards (their first versions are superseded in the early ranges), 10 deleted.
  const people = Array.from({ length: 300 }, (_, i) => ({ _id: `p${i}`, n: i, city: `c${i % 7}` }));
  const changed = people.slice(0, 60).map((p) => ({ ...p, n: p.n + 1000 }));
  const gone = people.slice(100, 110).map((p) => ({ _id: p._id, _deleted: true }));
  const cities = Array.from({ length: 7 }, (_, i) => ({ _id: `c${i}`, name: `City ${i}` }));
  const pipe = {
    _id: 'people-out',
    type: 'pipe',
    batch_size: 20,
    source: { type: 'dataset', dataset: 'people' },
    transform: {
      type: 'dtl',
      rules: { default: [['copy', '*'], ['add', 'double', ['multiply', 2, '_S.n']], ['add', 'home', ['hops', { datasets: ['cities c'], where: [['eq', '_S.city', 'c._id']], return: 'c.name' }]]] },
    },
    pump: { mode: 'manual' },
  };
  const sinkLog = async (hub: HubProcess): Promise<unknown[]> =>
    (await hub.json<Json[]>('/datasets/people-out/entities?history=true&deleted=true')).map((e) => [e['_updated'], e['_id'], e['_deleted'], e['_hash'], e['double'], e['home']]);

  test('writes the sink exactly as one thread does, and the next run goes on from where the parts ended', async () => {
    for (const hub of [parts, single]) {
      await pushEntities(hub, 'cities', cities);
      await pushEntities(hub, 'people', people);
      await pushEntities(hub, 'people', changed);
      await pushEntities(hub, 'people', gone);
      await hub.json('/pipes', { method: 'POST', json: [pipe] });
      const run = await runPump<{ status: string; processed: number }>(hub, 'people-out', 'start', 30_000);
      assert.equal(run.status, 'completed');
      // Each person once, in its latest version: 300 (10 of them deletes).
      assert.equal(run.processed, 300);
    }
    assert.equal(((await parts.json<Json>('/status'))['pipe_workers'] as Json)['started'], 2, 'the run was shared by both workers');
    assert.equal(((await single.json<Json>('/status'))['pipe_workers'] as Json)['started'], 0);
    const log = await sinkLog(parts);
    assert.deepEqual(log, await sinkLog(single), 'same versions, offsets and hashes in the same order');
    // Worked out by hand: p77 was not changed (double 154), its city is c0; p3 was (n 1003); p105 was deleted.
    const p77 = await parts.json<Json>('/datasets/people-out/entities/p77');
    assert.deepEqual([p77['double'], p77['home']], [154, ['City 0']]);
    assert.equal((await parts.json<Json>('/datasets/people-out/entities/p3'))['double'], 2006);
    assert.equal((await parts.json<Json>('/datasets/people-out/entities/p105'))['_deleted'], true);
    assert.equal(log.length, 300, 'no entity written twice (a superseded version read in an early part would be)');

    // Five more changes: the next run reads those five only, and a changed city reaches the people who live there.
    for (const hub of [parts, single]) {
      await pushEntities(hub, 'people', people.slice(200, 205).map((p) => ({ ...p, n: -p.n })));
      const next = await runPump<{ status: string; processed: number }>(hub, 'people-out', 'start', 30_000);
      assert.equal(next.processed, 5);
      await pushEntities(hub, 'cities', [{ _id: 'c6', name: 'Sixth' }]);
      const deps = await runPump<{ status: string; processed: number }>(hub, 'people-out', 'start', 30_000);
      // c6: people 6, 13, ..., 293 (42 of them), of whom 104 is deleted (a delete looks nothing up).
      assert.equal(deps.processed, 41);
    }
    assert.deepEqual(await sinkLog(parts), await sinkLog(single));
    assert.deepEqual((await parts.json<Json>('/datasets/people-out/entities/p202'))['double'], -404);
  });
});

test('two runs started at the same moment go to two workers, not both to the first', async () => {
  const dir = tempDir('datahub-pool-');
  const before = process.env['DATAHUB_PIPE_WORKERS'];
  process.env['DATAHUB_PIPE_WORKERS'] = '2';
  const hub = new Hub(dir);
  if (before === undefined) delete process.env['DATAHUB_PIPE_WORKERS'];
  else process.env['DATAHUB_PIPE_WORKERS'] = before;
  try {
    hub.datasets.open('few').write([{ _id: 'a' }]);
    hub.pipes.save(hub.pipes.validate([{ _id: 'copy', type: 'pipe', source: { type: 'dataset', dataset: 'few' }, pump: { mode: 'manual' } }], false));
    const runtime = hub.pumps.runtimes.of(hub.pipes.require('copy'));
    const request = workerRequest(hub.pumps.runtimes, runtime, undefined, 100);
    for (let round = 0; round < 2; round++) {
      // The first round spawns both workers; the second finds them idle.
      const [a, b] = await Promise.all([hub.pumps.workers.start(request), hub.pumps.workers.start(request)]);
      assert.ok(a && b, 'both runs went to workers');
      assert.notEqual(a.slotOf, b.slotOf, `round ${round + 1}: one run per worker`);
      a.close();
      b.close();
    }
  } finally {
    hub.close();
    removeDir(dir);
  }
});

// A realistic project in the service's layout (test/fixtures/projects/acme-outbound): namespaced identifiers on with
// a prefix table, conditional sources and transforms chosen by $ENV(node-env), transform lists, a merge with functional
// equality, hops with functional join keys and an `or` of joins, and outbound sql, rest and elasticsearch pipes at the
// end of the chain. Every expected file (expected/*.json for `datahub test`, outbox/*.json for what the outbound sinks
// would have sent) was written by hand from the service's documentation; each says which rule it checks in `_note`.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, useHub, tempDir, removeDir } from '../../helpers/hub-process.js';
import type { JsonObject, JsonValue } from '../../../hub-core/base/index.js';

const PROJECT = join(REPO, 'test', 'fixtures', 'projects', 'acme-outbound');
const CLI = join(REPO, 'bin', 'datahub.js');
const OUTBOUND = ['person-sql', 'person-rest', 'person-es'];

function runCli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, out });
    });
  });
}

describe('datahub test on the acme-outbound project (expected files written by hand from the documented rules)', () => {
  test('every pipe passes: inbound, the merge with hops, and the three outbound pipes', async () => {
    const r = await runCli(['test', PROJECT]);
    assert.equal(r.code, 0, r.out);
    for (const name of ['crm-contact', 'crm-org', 'hr-dept', 'hr-employee', 'hr-team', 'hr-team-member', 'person', ...OUTBOUND]) {
      assert.match(r.out, new RegExp(`^✔ ${name}$`, 'm'));
    }
    assert.match(r.out, /^10 passed, 0 failed$/m);
  });

  test('the prod alternatives are what the expected files depend on: with node-env=prod the project cannot pass (its sql source has no database here)', async () => {
    const dir = tempDir('datahub-acme-');
    try {
      cpSync(PROJECT, dir, { recursive: true });
      writeFileSync(join(dir, 'test-env.json'), JSON.stringify({ 'node-env': 'prod', 'pump-mode': 'scheduled', 'dwh-host': 'x', 'es-host': 'y' }));
      const r = await runCli(['test', dir, '--pipe', 'crm-contact']);
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, /^✘ crm-contact$/m);
      assert.match(r.out, /the conditional source's alternative "prod" is a sql source/, 'the prod alternative is the one built now');
    } finally {
      removeDir(dir);
    }
  });
});

interface OutboxRunInfo {
  run_id: string;
  batches: number;
  entities: number;
}
interface OutboxBatch {
  batch: number;
  target: JsonObject;
  entities: number;
  records: JsonObject[];
}
interface OutboxExpectation {
  target: JsonObject;
  batch_sizes: number[];
  records: JsonObject[];
}
interface PipeInfo {
  _id: string;
  runtime: { 'is-valid-config': boolean; 'config-errors': { elements: string; level: string; msg: string }[] };
}

/** JSON with object keys sorted, so two values compare whatever their key order. */
function canonical(v: JsonValue): string {
  const sort = (x: JsonValue): JsonValue =>
    Array.isArray(x) ? x.map(sort) : x !== null && typeof x === 'object' ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort(x[k]!)])) : x;
  return JSON.stringify(sort(v));
}
/** person-es indexes the time of the run (["now"]): checked to be a datetime, then left out of the comparison. */
function withoutRunTime(pipe: string, record: JsonObject): JsonObject {
  const body = record['body'];
  if (pipe !== 'person-es' || body === null || typeof body !== 'object' || Array.isArray(body)) return record;
  const { indexed_at: at, ...rest } = body;
  assert.match(String(at), /^~t\d{4}-\d\d-\d\dT/, 'indexed_at is the time of the run');
  return { ...record, body: rest };
}
const byKey = (records: JsonObject[]): JsonObject[] => [...records].sort((a, b) => String(a['key']).localeCompare(String(b['key'])));

describe('the acme-outbound project served from its folder: config warnings and the outbox of its outbound pipes', () => {
  const workspace = tempDir('datahub-acme-ws-');
  cpSync(PROJECT, workspace, { recursive: true });
  // --scheduler on: the last test switches the node's scheduler on and expects what a running scheduler checks.
  const hub = useHub({ args: ['--workspace', workspace, '--scheduler', 'on'] });

  test('$ENV in pump settings: set ones used, an unset one is a warning while the scheduler is off; secrets only in prod systems never block', async () => {
    const pipes = await hub.json<PipeInfo[]>('/pipes');
    for (const p of pipes) {
      const errors = p.runtime['config-errors'].filter((e) => e.level === 'error');
      assert.deepEqual(errors, [], `${p._id} has no config errors`);
      assert.equal(p.runtime['is-valid-config'], true, p._id);
    }
    const hr = pipes.find((p) => p._id === 'hr-employee')!;
    const warning = hr.runtime['config-errors'].find((e) => e.level === 'warning' && /hr-interval/.test(e.msg));
    assert.ok(warning, `a warning names the unset variable: ${JSON.stringify(hr.runtime['config-errors'])}`);
  });

  test('after a run of every pipe, each outbound pipe\'s outbox holds what its sink would have sent, namespaces removed', async () => {
    const r = await hub.fetch('/pipes/run-all-pipes?request_mode=sync', { method: 'POST' });
    assert.equal(r.status, 200, await r.clone().text());
    for (const id of OUTBOUND) {
      const expected = JSON.parse(readFileSync(join(PROJECT, 'outbox', `${id}.json`), 'utf8')) as OutboxExpectation;
      const { runs } = await hub.json<{ runs: OutboxRunInfo[] }>(`/pipes/${id}/outbox`);
      assert.ok(runs.length >= 1, `${id} ran offline and recorded a run`);
      const run = runs.find((x) => x.entities > 0)!;
      assert.ok(run, `${id}: a run with entities`);
      const batches: OutboxBatch[] = [];
      for (let b = 1; b <= run.batches; b++) batches.push(await hub.json<OutboxBatch>(`/pipes/${id}/outbox/${encodeURIComponent(run.run_id)}/batches/${b}`));
      assert.deepEqual(batches.map((b) => b.records.length), expected.batch_sizes, `${id}: the sink's batching`);
      for (const b of batches) assert.deepEqual(b.target, expected.target, `${id}: the target`);
      const actual = byKey(batches.flatMap((b) => b.records)).map((r) => withoutRunTime(id, r));
      assert.deepEqual(actual.map(canonical), byKey(expected.records).map(canonical), `${id}: what would have been sent`);
    }
  });

  test('rest sink: with no payload on the entity, the sink or the operation (update-employee defines none), the empty string is sent', async () => {
    await hub.json('/pipes', {
      method: 'POST',
      json: [
        {
          _id: 'rest-no-payload',
          type: 'pipe',
          namespaced_identifiers: false,
          source: { type: 'embedded', entities: [{ _id: 'x', operation: 'update-employee', properties: { email: 'x@example.org' } }] },
          sink: { type: 'rest', system: 'hr-portal' },
          pump: { mode: 'manual' },
        },
      ],
    });
    const r = await hub.fetch('/pipes/rest-no-payload/pump', { method: 'POST', json: { operation: 'start' } });
    assert.ok(r.ok, await r.clone().text());
    let runs: OutboxRunInfo[] = [];
    for (let i = 0; i < 200 && runs.length === 0; i++) {
      runs = (await hub.json<{ runs: OutboxRunInfo[] }>('/pipes/rest-no-payload/outbox')).runs;
      if (runs.length === 0) await new Promise((done) => setTimeout(done, 25));
    }
    const batch = await hub.json<OutboxBatch>(`/pipes/rest-no-payload/outbox/${encodeURIComponent(runs[0]!.run_id)}/batches/1`);
    assert.deepEqual(batch.records, [{ key: 'x', operation: 'update-employee', body: { properties: { email: 'x@example.org' }, payload: '' } }]);
    await hub.json('/pipes/rest-no-payload', { method: 'DELETE' });
  });

  test('with the scheduler on, the unset pump variable is an error of the schedule, and a run by hand still works', async () => {
    const metadata = await hub.json<JsonObject>('/metadata');
    await hub.json('/metadata', { method: 'PUT', json: { ...metadata, task_manager: { disable_pump_scheduler: false } } });
    try {
      const hr = (await hub.json<PipeInfo[]>('/pipes')).find((p) => p._id === 'hr-employee')!;
      const problem = hr.runtime['config-errors'].find((e) => /hr-interval/.test(e.msg));
      assert.equal(problem?.level, 'error', JSON.stringify(hr.runtime['config-errors']));
      const r = await hub.fetch('/pipes/hr-employee/pump', { method: 'POST', json: { operation: 'start' } });
      assert.ok(r.ok, `a run by hand is accepted: ${r.status} ${await r.clone().text()}`);
    } finally {
      await hub.json('/metadata', { method: 'PUT', json: metadata });
    }
  });
});

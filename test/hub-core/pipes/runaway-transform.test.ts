// One pipe cannot take the hub down (issue 16.2): a transform whose lists grow with each other fails its run in words
// once the hub's memory passes its bound, the pump is disabled so its schedule does not run it again until the user
// enables it, previews answer 4xx, and the hub goes on answering. The hub runs with a small heap (256 MB) so the
// bound is reached in seconds; before the bound existed this hub died of memory exhaustion.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { expectError, pumpOperation, pushEntities, sleep, waitFor } from '../../helpers/api.js';

type Json = Record<string, unknown>;

const hub = useHub({ env: { NODE_OPTIONS: '--max-old-space-size=256' } });

const RUNAWAY = { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'grid', ['map', ['range', 0, 2000], ['range', 0, 2000]]]] } };
const ENTITIES = Array.from({ length: 200 }, (_, i) => ({ _id: `e${i}`, n: i }));

interface PumpInfo {
  runs: number;
  'is-running': boolean;
  'is-disabled': boolean;
  'last-run': { status: string; reason_why_stopped: string | null } | null;
}

const pump = (): Promise<PumpInfo> => hub.json<PumpInfo>('/pipes/runaway/pump');

test('a runaway transform on a schedule fails its run in words, is not run again until enabled, and the hub lives', async () => {
  await pushEntities(hub, 'many', ENTITIES);
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'runaway', type: 'pipe', source: { type: 'dataset', dataset: 'many' }, transform: RUNAWAY, pump: { schedule_interval: 1 } }],
  });
  const info = await waitFor('the first run to end', async () => {
    const i = await pump();
    return i.runs >= 1 && !i['is-running'] ? i : undefined;
  }, 60_000);
  assert.equal(hub.child.exitCode, null, 'the hub process is alive');
  assert.equal(info['last-run']?.status, 'failed');
  const reason = info['last-run']?.reason_why_stopped ?? '';
  assert.match(reason, /more memory than the hub allows/);
  assert.match(reason, /enable the pump/, 'the reason says how to run it again');
  assert.equal(info['is-disabled'], true);

  // The schedule (every second) leaves it alone.
  const runs = info.runs;
  await sleep(3000);
  assert.equal((await pump()).runs, runs, 'no run after the failure');
  const health = await hub.fetch('/health');
  assert.equal(health.status, 200, 'the hub answers');
  const log = await hub.json<Json[]>('/pipes/runaway/log?reverse=true');
  assert.match(String(log.find((e) => e['event_type'] === 'pump-failed')?.['reason_why_stopped']), /more memory/);
  assert.equal((await hub.fetch('/datasets/runaway/entities')).status === 200 ? (await hub.json<Json[]>('/datasets/runaway/entities')).length : 0, 0, 'nothing was written');

  // What the runaway left behind does not stop other work: a transform of fair size runs past several checks.
  const fair = await hub.json<{ results: { entities?: Json[] }[] }>('/dtl/preview', {
    method: 'POST',
    json: { transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'k', ['count', ['range', 0, 300000]]]] } }, entities: [{ _id: 'a' }, { _id: 'b' }] },
  });
  assert.equal(fair.results[1]?.entities?.[0]?.['k'], 300000);

  // Enabling it is the user's act; it is scheduled again.
  await pumpOperation(hub, 'runaway', 'disable');
  await pumpOperation(hub, 'runaway', 'enable');
  assert.equal((await pump())['is-disabled'], false);
  await pumpOperation(hub, 'runaway', 'disable');
});

test('previews of a runaway transform answer 4xx in words, and the hub goes on', async () => {
  const dtl = await hub.fetch('/dtl/preview', { method: 'POST', body: JSON.stringify({ transform: RUNAWAY, entities: ENTITIES }), headers: { 'content-type': 'application/json' } });
  const body = await expectError(dtl, '4xx', '/dtl/preview');
  assert.match(body.error, /memory/);
  // Right after it, a fair transform that passes the bound's checkpoints is not blamed for the runaway's garbage.
  const fair = await hub.json<{ results: { entities?: Json[] }[] }>('/dtl/preview', {
    method: 'POST',
    json: { transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'k', ['count', ['map', '_.', ['range', 0, 300000]]]]] } }, entities: [{ _id: 'a' }] },
  });
  assert.equal(fair.results[0]?.entities?.[0]?.['k'], 300000);

  const draft = { _id: 'runaway', type: 'pipe', source: { type: 'embedded', entities: ENTITIES }, transform: RUNAWAY };
  const preview = await hub.fetch('/pipes/runaway/preview', { method: 'POST', body: JSON.stringify(draft), headers: { 'content-type': 'application/json' } });
  await expectError(preview, '4xx', '/pipes/<id>/preview');

  // Long work that holds little memory is stopped by the time bound (10 s on one entity).
  const spin = { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'n', ['count', ['map', ['sum', ['range', 0, 100000]], ['range', 0, 100000]]]]] } };
  const slow = await hub.fetch('/dtl/preview', { method: 'POST', body: JSON.stringify({ transform: spin, entities: [{ _id: 'a' }] }), headers: { 'content-type': 'application/json' } });
  // The bound per entity, or (when a loaded machine delays the first check) the hold bound 2 s after it, or memory.
  assert.match((await expectError(slow, 422, '/dtl/preview of a long transform')).error, /takes too long|holds the hub too long|memory/);

  assert.equal(hub.child.exitCode, null);
  assert.equal((await hub.fetch('/health')).status, 200);
  // An ordinary transform still works.
  const ok = await hub.json<{ results: { entities?: Json[] }[] }>('/dtl/preview', {
    method: 'POST',
    json: { transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'k', ['count', ['range', 0, 5]]]] } }, entities: [{ _id: 'a' }] },
  });
  assert.equal(ok.results[0]?.entities?.[0]?.['k'], 5);
});

test('a transform that builds a huge string ("join", "concat", "ljust") fails in words before making it', async () => {
  const hundred = 'x'.repeat(100);
  const cases: [string, unknown][] = [
    ['join', ['join', '', ['map', hundred, ['range', 0, 1000000]]]],
    ['concat', ['concat', ['map', hundred, ['range', 0, 1000000]]]],
    ['ljust', ['ljust', 500000000, 'x', 'a']],
    ['replace', ['replace', 'x', hundred, ['join', '', ['map', hundred, ['range', 0, 10000]]]]],
  ];
  for (const [fn, expression] of cases) {
    const res = await hub.fetch('/dtl/preview', {
      method: 'POST',
      body: JSON.stringify({ transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 's', expression]] } }, entities: [{ _id: 'a' }] }),
      headers: { 'content-type': 'application/json' },
    });
    const body = await expectError(res, 422, `a 100-million-character string made by ${fn}`);
    assert.match(body.error, /string longer than the hub allows/);
    assert.match(String(body.detail), new RegExp(`"${fn}" would make a string of \\d+ characters`));
  }
  // Strings of fair size are made as before.
  const ok = await hub.json<{ results: { entities?: Json[] }[] }>('/dtl/preview', {
    method: 'POST',
    json: { transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 's', ['length', ['join', '-', ['map', 'ab', ['range', 0, 100000]]]]]] } }, entities: [{ _id: 'a' }] },
  });
  assert.equal(ok.results[0]?.entities?.[0]?.['s'], 299999);
});

test('a pipe during whose runs the hub dies twice in a row is disabled at the next start, in words', async () => {
  const { startHub, removeDir, tempDir } = await import('../../helpers/hub-process.js');
  const data = tempDir('datahub-crashloop-');
  const slow = { type: 'dtl', rules: { default: [['sleep!', 1], ['copy', '*']] } };
  const crashRun = async (h: Awaited<ReturnType<typeof startHub>>): Promise<void> => {
    await pumpOperation(h, 'crashy', 'start');
    await sleep(500);
    await h.kill9();
  };
  let h = await startHub({ dataDir: data });
  try {
    await h.json('/pipes', {
      method: 'POST',
      json: [{ _id: 'crashy', type: 'pipe', source: { type: 'embedded', entities: ENTITIES.slice(0, 20) }, transform: slow, pump: { schedule_interval: 3600 } }],
    });
    await crashRun(h);
    h = await startHub({ dataDir: data });
    let info = await h.json<PumpInfo>('/pipes/crashy/pump');
    assert.match(info['last-run']?.reason_why_stopped ?? '', /^interrupted:/);
    assert.equal(info['is-disabled'], false, 'one interruption may be anything (a kill, a power cut)');

    await crashRun(h);
    h = await startHub({ dataDir: data });
    info = await h.json<PumpInfo>('/pipes/crashy/pump');
    assert.equal(info['is-disabled'], true, 'twice in a row: the schedule leaves it alone');
    assert.match(info['last-run']?.reason_why_stopped ?? '', /twice in a row/);
    assert.match(info['last-run']?.reason_why_stopped ?? '', /enable the pump/);
  } finally {
    await h.stop();
    removeDir(data);
  }
});

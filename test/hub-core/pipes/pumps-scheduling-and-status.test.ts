// Pumps, their scheduling and their status (spec §3 pump states, §4.1 pump endpoints): the schedule and the switches
// that stop it, a config change or delete, what GET /pipes tells of runs, and profiled runs; against the real hub over
// HTTP. What a run does with the data is in pumps.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir, tempDir, type HubProcess } from '../../helpers/hub-process.js';
import { waitFor } from '../../helpers/api.js';
import { createPipe, p, pumpApi, type LastRun, type PumpInfo } from '../../helpers/pump-api.js';

let hub: HubProcess;

before(async () => {
  hub = await startHub();
});

after(async () => {
  if (!hub) return;
  await hub.stop();
  removeDir(hub.dataDir);
});

const { push, pump, operate, op, run, log, lastEnd } = pumpApi(() => hub);

test('the schedule runs a pump by itself; disable stops it, start still works, enable resumes', async () => {
  await push('tick-src', [{ _id: 't' }]);
  await createPipe(hub, { _id: 'tick', source: { type: 'dataset', dataset: 'tick-src' }, pump: { schedule_interval: 1 } });
  const info = await pump('tick');
  assert.ok(info['next-run'] !== null, 'a next run is scheduled');
  await waitFor('a scheduled run', async () => ((await pump('tick')).runs >= 1 ? true : undefined), 5000);
  assert.equal((await pump('tick'))['last-run']?.trigger, 'schedule');

  const disabled = await op('tick', 'disable');
  assert.equal(disabled['is-disabled'], true);
  assert.equal(disabled['next-run'], null);
  assert.equal((await hub.json<{ runtime: { 'is-disabled': boolean } }>(p('tick'))).runtime['is-disabled'], true);
  // That it then stays unrun is checked on a clock the test moves (pump-schedule.test.ts).
  const manual = await run('tick');
  assert.equal(manual.trigger, 'manual', 'start works on a disabled pump');

  const enabled = await op('tick', 'enable');
  assert.equal(enabled['is-disabled'], false);
  const now = enabled.runs;
  await waitFor('a scheduled run after enable', async () => ((await pump('tick')).runs > now ? true : undefined), 5000);
  // Scheduled runs that change nothing are not logged; the first one (it wrote "t") and the manual one are.
  const ends = (await log('tick')).filter((e) => e.event_type === 'pump-completed');
  assert.equal(ends.filter((e) => e['trigger'] === 'schedule' && e['changed_entities'] === 0).length, 0);
  assert.ok(ends.some((e) => e['trigger'] === 'schedule' && e['changed_entities'] === 1));
  assert.ok(ends.some((e) => e['trigger'] === 'manual'));

  // The node metadata can switch the whole scheduler off.
  await hub.json('/metadata', { method: 'PUT', json: { task_manager: { disable_pump_scheduler: true } } });
  await waitFor('the scheduler to stop', async () => ((await pump('tick'))['next-run'] === null ? true : undefined));
  assert.equal((await pump('tick'))['scheduler-disabled'], true);
  await hub.json('/metadata', { method: 'DELETE' });
  await waitFor('the schedule to return', async () => ((await pump('tick'))['next-run'] !== null ? true : undefined));
  await op('tick', 'disable');
});

test('deleting a pipe drops its pump; a config change reschedules', async () => {
  await createPipe(hub, { _id: 'gone', source: { type: 'dataset', dataset: 'src' }, pump: { schedule_interval: 3600 } });
  const next = (await pump('gone'))['next-run'];
  assert.ok(next !== null);
  await hub.json(`${p('gone')}/config`, {
    method: 'PUT',
    json: { _id: 'gone', type: 'pipe', source: { type: 'dataset', dataset: 'src' }, pump: { cron_expression: '0 0 1 1 *' } },
  });
  const cron = await waitFor('the cron schedule', async () => {
    const n = (await pump('gone'))['next-run'];
    return n !== null && n !== next ? n : undefined;
  });
  assert.match(cron, /-01-01T00:00:00\.000Z$/, 'cron in UTC');
  const bad = await hub.fetch(`${p('gone')}/config`, {
    method: 'PUT',
    json: { _id: 'gone', type: 'pipe', source: { type: 'dataset', dataset: 'src' }, pump: { cron_expression: 'every now and then' } },
  });
  assert.equal(bad.status, 400, 'an invalid cron expression is a config error');
  assert.equal((await hub.fetch(p('gone'), { method: 'DELETE' })).status, 200);
  assert.equal((await hub.fetch(`${p('gone')}/pump`)).status, 404);
});

test('startup_options.json with disable_pump_scheduler keeps scheduled pumps from running', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'startup_options.json'), JSON.stringify({ task_manager: { disable_pump_scheduler: true } }));
  const h = await startHub({ dataDir: dir });
  try {
    await createPipe(h, { _id: 'idle', source: { type: 'embedded', entities: [{ _id: '1' }] }, pump: { schedule_interval: 1, run_at_startup: true } });
    const info = await pump('idle', h);
    assert.equal(info['scheduler-disabled'], true);
    assert.equal(info['next-run'], null, 'nothing is scheduled (pump-schedule.test.ts checks that nothing runs)');
    assert.equal(info.runs, 0, 'no startup run');
    assert.equal((await run('idle', 'start', h)).status, 'completed', 'a manual start still works');
  } finally {
    await h.stop();
    removeDir(dir);
  }
});

interface ListedPipe {
  _id: string;
  runtime: {
    'is-running': boolean;
    'is-rescanning': boolean;
    'current-run': { run_type: string; start_time: string; processed: number; changes: number; failed: number } | null;
    'last-run': (LastRun & { errors: number; duration: number; start_time: string; end_time: string }) | null;
    'next-run': string | null;
  };
}

async function listed(id: string): Promise<ListedPipe> {
  const all = await hub.json<ListedPipe[]>('/pipes');
  const found = all.find((x) => x._id === id);
  assert.ok(found, `${id} is in GET /pipes`);
  return found;
}

test('GET /pipes carries each pipe’s last run and the progress of a run in progress, so a list needs one request', async () => {
  await push('listed-src', Array.from({ length: 20_000 }, (_, i) => ({ _id: `l${String(i).padStart(5, '0')}`, n: i })));
  await push('listed-few', Array.from({ length: 8 }, (_, i) => ({ _id: `f${i}`, n: i })));
  // batch_size 1 over 20,000 entities: a run long enough to watch its counter and stop it.
  await createPipe(hub, { _id: 'listed-slow', batch_size: 1, source: { type: 'dataset', dataset: 'listed-src' }, pump: { mode: 'manual' } });
  await createPipe(hub, { _id: 'listed-fast', source: { type: 'dataset', dataset: 'listed-few' }, pump: { mode: 'manual' } });
  await createPipe(hub, {
    _id: 'listed-broken',
    source: { type: 'dataset', dataset: 'listed-few' },
    transform: { type: 'dtl', rules: { default: [['copy', '*'], ['if', ['eq', '_S._id', 'f3'], ['fail!', 'f3 is refused']]] } },
    pump: { schedule_interval: 7200 },
  });
  const idle = await listed('listed-slow');
  assert.equal(idle.runtime['last-run'], null, 'a pipe that never ran has no last run');
  assert.equal(idle.runtime['current-run'], null);
  assert.equal(idle.runtime['next-run'], null, 'a manual pump has no next run');
  const scheduled = (await listed('listed-broken')).runtime['next-run'];
  assert.ok(scheduled !== null && Date.parse(scheduled) > Date.now() + 7000_000, `a scheduled pump says when it runs next: ${scheduled}`);

  await op('listed-slow', 'start');
  // The counter grows batch by batch while the run goes.
  const first = await waitFor('the run to process an entity', async () => {
    const r = (await listed('listed-slow')).runtime;
    return r['is-running'] && r['current-run'] && r['current-run'].processed >= 1 ? r['current-run'] : undefined;
  });
  assert.equal(first.run_type, 'incremental');
  assert.ok(!Number.isNaN(Date.parse(first.start_time)));
  const later = await waitFor('the counter to grow', async () => {
    const c = (await listed('listed-slow')).runtime['current-run'];
    return c && c.processed > first.processed ? c : undefined;
  });
  assert.equal(later.changes, later.processed, 'every entity is new to the sink');
  const stopped = await op('listed-slow', 'stop');
  assert.equal(stopped['is-running'], false);
  const slow = (await listed('listed-slow')).runtime;
  assert.equal(slow['current-run'], null);
  assert.equal(slow['last-run']!.status, 'stopped');
  assert.ok(slow['last-run']!.processed >= later.processed && slow['last-run']!.processed < 20_000, `stopped part way: ${slow['last-run']!.processed}`);
  assert.match(slow['last-run']!.reason_why_stopped ?? '', /stop/);

  await run('listed-fast');
  const last = (await listed('listed-fast')).runtime['last-run']!;
  assert.equal(last.status, 'completed');
  assert.equal(last.processed, 8);
  assert.equal(last.changes, 8);
  assert.equal(last.errors, 0);
  assert.equal(typeof last.duration, 'number');
  assert.ok(Date.parse(last.end_time) >= Date.parse(last.start_time));
  assert.equal(last.reason_why_stopped, null);

  await run('listed-broken');
  const failed = (await listed('listed-broken')).runtime['last-run']!;
  assert.equal(failed.status, 'failed');
  assert.equal(failed.errors, 1, 'the failed write counts as an error');
  assert.match(failed.reason_why_stopped ?? '', /f3 is refused/);
  const end = await lastEnd('listed-broken');
  assert.equal(end['write_errors'], 1, 'the log counts the same error');
});

test('start with profiler=true writes a CPU profile of the run to the logs folder; a second profiled start waits its turn', async () => {
  await push('profiled-src', Array.from({ length: 5000 }, (_, i) => ({ _id: `x${i}`, n: i })));
  await createPipe(hub, {
    _id: 'profiled:one',
    batch_size: 10,
    source: { type: 'dataset', dataset: 'profiled-src' },
    transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'label', ['concat', 'n-', ['string', '_S.n']]]] } },
    pump: { mode: 'manual' },
  });
  await createPipe(hub, { _id: 'profiled-two', source: { type: 'dataset', dataset: 'profiled-src' }, pump: { mode: 'manual' } });
  assert.equal((await pump('profiled:one'))['supports-profiler' as keyof PumpInfo], true, 'the pump says it takes profiler=true');

  const bad = await operate('profiled:one', 'start', { profiler: 'yes please' });
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: string }).error, /invalid profiler value/);

  await op('profiled:one', 'start', { profiler: 'true' });
  // Only one run at a time can be profiled: the profiler samples the whole hub process.
  const second = await operate('profiled-two', 'start', { profiler: 'true' });
  assert.equal(second.status, 409, 'a second profiled run is refused while the first is profiled');
  assert.match(((await second.json()) as { error: string }).error, /profiled:one.*is being profiled/);
  assert.equal((await pump('profiled-two')).runs, 0, 'the refused start did not start a run');

  await waitFor('the profiled run to end', async () => ((await pump('profiled:one'))['is-running'] ? undefined : true), 15_000);
  const end = await lastEnd('profiled:one');
  assert.equal(end['status'], 'completed');
  const files = end['profile_files'] as string[];
  // The hub thread's profile, then one of each pipe worker job that carried a share of the run (it ran in workers).
  assert.ok(files.length >= 4 && files.length % 2 === 0, `profile files of the hub's thread and the workers: ${JSON.stringify(files)}`);
  const [cpu, tree] = files as [string, string];
  files.slice(2).forEach((f, i) => assert.ok(f.startsWith(cpu.replace(/\.cpuprofile$/, `-worker${(i >> 1) + 1}.`)), f));
  assert.ok(cpu.startsWith(join(hub.dataDir, 'logs')), `in the logs folder: ${cpu}`);
  assert.match(cpu, /profiled%3Aone-\d{8}T\d{6}\.\d{3}Z\.cpuprofile$/, 'named with the pipe id and the start time');
  assert.match(tree, /\.calltree$/);
  const profile = JSON.parse(readFileSync(cpu, 'utf8')) as { nodes: { callFrame: { functionName: string } }[]; samples: number[] };
  assert.ok(profile.nodes.length > 10 && profile.samples.length > 0, 'a V8 CPU profile with samples');
  const calltree = readFileSync(tree, 'utf8');
  assert.match(calltree, /^# callgrind format\n/);
  assert.match(calltree, /^events: Microseconds$/m);
  assert.match(calltree, /^fn=\S+/m);

  // The profiler is free again; a start without it writes no files.
  const again = await run('profiled-two');
  assert.equal(again.status, 'completed');
  assert.equal((await lastEnd('profiled-two'))['profile_files'], undefined);
  await op('profiled-two', 'update-last-seen', { 'last-seen': '' });
  await op('profiled-two', 'start', { profiler: 'true' });
  await waitFor('the second profiled run', async () => ((await pump('profiled-two')).runs === 2 && !(await pump('profiled-two'))['is-running'] ? true : undefined));
  assert.ok(((await lastEnd('profiled-two'))['profile_files'] as string[]).length >= 2);
});

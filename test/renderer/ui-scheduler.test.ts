// A project opens calm (issue 33.4), in Chromium against the real hub: `serve --workspace` starts with the pump
// scheduler paused, the top bar says so and its one switch runs the schedules; a run by hand works while paused;
// opening another folder pauses again; `--scheduler on` starts it running.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { signedInPage, closeAll } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

function project(prefix: string): string {
  const dir = tempDir(prefix);
  mkdirSync(join(dir, 'node', 'pipes'), { recursive: true });
  const pipes = [
    { _id: 'tick', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] }, pump: { schedule_interval: 1, run_at_startup: true } },
    { _id: 'by-hand', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'b' }] }, pump: { mode: 'manual' } },
  ];
  for (const p of pipes) writeFileSync(join(dir, 'node', 'pipes', `${p._id}.conf.json`), JSON.stringify(p, null, 2));
  return dir;
}
const first = project('datahub-ui-sched-');
const second = project('datahub-ui-sched-2-');

interface Pump { runs: number; 'next-run': string | null; 'is-running': boolean }
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

before(async () => {
  hub = await startHub({ args: ['--workspace', first] });
  ({ browser, page } = await signedInPage(hub));
});

after(async () => {
  await closeAll(browser, hub, first, second);
});

test('a workspace opens with its schedules paused: said in the top bar, nothing runs by itself, a run by hand works', async () => {
  await page.goto(`${hub.url}/#/pipes`);
  const toggle = page.getByTestId('scheduler-toggle');
  await toggle.filter({ hasText: 'Schedules paused' }).waitFor();
  assert.equal(await toggle.getAttribute('aria-checked'), 'false');
  // run_at_startup and a 1 s interval: had the scheduler run, `tick` would have run by now.
  await sleep(2500);
  const tick = await hub.json<Pump>('/pipes/tick/pump');
  assert.equal(tick.runs, 0, 'no run on open');
  assert.equal(tick['next-run'], null, 'no run armed');

  // By hand: the pipe's start button runs it while the schedules stay paused.
  await page.goto(`${hub.url}/#/pipes/by-hand`);
  await page.getByTestId('pump-controls').locator('button[data-op="start"]').click();
  for (let i = 0; i < 100 && (await hub.json<Pump>('/pipes/by-hand/pump')).runs < 1; i++) await sleep(100);
  assert.equal((await hub.json<Pump>('/pipes/by-hand/pump')).runs, 1, 'the run by hand ran');
  assert.equal((await hub.json<Pump>('/pipes/tick/pump')).runs, 0);
  await page.screenshot({ path: '/tmp/ui-shots/scheduler-paused.png' }).catch(() => undefined);
});

test('the switch runs the schedules (run_at_startup first), and pauses them again', async () => {
  const toggle = page.getByTestId('scheduler-toggle');
  await toggle.click();
  await toggle.filter({ hasText: 'Schedules running' }).waitFor();
  assert.equal(await toggle.getAttribute('aria-checked'), 'true');
  for (let i = 0; i < 100 && (await hub.json<Pump>('/pipes/tick/pump')).runs < 2; i++) await sleep(100);
  assert.ok((await hub.json<Pump>('/pipes/tick/pump')).runs >= 2, 'the startup run and a scheduled one');
  await toggle.click();
  await toggle.filter({ hasText: 'Schedules paused' }).waitFor();
  for (let i = 0; i < 50 && (await hub.json<Pump>('/pipes/tick/pump'))['is-running']; i++) await sleep(100);
  const runs = (await hub.json<Pump>('/pipes/tick/pump')).runs;
  await sleep(2000);
  assert.equal((await hub.json<Pump>('/pipes/tick/pump')).runs, runs, 'paused: no more runs');
});

test('opening another folder pauses the schedules again', async () => {
  const put = await fetch(`${hub.url}/desktop/scheduler`, { method: 'PUT', headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ paused: false }) });
  assert.equal(put.status, 200);
  await page.reload();
  await page.getByTestId('scheduler-toggle').filter({ hasText: 'Schedules running' }).waitFor();
  const open = await fetch(`${hub.url}/desktop/workspace/open`, { method: 'POST', headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ path: second }) });
  assert.equal(open.status, 200, await open.text());
  await page.reload();
  await page.getByTestId('scheduler-toggle').filter({ hasText: 'Schedules paused' }).waitFor();
});

test('--scheduler on starts a workspace with its schedules running', async () => {
  const dir = project('datahub-ui-sched-on-');
  const on = await startHub({ args: ['--workspace', dir, '--scheduler', 'on'] });
  try {
    const state = (await (await fetch(`${on.url}/desktop/scheduler`, { headers: { authorization: `Bearer ${on.token}` } })).json()) as { paused: boolean };
    assert.equal(state.paused, false);
    for (let i = 0; i < 100 && (await on.json<Pump>('/pipes/tick/pump')).runs < 1; i++) await sleep(100);
    assert.ok((await on.json<Pump>('/pipes/tick/pump')).runs >= 1, 'run_at_startup ran');
  } finally {
    await on.stop();
    removeDir(on.dataDir);
    removeDir(dir);
  }
});

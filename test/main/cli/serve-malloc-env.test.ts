// A hub started from a terminal (`datahub serve`) gets the glibc allocator settings the desktop app gives its hub
// (main/cli/malloc-env.ts): without them, memory freed after large pushes stays with the process. glibc reads them only
// when a process starts, so `serve` starts itself again, once, with them: the same process (its pid), nothing left over.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { HUB_MALLOC_ENV, HUB_MALLOC_SWITCH } from '../../../main/cli/malloc-env.js';

const glibc = process.platform === 'linux' && typeof (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime === 'string';
const hubs: HubProcess[] = [];

after(async () => {
  for (const hub of hubs) {
    await hub.stop();
    removeDir(hub.dataDir);
  }
});

/** The environment the hub process runs with now, as the OS tells it. */
function environOf(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const at = entry.indexOf('=');
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}

const mallocOf = (env: Record<string, string>): Record<string, string | undefined> => Object.fromEntries(Object.keys(HUB_MALLOC_ENV).map((k) => [k, env[k]]));

test('datahub serve runs with the allocator settings, in the process that was started; a value the user set is kept', { skip: !glibc && 'glibc only' }, async () => {
  for (const k of Object.keys(HUB_MALLOC_ENV)) assert.equal(process.env[k], undefined, `the test runs without ${k} of its own`);
  const hub = await startHub({ mallocEnv: false });
  hubs.push(hub);
  assert.equal((await hub.fetch('/health')).status, 200);
  assert.deepEqual(mallocOf(environOf(hub.child.pid!)), HUB_MALLOC_ENV, 'the hub the client started (its pid) runs with the settings');

  const own = await startHub({ mallocEnv: false, env: { MALLOC_ARENA_MAX: '4' } });
  hubs.push(own);
  assert.equal((await own.fetch('/health')).status, 200);
  assert.deepEqual(mallocOf(environOf(own.child.pid!)), { ...HUB_MALLOC_ENV, MALLOC_ARENA_MAX: '4' }, "the user's value stays, the others are added");
});

test(`datahub serve with ${HUB_MALLOC_SWITCH}=0 keeps the C library's defaults`, { skip: !glibc && 'glibc only' }, async () => {
  const hub = await startHub({ mallocEnv: false, env: { [HUB_MALLOC_SWITCH]: '0' } });
  hubs.push(hub);
  assert.equal((await hub.fetch('/health')).status, 200);
  assert.deepEqual(mallocOf(environOf(hub.child.pid!)), Object.fromEntries(Object.keys(HUB_MALLOC_ENV).map((k) => [k, undefined])));
});

// Small holes closed (issue 32.5): query parameters out of range are a 400 that states the range, a pump operation's
// required form field is required, and system:* datasets are read-only through the API. Each refusal changes nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { runPump } from '../../helpers/api.js';

let hub: HubProcess;
let tried = 0;
let refused = 0;

before(async () => {
  hub = await startHub();
  await hub.json('/datasets/src/entities', { method: 'POST', json: [{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }] });
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'copy', type: 'pipe', source: { type: 'dataset', dataset: 'src' }, pump: { mode: 'manual' } }] });
  await runPump(hub, 'copy');
});

after(async () => {
  if (hub) {
    await hub.stop();
    removeDir(hub.dataDir);
  }
});

async function refusedWith(res: Response, status: number, what: string): Promise<string> {
  tried++;
  const text = await res.text();
  assert.equal(res.status, status, `${what}: expected ${status}, got ${res.status}: ${text.slice(0, 300)}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, what);
  const body = JSON.parse(text) as { error: string; detail: string | null };
  assert.equal(typeof body.error, 'string', what);
  refused++;
  return body.detail ?? '';
}

test('limit and since out of range are a 400 that states the allowed range, on every log read', async () => {
  const reads = ['/datasets/src/entities', '/pipes/copy/log', `/datasets/${encodeURIComponent('system:pump_execution:copy')}/entities`, '/config-history/entity?entity_id=copy'];
  const bad: [string, RegExp][] = [
    ['limit=99999999999999999999999', /limit .*allowed: from 0 to 9007199254740991/],
    ['limit=-1', /limit .*allowed: from 0 to 9007199254740991/],
    ['limit=1e400', /limit .*allowed: from 0 to 9007199254740991/],
    ['limit=ten', /limit must be integer/],
    ['since=-5', /since .*allowed: from -1 to 9007199254740991/],
    ['since=1e400', /since .*allowed: from -1 to 9007199254740991/],
    ['since=99999999999999999999', /since .*allowed: from -1 to 9007199254740991/],
    ['since=1.5', /since must be integer/],
  ];
  for (const path of reads) {
    for (const [query, detail] of bad) {
      const url = `${path}${path.includes('?') ? '&' : '?'}${query}`;
      assert.match(await refusedWith(await hub.fetch(url), 400, url), detail, url);
    }
  }
  // In range, as before: -1 reads from the start, 0 entities is an empty page.
  assert.equal((await hub.json<unknown[]>('/datasets/src/entities?since=-1')).length, 3);
  assert.equal((await hub.json<unknown[]>('/datasets/src/entities?limit=0')).length, 0);
  assert.equal((await hub.json<unknown[]>('/datasets/src/entities?since=0&limit=9007199254740991')).length, 2);
});

test('update-last-seen without last-seen is a 400 and leaves the pump where it was', async () => {
  const before = (await hub.json<{ 'last-seen': string | null }>('/pipes/copy/pump'))['last-seen'];
  assert.notEqual(before, null, 'the run moved the pump on');
  for (const body of [new URLSearchParams({ operation: 'update-last-seen' }), JSON.stringify({ operation: 'update-last-seen' })]) {
    const headers = typeof body === 'string' ? { 'content-type': 'application/json' } : {};
    const detail = await refusedWith(await hub.fetch('/pipes/copy/pump', { method: 'POST', body, headers }), 400, 'update-last-seen without last-seen');
    assert.match(detail, /empty value/, detail);
  }
  const res = await hub.fetch('/pipes/copy/pump', { method: 'POST', json: { operation: 'update-last-seen', 'last-seen': 5 } });
  assert.match(await refusedWith(res, 400, 'last-seen as a number'), /last-seen/);
  assert.equal((await hub.json<{ 'last-seen': string | null }>('/pipes/copy/pump'))['last-seen'], before, 'not reset');
  // An empty value still starts over, as documented.
  const reset = await hub.json<{ 'last-seen': string | null }>('/pipes/copy/pump', { method: 'POST', body: new URLSearchParams({ operation: 'update-last-seen', 'last-seen': '' }) });
  assert.equal(reset['last-seen'], null);
});

test('system:* datasets are read-only through the API: a pump execution log cannot be forged or removed', async () => {
  const log = `/datasets/${encodeURIComponent('system:pump_execution:copy')}`;
  const before = await hub.json<unknown[]>(`${log}/entities`);
  assert.ok(before.length > 0);
  const forged = [{ _id: 'forged', event_type: 'pump-completed', processed_entities: 999 }];
  assert.match(await refusedWith(await hub.fetch(`${log}/entities`, { method: 'POST', json: forged }), 403, 'a forged log entry'), /read-only|written by the hub/);
  await refusedWith(await hub.fetch(`${log}/entities?force=true`, { method: 'POST', json: forged }), 403, 'forced');
  await refusedWith(await hub.fetch(`${log}/entities`, { method: 'POST', body: JSON.stringify(forged), headers: { 'content-type': 'application/x-ndjson' } }), 403, 'as JSON lines');
  await refusedWith(await hub.fetch(`/datasets/${encodeURIComponent('system:anything')}/entities`, { method: 'POST', json: [{ _id: 'x' }] }), 403, 'any system dataset');
  await refusedWith(await hub.fetch(log, { method: 'DELETE' }), 403, 'deleting the log');
  assert.deepEqual(await hub.json<unknown[]>(`${log}/entities`), before, 'the log is as it was');
  assert.equal((await hub.fetch(`/datasets/${encodeURIComponent('system:anything')}`)).status, 404, 'nothing made');
  // Ordinary datasets are written as before.
  await hub.json('/datasets/mine/entities', { method: 'POST', json: [{ _id: 'x' }] });
});

test('small-holes count', () => {
  console.log(`hostile inputs tried: ${tried}, answered 4xx: ${refused}`);
  assert.equal(refused, tried);
});

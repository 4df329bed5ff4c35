// The explorer's download routes (/desktop/datasets/<id>/download, and the ticketed /desktop/downloads the explorer
// uses for progress), over HTTP against the real hub; a second hub plays a remote instance.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { ConnectionStore } from '../../../main/remote/connections.js';
import { OsKeychain } from '../../../main/secrets/keychain.js';

let hub: HubProcess;
let remote: HubProcess | undefined;
let store: ConnectionStore | undefined;

before(async () => {
  // V8 sizes its young generation from the machine's memory (up to ~100 MB on a big machine): capped here, so the
  // memory test below measures what the download holds on to, not how much garbage V8 lets pile up first.
  hub = await startHub({ env: { ...process.env, NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --max-semi-space-size=8`.trim() } });
});

after(async () => {
  for (const c of store?.list() ?? []) await store!.remove(c.id);
  await Promise.all([hub?.stop(), remote?.stop()]);
  if (hub) removeDir(hub.dataDir);
  if (remote) removeDir(remote.dataDir);
});

interface Ticket {
  id: string;
  file: string;
  url: string;
  state: string;
  bytes: number;
  error?: string;
}

function desktop(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${hub.token}`);
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  const { json, ...rest } = init;
  return fetch(`${hub.url}${path.startsWith('/desktop') ? '' : '/desktop'}${path}`, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) });
}

async function ticketFor(request: Record<string, unknown>): Promise<Ticket> {
  const res = await desktop('/downloads', { method: 'POST', json: request });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text) as Ticket;
}

function download(path: string, token: string | null = hub.token): Promise<Response> {
  return fetch(`${hub.url}/desktop${path}`, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
}

/** Records of a CSV text (RFC 4180: quoted fields may hold commas, doubled quotes and line breaks). */
function parse(text: string): string[][] {
  const records: string[][] = [];
  const field = /"((?:[^"]|"")*)"|([^,"\r\n]*)/y;
  let pos = 0;
  while (pos < text.length) {
    const record: string[] = [];
    for (;;) {
      field.lastIndex = pos;
      const m = field.exec(text)!;
      record.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!);
      pos = field.lastIndex;
      if (text[pos] !== ',') break;
      pos++;
    }
    records.push(record);
    if (text.startsWith('\r\n', pos)) pos += 2;
    else if (pos < text.length) assert.fail(`unexpected ${JSON.stringify(text.slice(pos, pos + 20))} at ${pos}`);
  }
  return records;
}

/** Anonymous resident memory (the heap and buffers; not the mapped database file, which a first read pulls in). */
function rssKB(pid: number): number {
  const m = /RssAnon:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

test('the download needs the token and answers a missing dataset or bad input with JSON errors', async () => {
  await hub.json('/datasets/small/entities', { method: 'POST', json: [{ _id: 'a', n: 1 }] });
  assert.equal((await download('/datasets/small/download?format=csv', null)).status, 401);
  assert.equal((await download('/datasets/small/download?format=csv', 'wrong-token')).status, 401);

  const missing = await download('/datasets/nope/download?format=csv');
  assert.equal(missing.status, 404);
  assert.match(missing.headers.get('content-type') ?? '', /application\/json/);
  const body = (await missing.json()) as { error: string };
  assert.match(body.error, /nope/);
  assert.equal(missing.headers.get('content-disposition'), null, 'an error is not offered as a file');

  const badFormat = await download('/datasets/small/download?format=xml');
  assert.equal(badFormat.status, 400);
  const badSubset = await download(`/datasets/small/download?format=json&subset=${encodeURIComponent('["eq", "_S.n", 1]')}`);
  assert.equal(badSubset.status, 404, 'a subset without a declared index');
  assert.match(((await badSubset.json()) as { error: string }).error, /_S\.n/);
  const notJson = await download('/datasets/small/download?subset=%5B');
  assert.equal(notJson.status, 400);
});

test('JSON downloads are an attachment holding the latest versions, deleted ones only when asked', async () => {
  await hub.json('/datasets/people/entities', {
    method: 'POST',
    json: [
      { _id: 'p1', name: 'Ann', kind: 'staff' },
      { _id: 'p2', name: 'Bo', kind: 'guest' },
      { _id: 'p3', name: 'Cy', kind: 'staff' },
    ],
  });
  await hub.json('/datasets/people/entities', { method: 'POST', json: [{ _id: 'p1', name: 'Ann B', kind: 'staff' }, { _id: 'p2', _deleted: true }] });
  const res = await download('/datasets/people/download?format=json');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="people\.json"/);
  const all = (await res.json()) as { _id: string; name?: string; _deleted: boolean }[];
  assert.deepEqual(all.map((e) => e._id).sort(), ['p1', 'p2', 'p3'], 'one entry per entity: no history');
  assert.equal(all.find((e) => e._id === 'p1')?.name, 'Ann B');
  const live = (await (await download('/datasets/people/download?format=json&deleted=false')).json()) as { _id: string }[];
  assert.deepEqual(live.map((e) => e._id).sort(), ['p1', 'p3']);

  // A subset through an index declared by a pipe's sink.
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'people', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'people', indexes: ['_S.kind'] } }],
  });
  const subset = encodeURIComponent(JSON.stringify(['eq', '_S.kind', 'staff']));
  const staff = (await (await download(`/datasets/people/download?format=json&subset=${subset}`)).json()) as { _id: string }[];
  assert.deepEqual(staff.map((e) => e._id).sort(), ['p1', 'p3']);
  const csv = await (await download(`/datasets/people/download?format=csv&subset=${subset}`)).text();
  // Stored entities keep their keys sorted; p1 comes last because it was written last.
  assert.deepEqual(parse(csv), [['_id', 'kind', 'name'], ['p3', 'staff', 'Cy'], ['p1', 'staff', 'Ann B']]);
});

test('a 100,000-entity CSV streams with bounded memory and correct quoting', async (t) => {
  const total = 100_000;
  const filler = 'x'.repeat(400);
  for (let start = 0; start < total; start += 10_000) {
    const batch = Array.from({ length: 10_000 }, (_, k) => {
      const i = start + k;
      return { _id: `r${String(i).padStart(6, '0')}`, n: i, text: i === 7 ? 'say "hi", then\nleave' : `${filler}${i}`, ok: i % 2 === 0 };
    });
    await hub.json('/datasets/big/entities', { method: 'POST', json: batch });
  }
  const pid = hub.child.pid!;
  await new Promise((r) => setTimeout(r, 200));
  const before = rssKB(pid);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rssKB(pid))), 20);
  const res = await download('/datasets/big/download?format=csv');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
  assert.match(res.headers.get('content-disposition') ?? '', /filename="big\.csv"/);
  assert.equal(res.headers.get('content-length'), null, 'streamed in chunks, not sent as one buffer');
  // Read it as a stream, keeping only what the checks need.
  const decoder = new TextDecoder();
  let head = '';
  let bytes = 0;
  let lineFeeds = 0;
  let tail = '';
  for await (const chunk of res.body!) {
    bytes += chunk.byteLength;
    const text = decoder.decode(chunk, { stream: true });
    if (head.length < 4000) head += text;
    lineFeeds += text.split('\n').length - 1;
    tail = (tail + text).slice(-600);
  }
  clearInterval(timer);
  const growthMB = (peak - before) / 1024;
  t.diagnostic(`hub anonymous memory ${(before / 1024).toFixed(1)} MB before, grew ${growthMB.toFixed(1)} MB while sending ${(bytes / 1e6).toFixed(0)} MB`);
  assert.ok(bytes > 40_000_000, `a file of ${bytes} bytes`);
  assert.equal(lineFeeds, 1 + total + 1, 'header + one line per entity + the line break inside the quoted field');
  const rows = parse(head.slice(0, head.lastIndexOf('r000010'))) as string[][];
  assert.deepEqual(rows[0], ['_id', 'n', 'ok', 'text']);
  assert.deepEqual(rows[8], ['r000007', '7', 'false', 'say "hi", then\nleave']);
  assert.match(head, /"say ""hi"", then\nleave"/, 'quotes doubled, the field quoted');
  assert.match(tail, /r099999,99999,false,x+99999\r\n$/);
  assert.ok(growthMB < 64, `the hub's anonymous memory grew by ${growthMB.toFixed(1)} MB while sending a ${(bytes / 1e6).toFixed(0)} MB file`);
});

test('a ticketed download: checked first (errors in words, no file), then streamed with its bytes counted', async () => {
  await hub.json('/datasets/tick/entities', { method: 'POST', json: [{ _id: 't1', n: 1 }, { _id: 't2', n: 2 }, { _id: 't3', _deleted: true }] });

  const missing = await desktop('/downloads', { method: 'POST', json: { dataset: 'nope', format: 'csv' } });
  assert.equal(missing.status, 404);
  assert.match(((await missing.json()) as { error: string }).error, /dataset "nope" not found/);
  const badSubset = await desktop('/downloads', { method: 'POST', json: { dataset: 'tick', format: 'json', subset: '["eq", "_S.n", 1]' } });
  assert.equal(badSubset.status, 404, 'a subset without a declared index is refused before any file');
  await badSubset.text();
  const badFormat = await desktop('/downloads', { method: 'POST', json: { dataset: 'tick', format: 'xml' } });
  assert.equal(badFormat.status, 400);
  await badFormat.text();

  const ticket = await ticketFor({ dataset: 'tick', format: 'json', deleted: false });
  assert.equal(ticket.state, 'ready');
  assert.equal(ticket.file, 'tick.json');
  const file = await desktop(ticket.url);
  assert.equal(file.status, 200);
  assert.match(file.headers.get('content-disposition') ?? '', /attachment; filename="tick\.json"/);
  const text = await file.text();
  assert.deepEqual((JSON.parse(text) as { _id: string }[]).map((e) => e._id), ['t1', 't2'], 'deleted left out when asked');
  let done: Ticket | undefined;
  for (let i = 0; i < 100; i++) {
    done = (await (await desktop(`/downloads/${ticket.id}`)).json()) as Ticket;
    if (done.state === 'done') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(done?.state, 'done');
  assert.equal(done?.bytes, Buffer.byteLength(text), 'the bytes counted are the bytes sent');

  const again = await desktop(ticket.url);
  assert.equal(again.status, 410, 'a ticket serves one download');
  assert.match(((await again.json()) as { error: string }).error, /already started/);
  const unknown = await desktop('/downloads/no-such-ticket');
  assert.equal(unknown.status, 404);
  await unknown.text();

  // The dataset deleted between the check and the fetch: the file request fails in words, and so does the ticket.
  const late = await ticketFor({ dataset: 'tick', format: 'csv' });
  await hub.fetch('/datasets/tick', { method: 'DELETE' });
  const gone = await desktop(late.url);
  assert.equal(gone.status, 404);
  assert.equal(gone.headers.get('content-disposition'), null, 'an error is not offered as a file');
  await gone.text();
  const failed = (await (await desktop(`/downloads/${late.id}`)).json()) as Ticket;
  assert.equal(failed.state, 'failed');
  assert.match(failed.error ?? '', /dataset "tick" not found/);
});

test('a remote instance\'s dataset downloads through the host as JSON and as CSV, paged', async () => {
  remote = await startHub();
  store = new ConnectionStore(hub.dataDir, new OsKeychain());
  const conn = (await store.add({ kind: 'instance', label: 'Staging', url: remote.api, token: remote.token })).id;
  // More than one page of the host's remote reads (1000), with a key that first appears late.
  const entities = Array.from({ length: 2500 }, (_, i) => ({ _id: `r${String(i).padStart(4, '0')}`, n: i, ...(i >= 1500 ? { late: true } : {}) }));
  await remote.json('/datasets/far/entities', { method: 'POST', json: entities });
  await remote.json('/datasets/far/entities', { method: 'POST', json: [{ _id: 'r0001', _deleted: true }] });

  const missing = await desktop('/downloads', { method: 'POST', json: { dataset: 'nope', format: 'json', connection: conn } });
  assert.equal(missing.status, 404);
  assert.match(((await missing.json()) as { detail: string }).detail, /Staging has no such dataset/);

  const json = await ticketFor({ dataset: 'far', format: 'json', connection: conn });
  const all = (await (await desktop(json.url)).json()) as { _id: string; _deleted?: boolean }[];
  assert.equal(all.length, 2500, 'the latest version of each entity, deleted included');
  assert.equal(all.find((e) => e._id === 'r0001')?._deleted, true);

  const csvTicket = await ticketFor({ dataset: 'far', format: 'csv', connection: conn });
  const res = await desktop(csvTicket.url);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
  const csv = await res.text();
  const lines = csv.split('\r\n').filter((l) => l !== '');
  assert.equal(lines[0], '_id,n', 'columns from the first 1000 entities, as for a local dataset');
  assert.equal(lines.length, 1 + 2499, 'every entity but the deleted one, across pages');
  assert.equal(lines[1], 'r0000,0');
  assert.equal(lines[lines.length - 1], 'r2499,2499');
  assert.ok(!csv.includes(remote.token), 'the token never reaches the file');
  let state: Ticket | undefined;
  for (let i = 0; i < 100; i++) {
    state = (await (await desktop(`/downloads/${csvTicket.id}`)).json()) as Ticket;
    if (state.state === 'done') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(state?.bytes, Buffer.byteLength(csv));
});

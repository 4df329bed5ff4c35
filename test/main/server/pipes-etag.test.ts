// GET /pipes, which the workbench's pipe list polls every 2 s, is tagged (ETag) and answers 304 Not Modified with no
// body while the caller's copy is current (If-None-Match, RFC 9110 §13.1.2), and the whole list again once a pipe
// changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { runPump } from '../../helpers/api.js';

const hub = useHub();

test('GET /pipes answers 304 with no body while unchanged, and the new list once a pipe has run', async () => {
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'etag-people', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] } }] });
  const first = await hub.fetch('/pipes');
  const etag = first.headers.get('etag');
  assert.ok(etag, 'tagged');
  assert.equal(((await first.json()) as unknown[]).length, 1);

  const same = await hub.fetch('/pipes', { headers: { 'if-none-match': etag } });
  assert.equal(same.status, 304);
  assert.equal(await same.text(), '', 'no body');

  // Without a tag, or with another one, the list comes whole.
  const other = await hub.fetch('/pipes', { headers: { 'if-none-match': '"something-else"' } });
  assert.equal(other.status, 200);
  assert.equal(((await other.json()) as unknown[]).length, 1);

  await runPump(hub, 'etag-people');
  const changed = await hub.fetch('/pipes', { headers: { 'if-none-match': etag } });
  assert.equal(changed.status, 200, 'the last run changed the list');
  assert.notEqual(changed.headers.get('etag'), etag);
  const [pipe] = (await changed.json()) as { runtime: { 'last-run': { status: string } | null } }[];
  assert.equal(pipe!.runtime['last-run']?.status, 'completed');
});

// GET /datasets, which the workbench's Datasets list polls every 5 s, is tagged (ETag) like GET /pipes and answers 304
// Not Modified with no body while the caller's copy is current (If-None-Match, RFC 9110 §13.1.2): the time each row
// says it was answered at (`cached_response_info`) is no change. A dataset added, or one written to, brings the whole
// list again with a new tag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';

const hub = useHub();

interface Row {
  _id: string;
  count: number;
}

test('GET /datasets answers 304 with no body while unchanged, and the list with the new dataset once one is added', async () => {
  await hub.json('/datasets/etag-people/entities', { method: 'POST', json: [{ _id: 'a' }, { _id: 'b' }] });
  const first = await hub.fetch('/datasets');
  const etag = first.headers.get('etag');
  assert.ok(etag, 'tagged');
  const rows = (await first.json()) as Row[];
  assert.equal(rows.find((d) => d._id === 'etag-people')?.count, 2);

  // Later, when the rows' `cached_response_info` says another time: still the same list.
  await new Promise((r) => setTimeout(r, 20));
  const same = await hub.fetch('/datasets', { headers: { 'if-none-match': etag } });
  assert.equal(same.status, 304);
  assert.equal(await same.text(), '', 'no body');

  const other = await hub.fetch('/datasets', { headers: { 'if-none-match': '"something-else"' } });
  assert.equal(other.status, 200, 'another tag: the list whole');
  assert.equal(((await other.json()) as Row[]).length, rows.length);

  await hub.json('/datasets/etag-places/entities', { method: 'POST', json: [{ _id: 'oslo' }] });
  const added = await hub.fetch('/datasets', { headers: { 'if-none-match': etag } });
  assert.equal(added.status, 200, 'a dataset added changes the list');
  const addedTag = added.headers.get('etag');
  assert.ok(addedTag);
  assert.notEqual(addedTag, etag);
  assert.equal(((await added.json()) as Row[]).find((d) => d._id === 'etag-places')?.count, 1);

  // An entity written to an existing dataset changes its count: a new answer too.
  await hub.json('/datasets/etag-people/entities', { method: 'POST', json: [{ _id: 'c' }] });
  const written = await hub.fetch('/datasets', { headers: { 'if-none-match': addedTag } });
  assert.equal(written.status, 200);
  assert.equal(((await written.json()) as Row[]).find((d) => d._id === 'etag-people')?.count, 3);
});

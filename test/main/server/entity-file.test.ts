// The publish dialog's file reading (renderer/src/lib/entity-file.ts): what a dropped JSON array, JSON-lines or CSV
// file becomes, and the sentence a user sees for a file it cannot post. Expected values follow RFC 4180 (CSV) and
// JSON Lines by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from '../../helpers/hub-process.js';
import type * as EntityFileModule from '../../../renderer/src/lib/entity-file.js';

const { parseEntityFile, EntityFileProblem } = (await import(pathToFileURL(join(REPO, 'renderer', 'src', 'lib', 'entity-file.ts')).href)) as typeof EntityFileModule;

function problem(name: string, text: string): string {
  try {
    parseEntityFile(name, text);
  } catch (e) {
    assert.ok(e instanceof EntityFileProblem, `${name}: ${String(e)}`);
    return e.message;
  }
  assert.fail(`${name} was read without a problem`);
}

test('a JSON array, one object, and JSON lines (with blank lines) become entities', () => {
  assert.deepEqual(parseEntityFile('a.json', ' [{"_id": "a", "n": 1}, {"_id": "b"}] '), { format: 'JSON array', entities: [{ _id: 'a', n: 1 }, { _id: 'b' }] });
  assert.deepEqual(parseEntityFile('one.json', '{"_id": "a"}'), { format: 'JSON array', entities: [{ _id: 'a' }] });
  assert.deepEqual(parseEntityFile('x.jsonl', '{"_id": "a"}\r\n\n{"_id": "b", "t": [1]}\n'), { format: 'JSON lines', entities: [{ _id: 'a' }, { _id: 'b', t: [1] }] });
  assert.equal(parseEntityFile('lines.json', '{"_id": "a"}\n{"_id": "b"}').format, 'JSON lines', 'objects one per line in a .json file');
});

test('CSV: quoted commas, quotes and line breaks, an id column, semicolons, a byte order mark', () => {
  const csv = '_id,name,note\r\na,"Alta, Finnmark","said ""hi""\nthen left"\r\nb,Bodø,\r\n';
  assert.deepEqual(parseEntityFile('t.csv', csv).entities, [
    { _id: 'a', name: 'Alta, Finnmark', note: 'said "hi"\nthen left' },
    { _id: 'b', name: 'Bodø', note: '' },
  ]);
  assert.deepEqual(parseEntityFile('t.csv', '\uFEFFid;name\n7;Oslo\n').entities, [{ _id: '7', id: '7', name: 'Oslo' }]);
});

test("a file that cannot be posted says why, and where", () => {
  assert.match(problem('notes.txt', 'hello there'), /notes\.txt is not JSON, JSON lines or CSV/);
  assert.match(problem('empty.json', '  '), /empty/);
  assert.match(problem('a.json', '[{"_id": "a"}, {"name": "x"}]'), /Entity 2 has no "_id"/);
  assert.match(problem('a.json', '[1]'), /Entity 1 is not a JSON object/);
  assert.match(problem('x.jsonl', '{"_id": "a"}\n{"_id": \n'), /Line 2 is not JSON/);
  assert.match(problem('t.csv', 'name,town\nAda,London\n'), /no "_id" or "id" column/);
  assert.match(problem('t.csv', '_id,name\na,"open\n'), /closing " is missing/);
  assert.match(problem('t.csv', '_id,name\na,b,c\n'), /CSV line 2 has 3 fields where the header has 2/);
  assert.match(problem('t.csv', '_id,name\n,b\n'), /CSV line 2 has an empty _id/);
});

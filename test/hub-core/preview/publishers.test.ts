// Publishers (spec §4.6, §4.8): JSON Pull, CSV, Excel and XML of a publisher pipe, against the real hub over HTTP.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { expectError } from '../../helpers/api.js';

type Json = Record<string, unknown>;

interface Stored extends Json {
  _id: string;
  _updated: number;
  _deleted?: boolean;
}

let hub: HubProcess;

const ALICE = { _id: 'a', name: 'Alice', note: 'has, comma', n: 1 };
const BOB = { _id: 'b', name: 'Bob "the builder"', note: 'line1\nline2', n: 2 };
const CARL = { _id: 'c', name: '<Carl & co>', address: { city: 'Oslo', zip: '0150' }, n: 3, active: true };
const GONE = { _id: 'gone', name: 'Deleted Person', n: 4 };

before(async () => {
  hub = await startHub();
  await hub.json('/datasets/src/entities', { method: 'POST', json: [ALICE, BOB, GONE, CARL] });
  await hub.json('/datasets/src/entities', { method: 'POST', json: [{ ...GONE, _deleted: true }] });
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'pub', type: 'pipe', source: { type: 'dataset', dataset: 'src' }, sink: { type: 'http_endpoint' } }],
  });
});

after(async () => {
  if (!hub) return;
  await hub.stop();
  removeDir(hub.dataDir);
});

async function get(path: string): Promise<Response> {
  const res = await hub.fetch(path);
  if (res.status !== 200) assert.fail(`GET ${path}: ${res.status} ${await res.text()}`);
  return res;
}

/** RFC 4180 parser: quoted fields, doubled quotes, CRLF or LF record ends. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const endRecord = (): void => {
    row.push(field);
    rows.push(row);
    row = [];
    field = '';
  };
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (ch === '"') {
        quoted = false;
        i++;
      } else {
        field += ch;
        i++;
      }
    } else if (ch === '"') {
      assert.equal(field, '', 'a quote only starts a field');
      quoted = true;
      i++;
    } else if (ch === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (ch === '\r' && text[i + 1] === '\n') {
      endRecord();
      i += 2;
    } else if (ch === '\n') {
      endRecord();
      i++;
    } else {
      field += ch;
      i++;
    }
  }
  assert.equal(quoted, false, 'no unterminated quoted field');
  if (field !== '' || row.length > 0) endRecord();
  return rows;
}

async function workbook(res: Response): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load((await res.arrayBuffer()) as unknown as ExcelJS.Buffer);
  return wb;
}

/** Rows of the first worksheet as arrays of cell values (column A first). */
function sheetRows(wb: ExcelJS.Workbook): unknown[][] {
  const ws = wb.worksheets[0];
  assert.ok(ws, 'the workbook has a worksheet');
  const rows: unknown[][] = [];
  ws.eachRow({ includeEmpty: false }, (row) => {
    const values = row.values as unknown[];
    rows.push(values.slice(1));
  });
  return rows;
}

/** The published columns of the non-deleted entities of `src`. */
const COLUMNS = ['_id', 'name', 'note', 'n', 'address', 'active'];

/** A row as an object keyed by the header; empty cells (undefined, null) are left out of spreadsheet rows. */
function record(header: readonly string[], row: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  header.forEach((name, i) => {
    const v = row[i];
    if (v !== undefined && v !== null) out[name] = v;
  });
  return out;
}

const XLSX_TYPE = /application\/vnd\.openxmlformats-officedocument\.spreadsheetml\.sheet/;

test('/publishers/<pipe>/entities is a JSON array with JSON Pull headers', async () => {
  const res = await get('/publishers/pub/entities');
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const entities = (await res.json()) as Stored[];
  assert.ok(Array.isArray(entities));
  assert.deepEqual(
    entities.map((e) => e._id),
    ['a', 'b', 'c', 'gone'],
    'the latest version of every entity, in offset order',
  );
  const byId = Object.fromEntries(entities.map((e) => [e._id, e]));
  assert.equal(byId['a']!['note'], 'has, comma');
  assert.deepEqual(byId['c']!['address'], CARL.address);
  assert.equal(byId['gone']!._deleted, true, 'deletions are part of the JSON Pull stream');
  for (const e of entities) assert.equal(typeof e._updated, 'number');
  for (let i = 1; i < entities.length; i++) assert.ok(entities[i]!._updated > entities[i - 1]!._updated);

  const maxUpdated = res.headers.get('x-dataset-max-updated');
  assert.ok(maxUpdated !== null, 'X-Dataset-Max-Updated');
  assert.equal(JSON.parse(maxUpdated), entities[entities.length - 1]!._updated, 'the last entity has the max offset');
  assert.ok((res.headers.get('x-dataset-generation') ?? '').length > 0, 'X-Dataset-Generation');
  const populated = res.headers.get('x-dataset-populated');
  assert.ok(populated === null || populated === 'true' || populated === 'false');
  assert.equal(res.headers.get('x-dataset-filtered') ?? 'false', 'false', 'the stream of a plain publisher is not filtered');

  // The same through the dataset itself.
  const ds = await hub.json<Stored[]>('/datasets/src/entities?history=false');
  assert.deepEqual(entities, ds);
});

test('/publishers/<pipe>/entities honours since and limit', async () => {
  const all = (await (await get('/publishers/pub/entities')).json()) as Stored[];
  const since = (await (await get(`/publishers/pub/entities?since=${all[0]!._updated}`)).json()) as Stored[];
  assert.deepEqual(since, all.slice(1));
  const limited = (await (await get('/publishers/pub/entities?limit=2')).json()) as Stored[];
  assert.deepEqual(limited, all.slice(0, 2));
  const both = (await (await get(`/publishers/pub/entities?since=${all[0]!._updated}&limit=1`)).json()) as Stored[];
  assert.deepEqual(both, [all[1]]);
  const end = (await (await get(`/publishers/pub/entities?since=${all[all.length - 1]!._updated}`)).json()) as Stored[];
  assert.deepEqual(end, []);
  // Paging with since/limit reads everything once.
  const paged: Stored[] = [];
  let cursor: number | undefined;
  for (;;) {
    const page = (await (await get(`/publishers/pub/entities?limit=1${cursor !== undefined ? `&since=${cursor}` : ''}`)).json()) as Stored[];
    if (page.length === 0) break;
    paged.push(...page);
    cursor = page[page.length - 1]!._updated;
  }
  assert.deepEqual(paged, all);
  await expectError(await hub.fetch('/publishers/pub/entities?since=not-an-offset'), 400, 'bad since');
  await expectError(await hub.fetch('/publishers/pub/entities?limit=-1'), 400, 'negative limit');

  // The filename variant answers the same entities as an attachment.
  const file = await get('/publishers/pub/entities/dump.json');
  assert.deepEqual(await file.json(), all);
  assert.match(file.headers.get('content-disposition') ?? '', /^attachment;.*dump\.json/);
});

test('/publishers/<pipe>/csv: header row, RFC 4180 quoting, no deleted entities', async () => {
  const res = await get('/publishers/pub/csv');
  assert.match(res.headers.get('content-type') ?? '', /text\/csv/);
  const text = await res.text();
  const rows = parseCsv(text);
  const header = rows[0]!;
  assert.equal(header[0], '_id', 'the header row starts with _id');
  assert.deepEqual([...header].sort(), [...COLUMNS].sort(), 'one column per published property');
  assert.equal(rows.length, 4, `header and three entities: ${JSON.stringify(rows)}`);
  for (const row of rows) assert.equal(row.length, header.length, 'every record has every column');
  assert.deepEqual(record(header, rows[1]!), { _id: 'a', name: 'Alice', note: 'has, comma', n: '1', address: '', active: '' });
  assert.deepEqual(record(header, rows[2]!), { _id: 'b', name: 'Bob "the builder"', note: 'line1\nline2', n: '2', address: '', active: '' });
  assert.deepEqual(record(header, rows[3]!), { _id: 'c', name: '<Carl & co>', note: '', n: '3', address: '{"city":"Oslo","zip":"0150"}', active: 'true' });
  assert.ok(!text.includes('gone') && !text.includes('Deleted Person'), 'the deleted entity is skipped');
  assert.ok(!text.includes('_updated') && !text.includes('_hash'), 'no bookkeeping columns');
  // The raw quoting.
  assert.ok(text.includes('"has, comma"'));
  assert.ok(text.includes('"Bob ""the builder"""'));
  assert.ok(text.includes('"line1\nline2"'));
  assert.ok(text.includes('"{""city"":""Oslo"",""zip"":""0150""}"'));

  // limit and since apply to the CSV too.
  const limited = parseCsv(await (await get('/publishers/pub/csv?limit=1')).text());
  assert.equal(limited.length, 2);
  assert.equal(limited[1]![0], 'a');
  const all = (await (await get('/publishers/pub/entities')).json()) as Stored[];
  const since = parseCsv(await (await get(`/publishers/pub/csv?since=${all[1]!._updated}`)).text());
  assert.deepEqual(
    since.slice(1).map((r) => r[0]),
    ['c'],
  );
});

test('/publishers/<pipe>/csv/<filename> sets a Content-Disposition attachment file name', async () => {
  const res = await get('/publishers/pub/csv/out.csv');
  const cd = res.headers.get('content-disposition') ?? '';
  assert.match(cd, /^attachment;/, cd);
  assert.match(cd, /filename\*?=(UTF-8'')?"?out\.csv"?/, cd);
  const rows = parseCsv(await res.text());
  assert.equal(rows.length, 4);
  assert.equal(rows[0]![0], '_id');
});

test('/publishers/<pipe>/excel is a valid xlsx with a header row and one row per entity', async () => {
  for (const path of ['/publishers/pub/excel', '/publishers/pub/excel/people.xlsx']) {
    const res = await get(path);
    assert.match(res.headers.get('content-type') ?? '', XLSX_TYPE, path);
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment;.*\.xlsx/, path);
    if (path.endsWith('people.xlsx')) assert.match(res.headers.get('content-disposition') ?? '', /people\.xlsx/);
    const rows = sheetRows(await workbook(res));
    const header = rows[0] as string[];
    assert.equal(header[0], '_id');
    assert.deepEqual([...header].sort(), [...COLUMNS].sort());
    assert.equal(rows.length, 4, JSON.stringify(rows));
    assert.deepEqual(record(header, rows[1]!), { _id: 'a', name: 'Alice', note: 'has, comma', n: 1 });
    assert.deepEqual(record(header, rows[2]!), { _id: 'b', name: 'Bob "the builder"', note: 'line1\nline2', n: 2 });
    assert.deepEqual(record(header, rows[3]!), { _id: 'c', name: '<Carl & co>', n: 3, address: '{"city":"Oslo","zip":"0150"}', active: true });
  }
  const limited = sheetRows(await workbook(await get('/publishers/pub/excel?limit=2')));
  assert.deepEqual(
    limited.map((r) => r[0]),
    ['_id', 'a', 'b'],
  );
});

test('/publishers/<pipe>/xml is XML with escaped values', async () => {
  const res = await get('/publishers/pub/xml');
  assert.match(res.headers.get('content-type') ?? '', /xml/);
  const xml = await res.text();
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>/);
  assert.equal((xml.match(/<entity>/g) ?? []).length, 3, 'three entities, the deleted one skipped');
  assert.ok(!xml.includes('Deleted Person'));
  assert.ok(xml.includes('&lt;Carl &amp; co&gt;'), 'markup characters are escaped');
  assert.ok(!xml.includes('<Carl'), 'no raw markup from values');
  assert.ok(xml.includes('has, comma'));
  assert.ok(xml.includes('Bob "the builder"'));
  assert.match(xml, /<city>Oslo<\/city>/, 'nested objects become nested elements');
  // Every element that is opened is closed (a cheap well-formedness check).
  const stack: string[] = [];
  for (const m of xml.matchAll(/<(\/?)([A-Za-z_][\w.-]*)[^>]*?(\/?)>/g)) {
    if (m[3] === '/') continue;
    if (m[1] === '/') assert.equal(stack.pop(), m[2], `closing ${m[2]}`);
    else stack.push(m[2]!);
  }
  assert.deepEqual(stack, []);

  const limited = await (await get('/publishers/pub/xml/out.xml?limit=1')).text();
  assert.equal((limited.match(/<entity>/g) ?? []).length, 1);
});

test('/publishers/<pipe>/csv?linked_excel_file= answers a workbook holding the CSV URL', async () => {
  const res = await get('/publishers/pub/csv?linked_excel_file=x.xlsx');
  assert.match(res.headers.get('content-type') ?? '', XLSX_TYPE);
  assert.match(res.headers.get('content-disposition') ?? '', /x\.xlsx/);
  const wb = await workbook(res);
  const texts: string[] = [];
  for (const ws of wb.worksheets) {
    ws.eachRow((row) => {
      row.eachCell((cell) => {
        const v = cell.value as unknown;
        if (typeof v === 'string') texts.push(v);
        else if (v && typeof v === 'object') {
          const o = v as { text?: unknown; hyperlink?: unknown };
          if (typeof o.hyperlink === 'string') texts.push(o.hyperlink);
          if (typeof o.text === 'string') texts.push(o.text);
        }
      });
    });
  }
  const csvUrl = `${hub.url}/api/publishers/pub/csv`;
  assert.ok(
    texts.some((t) => t.includes(csvUrl)),
    `the workbook links to ${csvUrl}: ${JSON.stringify(texts)}`,
  );
  // The linked URL answers the CSV.
  const csv = await hub.fetch(csvUrl.slice(hub.api.length));
  assert.equal(csv.status, 200);
  assert.equal(parseCsv(await csv.text())[0]![0], '_id');
});

test('a publisher whose source has a subset publishes only that subset', async () => {
  // The indexed dataset is written through a pipe with an http_endpoint source and sink indexes.
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'people-in', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'people', indexes: ['_S.type'] } }],
  });
  await hub.json('/receivers/people-in/entities', {
    method: 'POST',
    json: [
      { _id: 'p1', type: 'person', name: 'Ann' },
      { _id: 'p2', type: 'person', name: 'Ben' },
      { _id: 'o1', type: 'org', name: 'Acme' },
    ],
  });
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'people-pub',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'people', subset: ['eq', '_S.type', 'person'] },
        sink: { type: 'http_endpoint' },
      },
    ],
  });

  const res = await get('/publishers/people-pub/entities');
  const entities = (await res.json()) as Stored[];
  assert.deepEqual(
    entities.map((e) => e._id),
    ['p1', 'p2'],
  );
  // The entity at the max offset (o1) is not in the stream: a client must be told the stream is filtered.
  const all = await hub.json<Stored[]>('/datasets/people/entities');
  assert.equal(JSON.parse(res.headers.get('x-dataset-max-updated') ?? 'null'), all[all.length - 1]!._updated);
  assert.equal(res.headers.get('x-dataset-filtered'), 'true', 'a subset publisher answers a filtered stream');

  const since = (await (await get(`/publishers/people-pub/entities?since=${entities[0]!._updated}`)).json()) as Stored[];
  assert.deepEqual(
    since.map((e) => e._id),
    ['p2'],
  );
  const limited = (await (await get('/publishers/people-pub/entities?limit=1')).json()) as Stored[];
  assert.deepEqual(
    limited.map((e) => e._id),
    ['p1'],
  );

  const csv = parseCsv(await (await get('/publishers/people-pub/csv')).text());
  assert.deepEqual(
    csv.map((r) => r[0]),
    ['_id', 'p1', 'p2'],
  );
  assert.ok(!JSON.stringify(csv).includes('Acme'));
  const xlsx = sheetRows(await workbook(await get('/publishers/people-pub/excel')));
  assert.deepEqual(
    xlsx.map((r) => r[0]),
    ['_id', 'p1', 'p2'],
  );
  const xml = await (await get('/publishers/people-pub/xml')).text();
  assert.equal((xml.match(/<entity>/g) ?? []).length, 2);
  assert.ok(!xml.includes('Acme'));

  // An entity that moves into the subset appears there.
  await hub.json('/receivers/people-in/entities', { method: 'POST', json: [{ _id: 'o1', type: 'person', name: 'Acme (now a person)' }] });
  const moved = (await (await get('/publishers/people-pub/entities')).json()) as Stored[];
  assert.deepEqual(
    moved.map((e) => e._id),
    ['p1', 'p2', 'o1'],
  );

  // A subset without an index is a 404.
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'no-index-pub', type: 'pipe', source: { type: 'dataset', dataset: 'people', subset: ['eq', '_S.name', 'Ann'] }, sink: { type: 'http_endpoint' } }],
  });
  await expectError(await hub.fetch('/publishers/no-index-pub/entities'), 404, 'subset without an index');
  await expectError(await hub.fetch('/publishers/no-index-pub/csv'), 404, 'csv of a subset without an index');
});

test('publishing a pipe whose sink is a dataset, or an unknown pipe, answers 404 JSON', async () => {
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'to-dataset', type: 'pipe', source: { type: 'dataset', dataset: 'src' } }] });
  for (const pipe of ['to-dataset', 'no-such-pipe']) {
    for (const format of ['entities', 'csv', 'excel', 'xml', 'entities/x.json', 'csv/x.csv', 'excel/x.xlsx', 'xml/x.xml']) {
      await expectError(await hub.fetch(`/publishers/${pipe}/${format}`), 404, `${pipe} ${format}`);
    }
    await expectError(await hub.fetch(`/publishers/${pipe}/csv?linked_excel_file=x.xlsx`), 404, `${pipe} linked excel`);
  }
});

test("a publisher pipe's DTL transform shapes what it publishes (JSON and CSV), and filtered entities are left out of CSV", async () => {
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'pub-dtl',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'src' },
        transform: { type: 'dtl', rules: { default: [['filter', ['neq', '_S._id', 'b']], ['copy', '_id'], ['add', 'shout', ['upper', '_S.name']]] } },
        sink: { type: 'http_endpoint' },
      },
    ],
  });
  const res = await get('/publishers/pub-dtl/entities');
  assert.equal(res.headers.get('x-dataset-filtered'), 'true');
  const list = (await res.json()) as Record<string, unknown>[];
  const a = list.find((e) => e['_id'] === 'a');
  assert.equal(a?.['shout'], 'ALICE');
  assert.equal(a?.['name'], undefined, 'only what the transform wrote');
  assert.equal(list.find((e) => e['_id'] === 'b')?.['_deleted'], true, 'a filtered entity is published as deleted');
  const csv = parseCsv(await (await get('/publishers/pub-dtl/csv')).text());
  assert.deepEqual(csv[0], ['_id', 'shout']);
  assert.deepEqual(csv.slice(1).map((r) => r[0]).sort(), ['a', 'c']);
});

test('with namespaced identifiers on, a publisher runs its transform as the pump does (namespaced paths resolve)', async () => {
  await hub.json('/metadata', { method: 'PUT', json: { namespaced_identifiers: true } });
  try {
    await hub.json('/datasets/ns-people/entities', { method: 'POST', json: [{ _id: '1', 'ns-pub:name': 'Ann' }] });
    await hub.json('/pipes', {
      method: 'POST',
      json: [
        {
          _id: 'ns-pub',
          type: 'pipe',
          source: { type: 'dataset', dataset: 'ns-people' },
          transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'who', ['path', 'name', '_S']]] } },
          sink: { type: 'http_endpoint' },
        },
      ],
    });
    // In pipe ns-pub, the unprefixed property name is the pipe's own namespace: "name" reads "ns-pub:name".
    const published = (await (await get('/publishers/ns-pub/entities')).json()) as Record<string, unknown>[];
    const stage = await hub.json<Record<string, unknown>[]>('/pipes/ns-pub/entities?stage=after-transforms');
    const who = (list: Record<string, unknown>[]): unknown[] => list.map((e) => Object.entries(e).find(([k]) => k.endsWith('who'))?.[1]);
    assert.deepEqual(who(stage), ['Ann'], 'the pipe stage (the pump) reads the namespaced property');
    assert.deepEqual(who(published), ['Ann'], 'the publisher reads it too');
  } finally {
    await hub.json('/metadata', { method: 'DELETE' });
  }
});

test('every API answer tells the browser not to sniff it: JSON, CSV, XML, an error', async () => {
  const answers: [string, Response][] = [
    ['JSON', await get('/publishers/pub/entities')],
    ['CSV', await get('/publishers/pub/csv')],
    ['XML', await get('/publishers/pub/xml')],
    ['a 404', await hub.fetch('/publishers/no-such-pipe/csv')],
    ['the pipe list', await get('/pipes')],
  ];
  for (const [what, res] of answers) {
    await res.arrayBuffer();
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${what} (${res.status}) carries nosniff`);
  }
  const unauthenticated = await fetch(`${hub.api}/pipes`);
  assert.equal(unauthenticated.status, 401);
  assert.equal(unauthenticated.headers.get('x-content-type-options'), 'nosniff', 'the 401 too');
});

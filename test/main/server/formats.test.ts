import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { cellValue, entitiesWithColumns, inferColumns } from '../../../main/server/formats/columns.js';
import { csvReadable } from '../../../main/server/formats/csv.js';
import { linkedXlsxReadable, xlsxReadable } from '../../../main/server/formats/xlsx.js';
import { xmlReadable } from '../../../main/server/formats/xml.js';

/** A stored entity's JSON text, with the dataset's bookkeeping properties. */
function stored(id: string, props: Record<string, unknown> = {}, deleted = false): string {
  return JSON.stringify({
    _id: id,
    _updated: 0,
    _deleted: deleted,
    _previous: null,
    _ts: 1700000000000000,
    _hash: 'abc',
    ...props,
  });
}

/** Pages of `pageSize` entities, generated lazily; `pulled` counts the pages handed out. */
function lazyPages(total: number, pageSize: number, make: (i: number) => string) {
  const state = { pulled: 0, finished: false, closed: false };
  function* pages(): Generator<string[]> {
    try {
      for (let start = 0; start < total; start += pageSize) {
        state.pulled++;
        const page: string[] = [];
        for (let i = start; i < Math.min(total, start + pageSize); i++) page.push(make(i));
        yield page;
      }
      state.finished = true;
    } finally {
      state.closed = true;
    }
  }
  return { state, pages: pages() };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

async function readText(stream: Readable): Promise<string> {
  return (await readAll(stream)).toString('utf8');
}

/** Resolves with the first chunk the stream gives. */
function firstChunk(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    stream.once('error', reject);
    stream.once('readable', () => {
      const chunk: unknown = stream.read();
      resolve(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    });
  });
}

async function loadWorkbook(stream: Readable): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load((await readAll(stream)) as unknown as ExcelJS.Buffer);
  return workbook;
}

// ---------------------------------------------------------------- columns

test('inferColumns: _id first, then first appearance, no _ properties', () => {
  assert.deepEqual(
    inferColumns([
      { name: 'a', _updated: 1, _id: 'x' },
      { _id: 'y', age: 3, name: 'b', _hash: 'h' },
      { city: 'Oslo' },
    ]),
    ['_id', 'name', 'age', 'city'],
  );
  assert.deepEqual(inferColumns([]), ['_id']);
});

test('cellValue: scalars, JSON for structures, typed values untagged', () => {
  assert.equal(cellValue(null), null);
  assert.equal(cellValue(undefined), null);
  assert.equal(cellValue('x'), 'x');
  assert.equal(cellValue(1.5), 1.5);
  assert.equal(cellValue(false), false);
  assert.equal(cellValue(['a', 'b']), '["a","b"]');
  assert.equal(cellValue({ city: 'Oslo', n: [1] }), '{"city":"Oslo","n":[1]}');
  assert.equal(cellValue('~t2024-01-01T00:00:00Z'), '2024-01-01T00:00:00Z');
  assert.equal(cellValue('~f1.5'), '1.5');
  assert.equal(cellValue('~:ns:id'), 'ns:id');
  assert.equal(cellValue('~uhttp://example.org/x'), 'http://example.org/x');
  assert.equal(cellValue('~r550e8400-e29b-41d4-a716-446655440000'), '550e8400-e29b-41d4-a716-446655440000');
  assert.equal(cellValue('~bAAEC'), 'AAEC');
  assert.equal(cellValue('~x not a tag'), '~x not a tag');
  assert.equal(cellValue('~'), '~');
});

test('entitiesWithColumns: columns first, looks ahead at most 1000 entities', async () => {
  const { state, pages } = lazyPages(5000, 100, (i) => stored(`e${i}`, i === 1500 ? { late: 1 } : { n: i }));
  const gen = entitiesWithColumns(pages);
  const first = await gen.next();
  assert.equal(first.done, false);
  assert.deepEqual(first.value, { kind: 'columns', columns: ['_id', 'n'] });
  assert.equal(state.pulled, 10, 'only the pages holding the first 1000 entities');
  let count = 0;
  for await (const item of gen) {
    assert.equal(item.kind, 'entity');
    count++;
  }
  assert.equal(count, 5000);
  assert.ok(state.finished);
});

test('entitiesWithColumns: given columns are used without looking ahead', async () => {
  const { state, pages } = lazyPages(5000, 100, (i) => stored(`e${i}`, { n: i }));
  const gen = entitiesWithColumns(pages, ['n', '_id']);
  assert.deepEqual((await gen.next()).value, { kind: 'columns', columns: ['n', '_id'] });
  assert.equal(state.pulled, 0);
  assert.equal((await gen.next()).value?.kind, 'entity');
  assert.equal(state.pulled, 1);
  await gen.return();
  assert.ok(state.closed, 'stopping early closes the pages');
  assert.equal(state.finished, false);
});

// ---------------------------------------------------------------- CSV

test('CSV: header, RFC 4180 quoting, deleted skipped, nested JSON, typed values untagged', async () => {
  const pages = [
    [
      stored('a', { name: 'plain', tags: ['a', 'b'], address: { city: 'Oslo' }, ok: true, n: 1.5 }),
      stored('b', { name: 'with, comma', ok: false, n: null }),
      stored('gone', { name: 'deleted one', onlyInDeleted: 1 }, true),
    ],
    [
      stored('c', { name: 'say "hi"' }),
      stored('d', { name: 'two\nlines', when: '~t2024-01-01T00:00:00Z', ref: '~:people:1', price: '~f9.95' }),
      stored('e', { name: 'cr\rhere' }),
    ],
  ];
  const text = await readText(csvReadable(pages, {}));
  assert.equal(
    text,
    [
      '_id,name,tags,address,ok,n,when,ref,price',
      'a,plain,"[""a"",""b""]","{""city"":""Oslo""}",true,1.5,,,',
      'b,"with, comma",,,false,,,,',
      'c,"say ""hi""",,,,,,,',
      'd,"two\nlines",,,,,2024-01-01T00:00:00Z,people:1,9.95',
      'e,"cr\rhere",,,,,,,',
      '',
    ].join('\r\n'),
  );
  assert.ok(!text.includes('gone') && !text.includes('onlyInDeleted'));
});

test('CSV: given columns and delimiter, delimiter quoted, BOM on request', async () => {
  const pages = [[stored('a;1', { x: 'p;q', y: 2, constructor: undefined })]];
  const text = await readText(csvReadable(pages, { columns: ['y', '_id', 'x', 'missing', 'constructor'], delimiter: ';', bom: true }));
  assert.equal(text, '\uFEFFy;_id;x;missing;constructor\r\n2;"a;1";"p;q";;\r\n');
  assert.throws(() => csvReadable([], { delimiter: '"' }), TypeError);
  assert.throws(() => csvReadable([], { delimiter: ',,' }), TypeError);
});

test('CSV: an empty dataset gives just the header', async () => {
  assert.equal(await readText(csvReadable([], {})), '_id\r\n');
  assert.equal(await readText(csvReadable([[stored('x', { a: 1 }, true)]], { columns: ['_id', 'a'] })), '_id,a\r\n');
});

test('CSV: invalid entity JSON errors the stream', async () => {
  await assert.rejects(readText(csvReadable([[stored('a'), '{not json']], {})), /entity #1 is not valid JSON/);
  await assert.rejects(readText(csvReadable([['[1]']], {})), /entity #0 is not a JSON object/);
});

test('CSV: 200k entities stream lazily', async () => {
  const total = 200_000;
  const pageSize = 1000;
  const { state, pages } = lazyPages(total, pageSize, (i) =>
    stored(`e${i}`, i % 10 === 9 ? { name: `deleted ${i}` } : { name: `name ${i}`, n: i, tags: ['x', i] }, i % 10 === 9),
  );
  const stream = csvReadable(pages, {});
  const first = await firstChunk(stream);
  assert.ok(first.toString('utf8').startsWith('_id,name,n,tags\r\ne0,name 0,0,"[""x"",0]"\r\n'));
  assert.ok(state.pulled < 10, `only a few pages pulled before the first chunk was read (pulled ${state.pulled})`);
  assert.equal(state.finished, false);

  let lines = first.toString('utf8').split('\r\n').length - 1;
  for await (const chunk of stream) lines += (chunk as Buffer).toString('utf8').split('\r\n').length - 1;
  assert.equal(lines, 1 + total - total / 10);
  assert.equal(state.pulled, total / pageSize);
  assert.ok(state.finished);
});

for (const [format, publish] of [
  ['CSV', csvReadable],
  ['XLSX', xlsxReadable],
  ['XML', xmlReadable],
] as const) {
  test(`${format}: destroying the stream early closes the pages`, async () => {
    const { state, pages } = lazyPages(100_000, 1000, (i) => stored(`e${i}`, { n: i, name: 'x'.repeat(i % 40) }));
    const stream = publish(pages, {});
    await firstChunk(stream);
    await new Promise((resolve) => setTimeout(resolve, 50));
    stream.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(state.closed, 'the pages generator was closed');
    assert.equal(state.finished, false);
    assert.ok(state.pulled < 20, `pulled ${state.pulled} pages`);
  });
}

// ---------------------------------------------------------------- XLSX

test('XLSX: bold header, one row per entity, typed cells', async () => {
  const pages = [
    [
      stored('a', { name: 'Ann', age: 42, ok: true, tags: ['a', 'b'], address: { city: 'Oslo' } }),
      stored('gone', { name: 'deleted' }, true),
    ],
    [stored('b', { name: 'Bob, "B"', age: null, ok: false, when: '~t2024-01-01T00:00:00Z', bad: 'x\u0001y' })],
  ];
  const workbook = await loadWorkbook(xlsxReadable(pages, { sheetName: 'People/2024' }));
  assert.equal(workbook.worksheets.length, 1);
  const sheet = workbook.worksheets[0];
  assert.ok(sheet);
  assert.equal(sheet.name, 'People_2024');
  assert.equal(sheet.rowCount, 3);

  const header = sheet.getRow(1);
  assert.deepEqual((header.values as unknown[]).slice(1), ['_id', 'name', 'age', 'ok', 'tags', 'address', 'when', 'bad']);
  for (let c = 1; c <= 8; c++) assert.equal(header.getCell(c).font?.bold, true, `header cell ${c} is bold`);
  assert.notEqual(sheet.getRow(2).getCell(1).font?.bold, true);

  const a = sheet.getRow(2);
  assert.equal(a.getCell(1).value, 'a');
  assert.equal(a.getCell(2).value, 'Ann');
  assert.equal(a.getCell(3).value, 42);
  assert.equal(a.getCell(4).value, true);
  assert.equal(a.getCell(5).value, '["a","b"]');
  assert.equal(a.getCell(6).value, '{"city":"Oslo"}');
  assert.equal(a.getCell(7).value, null);

  const b = sheet.getRow(3);
  assert.equal(b.getCell(1).value, 'b');
  assert.equal(b.getCell(2).value, 'Bob, "B"');
  assert.equal(b.getCell(3).value, null);
  assert.equal(b.getCell(4).value, false);
  assert.equal(b.getCell(7).value, '2024-01-01T00:00:00Z');
  assert.equal(b.getCell(8).value, 'xy');
});

test('XLSX: given columns, rows continue on further sheets past the row limit', async () => {
  const { pages } = lazyPages(5, 2, (i) => stored(`e${i}`, { n: i }));
  const workbook = await loadWorkbook(xlsxReadable(pages, { columns: ['n', '_id'], maxRowsPerSheet: 3 }));
  assert.deepEqual(
    workbook.worksheets.map((s) => s.name),
    ['Entities', 'Entities (2)', 'Entities (3)'],
  );
  const rows = workbook.worksheets.map((s) => s.getSheetValues().slice(1).map((r) => (r as unknown[]).slice(1)));
  assert.deepEqual(rows, [
    [['n', '_id'], [0, 'e0'], [1, 'e1']],
    [['n', '_id'], [2, 'e2'], [3, 'e3']],
    [['n', '_id'], [4, 'e4']],
  ]);
  for (const s of workbook.worksheets) assert.equal(s.getRow(1).getCell(1).font?.bold, true);
});

test('XLSX: an empty dataset gives a header-only sheet', async () => {
  const workbook = await loadWorkbook(xlsxReadable([], {}));
  const sheet = workbook.worksheets[0];
  assert.ok(sheet);
  assert.equal(sheet.rowCount, 1);
  assert.equal(sheet.getCell('A1').value, '_id');
});

test('XLSX: streams lazily with backpressure', async () => {
  const total = 100_000;
  const { state, pages } = lazyPages(total, 1000, (i) =>
    stored(`entity-${i}`, { name: `name ${i} ${'x'.repeat(i % 50)}`, n: i * 7919, r: Math.sin(i) }),
  );
  const stream = xlsxReadable(pages, {});
  const first = await firstChunk(stream);
  // Nobody reads for a while: production has to stop once the output is full.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(state.finished, false, `the generator must not run ahead of the reader (pulled ${state.pulled} pages)`);
  const buffer = Buffer.concat([first, await readAll(stream)]);
  assert.ok(state.finished);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(buffer as unknown as ExcelJS.Buffer);
  const sheet = workbook.worksheets[0];
  assert.ok(sheet);
  assert.equal(sheet.rowCount, total + 1);
  assert.equal(sheet.getCell(`A${total + 1}`).value, `entity-${total - 1}`);
  assert.equal(sheet.getCell(`C${total + 1}`).value, (total - 1) * 7919);
});

test('XLSX: errors while producing error the stream', async () => {
  await assert.rejects(readAll(xlsxReadable([[stored('a')], ['nope']], {})), /entity #1 is not valid JSON/);
});

test('linked XLSX: explains where the CSV is and links to it', async () => {
  const url = 'http://localhost:9042/api/publishers/people/csv?since=0&x=1';
  const workbook = await loadWorkbook(linkedXlsxReadable(url, 'people.xlsx'));
  const sheet = workbook.worksheets[0];
  assert.ok(sheet);
  const text = sheet.getCell('A1').value;
  assert.equal(typeof text, 'string');
  assert.ok((text as string).includes(url));
  assert.ok((text as string).includes('people.xlsx'));
  const link = sheet.getCell('A2');
  assert.deepEqual(link.value, { text: url, hyperlink: url });
  assert.equal(link.hyperlink, url);
  assert.throws(() => linkedXlsxReadable('javascript:alert(1)', 'x'), TypeError);
  assert.throws(() => linkedXlsxReadable('/relative/path', 'x'), TypeError);
});

// ---------------------------------------------------------------- XML

/** Checks that tags balance and that every `&` starts a reference; returns the element names seen. */
function checkWellFormed(xml: string): string[] {
  assert.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n'));
  assert.doesNotMatch(xml, /&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/, 'bare &');
  assert.doesNotMatch(xml, /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/, 'characters not allowed in XML');
  const body = xml.slice(xml.indexOf('?>') + 2);
  const stack: string[] = [];
  const names: string[] = [];
  let roots = 0;
  const tag = /<(\/?)([^\s/>]+)((?:\s+[^\s=]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(body); m !== null; m = tag.exec(body)) {
    assert.doesNotMatch(body.slice(last, m.index), /[<>]/, 'stray < or > in text');
    last = tag.lastIndex;
    const [, closing, name = '', , selfClosing] = m;
    if (closing === '/') {
      assert.equal(stack.pop(), name, `</${name}> closes the open element`);
    } else {
      if (stack.length === 0) roots++;
      names.push(name);
      if (selfClosing !== '/') stack.push(name);
    }
  }
  assert.equal(body.slice(last).trim(), '');
  assert.deepEqual(stack, [], 'every element is closed');
  assert.equal(roots, 1, 'one root element');
  return names;
}

test('XML: elements, arrays, nesting, nil, escaping, property fallback', async () => {
  const pages = [
    [
      stored('a&b', {
        name: 'Tom & "Jerry" <cat>',
        tags: ['x', 'y'],
        address: { city: 'Oslo', zip: null, lines: ['l1', 'l2'] },
        age: 3,
        ok: true,
        nothing: null,
        'first name': 'has space',
        '1st': 'digit first',
        'a:b': 'colon',
        when: '~t2024-01-01T00:00:00Z',
        ctrl: 'bell\u0007 and lone \uD800 surrogate',
        matrix: [[1, 2], [3]],
        empty: [],
      }),
      stored('gone', { name: 'deleted' }, true),
    ],
    [stored('b')],
  ];
  const xml = await readText(xmlReadable(pages, {}));
  const names = checkWellFormed(xml);
  assert.equal(names[0], 'entities');
  assert.equal(names.filter((n) => n === 'entity').length, 2);
  assert.ok(xml.includes('<entities xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'));
  assert.ok(xml.includes('<_id>a&amp;b</_id>'));
  assert.ok(xml.includes('<name>Tom &amp; "Jerry" &lt;cat&gt;</name>'));
  assert.match(xml, /<tags>x<\/tags>\s*<tags>y<\/tags>/);
  assert.match(
    xml,
    /<address>\s*<city>Oslo<\/city>\s*<zip xsi:nil="true"\/>\s*<lines>l1<\/lines>\s*<lines>l2<\/lines>\s*<\/address>/,
  );
  assert.ok(xml.includes('<age>3</age>'));
  assert.ok(xml.includes('<ok>true</ok>'));
  assert.ok(xml.includes('<nothing xsi:nil="true"/>'));
  assert.ok(xml.includes('<property name="first name">has space</property>'));
  assert.ok(xml.includes('<property name="1st">digit first</property>'));
  assert.ok(xml.includes('<property name="a:b">colon</property>'));
  assert.ok(xml.includes('<when>2024-01-01T00:00:00Z</when>'));
  assert.ok(xml.includes('<ctrl>bell and lone  surrogate</ctrl>'));
  assert.match(xml, /<matrix>\s*<item>1<\/item>\s*<item>2<\/item>\s*<\/matrix>\s*<matrix>\s*<item>3<\/item>\s*<\/matrix>/);
  assert.ok(!xml.includes('<empty'));
  assert.ok(!xml.includes('_hash') && !xml.includes('_updated') && !xml.includes('gone'));
  assert.match(xml, /<entity>\s*<_id>b<\/_id>\s*<\/entity>\s*<\/entities>\n$/);
});

test('XML: attribute escaping in the fallback, custom root', async () => {
  const xml = await readText(xmlReadable([[stored('a', { 'x"<&>\ny': 'v', xmlish: 'reserved' })]], { root: 'people' }));
  checkWellFormed(xml);
  assert.ok(xml.includes('<property name="x&quot;&lt;&amp;&gt;&#10;y">v</property>'));
  assert.ok(xml.includes('<property name="xmlish">reserved</property>'));
  assert.ok(xml.includes('<people xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'));
  assert.ok(xml.endsWith('</people>\n'));
  assert.throws(() => xmlReadable([], { root: 'not valid' }), TypeError);
});

test('XML: an empty dataset is a well-formed empty root', async () => {
  const xml = await readText(xmlReadable([], {}));
  checkWellFormed(xml);
  assert.match(xml, /<entities xmlns:xsi="[^"]+">\n<\/entities>\n$/);
});

test('XML: 200k entities stream lazily', async () => {
  const total = 200_000;
  const { state, pages } = lazyPages(total, 1000, (i) => stored(`e${i}`, { n: i }));
  const stream = xmlReadable(pages, {});
  const chunks = [await firstChunk(stream)];
  assert.ok(state.pulled < 10, `pulled ${state.pulled} pages`);
  assert.equal(state.finished, false);
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const xml = Buffer.concat(chunks).toString('utf8');
  assert.equal(xml.split('<entity>').length - 1, total);
  assert.ok(xml.includes(`<_id>e${total - 1}</_id>`));
  assert.ok(xml.endsWith('</entities>\n'));
  assert.ok(state.finished);
});

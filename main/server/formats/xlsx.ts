import { PassThrough, type Readable, type Writable } from 'node:stream';
import type ExcelJS from 'exceljs';
import { cellValue, entitiesWithColumns, propertyOf, type CellValue } from './columns.js';
import { stripInvalidXmlChars } from './xml.js';

export interface XlsxOptions {
  /** The columns, in order; inferred from the first 1000 entities when left out. */
  columns?: readonly string[];
  /** Name of the (first) worksheet; `Entities` by default. Made a valid sheet name. */
  sheetName?: string;
  /**
   * Rows per worksheet, header included; more entities continue on further
   * sheets (`<name> (2)`, ...). Excel's limit, 1048576, by default.
   */
  maxRowsPerSheet?: number;
}

/** Excel's limits. */
const EXCEL_MAX_ROWS = 1_048_576;
const EXCEL_MAX_CELL_TEXT = 32_767;
const EXCEL_MAX_SHEET_NAME = 31;

/** Rows written between two looks at the reader's backpressure. */
const ROWS_PER_BATCH = 500;

/** A valid Excel sheet name: no `* ? : \ / [ ]`, not wrapped in quotes, at most 31 characters. */
export function excelSheetName(name: string, suffix = ''): string {
  let base = stripInvalidXmlChars(name)
    .replace(/[*?:\\/[\]]/g, '_')
    .replace(/^'+|'+$/g, '')
    .trim();
  if (base === '') base = 'Sheet';
  base = [...base].slice(0, EXCEL_MAX_SHEET_NAME - suffix.length).join('').replace(/'+$/, '');
  return base + suffix;
}

function excelCell(value: CellValue): CellValue {
  if (typeof value !== 'string') return value;
  const text = stripInvalidXmlChars(value);
  return text.length > EXCEL_MAX_CELL_TEXT ? text.slice(0, EXCEL_MAX_CELL_TEXT) : text;
}

/** Resolves at once unless `out` is full, else when it drains (or closes). */
function drained(out: Writable): Promise<void> {
  if (!out.writableNeedDrain || out.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}

/** Lets the zip stream compress and pass on what has been written, then waits for the reader. */
async function backpressure(out: Writable): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  while (out.writableNeedDrain && !out.destroyed) await drained(out);
}

/** exceljs and what it loads take more CPU to load than the rest of the server: it is loaded when a workbook is asked for. */
const excel = async (): Promise<typeof ExcelJS> => (await import('exceljs')).default;

async function writeWorkbook(out: PassThrough, pages: Iterable<readonly string[]>, options: XlsxOptions): Promise<void> {
  const maxRows = Math.max(2, Math.min(options.maxRowsPerSheet ?? EXCEL_MAX_ROWS, EXCEL_MAX_ROWS));
  const baseName = options.sheetName ?? 'Entities';
  const workbook = new (await excel()).stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });

  let columns: readonly string[] = [];
  let sheet: ExcelJS.Worksheet | undefined;
  let sheetCount = 0;
  let rowsInSheet = 0;
  let rowsInBatch = 0;

  const startSheet = (): ExcelJS.Worksheet => {
    sheet?.commit();
    sheetCount++;
    const next = workbook.addWorksheet(excelSheetName(baseName, sheetCount === 1 ? '' : ` (${sheetCount})`), {
      views: [{ state: 'frozen', ySplit: 1 }],
    });
    const header = next.addRow([...columns]);
    header.font = { bold: true };
    header.commit();
    rowsInSheet = 1;
    sheet = next;
    return next;
  };

  for await (const item of entitiesWithColumns(pages, options.columns)) {
    if (out.destroyed) return; // the reader went away; leaving the loop closes the pages
    if (item.kind === 'columns') {
      columns = item.columns;
      startSheet();
      continue;
    }
    const target = sheet === undefined || rowsInSheet >= maxRows ? startSheet() : sheet;
    const entity = item.entity;
    target.addRow(columns.map((column) => excelCell(cellValue(propertyOf(entity, column))))).commit();
    rowsInSheet++;
    if (++rowsInBatch >= ROWS_PER_BATCH) {
      rowsInBatch = 0;
      await backpressure(out);
    }
  }
  if (out.destroyed) return;
  sheet?.commit();
  await workbook.commit();
}

/**
 * The non-deleted entities of `pages` as an .xlsx workbook written with
 * exceljs's streaming writer: a bold (frozen) header row, then one row per
 * entity, each committed as it is written. Pages are pulled as the output is
 * read: production pauses while the reader is behind.
 */
export function xlsxReadable(pages: Iterable<readonly string[]>, options: XlsxOptions = {}): Readable {
  const out = new PassThrough();
  writeWorkbook(out, pages, options).catch((err: unknown) => {
    out.destroy(err instanceof Error ? err : new Error(String(err)));
  });
  return out;
}

/**
 * A small workbook telling that the data of `fileName` is published as CSV at
 * `csvUrl` (an absolute http(s) URL), with that URL as a hyperlink cell; this
 * answers the CSV publisher's `linked_excel_file` option.
 */
export function linkedXlsxReadable(csvUrl: string, fileName: string): Readable {
  let url: URL;
  try {
    url = new URL(csvUrl);
  } catch {
    throw new TypeError(`not an absolute URL: ${JSON.stringify(csvUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`not an http(s) URL: ${JSON.stringify(csvUrl)}`);
  }
  const href = url.href;
  const name = stripInvalidXmlChars(fileName);

  const out = new PassThrough();
  writeLinkWorkbook(out, href, name).catch((err: unknown) => {
    out.destroy(err instanceof Error ? err : new Error(String(err)));
  });
  return out;
}

async function writeLinkWorkbook(out: PassThrough, href: string, name: string): Promise<void> {
  const workbook = new (await excel()).Workbook();
  workbook.creator = 'Datahub Desktop';
  workbook.title = name;
  const sheet = workbook.addWorksheet('Data');
  sheet.getColumn(1).width = 100;
  const explanation = sheet.getCell('A1');
  explanation.value =
    `The data of "${name}" is not stored in this workbook: it is published as CSV at ${href} ` +
    '(open the link below, or load it in Excel with Data > From Web).';
  explanation.alignment = { wrapText: true, vertical: 'top' };
  sheet.getRow(1).height = 45;
  const link = sheet.getCell('A2');
  link.value = { text: href, hyperlink: href, tooltip: 'The CSV data' };
  link.font = { color: { argb: 'FF0563C1' }, underline: true };

  await workbook.xlsx.write(out);
}

import { pipeline, Readable, Transform } from 'node:stream';
import { stringify } from 'csv-stringify';
import { cellValue, entitiesWithColumns, propertyOf, type CellValue } from './columns.js';

export interface CsvOptions {
  /** The columns, in order; inferred from the first 1000 entities when left out. */
  columns?: readonly string[];
  /** Field delimiter, one character; `,` by default. */
  delimiter?: string;
  /** Start with a UTF-8 byte order mark (helps Excel detect the encoding); off by default. */
  bom?: boolean;
}

/**
 * The non-deleted entities of `pages` as UTF-8 CSV: a header row, then one
 * record per entity, RFC 4180 quoting (fields holding the delimiter, a quote,
 * CR or LF are quoted, quotes doubled) and CRLF record delimiters. Pages are
 * pulled lazily as the stream is read.
 */
export function csvReadable(pages: Iterable<readonly string[]>, options: CsvOptions = {}): Readable {
  const delimiter = options.delimiter ?? ',';
  if ([...delimiter].length !== 1 || /["\r\n]/.test(delimiter)) {
    throw new TypeError(`invalid CSV delimiter ${JSON.stringify(delimiter)}: must be one character, not a quote or line break`);
  }

  async function* records(): AsyncGenerator<readonly CellValue[], void, undefined> {
    let columns: readonly string[] = [];
    for await (const item of entitiesWithColumns(pages, options.columns)) {
      if (item.kind === 'columns') {
        columns = item.columns;
        yield columns;
      } else {
        const entity = item.entity;
        yield columns.map((column) => cellValue(propertyOf(entity, column)));
      }
    }
  }

  const stringifier = stringify({
    delimiter,
    quote: '"',
    escape: '"',
    record_delimiter: 'windows',
    // Quote fields holding a lone CR or LF too, not just the CRLF record delimiter.
    quote_record_delimiter: true,
    bom: options.bom === true,
    cast: {
      // csv-stringify's default writes booleans as "1" and "".
      boolean: (value: boolean) => (value ? 'true' : 'false'),
    },
  });
  const out = coalesce(CHUNK_BYTES);
  // pipeline() gives backpressure and tears every stage down together: an error
  // while producing destroys the later stages with it (the reader sees the error),
  // and a reader destroying the output closes the generator and the pages.
  pipeline(Readable.from(records()), stringifier, out, () => {});
  return out;
}

/** About how much text goes out in one chunk. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Joins the stringifier's one-record chunks into chunks of about `size` characters. One socket write per record
 * costs a write request each and keeps many small objects in flight long enough to be promoted to the old
 * generation; a few large writes keep the heap flat and the download faster.
 */
function coalesce(size: number): Transform {
  let parts: string[] = [];
  let length = 0;
  const take = (): string => {
    const text = parts.join('');
    parts = [];
    length = 0;
    return text;
  };
  return new Transform({
    writableObjectMode: true,
    transform(chunk: string | Buffer, _encoding, done) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      parts.push(text);
      length += text.length;
      if (length >= size) done(null, take());
      else done();
    },
    flush(done) {
      if (length > 0) done(null, take());
      else done();
    },
  });
}

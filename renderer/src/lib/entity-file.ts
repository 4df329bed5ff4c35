// Entities from a file the user drops on the publish dialog: a JSON array (or one object), JSON lines, or CSV with
// a header row. Problems come back as sentences that say where (entity or line number) and what to do.

export type EntityFileFormat = 'JSON array' | 'JSON lines' | 'CSV';

export interface EntityFile {
  format: EntityFileFormat;
  entities: Record<string, unknown>[];
}

export class EntityFileProblem extends Error {}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every entity is an object with a non-empty string `_id`; the first that is not is named. */
function checked(values: unknown[], where: (i: number) => string): Record<string, unknown>[] {
  values.forEach((v, i) => {
    if (!isObject(v)) throw new EntityFileProblem(`${where(i)} is not a JSON object: each entity is an object with an "_id".`);
    if (typeof v['_id'] !== 'string' || v['_id'] === '') throw new EntityFileProblem(`${where(i)} has no "_id" (a non-empty string): each entity needs one.`);
  });
  return values as Record<string, unknown>[];
}

function jsonLines(text: string): unknown[] {
  const out: unknown[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      out.push(JSON.parse(line));
    } catch (e) {
      throw new EntityFileProblem(`Line ${i + 1} is not JSON (${(e as Error).message}).`);
    }
  });
  return out;
}

/** RFC 4180 rows: fields separated by commas (or semicolons, when the header has more of them), "" quotes a quote. */
export function csvRows(text: string): string[][] {
  const body = text.replace(/^\uFEFF/, '');
  const headerLine = body.slice(0, body.search(/\r?\n|$/));
  const sep = (headerLine.match(/;/g)?.length ?? 0) > (headerLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === sep) {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && body[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (quoted) throw new EntityFileProblem('The CSV ends inside a quoted field: a closing " is missing.');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

function csvEntities(text: string): Record<string, unknown>[] {
  const [header, ...rows] = csvRows(text);
  if (!header) throw new EntityFileProblem('The CSV file is empty.');
  const names = header.map((h) => h.trim());
  const idColumn = names.includes('_id') ? '_id' : names.includes('id') ? 'id' : null;
  if (idColumn === null) throw new EntityFileProblem('The CSV has no "_id" or "id" column: name the column that identifies a row "_id".');
  return rows.map((cells, r) => {
    if (cells.length !== names.length) throw new EntityFileProblem(`CSV line ${r + 2} has ${cells.length} fields where the header has ${names.length}.`);
    const e: Record<string, unknown> = {};
    names.forEach((n, i) => (e[n] = cells[i]));
    if (idColumn === 'id') e['_id'] = e['id'];
    if (typeof e['_id'] !== 'string' || e['_id'] === '') throw new EntityFileProblem(`CSV line ${r + 2} has an empty ${idColumn}.`);
    return e;
  });
}

/** Reads a file's text as entities; the name's extension picks the format, else the text does. */
export function parseEntityFile(name: string, text: string): EntityFile {
  const lower = name.toLowerCase();
  if (lower.endsWith('.csv')) return { format: 'CSV', entities: csvEntities(text) };
  const trimmed = text.trim();
  if (trimmed === '') throw new EntityFileProblem('The file is empty.');
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return { format: 'JSON lines', entities: checked(jsonLines(text), (i) => `Entity ${i + 1}`) };
  let whole: unknown;
  try {
    whole = JSON.parse(trimmed);
  } catch {
    // Several JSON values, one per line?
    if (trimmed.startsWith('{')) return { format: 'JSON lines', entities: checked(jsonLines(text), (i) => `Entity ${i + 1}`) };
    if (!trimmed.startsWith('[') && /^[^\n]*[,;]/.test(trimmed)) return { format: 'CSV', entities: csvEntities(text) };
    throw new EntityFileProblem(`${name} is not JSON, JSON lines or CSV: it starts with ${JSON.stringify(trimmed.slice(0, 20))}.`);
  }
  if (Array.isArray(whole)) return { format: 'JSON array', entities: checked(whole, (i) => `Entity ${i + 1}`) };
  return { format: 'JSON array', entities: checked([whole], () => 'The object') };
}

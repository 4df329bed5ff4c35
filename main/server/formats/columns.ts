/**
 * Shared helpers for the dataset publishers (CSV, Excel, XML): parsing entity
 * JSON texts lazily page by page, inferring columns, and turning property
 * values into flat cell values.
 */

/** One parsed entity: a JSON object. */
export type EntityObject = Record<string, unknown>;

/** What a flat cell can hold. */
export type CellValue = string | number | boolean | null;

/** Rows per page for readers that hand entities on one at a time (see ReadOptions.pageSize). */
export const ROW_STREAM_PAGE = 200;

/** How many (non-deleted) entities column inference looks at before output starts. */
export const COLUMN_LOOKAHEAD = 1000;

/** An item of {@link entitiesWithColumns}: the columns come first, then the entities. */
export type ColumnsOrEntity =
  | { readonly kind: 'columns'; readonly columns: string[] }
  | { readonly kind: 'entity'; readonly entity: EntityObject };

/**
 * Whether a top-level property is published: `_id` and every property that does
 * not start with `_` (the others are the hub's own bookkeeping: `_updated`,
 * `_ts`, `_hash`, `_previous`, `_deleted`, ...).
 */
export function isPublishedProperty(name: string): boolean {
  return name === '_id' || !name.startsWith('_');
}

/**
 * The columns for a set of entities: `_id` first, then every other published
 * property in order of first appearance (properties starting with `_` other
 * than `_id` are left out).
 */
export function inferColumns(entities: readonly EntityObject[]): string[] {
  const columns = ['_id'];
  const seen = new Set<string>(columns);
  for (const entity of entities) {
    for (const key of Object.keys(entity)) {
      if (!seen.has(key) && isPublishedProperty(key)) {
        seen.add(key);
        columns.push(key);
      }
    }
  }
  return columns;
}

/** Second characters of the hub's typed-value strings (`~t`, `~f`, `~:`, `~u`, `~r`, `~b`). */
const TYPE_TAGS: ReadonlySet<string> = new Set(['t', 'f', ':', 'u', 'r', 'b']);

/**
 * A hub typed-value string without its two-character tag: `~t2024-01-01T00:00:00Z`
 * gives `2024-01-01T00:00:00Z`, `~f1.5` gives `1.5`, `~:ns:id` gives `ns:id`,
 * `~u`/`~r`/`~b` values lose their tag too. Other strings are returned unchanged.
 */
export function untagTypedValue(s: string): string {
  if (s.length >= 2 && s.charCodeAt(0) === 0x7e /* ~ */ && TYPE_TAGS.has(s.charAt(1))) {
    return s.slice(2);
  }
  return s;
}

/**
 * A property value as a flat cell: null/undefined give null, strings (untagged,
 * see {@link untagTypedValue}), numbers and booleans are kept, arrays and
 * objects become compact JSON text.
 */
export function cellValue(v: unknown): CellValue {
  switch (typeof v) {
    case 'undefined':
      return null;
    case 'string':
      return untagTypedValue(v);
    case 'number':
    case 'boolean':
      return v;
    case 'object':
      return v === null ? null : JSON.stringify(v);
    default:
      // bigint, symbol, function: none of them comes out of JSON.parse
      return String(v);
  }
}

/** An entity's own property (never one inherited from Object.prototype, e.g. `constructor`). */
export function propertyOf(entity: EntityObject, name: string): unknown {
  return Object.hasOwn(entity, name) ? entity[name] : undefined;
}

/** Parses one entity JSON text; `index` is its position in the whole stream, for error messages. */
export function parseEntity(text: string, index: number): EntityObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`entity #${index} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`entity #${index} is not a JSON object`);
  }
  return value as EntityObject;
}

export function isDeleted(entity: EntityObject): boolean {
  return propertyOf(entity, '_deleted') === true;
}

/**
 * The non-deleted entities of `pages`, parsed one at a time. Pages are pulled
 * only as the entities are consumed; stopping early (return/break) closes the
 * pages iterable.
 */
export function* publishedEntities(pages: Iterable<readonly string[]>): Generator<EntityObject, void, undefined> {
  let index = 0;
  for (const page of pages) {
    for (const text of page) {
      const entity = parseEntity(text, index++);
      if (!isDeleted(entity)) yield entity;
    }
  }
}

/**
 * Yields `{kind: 'columns'}` first, then every non-deleted entity as
 * `{kind: 'entity'}`. When `columns` is not given they are inferred from the
 * first `lookahead` non-deleted entities, which are the only ones held in
 * memory; everything else is pulled page by page as it is consumed.
 */
export async function* entitiesWithColumns(
  pages: Iterable<readonly string[]>,
  columns?: readonly string[],
  lookahead: number = COLUMN_LOOKAHEAD,
): AsyncGenerator<ColumnsOrEntity, void, undefined> {
  const source = publishedEntities(pages);
  try {
    if (columns !== undefined) {
      yield { kind: 'columns', columns: [...columns] };
    } else {
      let buffered: EntityObject[] = [];
      while (buffered.length < lookahead) {
        const next = source.next();
        if (next.done === true) break;
        buffered.push(next.value);
      }
      yield { kind: 'columns', columns: inferColumns(buffered) };
      for (let i = 0; i < buffered.length; i++) {
        const entity = buffered[i];
        if (entity !== undefined) yield { kind: 'entity', entity };
      }
      buffered = [];
    }
    for (let next = source.next(); next.done !== true; next = source.next()) {
      yield { kind: 'entity', entity: next.value };
    }
  } finally {
    // Closes the pages iterable when the consumer stops early.
    source.return();
  }
}

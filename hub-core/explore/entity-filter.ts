// Filtering a dataset's latest entities with a DTL predicate (`["eq", "_S.city", "Oslo"]`): compiled once with the
// DTL compiler, evaluated on each entity as `_S`. The scan reads the log's latest versions page by page; a predicate
// that compares a path with a plain string lets SQLite skip every entity whose stored text lacks that string.

import { compileExpression, DtlLimitError, DtlRuntimeError, isTruthy, type DtlValue } from '../dtl/index.js';
import type { Db } from '../storage/index.js';
import type { DatasetStore } from '../storage/index.js';
import { storedEntityJson } from '../base/index.js';
import { badRequest } from '../base/index.js';
import { parseJson } from '../base/index.js';

export interface EntityFilter {
  /** The predicate as given, for messages. */
  readonly text: string;
  matches(entity: DtlValue): boolean;
  /** A text every matching entity's JSON contains, when the predicate implies one. */
  readonly needle: string | undefined;
  /** For ["eq", "_S.<path>", "<plain string>"]: the path and value, which a dataset index on the path can look up. */
  readonly lookup: { path: string; value: string } | undefined;
}

/**
 * The longest a filter may take on one entity. It runs on the thread that answers the API, between other requests: a
 * predicate that needs longer (a wildcard from the data against a long text) is answered 422 instead of holding it.
 */
export const FILTER_ENTITY_LIMIT_MS = 250;
/** A filtered read hands back what it has after this long, so the API gets a turn between slices. */
const SLICE_MS = 20;

/** Parse and compile a predicate; a 400 that says what is wrong when it is not one. */
export function compileEntityFilter(text: string): EntityFilter {
  let expr: unknown;
  try {
    expr = JSON.parse(text);
  } catch (e) {
    throw badRequest('the filter is not JSON', `${(e as Error).message}; give a DTL predicate such as ["eq", "_S.city", "Oslo"]`);
  }
  if (!Array.isArray(expr) || typeof expr[0] !== 'string') {
    throw badRequest('the filter is not a DTL predicate', 'give a DTL function call as a JSON list, such as ["gt", "_S.age", 40]');
  }
  const compiled = compileExpression(expr, { path: '$filter' });
  const errors = compiled.errors.filter((e) => e.level === 'error');
  if (errors.length > 0) {
    throw badRequest('the filter does not compile', errors.map((e) => `${e.elements}: ${e.msg}`).join('; '));
  }
  const lookup = lookupOf(expr);
  return {
    text,
    needle: lookup === undefined ? undefined : JSON.stringify(lookup.value),
    lookup,
    matches(entity) {
      try {
        return isTruthy(compiled.evaluate({ source: entity, timeLimitMs: FILTER_ENTITY_LIMIT_MS }));
      } catch (e) {
        if (e instanceof DtlRuntimeError) throw badRequest('the filter failed on an entity', `${e.elements ?? '$filter'}: ${e.message}`);
        if (e instanceof DtlLimitError) {
          const id = entity !== null && typeof entity === 'object' && !Array.isArray(entity) ? (entity as { _id?: unknown })['_id'] : undefined;
          throw new DtlLimitError(
            'the filter takes too long',
            `on the entity ${JSON.stringify(id)} it took more than ${FILTER_ENTITY_LIMIT_MS / 1000} s; a filter must be quick on every entity: look for a wildcard matched against long texts, or a list that grows with the data`,
          );
        }
        throw e;
      }
    },
  };
}

/**
 * ["eq", "_S.<path>", "<plain string>"] (either way round): a plain string equals only the same string, so a match
 * holds it in its stored text and under the path in an index of it (both find a superset; the predicate decides).
 */
function lookupOf(expr: unknown[]): { path: string; value: string } | undefined {
  if (expr[0] !== 'eq' || expr.length !== 3) return undefined;
  const [a, b] = [expr[1], expr[2]];
  const isPath = (v: unknown): v is string => typeof v === 'string' && v.startsWith('_S.') && !v.startsWith('_S._');
  const isPlain = (v: unknown): v is string => typeof v === 'string' && !v.startsWith('_') && !v.startsWith('~') && v.length > 0;
  if (isPath(a) && isPlain(b)) return { path: a, value: b };
  if (isPath(b) && isPlain(a)) return { path: b, value: a };
  return undefined;
}

export interface FilterReadOptions {
  since?: number;
  limit?: number;
  deleted?: boolean;
  reverse?: boolean;
}

const PAGE = 2000;
const OUT_PAGE = 200;

/** Filtered reads of datasets: a page query in SQL (latest versions, with the needle tested in C), then the predicate. */
export class EntityFilters {
  constructor(
    private readonly db: Db,
    private readonly datasets: DatasetStore,
  ) {}

  compile(text: string): EntityFilter {
    return compileEntityFilter(text);
  }

  /**
   * The latest entities of `dataset` that match, as pages of JSON texts, in offset order from `since`. A page is handed
   * back after at most SLICE_MS of matching, empty if nothing matched yet: the reader gives the event loop its turn.
   */
  *read(dataset: string, filter: EntityFilter, options: FilterReadOptions): Generator<string[], void, undefined> {
    const ds = this.datasets.require(dataset);
    const remaining = options.limit ?? Number.POSITIVE_INFINITY;
    if (remaining <= 0) return;
    const deleted = options.deleted ?? true;
    const reverse = options.reverse ?? false;
    const lookup = filter.lookup;
    if (lookup && !reverse && !deleted && ds.listIndexes().some((ix) => ix.expression === lookup.path)) {
      // Live entities only: the index holds the latest version of each (a deleted one reads as having left it).
      const pages = ds.readJson({ subset: ['eq', lookup.path, lookup.value], deleted: false, ...(options.since !== undefined ? { since: options.since } : {}) });
      yield* matching(pages, filter, remaining);
      return;
    }
    const end = ds.row().max_updated;
    const stmt = this.db
      .prepare(
        `SELECT seq, eid, deleted, prev, ts, hash, body FROM ${ds.tables.log}
         WHERE ${reverse ? 'seq < ?' : 'seq > ? AND seq <= ?'} AND (superseded = 0 OR superseded > ${end}) ${deleted ? '' : 'AND deleted = 0'}
         ${filter.needle !== undefined ? 'AND instr(body, ?) > 0' : ''} ORDER BY seq ${reverse ? 'DESC' : ''} LIMIT ?`,
      )
      .raw();
    const needle = filter.needle;
    function* latest(): Generator<string[], void, undefined> {
      let cursor = reverse ? (options.since ?? end + 1) : (options.since ?? -1);
      for (;;) {
        const args: unknown[] = reverse ? [cursor] : [cursor, end];
        if (needle !== undefined) args.push(needle);
        args.push(PAGE);
        const rows = stmt.all(...args) as [number, string, number, number | null, number, string, string][];
        yield rows.map(([seq, eid, del, prev, ts, hash, body]) => storedEntityJson(eid, seq, del === 1, prev, ts, hash, body));
        if (rows.length < PAGE) return;
        cursor = rows[rows.length - 1]![0];
      }
    }
    yield* matching(latest(), filter, remaining);
  }

  /**
   * How many latest (live) entities of `dataset` match. The event loop turns between pages, so a count over a large
   * dataset neither holds the hub's API nor meets the bound on holding it (dtl/work-limit.ts).
   */
  async count(dataset: string, filter: EntityFilter): Promise<{ count: number; entities: number }> {
    let count = 0;
    for (const page of this.read(dataset, filter, { deleted: false })) {
      count += page.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { count, entities: this.datasets.require(dataset).row().live_count };
  }
}

function* matching(pages: Iterable<string[]>, filter: EntityFilter, limit: number): Generator<string[], void, undefined> {
  let remaining = limit;
  let out: string[] = [];
  let slice = performance.now();
  for (const page of pages) {
    for (const json of page) {
      const hit = filter.matches(parseJson(json) as DtlValue);
      if (hit) out.push(json);
      if (hit && --remaining <= 0) break;
      if (performance.now() - slice > SLICE_MS) {
        yield out;
        out = [];
        slice = performance.now();
      }
    }
    if (out.length >= OUT_PAGE || remaining <= 0) {
      yield out;
      out = [];
    }
    if (remaining <= 0) return;
  }
  if (out.length > 0) yield out;
}

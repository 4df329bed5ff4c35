// Filtering a dataset's latest entities with a DTL predicate (`["eq", "_S.city", "Oslo"]`): compiled once with the
// DTL compiler, evaluated on each entity as `_S`. The scan reads the log's latest versions page by page; a predicate
// that compares a path with a plain string skips, before parsing, every entity whose JSON text lacks that string.

import { compileExpression, DtlRuntimeError, isTruthy, type DtlLookup, type DtlValue } from './dtl/index.js';
import type { Dataset } from './dataset-log.js';
import { badRequest } from './errors.js';

export interface EntityFilter {
  /** The predicate as given, for messages. */
  readonly text: string;
  matches(entity: DtlValue): boolean;
  /** A text every matching entity's JSON contains, when the predicate implies one. */
  readonly needle: string | undefined;
}

/** Parse and compile a predicate; a 400 that says what is wrong when it is not one. */
export function compileEntityFilter(text: string, lookup?: DtlLookup): EntityFilter {
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
  return {
    text,
    needle: needleOf(expr),
    matches(entity) {
      try {
        return isTruthy(compiled.evaluate({ source: entity, ...(lookup ? { lookup } : {}) }));
      } catch (e) {
        if (e instanceof DtlRuntimeError) throw badRequest('the filter failed on an entity', `${e.elements ?? '$filter'}: ${e.message}`);
        throw e;
      }
    },
  };
}

/** For ["eq", "_S.<path>", "<plain string>"] (either way round): the string's JSON text, which a match must contain. */
function needleOf(expr: unknown[]): string | undefined {
  if (expr[0] !== 'eq' || expr.length !== 3) return undefined;
  const [a, b] = [expr[1], expr[2]];
  const isPath = (v: unknown): boolean => typeof v === 'string' && v.startsWith('_S.') && !v.startsWith('_S._');
  const isPlain = (v: unknown): v is string => typeof v === 'string' && !v.startsWith('_') && !v.startsWith('~') && v.length > 0;
  if (isPath(a) && isPlain(b)) return JSON.stringify(b);
  if (isPath(b) && isPlain(a)) return JSON.stringify(a);
  return undefined;
}

export interface FilterReadOptions {
  since?: number;
  limit?: number;
  deleted?: boolean;
  reverse?: boolean;
}

/** The latest entities that match, as pages of JSON texts, in offset order from `since`. */
export function* readFiltered(ds: Dataset, filter: EntityFilter, options: FilterReadOptions): Generator<string[], void, undefined> {
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  if (remaining <= 0) return;
  const pages = ds.readJson({
    history: false,
    deleted: options.deleted ?? true,
    reverse: options.reverse ?? false,
    ...(options.since !== undefined ? { since: options.since } : {}),
  });
  let out: string[] = [];
  for (const page of pages) {
    for (const json of page) {
      if (filter.needle !== undefined && !json.includes(filter.needle)) continue;
      if (!filter.matches(JSON.parse(json) as DtlValue)) continue;
      out.push(json);
      if (--remaining <= 0) break;
    }
    if (out.length >= 200 || remaining <= 0) {
      yield out;
      out = [];
    }
    if (remaining <= 0) return;
  }
  if (out.length > 0) yield out;
}

/** How many latest (live) entities match. */
export function countFiltered(ds: Dataset, filter: EntityFilter): number {
  let n = 0;
  for (const page of ds.readJson({ history: false, deleted: false })) {
    for (const json of page) {
      if (filter.needle !== undefined && !json.includes(filter.needle)) continue;
      if (filter.matches(JSON.parse(json) as DtlValue)) n++;
    }
  }
  return n;
}

// Filters of the explorer as DTL predicates (what GET /datasets/<id>/entities?filter= takes), built from a profile's
// property paths: `a.b` reads `_S.a.b`; a path through lists (`a[]`, `a[].b`) reads all the items, so a value of it
// is matched with `in` rather than `eq`.

export interface ExplorerFilter {
  /** Shown on the chip. */
  label: string;
  predicate: unknown[];
}

/** A profile value; integers beyond ±2^53 arrive as bigints (read exactly by api.ts) and go back out exact. */
export type FacetValue = string | number | bigint | boolean;

function dtlPath(path: string): string {
  return '_S.' + path.replace(/\[\]/g, '');
}

/** A value as a DTL argument: strings that DTL would read as a path or a function are quoted with `literal`. */
function literal(v: FacetValue): unknown {
  return typeof v === 'string' && v.startsWith('_') ? ['literal', v] : v;
}

export function valueFilter(path: string, value: FacetValue): ExplorerFilter {
  const predicate = path.includes('[]') ? ['in', literal(value), dtlPath(path)] : ['eq', dtlPath(path), literal(value)];
  return { label: `${path} = ${String(value)}`, predicate };
}

export function missingFilter(path: string): ExplorerFilter {
  return { label: `${path} missing`, predicate: ['is-null', dtlPath(path)] };
}

/** Values in [from, to); datetimes are given as epoch milliseconds and compared as `~t` values. */
export function rangeFilter(path: string, from: number, to: number, datetime: boolean): ExplorerFilter {
  const v = (x: number): number | string => (datetime ? '~t' + new Date(x).toISOString() : x);
  const text = (x: number): string => (datetime ? new Date(x).toISOString().replace('.000Z', 'Z') : String(x));
  return {
    label: `${text(from)} ≤ ${path} < ${text(to)}`,
    predicate: ['and', ['gte', dtlPath(path), v(from)], ['lt', dtlPath(path), v(to)]],
  };
}

/** All filters at once (they must all hold); undefined for none. */
export function combined(filters: readonly ExplorerFilter[]): string | undefined {
  if (filters.length === 0) return undefined;
  return JSON.stringify(filters.length === 1 ? filters[0]!.predicate : ['and', ...filters.map((f) => f.predicate)]);
}

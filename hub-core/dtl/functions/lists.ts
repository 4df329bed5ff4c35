// Lists: list, first, last, count, is-empty, is-not-empty, in, map, filter, combine, flatten, distinct, enumerate,
// group, group-by, insert, is-list, map-dict, map-values, max, min, nth, range, reversed, slice, sorted,
// sorted-descending, sum (in the registry in this order; the functions live in list-*.ts by what they do).
//
// Conventions of this family:
// - Ordering (sorted, min, max) is the engine's total order over all values (`compareValues`, see values.ts);
//   sameness (distinct, group, group-by) is by canonical key (`keyOf`), so 1, 1.0 and "~f1.00" are one value.
// - Where a list is expected, null counts as the empty list and any other single value as a one-element list.
// - Integer arguments (INDEX, START, ...) accept an integer number, an integral decimal, or a one-element list of
//   either; anything else (null included) makes the function give null.

import type { FunctionSpec } from '../registry.js';
import { listBuildingFunctions } from './list-building.js';
import { listAccessFunctions } from './list-access.js';
import { listMappingFunctions } from './list-mapping.js';
import { listOrderingFunctions } from './list-ordering.js';

/** The order of the family in the registry (the catalogue and the docs follow it). */
const ORDER = [
  'list', 'first', 'last', 'count', 'is-empty', 'is-not-empty', 'in',
  'map', 'filter', 'combine', 'flatten', 'distinct', 'enumerate',
  'group', 'group-by', 'insert', 'is-list', 'map-dict', 'map-values',
  'max', 'min', 'nth', 'range', 'reversed', 'slice', 'sorted', 'sorted-descending', 'sum',
];

const BY_NAME = new Map([...listBuildingFunctions, ...listAccessFunctions, ...listMappingFunctions, ...listOrderingFunctions].map((f) => [f.name, f]));

export const listFunctions: FunctionSpec[] = ORDER.map((name) => {
  const f = BY_NAME.get(name);
  if (f === undefined) throw new Error(`list function "${name}" is not defined`);
  return f;
});

export { sumOf } from './list-ordering.js';
export { taggedJson } from './list-mapping.js';


// The DTL value model.
//
// Entities travel as JSON. Typed values (namespaced identifiers, datetimes, decimals, bytes, UUIDs, URIs) are written
// in JSON as strings with a two-character tag: "~:", "~t", "~f", "~b", "~u", "~r". A string with a known tag and a
// valid body *is* that typed value (there is no escape for plain strings starting with "~"); a string with an unknown
// tag or an invalid body is a plain string.
//
// At run time the engine accepts both forms of a typed value: the tagged string (as it arrives in a source entity, so
// nothing has to be decoded up front) and a `TypedValue` instance (as produced by functions such as `datetime-parse`).
// Every type-sensitive helper here (`typedOf`, `compareValues`, `valuesEqual`, `keyOf`, ...) treats the two alike.
// Values written into a target entity are always `encode`d, so target and output entities are plain JSON.
//
// Cross-type order (used by sorted, min, max and the comparison functions), lowest first:
//   null < boolean < number/decimal < datetime/date < UUID < namespaced identifier < URI < string < dict < list < bytes
// Values of one rank compare by value: numbers and decimals numerically (exactly), datetimes as instants, UUIDs,
// NIs and URIs by their text, strings by UTF-16 code units ("B" < "a"), dicts by their key/value pairs taken in key
// order, lists element by element (a shorter prefix first), bytes byte by byte.

// The parts live in files of their own; this file is the one place the rest of the engine imports them from.

export { TypedValue, Ni, DateTime, Bytes, Uuid, Uri, type TypedKind, type DtlValue, type DtlDict } from './typed-values.js';
export { Decimal, DECIMAL_PRECISION, type RoundingMode } from './decimal.js';
export { parseTagged, parseDateTimeText, utcMillis, daysInMonth } from './tagged-text.js';
export { isDict, typedOf, isPlainString, kindOf, rankOf, isTruthy, asList, firstOf, mapValues, setProperty, getProperty, type ValueKind } from './value-kinds.js';
export { compareValues, compareCompatible, valuesEqual, keyOf } from './value-order.js';
export { encode, decode } from './transit.js';
export { toText, plainJson } from './value-text.js';

// Text forms of values: the `string` function's text and the service-style plain JSON.

import { TILDE, parseTagged } from './tagged-text.js';
import { TypedValue, type DtlValue } from './typed-values.js';

/**
 * The text of a value, as the `string` function gives it: strings as they are, typed values without their tag
 * ("~rhttp://x" gives "http://x", "~:ns:id" gives "ns:id"), numbers and booleans as in JSON, lists and dicts as JSON
 * with sorted keys and ", " / ": " separators (typed values inside as their text).
 */
export function toText(v: DtlValue): string {
  if (typeof v === 'string') {
    const t = v.length > 1 && v.charCodeAt(0) === TILDE ? parseTagged(v) : null;
    return t === null ? v : t.text();
  }
  if (v instanceof TypedValue) return v.text();
  if (typeof v === 'object' && v !== null) return plainJson(v);
  return String(v);
}

/** JSON text in the style of the original service: sorted keys, ", " and ": " separators, typed values untagged. */
export function plainJson(v: DtlValue): string {
  if (v === null) return 'null';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string' || v instanceof TypedValue) return JSON.stringify(typeof v === 'string' ? toText(v) : v.text());
  if (typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(plainJson).join(', ') + ']';
  const keys = Object.keys(v).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ': ' + plainJson(v[k] as DtlValue)).join(', ') + '}';
}

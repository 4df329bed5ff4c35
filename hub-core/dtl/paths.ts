// Path strings ("_S.orders.amount"): recognising them, splitting them into property names, and traversing values.
//
// Traversal: on a dict, take the property; on a list, map over the elements and flatten. While no list has been met
// the result is the single value found (null when missing); once a list is met the result is a list of everything
// found, leaving out missing and null values. A property holding a list at the end of a single-value walk is
// returned as that list.

import { propertyGetter } from './access.js';
import { TypedValue, getProperty, type DtlDict, type DtlValue } from './values.js';

export type PathVariable = '_S' | '_T' | '_P' | '_R' | '_B' | '_';

export interface ParsedPath {
  readonly variable: PathVariable;
  readonly keys: readonly string[];
}

const VARIABLES: readonly PathVariable[] = ['_S', '_T', '_P', '_R', '_B', '_'];

/** True when a DTL string is a path rather than a literal. */
export function isPathString(s: string): boolean {
  if (s.charCodeAt(0) !== 95 /* _ */) return false;
  for (const v of VARIABLES) {
    if (s === v || (s.startsWith(v) && s.charCodeAt(v.length) === 46 /* . */)) return true;
  }
  return false;
}

/** Parse a path string; null when the string is a literal, an error message when it is a malformed path. */
export function parsePath(s: string): ParsedPath | string | null {
  if (!isPathString(s)) return null;
  const variable = (s === '_' || s.startsWith('_.') ? '_' : s.slice(0, 2)) as PathVariable;
  if (s.length === variable.length) return { variable, keys: [] };
  const keys = splitPathElements(s.slice(variable.length + 1));
  return typeof keys === 'string' ? `${keys} in path ${JSON.stringify(s)}` : { variable, keys };
}

/**
 * Split the part of a path after "VAR." into property names. An element in single quotes may hold dots; a quote
 * inside it is written twice. A dot at the very end is ignored ("_P._T." is the whole parent target, like "_T.").
 * Returns an error message for an empty element or an unterminated quote.
 */
export function splitPathElements(text: string): string[] | string {
  const keys: string[] = [];
  if (text === '') return keys;
  if (text.length > 1 && text.endsWith('.')) text = text.slice(0, -1);
  let i = 0;
  for (;;) {
    if (text[i] === "'") {
      let key = '';
      let j = i + 1;
      for (;;) {
        const q = text.indexOf("'", j);
        if (q < 0) return 'unterminated quoted element';
        key += text.slice(j, q);
        if (text[q + 1] === "'") {
          key += "'";
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      keys.push(key);
      if (i === text.length) return keys;
      if (text[i] !== '.') return 'a quoted element must be followed by a dot or the end of the path';
      i++;
    } else {
      const dot = text.indexOf('.', i);
      const key = dot < 0 ? text.slice(i) : text.slice(i, dot);
      if (key === '') return 'empty path element';
      keys.push(key);
      if (dot < 0) return keys;
      i = dot + 1;
    }
    if (i === text.length) return 'empty path element';
  }
}

/** Property names that plain indexing would resolve to an inherited member ("constructor", "__proto__", ...). */
const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));

function isDictValue(v: unknown): v is DtlDict {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof TypedValue);
}

function read(d: DtlDict, key: string): DtlValue | undefined {
  return INHERITED.has(key) ? getProperty(d, key) : d[key];
}

/** Traverse `keys` from `value` (see the top of this file). */
export function traverse(value: DtlValue, keys: readonly string[], start = 0): DtlValue {
  let cur = value;
  for (let i = start; i < keys.length; i++) {
    if (isDictValue(cur)) {
      const next = read(cur, keys[i] as string);
      if (next === undefined || next === null) return null;
      cur = next;
    } else if (Array.isArray(cur)) {
      const out: DtlValue[] = [];
      collect(cur, keys, i, out);
      return out;
    } else {
      return null;
    }
  }
  return cur;
}

function collect(list: readonly DtlValue[], keys: readonly string[], i: number, out: DtlValue[]): void {
  for (let n = 0; n < list.length; n++) step(list[n] as DtlValue, keys, i, out);
}

function step(v: DtlValue, keys: readonly string[], i: number, out: DtlValue[]): void {
  if (v === null) return;
  if (i === keys.length) {
    out.push(v);
  } else if (Array.isArray(v)) {
    collect(v, keys, i, out);
  } else if (isDictValue(v)) {
    const next = read(v, keys[i] as string);
    if (next === undefined || next === null) return;
    if (Array.isArray(next)) collect(next, keys, i + 1, out);
    else step(next, keys, i + 1, out);
  }
}

/** A traversal specialised for a fixed list of keys (the common one- and two-key paths avoid the generic loop). */
export function compileTraversal(keys: readonly string[]): (value: DtlValue) => DtlValue {
  if (keys.length === 0) return (v) => v;
  if (keys.length === 1) {
    const get = propertyGetter(keys[0] as string);
    return (v) => {
      if (isDictValue(v)) {
        const x = get(v);
        return x === undefined ? null : x;
      }
      return Array.isArray(v) ? traverse(v, keys) : null;
    };
  }
  if (keys.length === 2) {
    const get1 = propertyGetter(keys[0] as string);
    const get2 = propertyGetter(keys[1] as string);
    return (v) => {
      if (isDictValue(v)) {
        const x = get1(v);
        if (isDictValue(x)) {
          const y = get2(x);
          return y === undefined ? null : y;
        }
        if (x === undefined || x === null) return null;
        return Array.isArray(x) ? traverse(x, keys, 1) : null;
      }
      return Array.isArray(v) ? traverse(v, keys) : null;
    };
  }
  return (v) => traverse(v, keys);
}

// ---------------------------------------------------------------------------------------------------------------------
// Namespaced paths (namespaced identifiers on). hub/dtl/namespaces.rst: "Function arguments that reference unqualified
// properties ... will in general match that property in all namespaces"; the `path` function: "all properties with the
// path element as its identifier part will be part of the result. In practice the result is the union of all those
// properties"; and hub/dtl/paths.rst makes a path string ("_S.a.b") that same function. So an element is:
//   - "::a": exactly the property "a"; ":a": "a" in the property namespace; "ns:a": exactly that property;
//   - a name starting with "_" or "$" ("_id", "$ids"): exactly that property. They are the service's own names, which
//     neither add_namespaces nor add ever namespaces (our reading: a "crm:_id" would have to be written on purpose);
//   - any other unqualified name "a": "a" and every "<ns>:a", their values spliced together in property order (one
//     match gives its value as it is; list values are spliced, as in the documented [1, 2, 3, 4]).
// Lookup paths (joins: DtlLookup, dependency tracking) carry an any-namespace element as ANY_NAMESPACE + name, so the
// lookups and the dependency records, which only see a list of names, match as the DTL does.

/** Prefix of a lookup path element that matches its name in every namespace. */
export const ANY_NAMESPACE = '\u0000';

/** The values a path element selects in a dict (nulls and missing ones left out). */
export type KeyMatcher = (d: DtlDict) => DtlValue[];

/**
 * A DTL path element as a lookup path element, with namespaced identifiers on: the escapes resolved against the
 * property namespace, and an unqualified name marked as matching every namespace.
 */
export function namespacedElement(element: string, propertyNamespace: string | null): string {
  if (element.startsWith('::')) return element.slice(2);
  if (element.startsWith(':')) return propertyNamespace === null ? element.slice(1) : `${propertyNamespace}:${element.slice(1)}`;
  if (element === '' || element.includes(':')) return element;
  const c = element.charCodeAt(0);
  if (c === 95 /* _ */ || c === 36 /* $ */) return element;
  return ANY_NAMESPACE + element;
}

/** True when a lookup path has an element that matches in every namespace. */
export function isNamespacedPath(path: readonly string[]): boolean {
  for (const k of path) if (k.charCodeAt(0) === 0) return true;
  return false;
}

function exactMatcher(key: string): KeyMatcher {
  return (d) => {
    const v = Object.hasOwn(d, key) ? d[key] : undefined;
    return v === undefined || v === null ? [] : [v];
  };
}

/** The matcher of a lookup path element ("\0a": "a" and every "<ns>:a"; anything else exactly that name). */
export function elementMatcher(element: string): KeyMatcher {
  if (element.charCodeAt(0) !== 0) return exactMatcher(element);
  const name = element.slice(1);
  const suffix = ':' + name;
  const at = -suffix.length;
  return (d) => {
    const out: DtlValue[] = [];
    for (const key of Object.keys(d)) {
      // The identifier part is what follows the first colon: "x:a" matches, "x:y:a" (identifier "y:a") does not.
      if (key === name || (key.endsWith(suffix) && key.indexOf(':') === key.length + at)) {
        const v = d[key] as DtlValue;
        if (v !== null && v !== undefined) out.push(v);
      }
    }
    return out;
  };
}

function stepMatching(v: DtlValue, keys: readonly KeyMatcher[], i: number, out: DtlValue[]): void {
  if (v === null) return;
  if (i === keys.length) out.push(v);
  else if (Array.isArray(v)) for (const x of v) stepMatching(x, keys, i, out);
  else if (isDictValue(v)) {
    for (const next of (keys[i] as KeyMatcher)(v)) {
      if (Array.isArray(next)) for (const x of next) stepMatching(x, keys, i + 1, out);
      else stepMatching(next, keys, i + 1, out);
    }
  }
}

/**
 * Traverse with matchers: the shape rules of `traverse` (a single value until a list is met, or until an element
 * matches several properties; then a flat list of everything found, nulls left out).
 */
export function traverseMatching(value: DtlValue, keys: readonly KeyMatcher[]): DtlValue {
  let cur = value;
  for (let i = 0; i < keys.length; i++) {
    if (isDictValue(cur)) {
      const found = (keys[i] as KeyMatcher)(cur);
      if (found.length === 0) return null;
      if (found.length === 1) {
        cur = found[0] as DtlValue;
        continue;
      }
      const out: DtlValue[] = [];
      for (const f of found) {
        if (Array.isArray(f)) for (const x of f) stepMatching(x, keys, i + 1, out);
        else stepMatching(f, keys, i + 1, out);
      }
      return out;
    }
    if (Array.isArray(cur)) {
      const out: DtlValue[] = [];
      for (const x of cur) stepMatching(x, keys, i, out);
      return out;
    }
    return null;
  }
  return cur;
}

const lookupMatchers = new WeakMap<readonly string[], readonly KeyMatcher[] | null>();

/** Traverse a lookup path: as `traverse`, with ANY_NAMESPACE elements matching in every namespace. */
export function traverseLookupPath(value: DtlValue, path: readonly string[]): DtlValue {
  let matchers = lookupMatchers.get(path);
  if (matchers === undefined) {
    matchers = isNamespacedPath(path) ? path.map(elementMatcher) : null;
    lookupMatchers.set(path, matchers);
  }
  return matchers === null ? traverse(value, path) : traverseMatching(value, matchers);
}

/**
 * The traversal of DTL path elements with namespaced identifiers on (see above); the plain traversal when every
 * element names one property.
 */
export function compileNamespacedTraversal(keys: readonly string[], propertyNamespace: string | null): (value: DtlValue) => DtlValue {
  const elements = keys.map((k) => namespacedElement(k, propertyNamespace));
  if (!isNamespacedPath(elements)) return compileTraversal(elements);
  const matchers = elements.map(elementMatcher);
  return (v) => traverseMatching(v, matchers);
}

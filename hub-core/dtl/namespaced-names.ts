// Property names and patterns of the namespace-aware transform functions (add, add-if, default, copy, remove,
// rename, make-ni), with namespaced identifiers on. See the service's "namespace aware functions":
//   - a name written by add/add-if/default gets the property namespace unless it is qualified ("person:age"); `_id`
//     keeps its name and its string value gets the identity namespace instead;
//   - "::name" is the name as written (no namespace), ":name" the name in the current namespace;
//   - names starting with "_" or "$" (`_deleted`, `$ids`) are the service's own and never get a namespace;
//   - a pattern (copy, remove) is split at its last colon into a namespace pattern and an identifier pattern; an
//     unqualified pattern ("age", "a*") matches the identifier part in every namespace, and in no namespace.

import type { NamespaceSettings } from './namespace-settings.js';
import { compileWildcard, type NameMatcher } from './wildcard.js';

/** The identifier part of a property name: after its first colon (the whole name without one). */
export function localName(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
}

/** The namespace part of a property name ("" without one). */
export function nameNamespace(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? '' : name.slice(0, i);
}

function inNamespace(ns: string | null, name: string): string {
  return ns === null ? name : `${ns}:${name}`;
}

/** A name or identifier as written, resolved against a namespace: escapes applied, unqualified ones prefixed. */
function qualify(text: string, ns: string | null): string {
  if (text.startsWith('::')) return text.slice(2);
  if (text.startsWith(':')) return inNamespace(ns, text.slice(1));
  if (text === '' || text.includes(':')) return text;
  return inNamespace(ns, text);
}

/** True when a name names exactly one property (qualified, or escaped); false when it means every namespace. */
export function isQualified(name: string): boolean {
  return name.startsWith(':') || name.includes(':');
}

/** The exact property name a qualified name stands for ("::a" is "a", ":a" is "<property ns>:a"). */
export function exactName(name: string, ns: NamespaceSettings): string {
  if (name.startsWith('::')) return name.slice(2);
  if (name.startsWith(':')) return inNamespace(ns.propertyNamespace, name.slice(1));
  return name;
}

/** The property name add, add-if and default write for `name`. */
export function writtenName(name: string, ns: NamespaceSettings): string {
  const first = name.charCodeAt(0);
  if (first === 95 /* _ */ || first === 36 /* $ */) return name;
  return qualify(name, ns.propertyNamespace);
}

/** An `_id` value written by add, add-if and default: a plain string gets the identity namespace. */
export function writtenId<T>(value: T, ns: NamespaceSettings): T | string {
  if (typeof value !== 'string' || value.startsWith('~')) return value;
  return qualify(value, ns.identityNamespace);
}

/** A copy/remove pattern, namespace aware. */
export function namespacedPattern(pattern: string, ns: NamespaceSettings): NameMatcher {
  if (pattern.startsWith('::')) return compileWildcard(pattern.slice(2));
  const p = pattern.startsWith(':') ? inNamespace(ns.propertyNamespace, pattern.slice(1)) : pattern;
  const cut = p.lastIndexOf(':');
  if (cut < 0) {
    if (p === '*') return () => true;
    const local = compileWildcard(p);
    return (name, tick) => local(localName(name), tick);
  }
  const nsMatch = compileWildcard(p.slice(0, cut));
  const idMatch = compileWildcard(p.slice(cut + 1));
  return (name, tick) => {
    const i = name.indexOf(':');
    return i >= 0 && nsMatch(name.slice(0, i), tick) && idMatch(name.slice(i + 1), tick);
  };
}

/** Any of the patterns, namespace aware. */
export function namespacedPatterns(patterns: readonly string[], ns: NamespaceSettings): NameMatcher {
  if (patterns.includes('*')) return () => true;
  const matchers = patterns.map((p) => namespacedPattern(p, ns));
  if (matchers.length === 1) return matchers[0] as NameMatcher;
  return (name, tick) => {
    for (const m of matchers) if (m(name, tick)) return true;
    return false;
  };
}

/** The source properties a name stands for: the one it names exactly, or (unqualified) that name in every namespace. */
export function matchingKeys(keys: readonly string[], name: string, ns: NamespaceSettings): string[] {
  if (isQualified(name)) {
    const exact = exactName(name, ns);
    return keys.includes(exact) ? [exact] : [];
  }
  return keys.filter((k) => k === name || localName(k) === name);
}

/** `from` renamed to `to` keeping its namespace ("x:a" to "b" is "x:b"; a name without one stays without). */
export function renamedKeepingNamespace(from: string, to: string): string {
  const ns = nameNamespace(from);
  return ns === '' ? to : `${ns}:${to}`;
}

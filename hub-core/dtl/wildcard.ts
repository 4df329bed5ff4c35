// Wildcard patterns: "*" matches any run of characters, "?" exactly one; the pattern must match the whole name.

import { anyChar, anyRun, compileGlob, literalAtom } from '../base/index.js';

/** `tick`: told of the steps a long match takes (glob.ts), for the transform's time bound. */
export type NameMatcher = (name: string, tick?: (steps: number) => void) => boolean;

export function hasWildcard(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

/** Compile one pattern into the cheapest test that implements it. */
export function compileWildcard(pattern: string): NameMatcher {
  if (!hasWildcard(pattern)) return (name) => name === pattern;
  if (pattern === '*') return () => true;
  const star = pattern.indexOf('*');
  if (!pattern.includes('?') && star === pattern.lastIndexOf('*')) {
    const head = pattern.slice(0, star);
    const tail = pattern.slice(star + 1);
    if (tail === '') return (name) => name.startsWith(head);
    if (head === '') return (name) => name.endsWith(tail);
    const min = head.length + tail.length;
    return (name) => name.length >= min && name.startsWith(head) && name.endsWith(tail);
  }
  // Matched without a regular expression, so that no pattern backtracks (issue 32): characters are code points.
  return compileGlob(Array.from(pattern, (c) => (c === '*' ? anyRun : c === '?' ? anyChar : literalAtom(c))));
}

/** A matcher that accepts a name when any of the patterns matches it. */
export function compileWildcards(patterns: readonly string[]): NameMatcher {
  if (patterns.length === 0) return () => false;
  if (patterns.length === 1) return compileWildcard(patterns[0] as string);
  if (patterns.includes('*')) return () => true;
  if (!patterns.some(hasWildcard)) {
    const names = new Set(patterns);
    return (name) => names.has(name);
  }
  const matchers = patterns.map(compileWildcard);
  return (name, tick) => {
    for (const m of matchers) if (m(name, tick)) return true;
    return false;
  };
}

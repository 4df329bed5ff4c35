// Strings: string, concat, join, split, lower, upper, length, strip, lstrip, rstrip, ljust, rjust, replace,
// substring, matches, is-string.
//
// "String" means a plain string: a tagged typed value such as "~rhttp://x" is not a string here, so the string
// functions leave it out just like numbers.

import type { Expr } from '../context.js';
import { isPathString } from '../paths.js';
import { expression, valuesFunction, one, oneOrMore, optional, type FunctionExample, type FunctionSpec } from '../registry.js';
import { asList, firstOf, isDict, isPlainString, kindOf, mapValues, toText, type DtlValue } from '../values.js';
import { compileWildcard, type NameMatcher } from '../wildcard.js';
import { firstString } from './util.js';
import { matchTicks, spendString } from '../work-limit.js';

const FAMILY = 'strings';

function stringMap(name: string, description: string, fn: (s: string) => string, examples: FunctionSpec['examples']): FunctionSpec {
  return valuesFunction({
    name,
    family: FAMILY,
    description,
    examples,
    json: 'yes',
    make: (values) => (ctx) => {
      const v = values(ctx);
      if (typeof v === 'string') return isPlainString(v) ? fn(v) : null;
      return mapValues(v, (x) => (isPlainString(x) ? fn(x) : undefined));
    },
  });
}

// Lengths and positions count characters (code points), so a character outside the BMP counts once.
const SURROGATE = /[\uD800-\uDFFF]/;

function charCount(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Python-style slice s[start:end] over code points; negative indexes count from the end. */
function sliceChars(s: string, start: number, end: number | undefined): string {
  if (!SURROGATE.test(s)) return sliceIndexes(s.length, start, end, (a, b) => s.slice(a, b));
  const chars = Array.from(s);
  return sliceIndexes(chars.length, start, end, (a, b) => chars.slice(a, b).join(''));
}

function sliceIndexes(length: number, start: number, end: number | undefined, take: (a: number, b: number) => string): string {
  const clamp = (i: number): number => (i < 0 ? Math.max(0, length + i) : Math.min(i, length));
  const a = clamp(start);
  const b = end === undefined ? length : clamp(end);
  return b <= a ? '' : take(a, b);
}

/** Whitespace as the original service's strip functions see it (Unicode white space, as in Python). */
function isWhitespace(cp: number): boolean {
  return (
    (cp >= 0x09 && cp <= 0x0d) ||
    (cp >= 0x1c && cp <= 0x20) ||
    cp === 0x85 ||
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000
  );
}

function stripChars(s: string, strip: (cp: number) => boolean, left: boolean, right: boolean): string {
  let i = 0;
  let j = s.length;
  if (left) {
    while (i < j) {
      const cp = s.codePointAt(i) as number;
      if (!strip(cp)) break;
      i += cp > 0xffff ? 2 : 1;
    }
  }
  if (right) {
    while (j > i) {
      let width = 1;
      let cp = s.charCodeAt(j - 1);
      if (cp >= 0xdc00 && cp <= 0xdfff && j - 2 >= i) {
        const hi = s.charCodeAt(j - 2);
        if (hi >= 0xd800 && hi <= 0xdbff) {
          cp = s.codePointAt(j - 2) as number;
          width = 2;
        }
      }
      if (!strip(cp)) break;
      j -= width;
    }
  }
  return i === 0 && j === s.length ? s : s.slice(i, j);
}

function stripFunction(name: string, left: boolean, right: boolean, side: string, examples: FunctionExample[]): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [optional('CHARACTERS', 'string'), one('VALUES', 'value')],
    description: `Each string with the CHARACTERS (default: whitespace) removed from ${side}; other values are left out.`,
    examples,
    json: 'yes',
    compile(b, cc) {
      const charsArg = b.opt('CHARACTERS');
      let strip = isWhitespace;
      if (charsArg !== undefined) {
        const set = new Set<number>();
        for (const c of charsArg.node as string) set.add(c.codePointAt(0) as number);
        strip = (cp) => set.has(cp);
      }
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => mapValues(values(ctx), (x) => (isPlainString(x) ? stripChars(x, strip, left, right) : undefined));
    },
  });
}

function justify(name: string, left: boolean, examples: FunctionExample[]): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [one('WIDTH', 'integer'), one('FILL_CHARACTER', 'value'), one('VALUES', 'value')],
    description: `Each string padded on the ${left ? 'right' : 'left'} with FILL_CHARACTER to at least WIDTH characters; null unless WIDTH is an integer and FILL_CHARACTER one character.`,
    examples,
    json: 'yes',
    compile(b, cc) {
      const width = cc.expr(b.one('WIDTH'));
      const fill = cc.expr(b.one('FILL_CHARACTER'));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const w = firstOf(width(ctx));
        const f = firstOf(fill(ctx));
        if (typeof w !== 'number' || !Number.isInteger(w) || !isPlainString(f) || charCount(f) !== 1) return null;
        return mapValues(values(ctx), (x) => {
          if (!isPlainString(x)) return undefined;
          const missing = w - charCount(x);
          if (missing <= 0) return x;
          spendString(ctx.run, x.length + missing * f.length, name);
          const pad = f.repeat(missing);
          return left ? x + pad : pad + x;
        });
      };
    },
  });
}

/** How many times `replaceAll` would replace `from` in `s` (an empty `from` matches around every character). */
function occurrences(s: string, from: string): number {
  if (from === '') return s.length + 1;
  let n = 0;
  for (let i = s.indexOf(from); i >= 0; i = s.indexOf(from, i + from.length)) n++;
  return n;
}

function integerOf(v: DtlValue): number | undefined {
  const x = firstOf(v);
  return typeof x === 'number' && Number.isInteger(x) ? x : undefined;
}

export const stringFunctions: FunctionSpec[] = [
  expression({
    name: 'string',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'The text of each value: typed values without their tag, lists and dicts as JSON; nulls are left out.',
    examples: [
      { expression: ['string', 1], result: '1' },
      { expression: ['string', 'hello'], result: 'hello' },
      {
        expression: ['string', ['list', 'abc', ['list', 1, 2, 3], { b: 2, a: 1 }, '~rhttp://www.example.org/', 124.4, 12345]],
        result: ['abc', '[1, 2, 3]', '{"a": 1, "b": 2}', 'http://www.example.org/', '124.4', '12345'],
      },
    ],
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => mapValues(values(ctx), (x) => (x === null ? undefined : toText(x)));
    },
  }),

  expression({
    name: 'concat',
    family: FAMILY,
    params: [oneOrMore('VALUES', 'value')],
    description: 'One string made of all the strings among the arguments (lists are opened one level; other values are left out).',
    examples: [
      { expression: ['concat', ['list', 'a', 'b', 'c']], result: 'abc' },
      { expression: ['concat', 'Hello ', '_S.name', '!'], source: { name: 'John' }, result: 'Hello John!' },
      { expression: ['concat', 'a', ['list', 'b', 'c'], 'd', 123, ['list', '!']], result: 'abcd!' },
      { expression: ['concat', 123, 3.14], result: '' },
    ],
    json: 'yes',
    compile(b, cc) {
      const args = b.many('VALUES').map((a) => cc.expr(a));
      return (ctx) => {
        // The parts first, their length counted before the string is made.
        const parts: string[] = [];
        let length = 0;
        for (const e of args) {
          const v = e(ctx);
          if (typeof v === 'string') {
            if (isPlainString(v)) {
              parts.push(v);
              length += v.length;
            }
          } else if (Array.isArray(v)) {
            for (const x of v) {
              if (isPlainString(x)) {
                parts.push(x);
                length += x.length;
              }
            }
          }
        }
        spendString(ctx.run, length, 'concat');
        return parts.length === 1 ? parts[0]! : parts.join('');
      };
    },
  }),

  expression({
    name: 'split',
    family: FAMILY,
    params: [optional('SEPARATOR', 'string'), one('VALUES', 'value')],
    description: 'The pieces of each string split at the separator (default: runs of whitespace; the empty string: each character), as one flat list.',
    examples: [
      { expression: ['split', '-', 'a-b-c'], result: ['a', 'b', 'c'] },
      { expression: ['split', '-', ['list', 'a-b', 'c-d', 'e']], result: ['a', 'b', 'c', 'd', 'e'] },
      { expression: ['split', '', ['list', 'ab', 'cd', 'e']], result: ['a', 'b', 'c', 'd', 'e'] },
      { expression: ['split', '  two  words '], result: ['two', 'words'] },
    ],
    json: 'yes',
    compile(b, cc) {
      const sepArg = b.opt('SEPARATOR');
      const sep = sepArg?.node as string | undefined;
      const values = cc.expr(b.one('VALUES'));
      const split =
        sep === undefined ? (s: string) => s.split(/\s+/).filter((p) => p !== '') : sep === '' ? (s: string) => [...s] : (s: string) => s.split(sep);
      return (ctx) => {
        const out: DtlValue[] = [];
        for (const x of asList(values(ctx))) if (isPlainString(x)) for (const p of split(x)) out.push(p);
        return out;
      };
    },
  }),

  expression({
    name: 'join',
    family: FAMILY,
    params: [one('SEPARATOR', 'string'), one('VALUES', 'value')],
    description: 'One string made of the strings among the values with SEPARATOR between them; other values are left out.',
    examples: [
      { expression: ['join', '-', ['list', 'a', 'b', 123, 'c']], result: 'a-b-c' },
      { expression: ['join', ', ', '_S.tags'], source: { tags: ['x', 'y'] }, result: 'x, y' },
    ],
    json: 'yes',
    compile(b, cc) {
      const sep = b.one('SEPARATOR').node as string;
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const parts: string[] = [];
        let length = 0;
        for (const x of asList(values(ctx))) {
          if (isPlainString(x)) {
            parts.push(x);
            length += x.length;
          }
        }
        spendString(ctx.run, length + Math.max(0, parts.length - 1) * sep.length, 'join');
        return parts.join(sep);
      };
    },
  }),

  expression({
    name: 'length',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'The number of characters of each string; other values are left out.',
    examples: [
      { expression: ['length', ['list', '', 'a', 'bb', 'ccc']], result: [0, 1, 2, 3] },
      { expression: ['length', '_S.name'], source: { name: 'Ann' }, result: 3 },
    ],
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => mapValues(values(ctx), (x) => (isPlainString(x) ? charCount(x) : undefined));
    },
  }),

  stripFunction('strip', true, true, 'both ends', [
    { expression: ['strip', ['list', ' ab ', 'cd ', 'ef']], result: ['ab', 'cd', 'ef'] },
    { expression: ['strip', 'xy', ['list', '123xyx', 'xy456yx']], result: ['123', '456'] },
  ]),
  stripFunction('lstrip', true, false, 'the start', [
    { expression: ['lstrip', ['list', ' ab ', 'cd ', 'ef']], result: ['ab ', 'cd ', 'ef'] },
    { expression: ['lstrip', 'xy', ['list', '123xyx', 'xy456yx']], result: ['123xyx', '456yx'] },
  ]),
  stripFunction('rstrip', false, true, 'the end', [
    { expression: ['rstrip', ['list', ' ab ', 'cd ', 'ef']], result: [' ab', 'cd', 'ef'] },
    { expression: ['rstrip', 'xy', ['list', '123xyx', 'xy456yx']], result: ['123', 'xy456'] },
  ]),

  justify('ljust', true, [
    { expression: ['ljust', 10, '0', '123'], result: '1230000000' },
    { expression: ['ljust', 5, ' ', ['list', 'abc', 'def', 'ghijklm']], result: ['abc  ', 'def  ', 'ghijklm'] },
  ]),
  justify('rjust', false, [
    { expression: ['rjust', 10, '0', '123'], result: '0000000123' },
    { expression: ['rjust', 5, ' ', ['list', 'abc', 'def', 'ghijklm']], result: ['  abc', '  def', 'ghijklm'] },
  ]),

  expression({
    name: 'substring',
    family: FAMILY,
    params: [one('START_INDEX', 'integer'), optional('END_INDEX', 'integer'), one('VALUES', 'value')],
    description: 'The characters of each string from START_INDEX up to (not including) END_INDEX; negative indexes count from the end.',
    examples: [
      { expression: ['substring', 2, 4, 'abcdef'], result: 'cd' },
      { expression: ['substring', 2, 'abcdef'], result: 'cdef' },
      { expression: ['substring', -3, -1, 'abcdef'], result: 'de' },
    ],
    json: 'yes',
    compile(b, cc) {
      const start = cc.expr(b.one('START_INDEX'));
      const endArg = b.opt('END_INDEX');
      const end = endArg === undefined ? undefined : cc.expr(endArg);
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const a = integerOf(start(ctx));
        const z = end === undefined ? undefined : integerOf(end(ctx));
        if (a === undefined || (end !== undefined && z === undefined)) return null;
        return mapValues(values(ctx), (x) => (isPlainString(x) ? sliceChars(x, a, z) : undefined));
      };
    },
  }),

  expression({
    name: 'is-string',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'True when the value (or the first value of a list) is a string (typed values such as URIs are not).',
    examples: [
      { expression: ['is-string', 'foo:bar'], result: true },
      { expression: ['is-string', ['list', 1, 'foo:bar']], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => kindOf(firstOf(values(ctx))) === 'string';
    },
  }),

  stringMap('lower', 'The lower-case form of each string; other values are left out.', (s) => s.toLowerCase(), [
    { expression: ['lower', ['list', 'A', 'B', 'C']], result: ['a', 'b', 'c'] },
    { expression: ['lower', '_S.name'], source: { name: 'Ann' }, result: 'ann' },
  ]),

  stringMap('upper', 'The upper-case form of each string; other values are left out.', (s) => s.toUpperCase(), [
    { expression: ['upper', ['list', 'a', 'b', 'c']], result: ['A', 'B', 'C'] },
    { expression: ['upper', '_S.name'], source: { name: 'Ann' }, result: 'ANN' },
  ]),

  expression({
    name: 'replace',
    family: FAMILY,
    // Either OLD_STRING NEW_STRING VALUES, or REPLACEMENTS VALUES with a dict whose keys are replaced by their values.
    params: [one('OLD_STRING', 'value'), optional('NEW_STRING', 'string'), one('VALUES', 'value')],
    description:
      'Each string with every occurrence of OLD_STRING replaced by NEW_STRING, or, given a dict of REPLACEMENTS instead, every occurrence of each key replaced by its value; other values are left out.',
    examples: [
      { expression: ['replace', 'http://', 'https://', 'http://www.example.org/'], result: 'https://www.example.org/' },
      { expression: ['replace', ':', '.', '_S.times'], source: { times: ['10:15', 7, '11:00'] }, result: ['10.15', '11.00'] },
      { expression: ['replace', { Hello: 'HELLO', world: 'WORLD' }, 'Hello world!'], result: 'HELLO WORLD!' },
      { expression: ['replace', ['dict', 'a', 'A', 'b', 'B'], 'abc'], result: 'ABc' },
    ],
    json: 'yes',
    compile(b, cc) {
      const first = b.one('OLD_STRING');
      const values = cc.expr(b.one('VALUES'));
      const newArg = b.opt('NEW_STRING');
      if (newArg !== undefined) {
        if (typeof first.node !== 'string') cc.error(first, 'OLD_STRING of "replace" must be a literal string (or give a dict of replacements and no NEW_STRING)');
        const from = first.node as string;
        const to = newArg.node as string;
        return (ctx) =>
          mapValues(values(ctx), (x) => {
            if (!isPlainString(x)) return undefined;
            if (to.length > from.length) spendString(ctx.run, x.length + occurrences(x, from) * (to.length - from.length), 'replace');
            return x.replaceAll(from, () => to);
          });
      }
      // The documentation does not say how overlapping keys interact: each key is replaced in turn, in the dict's order.
      const replacements = cc.expr(first);
      return (ctx) => {
        const dict = replacements(ctx);
        if (!isDict(dict)) return null;
        const pairs = Object.entries(dict).filter((p): p is [string, string] => p[0] !== '' && isPlainString(p[1]));
        return mapValues(values(ctx), (x) => (isPlainString(x) ? pairs.reduce((s, [from, to]) => s.replaceAll(from, () => to), x) : undefined));
      };
    },
  }),

  expression({
    name: 'matches',
    family: FAMILY,
    params: [one('PATTERN', 'value'), one('VALUES', 'value')],
    description: 'True when every value is a string matching the wildcard pattern (* and ?); false for no values.',
    examples: [
      { expression: ['matches', 'a*p*a', ['list', 'alpha', 'alpaca']], result: true },
      { expression: ['matches', '*_sport', '_S.tags'], source: { tags: ['ski_sport', 'chess'] }, result: false },
      { expression: ['matches', 'a?c', 123], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const patternArg = b.one('PATTERN');
      let matcher: (ctx: Parameters<Expr>[0]) => NameMatcher | undefined;
      if (typeof patternArg.node === 'string' && !isPathString(patternArg.node)) {
        const m = compileWildcard(patternArg.node);
        matcher = () => m;
      } else {
        const p = cc.expr(patternArg);
        const cache = new Map<string, NameMatcher>();
        matcher = (ctx) => {
          const s = firstString(p(ctx));
          if (s === undefined) return undefined;
          let m = cache.get(s);
          if (m === undefined) {
            if (cache.size > 100) cache.clear();
            cache.set(s, (m = compileWildcard(s)));
          }
          return m;
        };
      }
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const m = matcher(ctx);
        if (m === undefined) return false;
        const vs = asList(values(ctx));
        if (vs.length === 0) return false;
        const tick = matchTicks(ctx.run);
        for (const v of vs) if (!isPlainString(v) || !m(v, tick)) return false;
        return true;
      };
    },
  }),
];

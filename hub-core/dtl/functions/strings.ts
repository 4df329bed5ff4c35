// Strings: string, concat, split, lower, upper, replace, matches.
//
// "String" means a plain string: a tagged typed value such as "~rhttp://x" is not a string here, so the string
// functions leave it out just like numbers.

import type { Expr } from '../context.js';
import { isPathString } from '../paths.js';
import { expression, one, oneOrMore, optional, type FunctionSpec } from '../registry.js';
import { asList, isPlainString, mapValues, toText, type DtlValue } from '../values.js';
import { compileWildcard, type NameMatcher } from '../wildcard.js';
import { firstString } from './util.js';

const FAMILY = 'strings';

function stringMap(name: string, description: string, fn: (s: string) => string, examples: FunctionSpec['examples']): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description,
    examples,
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const v = values(ctx);
        if (typeof v === 'string') return isPlainString(v) ? fn(v) : null;
        return mapValues(v, (x) => (isPlainString(x) ? fn(x) : undefined));
      };
    },
  });
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
        let out = '';
        for (const e of args) {
          const v = e(ctx);
          if (typeof v === 'string') {
            if (isPlainString(v)) out += v;
          } else if (Array.isArray(v)) {
            for (const x of v) if (isPlainString(x)) out += x;
          }
        }
        return out;
      };
    },
  }),

  expression({
    name: 'split',
    family: FAMILY,
    params: [optional('SEPARATOR', 'string'), one('VALUES', 'value')],
    description: 'The pieces of each string split at the separator (default: runs of whitespace), as one flat list.',
    examples: [
      { expression: ['split', '-', 'a-b-c'], result: ['a', 'b', 'c'] },
      { expression: ['split', '-', ['list', 'a-b', 'c-d', 'e']], result: ['a', 'b', 'c', 'd', 'e'] },
      { expression: ['split', '  two  words '], result: ['two', 'words'] },
    ],
    json: 'yes',
    compile(b, cc) {
      const sepArg = b.opt('SEPARATOR');
      const sep = sepArg?.node as string | undefined;
      if (sep === '') cc.error(sepArg as NonNullable<typeof sepArg>, 'the separator must not be empty');
      const values = cc.expr(b.one('VALUES'));
      const split = sep === undefined ? (s: string) => s.split(/\s+/).filter((p) => p !== '') : (s: string) => s.split(sep);
      return (ctx) => {
        const out: DtlValue[] = [];
        for (const x of asList(values(ctx))) if (isPlainString(x)) for (const p of split(x)) out.push(p);
        return out;
      };
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
    params: [one('OLD_STRING', 'string'), one('NEW_STRING', 'string'), one('VALUES', 'value')],
    description: 'Each string with every occurrence of OLD_STRING replaced by NEW_STRING; other values are left out.',
    examples: [
      { expression: ['replace', 'http://', 'https://', 'http://www.example.org/'], result: 'https://www.example.org/' },
      { expression: ['replace', ':', '.', '_S.times'], source: { times: ['10:15', 7, '11:00'] }, result: ['10.15', '11.00'] },
    ],
    json: 'yes',
    compile(b, cc) {
      const from = b.one('OLD_STRING').node as string;
      const to = b.one('NEW_STRING').node as string;
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => mapValues(values(ctx), (x) => (isPlainString(x) ? x.replaceAll(from, () => to) : undefined));
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
        for (const v of vs) if (!isPlainString(v) || !m(v)) return false;
        return true;
      };
    },
  }),
];

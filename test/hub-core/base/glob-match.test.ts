// Wildcards and globs match without backtracking (issue 32, point 1): each matcher gives the answers that the
// regular expression it replaced gave (kept here as the reference), and a hostile pattern such as
// "*a*a*a*a*a*a*a*a*a*a*a*a*a*b" against a long text answers at once instead of running for ages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileWildcard, compileWildcards } from '../../../hub-core/dtl/index.js';
import { wildcardPattern } from '../../../hub-core/config/index.js';
import { blacklistTest } from '../../../hub-core/project/index.js';
import { nameMatches } from '../../../main/cli/project.js';

// The regular expressions as they were built before (hub-core/dtl/wildcard.ts, notification-rules.ts,
// project-test.ts fnmatchRegExp, main/cli/project.ts nameMatches).
function oldWildcard(pattern: string): RegExp {
  let source = '^';
  for (const c of pattern) {
    if (c === '*') source += '[\\s\\S]*';
    else if (c === '?') source += '[\\s\\S]';
    else source += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(source + '$', 'u');
}
function oldNotification(pattern: string, caseSensitive: boolean): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[\\s\\S]*').replace(/\?/g, '[\\s\\S]');
  return new RegExp(body, caseSensitive ? 'u' : 'iu');
}
function oldFnmatch(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '[\\s\\S]*';
    else if (c === '?') re += '[\\s\\S]';
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) re += '\\[';
      else {
        let body = pattern.slice(i + 1, close);
        const negate = body.startsWith('!');
        if (negate) body = body.slice(1);
        re += `[${negate ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
        i = close;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u');
}
function oldBlacklist(blacklist: string[], path: string, indexed: string): boolean {
  const tests: RegExp[] = [];
  for (const raw of blacklist) {
    const p = raw.replace(/\\\./g, '.');
    tests.push(oldFnmatch(p.replace(/\[\]\./g, '.*.')));
    if (p.includes('[].')) tests.push(oldFnmatch(p.replace(/\[\]\./g, '.')));
  }
  return tests.some((t) => t.test(path) || t.test(indexed));
}
function oldNameMatches(name: string, filter: string): boolean {
  if (!/[*?]/.test(filter)) return name.includes(filter);
  const pattern = filter.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${pattern}$`).test(name);
}

const PATTERNS = [
  '*', '?', '??', 'a*', '*a', 'a*b', 'a?b', '*a*', 'a*b*c', '*.csv', 'file?.json', 'x*y?z*', '**', '*?', '?*', '*?*',
  'a.b', 'a+b*', '(a)*', '[ab]*', '^$*', '\\*', 'a\\?b', 'name-*', '*_id', 'order_*_no', 'ÆØÅ*', '*😀*', '?😀', 'é?',
  'crm:*', '*:id', '$ids*', 'a*a*a*b', '*ab*ab*', 'ab*', '*b', 'b*a', '{x}*', '|*|',
];
const NAMES = [
  '', 'a', 'b', 'ab', 'ba', 'abc', 'aXbYc', 'a.b', 'axb', 'file1.json', 'file12.json', 'data.csv', 'x1yzz', 'xyz',
  'a+bb', '(a)', '[ab]', 'a?b', 'a*b', '^$', '*', 'name-x', '_id', 'crm_id', 'order_12_no', 'ÆØÅx', 'x😀y', '😀', 'é',
  'e\u0301', 'xé', 'crm:x', 'a:id', '$ids', 'aaab', 'aab', 'abab', 'xabyab', '{x}', '|a|', 'line\nbreak', 'a\nb',
];

test('DTL wildcards give the answers of the regular expression they replaced', () => {
  for (const p of PATTERNS) {
    const m = compileWildcard(p);
    const re = oldWildcard(p);
    for (const n of NAMES) assert.equal(m(n), re.test(n), `${JSON.stringify(p)} on ${JSON.stringify(n)}`);
  }
  const any = compileWildcards(['a*b', 'x?z', 'plain']);
  assert.deepEqual(['ab', 'aXb', 'xyz', 'plain', 'plainx', 'xz'].map((n) => any(n)), [true, true, true, true, false, false]);
});

/** A small deterministic generator (mulberry32), so that a failure is the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = (r: () => number, alphabet: string[], max: number): string =>
  Array.from({ length: Math.floor(r() * (max + 1)) }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');

test('on random short patterns and texts, every matcher agrees with the regular expression it replaced', () => {
  const r = random(32);
  const patternChars = ['a', 'b', 'A', '*', '?', '.', '😀', 'k', 'K', '\u212a', 'ſ', 's', 'S'];
  const textChars = ['a', 'b', 'A', '.', '😀', '\ud83d', 'k', 'K', '\u212a', 'ſ', 's', 'S', '\n'];
  for (let i = 0; i < 3000; i++) {
    const p = pick(r, patternChars, 7);
    const t = pick(r, textChars, 9);
    assert.equal(compileWildcard(p)(t), oldWildcard(p).test(t), `wildcard ${JSON.stringify(p)} on ${JSON.stringify(t)}`);
    for (const cs of [true, false]) {
      assert.equal(wildcardPattern(p, cs).test(t), oldNotification(p, cs).test(t), `notification (case ${cs}) ${JSON.stringify(p)} on ${JSON.stringify(t)}`);
    }
    assert.equal(nameMatches(t, p), oldNameMatches(t, p), `--filter ${JSON.stringify(p)} on ${JSON.stringify(t)}`);
  }
  const globChars = ['a', 'b', '.', '*', '?', '[', ']', '!', '-', 'z', '[].', '\\.', '😀'];
  const pathChars = ['a', 'b', '.', 'z', '-', '!', '[', ']', '0', '😀'];
  for (let i = 0; i < 3000; i++) {
    const p = pick(r, globChars, 6);
    const path = pick(r, pathChars, 8);
    const indexed = pick(r, pathChars, 8);
    let old: boolean | Error;
    try {
      old = oldBlacklist([p], path, indexed);
    } catch (e) {
      old = e as Error;
    }
    if (old instanceof Error) assert.throws(() => blacklistTest([p]), `blacklist ${JSON.stringify(p)} is refused as before`);
    else assert.equal(blacklistTest([p])(path, indexed), old, `blacklist ${JSON.stringify(p)} on ${JSON.stringify(path)} / ${JSON.stringify(indexed)}`);
  }
});

test('notification patterns, blacklists and --filter keep their documented forms', () => {
  assert.equal(wildcardPattern('conn*refused', false).test('Connection was REFUSED'), true);
  assert.equal(wildcardPattern('STRASSE', false).test('die strasse'), true);
  assert.equal(wildcardPattern('refused', true).test('REFUSED'), false);
  const bl = blacklistTest(['a[].b', 'x\\.y', 'c[0-9]', 'd[!0-9]', 'meta.*']);
  assert.equal(bl('a.b', 'a.0.b'), true);
  assert.equal(bl('x.y', 'x.y'), true);
  assert.equal(bl('c5', 'c5'), true);
  assert.equal(bl('cx', 'cx'), false);
  assert.equal(bl('dx', 'dx'), true);
  assert.equal(bl('d5', 'd5'), false);
  assert.equal(bl('meta.when', 'meta.when'), true);
  assert.equal(nameMatches('orders-basic', 'orders-*'), true);
  assert.equal(nameMatches('orders-basic', 'basic'), true);
  assert.equal(nameMatches('orders\nbasic', 'orders*'), false, 'as before, "*" stops at a line break');
});

test('hostile patterns answer at once on long texts', () => {
  const hostile = '*a*a*a*a*a*a*a*a*a*a*a*a*a*b';
  const long = 'a'.repeat(10_000);
  const time = (f: () => boolean, expected: boolean, what: string): void => {
    const t0 = performance.now();
    assert.equal(f(), expected, what);
    const ms = performance.now() - t0;
    assert.ok(ms < 500, `${what} took ${ms.toFixed(1)} ms`);
  };
  time(() => compileWildcard(hostile)(long), false, 'DTL wildcard');
  time(() => compileWildcard(hostile)(long + 'b'), true, 'DTL wildcard that matches');
  time(() => compileWildcard('?a?a?a?a?a?a?a?a*b*b*b*b*b*b*b*c')(long), false, 'DTL wildcard with ?');
  time(() => wildcardPattern('a*a*a*a*a*a*a*a*a*a*a*a*a*b', false).test(long), false, 'notification pattern');
  time(() => blacklistTest(['*a*a*a*a*a*a*a*a*a*a*a*a*a*[b]'])(long, long), false, 'blacklist');
  time(() => nameMatches(long, hostile), false, '--filter');
  time(() => nameMatches(long.slice(0, 60) + '\n' + long, hostile), false, '--filter over a line break');
});

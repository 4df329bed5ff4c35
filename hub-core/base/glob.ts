// Glob matching without regular expressions: a pattern is a list of atoms (one character that passes a test, or a
// run of them) matched against a whole text in O(text × pattern) at worst. A regular expression built from a user's
// `*a*a*a…b` backtracks exponentially and blocks the thread that runs it (issue 32); these matchers cannot.

/** A test of one character (a code point, or a UTF-16 code unit for matchers built with `unicode: false`). */
export type CharTest = (ch: string) => boolean;

/**
 * One step of a pattern: `star` matches any run (also empty) of characters, else exactly one character; `test`
 * says which characters (null: any); `literal` is the one character the atom stands for when it is a plain one.
 */
export interface GlobAtom {
  star: boolean;
  test: CharTest | null;
  literal?: string;
}

export interface GlobOptions {
  /** Characters are code points (a regular expression's `u` flag) rather than UTF-16 code units. Default true. */
  unicode?: boolean;
}

/**
 * Whole-text match. `tick`, when given, is told of the steps taken, about {@link TICK_STEPS} at a time, so that a caller
 * with a time bound (a DTL transform, dtl/work-limit.ts) can stop a match of a long pattern against a long text:
 * linear in each, the product can still be 10^12 steps.
 */
export type TextMatcher = (text: string, tick?: (steps: number) => void) => boolean;

export const TICK_STEPS = 1 << 16;

const SURROGATE = /[\uD800-\uDFFF]/;

export const anyChar: GlobAtom = { star: false, test: null };
export const anyRun: GlobAtom = { star: true, test: null };

/** A plain character compared exactly. */
export function literalAtom(ch: string): GlobAtom {
  return { star: false, test: null, literal: ch };
}

/**
 * One character compared as a regular expression with the `iu` flags compares it (Unicode simple case folding): a
 * one-character expression per pattern character, asked once per distinct text character.
 */
export function caseInsensitiveAtom(ch: string): GlobAtom {
  const re = new RegExp(`^${ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'iu');
  const seen = new Map<string, boolean>();
  return {
    star: false,
    test: (c) => {
      if (c === ch) return true;
      let hit = seen.get(c);
      if (hit === undefined) {
        hit = re.test(c);
        if (seen.size < 4096) seen.set(c, hit);
      }
      return hit;
    },
  };
}

/** The atoms as a whole-text matcher: the greedy two-pointer match when every run takes any character, else a set-of-states walk. */
export function compileGlob(atoms: readonly GlobAtom[], options: GlobOptions = {}): TextMatcher {
  const unicode = options.unicode !== false;
  const list = collapseRuns(atoms);
  // A text without surrogates has one code point per unit: it is walked as it is, without splitting it.
  const split = unicode ? (s: string): string | string[] => (SURROGATE.test(s) ? Array.from(s) : s) : (s: string): string => s;
  const one = list.map((a) => atomTest(a));
  if (list.every((a) => !a.star || a.test === null)) {
    // The fast paths for patterns of plain characters: a literal, a prefix, a suffix, or both.
    // (Not with a lone surrogate: startsWith would find it inside a pair that a code point match keeps whole.)
    if (list.every((a) => a.star || (a.literal !== undefined && !(unicode && /^[\uD800-\uDFFF]$/.test(a.literal))))) {
      const stars = list.filter((a) => a.star).length;
      const text = list.map((a) => (a.star ? '\u0000' : a.literal)).join('');
      if (stars === 0) return (s) => s === text;
      if (stars === 1) {
        const at = list.findIndex((a) => a.star);
        const head = list.slice(0, at).map((a) => a.literal).join('');
        const tail = list.slice(at + 1).map((a) => a.literal).join('');
        return (s) => s.length >= head.length + tail.length && s.startsWith(head) && s.endsWith(tail);
      }
    }
    // Plain characters outside the surrogate range compare the same unit by unit as code point by code point (a
    // run takes anything): the text need not be split.
    if (list.every((a) => a.star || (a.literal !== undefined && !SURROGATE.test(a.literal)))) return (s, tick) => twoPointer(list, one, s, tick);
    return (s, tick) => twoPointer(list, one, split(s), tick);
  }
  return (s, tick) => statesWalk(list, one, split(s), tick);
}

/** Adjacent unrestricted runs are one run (`**` is `*`). */
function collapseRuns(atoms: readonly GlobAtom[]): GlobAtom[] {
  const out: GlobAtom[] = [];
  for (const a of atoms) {
    const last = out[out.length - 1];
    if (a.star && a.test === null && last !== undefined && last.star && last.test === null) continue;
    out.push(a);
  }
  return out;
}

function atomTest(a: GlobAtom): CharTest {
  if (a.literal !== undefined && a.test === null) {
    const lit = a.literal;
    return (c) => c === lit;
  }
  return a.test ?? (() => true);
}

/**
 * The classic wildcard match: on a mismatch, go back to the last `*` seen and let it take one more character.
 * Correct because a later `*` can absorb anything an earlier one could; at most text × pattern steps.
 */
function twoPointer(atoms: readonly GlobAtom[], tests: readonly CharTest[], text: readonly string[] | string, tick?: (steps: number) => void): boolean {
  let steps = 0;
  let p = 0;
  let t = 0;
  let starP = -1;
  let starT = 0;
  const m = atoms.length;
  const n = text.length;
  while (t < n) {
    if (tick !== undefined && ++steps === TICK_STEPS) {
      tick(steps);
      steps = 0;
    }
    if (p < m && !atoms[p]!.star && tests[p]!(text[t]!)) {
      p++;
      t++;
    } else if (p < m && atoms[p]!.star) {
      starP = p++;
      starT = t;
    } else if (starP >= 0) {
      p = starP + 1;
      t = ++starT;
    } else return false;
  }
  while (p < m && atoms[p]!.star) p++;
  return p === m;
}

/** A non-deterministic walk over the pattern's positions, for runs that take only some characters. */
function statesWalk(atoms: readonly GlobAtom[], tests: readonly CharTest[], text: readonly string[] | string, tick?: (steps: number) => void): boolean {
  const m = atoms.length;
  let steps = 0;
  let now = new Uint8Array(m + 1);
  let next = new Uint8Array(m + 1);
  const close = (set: Uint8Array): void => {
    for (let i = 0; i < m; i++) if (set[i] && atoms[i]!.star) set[i + 1] = 1;
  };
  now[0] = 1;
  close(now);
  for (let t = 0; t < text.length; t++) {
    const c = text[t]!;
    if (tick !== undefined && (steps += m + 1) >= TICK_STEPS) {
      tick(steps);
      steps = 0;
    }
    next.fill(0);
    let any = false;
    for (let i = 0; i < m; i++) {
      if (!now[i] || !tests[i]!(c)) continue;
      if (atoms[i]!.star) next[i] = 1;
      else next[i + 1] = 1;
      any = true;
    }
    if (!any) return false;
    close(next);
    [now, next] = [next, now];
  }
  return now[m] === 1;
}

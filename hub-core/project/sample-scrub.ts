// Scrubbing sampled entities before they are written anywhere: every property whose name (or dotted path) matches
// one of the user's patterns (`*email*`, `*ssn*`; case-insensitive, `*` and `?`) gets a fake value made from a keyed
// hash of the real one. The same value gives the same fake (references and joins between sampled entities keep
// working) and the fake keeps the value's type and shape: a string stays a string of the same length with letters for
// letters, digits for digits and the rest kept (an e-mail still looks like one), a number stays a number with as many
// digits. Once a value is scrubbed, it is replaced wherever else it occurs in the sample too (an `_id` made of an SSN).

import { createHmac } from 'node:crypto';
import { caseInsensitiveAtom, compileGlob, anyChar, anyRun, type GlobAtom, type TextMatcher } from '../base/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';

/** The patterns of a `--scrub` value: comma-separated, blanks around them ignored. */
export function parseScrubPatterns(text: string): string[] {
  return text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

function patternMatcher(pattern: string): TextMatcher {
  const atoms: GlobAtom[] = Array.from(pattern).map((c) => (c === '*' ? anyRun : c === '?' ? anyChar : caseInsensitiveAtom(c)));
  return compileGlob(atoms);
}

/** Values shorter than this are replaced only where their property matches (not wherever else they occur). */
const MIN_ECHO_LENGTH = 4;

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const DIGITS = '0123456789';

export class Scrubber {
  private readonly matchers: TextMatcher[];
  /** Real text -> fake text, for every string (and number's text) scrubbed so far. */
  private readonly replaced = new Map<string, string>();
  /** How many properties were scrubbed. */
  count = 0;

  constructor(
    patterns: readonly string[],
    private readonly key: Buffer | string,
  ) {
    this.matchers = patterns.map(patternMatcher);
  }

  /** Does a property (its name or its dotted path) match a pattern? */
  matches(name: string, path: string): boolean {
    return this.matchers.some((m) => m(name) || m(path));
  }

  /** The entities with the matching properties faked, then every other occurrence of a faked value replaced. */
  scrub(entities: readonly JsonObject[]): JsonObject[] {
    if (this.matchers.length === 0) return entities.map((e) => structuredClone(e));
    const first = entities.map((e) => this.walk(e, '', false) as JsonObject);
    const echoes = [...this.replaced].filter(([real]) => real.length >= MIN_ECHO_LENGTH).sort((a, b) => b[0].length - a[0].length);
    if (echoes.length === 0) return first;
    return first.map((e) => this.echo(e, echoes) as JsonObject);
  }

  private walk(v: JsonValue, path: string, inMatch: boolean): JsonValue {
    if (Array.isArray(v)) return v.map((x) => this.walk(x, path, inMatch));
    if (isJsonObject(v)) {
      const out: JsonObject = {};
      for (const [k, x] of Object.entries(v)) {
        const p = path === '' ? k : `${path}.${k}`;
        const hit = inMatch || (k !== '_id' && this.matches(k, p));
        if (hit && !inMatch) this.count++;
        out[k] = this.walk(x, p, hit);
      }
      return out;
    }
    return inMatch ? this.fake(v) : v;
  }

  /** Replace the texts of scrubbed values wherever they occur (whole values, or inside longer strings). */
  private echo(v: JsonValue, echoes: readonly (readonly [string, string])[]): JsonValue {
    if (Array.isArray(v)) return v.map((x) => this.echo(x, echoes));
    if (isJsonObject(v)) {
      const out: JsonObject = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.echo(x, echoes);
      return out;
    }
    if (typeof v === 'string') {
      let s = v;
      for (const [real, fake] of echoes) if (s.includes(real)) s = s.split(real).join(fake);
      return s;
    }
    if (typeof v === 'number') {
      const hit = echoes.find(([real]) => real === String(v));
      return hit ? Number(hit[1]) : v;
    }
    return v;
  }

  /** A stream of pseudo-random bytes for one value: HMAC-SHA256 of the value under the key, extended by a counter. */
  private bytes(text: string, n: number): Buffer {
    const parts: Buffer[] = [];
    for (let i = 0; parts.length * 32 < n; i++) parts.push(createHmac('sha256', this.key).update(`${i}\u0000${text}`).digest());
    return Buffer.concat(parts).subarray(0, n);
  }

  /** A fake of a leaf value, of its type. */
  fake(v: JsonValue): JsonValue {
    if (typeof v === 'string') return this.fakeString(v);
    if (typeof v === 'number') return this.fakeNumber(v);
    if (typeof v === 'boolean') return (this.bytes(`b:${v}`, 1)[0]! & 1) === 1;
    return v;
  }

  private fakeString(s: string): string {
    const known = this.replaced.get(s);
    if (known !== undefined) return known;
    // A transit-encoded value ("~t2024-01-02T...", "~:decimal", "~r<uri>") keeps its marker.
    const marker = /^~[a-zA-Z:]/.test(s) ? s.slice(0, 2) : '';
    const body = s.slice(marker.length);
    const chars = Array.from(body);
    const rnd = this.bytes(`s:${s}`, chars.length + 1);
    let out: string;
    if (marker === '~t' && /^\d{4}-\d{2}-\d{2}/.test(body)) {
      // A datetime stays a valid one: a day in 1970-2029, the time of day and the rest kept.
      const day = new Date(Date.UTC(1970, 0, 1) + (rnd.readUInt16BE(0) % 21900) * 86_400_000).toISOString().slice(0, 10);
      out = day + body.slice(10);
    } else {
      out = chars
        .map((c, i) => {
          const r = rnd[i]!;
          if (c >= 'a' && c <= 'z') return LOWER[r % 26]!;
          if (c >= 'A' && c <= 'Z') return UPPER[r % 26]!;
          if (c >= '0' && c <= '9') return DIGITS[r % 10]!;
          if (/\p{L}/u.test(c)) return LOWER[r % 26]!;
          return c;
        })
        .join('');
    }
    const fake = marker + out;
    this.replaced.set(s, fake);
    return fake;
  }

  private fakeNumber(n: number): number {
    if (!Number.isFinite(n)) return n;
    const text = String(n);
    const known = this.replaced.get(text);
    if (known !== undefined) return Number(known);
    const rnd = this.bytes(`n:${text}`, text.length);
    // Digits for digits, the first one never 0 (so an integer keeps its number of digits); sign, point and exponent kept.
    let out = '';
    let leading = true;
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (c >= '0' && c <= '9' && !/e/i.test(text.slice(0, i))) {
        const digit = leading && text.length > 1 && /\d/.test(text[i + 1] ?? '') ? 1 + (rnd[i]! % 9) : rnd[i]! % 10;
        out += String(digit);
        leading = false;
      } else {
        out += c;
        if (c === '.') leading = false;
      }
    }
    const fake = Number(out);
    if (!Number.isFinite(fake)) return n;
    this.replaced.set(text, String(fake));
    return fake;
  }
}

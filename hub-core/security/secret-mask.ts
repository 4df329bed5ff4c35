// Hiding secret values in text the hub stores or shows: reasons, execution-log events, API errors, log lines.
// A value is hidden as written and in the forms a URL or a JSON string gives it, so a URL built from a secret
// (system base_url, an error that quotes a request) is masked too.

import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';

export const MASKED = '********';
/**
 * Every secret value is masked, however short. A value shorter than this is masked only where it stands on its own
 * (no letter or digit right before or after it): a two-letter password "ed" is hidden in "password=ed&" or
 * "with ed", but "refused" stays readable. Hiding it inside words would garble every message, and would tell the
 * reader where the value occurs in them, which says more about it than leaving those words alone.
 */
const WHOLE_WORD_BELOW = 4;

export type Mask = (text: string) => string;

/** A mask hiding these values. */
export function secretMask(values: Iterable<string>): Mask {
  const forms = new Set<string>();
  const raw: string[] = [];
  for (const v of values) {
    if (v.length === 0) continue;
    raw.push(v);
    for (const f of valueForms(v)) forms.add(f);
    // A secret URL: its path, query and credentials are what a remote or an error quotes back on their own.
    for (const part of urlParts(v)) forms.add(part);
  }
  if (forms.size === 0) return (text) => text;
  // Longest first, so a value that contains another is hidden whole.
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  const escape = (f: string): string => f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const alternatives = sorted.map((f) => (f.length < WHOLE_WORD_BELOW ? `(?<![\\p{L}\\p{N}])${escape(f)}(?![\\p{L}\\p{N}])` : escape(f)));
  const pattern = new RegExp(alternatives.join('|'), 'gu');
  // A text cut short (a remote's answer quoted up to so many characters) may end in the start of a value.
  const starts = new Set<string>();
  for (const f of sorted) for (let k = CUT_AT_LEAST; k < f.length; k++) starts.add(f.slice(0, k));
  // The shortest such end, for a quick no: most texts end in nothing of the kind.
  const shortEnds = new Set<string>();
  for (const f of sorted) for (let k = CUT_AT_LEAST; k < f.length; k++) shortEnds.add(f.slice(k - CUT_AT_LEAST, k));
  const longestStart = sorted[0]!.length - 1;
  const hideCut = (text: string): string => {
    if (text.length < CUT_AT_LEAST || !shortEnds.has(text.slice(text.length - CUT_AT_LEAST))) return text;
    for (let k = Math.min(longestStart, text.length); k >= CUT_AT_LEAST; k--) {
      if (starts.has(text.slice(text.length - k))) return text.slice(0, text.length - k) + MASKED;
    }
    return text;
  };
  // A Basic credential carries "user:password" in base64, out of reach of the values' own forms.
  const hideBasic = (text: string): string =>
    text.replace(BASIC_CREDENTIAL, (whole: string, scheme: string, token: string) => {
      const decoded = Buffer.from(token, 'base64').toString('utf8');
      return raw.some((v) => decoded.includes(v)) ? `${scheme}${MASKED}` : whole;
    });
  return (text) => hideCut(hideBasic(text).replace(pattern, MASKED));
}

/** A value cut off this short (or shorter) at the end of a text is left: too little to tell a value by. */
const CUT_AT_LEAST = 6;
const BASIC_CREDENTIAL = /(Basic\s+)([A-Za-z0-9+/]{4,}={0,2})/gi;

/** A value as written and as each part of a URL or a JSON string writes it. */
function valueForms(v: string): string[] {
  const out = [v, encodeURIComponent(v), encodeURI(v), JSON.stringify(v).slice(1, -1), new URLSearchParams({ x: v }).toString().slice(2)];
  try {
    const u = new URL('http://h/');
    u.password = v;
    out.push(u.password);
    u.pathname = `/${v}`;
    out.push(u.pathname.slice(1));
    u.search = `?${v}`;
    out.push(u.search.slice(1));
    u.hash = `#${v}`;
    out.push(u.hash.slice(1));
  } catch {
    // A value no URL part takes as it is: its other forms remain.
  }
  return out.filter((f) => f !== '');
}

function urlParts(value: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return [];
  try {
    const u = new URL(value);
    const path = u.pathname.replace(/\/+$/, '');
    return [path, u.search, u.username, u.password, decodeURIComponent(u.password)].filter((p) => p !== '' && p !== '/');
  } catch {
    return [];
  }
}

/** A JSON value with the mask applied to every string in it (keys too). */
export function maskJson<T extends JsonValue>(value: T, mask: Mask): T {
  const walk = (v: JsonValue): JsonValue => {
    if (typeof v === 'string') return mask(v);
    if (Array.isArray(v)) return v.map(walk);
    if (isJsonObject(v)) {
      const out: JsonObject = {};
      for (const [k, x] of Object.entries(v)) out[mask(k)] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

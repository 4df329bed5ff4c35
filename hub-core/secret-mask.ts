// Hiding secret values in text the hub stores or shows: reasons, execution-log events, API errors, log lines.
// A value is hidden as written and in the forms a URL or a JSON string gives it, so a URL built from a secret
// (system base_url, an error that quotes a request) is masked too.

import { isJsonObject, type JsonObject, type JsonValue } from './json.js';

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
  for (const v of values) {
    if (v.length === 0) continue;
    forms.add(v);
    forms.add(encodeURIComponent(v));
    forms.add(encodeURI(v));
    forms.add(JSON.stringify(v).slice(1, -1));
    // A secret URL: its path, query and credentials are what a remote or an error quotes back on their own.
    for (const part of urlParts(v)) forms.add(part);
  }
  if (forms.size === 0) return (text) => text;
  // Longest first, so a value that contains another is hidden whole.
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  const escape = (f: string): string => f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const alternatives = sorted.map((f) => (f.length < WHOLE_WORD_BELOW ? `(?<![\\p{L}\\p{N}])${escape(f)}(?![\\p{L}\\p{N}])` : escape(f)));
  const pattern = new RegExp(alternatives.join('|'), 'gu');
  return (text) => text.replace(pattern, MASKED);
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

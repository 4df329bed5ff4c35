import './exact-json.js'; // JSON.stringify writes a BigInt as its digits (installed before any entity is written)

/** A bigint is an integer beyond ±2^53 (exact-json.ts); JSON text holds it as a plain integer. */
export type JsonPrimitive = null | boolean | number | bigint | string;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

const isRawJson = (JSON as { isRawJSON?: (v: unknown) => boolean }).isRawJSON ?? ((): boolean => false);

/**
 * A JSON object. A raw JSON value (`JSON.rawJSON`: a float literal a transform keeps as written, config-json.ts) is
 * not one: it stands for a number, so code that walks configuration passes it through as it is.
 */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isRawJson(v);
}

/** JSON with object keys sorted, so equal content always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return value === undefined ? 'null' : JSON.stringify(value);
  }
  // A number kept as written (configuration's float literals, see config-json.ts).
  if ((JSON as { isRawJSON?: (v: unknown) => boolean }).isRawJSON?.(value) === true) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalJson(value[i]);
    }
    return out + ']';
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += JSON.stringify(k) + ':' + canonicalJson(v);
  }
  return out + '}';
}

/** How deep JSON may nest in a request body or an entity (deeper values would exhaust the stack in recursive code). */
export const MAX_JSON_DEPTH = 512;

/**
 * What JSON.parse would silently change in this JSON text, as words, or undefined: nesting deeper than `maxDepth`,
 * and numbers out of a double's range (1e400 would become null, 1e-400 zero). Integers of any size are fine: they
 * are read exactly (parseJson in exact-json.ts).
 * One scan that skips strings; it does not parse.
 */
export function jsonTextProblem(text: string, maxDepth = MAX_JSON_DEPTH): string | undefined {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, escapes included.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return `the JSON is nested more than ${maxDepth} levels deep`;
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      let plain = true;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d >= 0x30 && d <= 0x39) continue;
        if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) plain = false;
        else break;
      }
      // Plain integers always fit (exactly, see exact-json.ts); numbers with a fraction or an exponent are checked.
      if (!plain) {
        const problem = numberProblem(text.slice(i, j));
        if (problem) return problem;
      }
      i = j - 1;
    }
  }
  return undefined;
}

function numberProblem(token: string): string | undefined {
  const value = Number(token);
  if (Number.isNaN(value)) return undefined; // malformed: JSON.parse reports it
  if (!Number.isFinite(value)) return `the number ${token} is beyond the range a JSON number can hold here; send it as a string`;
  if (value === 0 && /[1-9]/.test(token.split(/[eE]/)[0]!)) return `the number ${token} is too small to hold (it would be stored as 0); send it as a string`;
  return undefined;
}

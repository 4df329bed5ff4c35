// URIs, UUIDs, bytes and JSON: uri, url-quote, url-unquote, is-uri, uuid, is-uuid, bytes, base64-encode,
// base64-decode, is-bytes, json, json-transit, json-parse, json-transit-parse.

import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { expression, valuesFunction, one, optional, type FunctionSpec } from '../registry.js';
import {
  Bytes,
  Decimal,
  TypedValue,
  Uri,
  Uuid,
  decode,
  firstOf,
  isPlainString,
  mapValues,
  typedOf,
  type DtlValue,
} from '../values.js';
import { parseJson as parseExactJson, type JsonValue } from '../../base/index.js';
import { withCurrent } from './util.js';

const FAMILY = 'web';

function isTyped(kind: 'uri' | 'uuid' | 'bytes', v: DtlValue | undefined): boolean {
  return typedOf(v)?.kind === kind;
}

// ---------------------------------------------------------------------------------------------------------------------
// URL quoting (as RFC 3986 percent-encoding of UTF-8; letters, digits and "_.-~" are never encoded)

const ALWAYS_SAFE = /[A-Za-z0-9_.\-~]/;
const HEX = '0123456789ABCDEF';

export function urlQuote(text: string, safe: string): string {
  let out = '';
  for (const ch of text) {
    if (ch.length === 1 && ch.charCodeAt(0) < 128 && (ALWAYS_SAFE.test(ch) || safe.includes(ch))) {
      out += ch;
      continue;
    }
    for (const byte of Buffer.from(ch, 'utf8')) out += '%' + (HEX[byte >> 4] as string) + (HEX[byte & 15] as string);
  }
  return out;
}

const utf8 = new TextDecoder('utf-8');

/** Decode %XX escapes (as UTF-8; invalid sequences become U+FFFD); a "%" not followed by two hex digits stays. */
export function urlUnquote(text: string): string {
  if (!text.includes('%')) return text;
  let out = '';
  let bytes: number[] = [];
  const flush = (): void => {
    if (bytes.length > 0) out += utf8.decode(new Uint8Array(bytes));
    bytes = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      flush();
      out += c;
    }
  }
  flush();
  return out;
}

// ---------------------------------------------------------------------------------------------------------------------
// UUIDs and base64

/** UUID text in the usual spellings (hyphens anywhere, braces, "urn:uuid:") as a UUID; undefined otherwise. */
export function parseUuid(text: string): Uuid | undefined {
  let s = text.trim();
  if (s.toLowerCase().startsWith('urn:uuid:')) s = s.slice(9);
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1);
  s = s.replace(/-/g, '');
  if (!/^[0-9A-Fa-f]{32}$/.test(s)) return undefined;
  return new Uuid(`${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`);
}

const BASE64 = /^(?:[A-Za-z0-9+/]*|[A-Za-z0-9\-_]*)={0,2}$/;

/** Standard or URL-safe base64 (padding optional) as bytes; undefined when the text is not base64. */
export function parseBase64(text: string): Bytes | undefined {
  const s = text.trim();
  if (!BASE64.test(s)) return undefined;
  const body = s.replace(/=+$/, '');
  if (body.length % 4 === 1) return undefined;
  if (s.length > body.length && s.length % 4 !== 0) return undefined;
  return new Bytes(new Uint8Array(Buffer.from(body.replace(/-/g, '+').replace(/_/g, '/'), 'base64')));
}

// ---------------------------------------------------------------------------------------------------------------------
// JSON text: sorted keys, ", " and ": " separators. Plain JSON writes typed values as their text (decimals as numbers);
// transit JSON writes them as their tagged strings.

/**
 * What "json" / "json-transit" give for one value: its JSON text, except that a URI on its own is its plain text
 * (json) or its tagged string (json-transit) without the quotes of a JSON string, as the service's pages show
 * (hub/dtl/dtl-functions-json.rst: a ["uri", "http://www.example.org/"] in the list gives
 * "http://www.example.org/" and "~rhttp://www.example.org/"); inside a list or a dict it is quoted as JSON needs.
 */
function jsonFunctionText(v: DtlValue, transit: boolean): string {
  if (typeof v === 'string' || v instanceof TypedValue) {
    const t = typedOf(v);
    if (t instanceof Uri) return transit ? t.tagged() : t.text();
  }
  return jsonText(v, transit);
}

export function jsonText(v: DtlValue, transit: boolean): string {
  if (v === null || typeof v === 'boolean' || typeof v === 'number') return JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string' || v instanceof TypedValue) {
    const t = typedOf(v);
    if (t === null) return JSON.stringify(v);
    if (transit) return JSON.stringify(t.tagged());
    return t instanceof Decimal ? t.plain() : JSON.stringify(t.text());
  }
  if (Array.isArray(v)) return '[' + v.map((x) => jsonText(x, transit)).join(', ') + ']';
  const keys = Object.keys(v).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ': ' + jsonText(v[k] as DtlValue, transit)).join(', ') + '}';
}

function parseJson(text: string): JsonValue | undefined {
  try {
    return parseExactJson(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function jsonParseFunction(name: string, transit: boolean, description: string, examples: FunctionSpec['examples']): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [optional('DEFAULT', 'default'), one('VALUES', 'value')],
    description,
    examples,
    json: transit ? undefined : 'args',
    compile(b, cc) {
      const defArg = b.opt('DEFAULT');
      const def = defArg === undefined ? undefined : cc.expr(defArg);
      const values = cc.expr(b.one('VALUES'));
      const parse = (x: DtlValue): DtlValue | undefined => {
        if (!isPlainString(x)) return undefined;
        const parsed = parseJson(x);
        if (parsed === undefined) return undefined;
        return transit ? decode(parsed) : parsed;
      };
      if (def === undefined) return (ctx) => mapValues(values(ctx), parse);
      return (ctx) =>
        mapValues(values(ctx), (x) => {
          if (x === null) return undefined;
          const parsed = parse(x);
          // "null" parses to null, which is a result, not a failure.
          return parsed !== undefined ? parsed : withCurrent(ctx, x, def);
        });
    },
  });
}

function isFunction(name: string, kind: 'uri' | 'uuid' | 'bytes', description: string, examples: FunctionSpec['examples']): FunctionSpec {
  return valuesFunction({ name, family: FAMILY, description, examples, json: 'yes', make: (values) => (ctx) => isTyped(kind, firstOf(values(ctx))) });
}

export const webFunctions: FunctionSpec[] = [
  expression({
    name: 'uri',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Each string as a URI (the text is not escaped); URIs stay, other values are left out.',
    examples: [
      { expression: ['uri', 'http://www.example.org/'], result: '~rhttp://www.example.org/' },
      { expression: ['uri', ['list', 'http://www.example.org/', 'http://www.sesam.io/', 12345]], result: ['~rhttp://www.example.org/', '~rhttp://www.sesam.io/'] },
    ],
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => mapValues(values(ctx), (x) => (isPlainString(x) ? new Uri(x) : isTyped('uri', x) ? x : undefined));
    },
  }),

  expression({
    name: 'url-quote',
    family: FAMILY,
    params: [optional('SAFE_CHARS', 'string'), one('VALUES', 'value')],
    description: 'Each string percent-encoded for use in a URL (UTF-8); ASCII characters in SAFE_CHARS are kept; other values are left out.',
    examples: [
      { expression: ['url-quote', '/foo bar/baz'], result: '%2Ffoo%20bar%2Fbaz' },
      { expression: ['url-quote', '/', '/foo bar/baz'], result: '/foo%20bar/baz' },
      { expression: ['url-quote', ['list', 'å', 1, 2, ['uri', 'http://example.com'], 'foo bar']], result: ['%C3%A5', 'foo%20bar'] },
    ],
    json: 'yes',
    compile(b, cc) {
      const safe = (b.opt('SAFE_CHARS')?.node as string | undefined) ?? '';
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => mapValues(values(ctx), (x) => (isPlainString(x) ? urlQuote(x, safe) : undefined));
    },
  }),

  expression({
    name: 'url-unquote',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Each string with its %XX escapes decoded (as UTF-8); other values are left out.',
    examples: [
      { expression: ['url-unquote', '%2Ffoo%20bar%2Fbaz'], result: '/foo bar/baz' },
      { expression: ['url-unquote', ['list', 1, '%C3%A5', ['uri', 'http://example.com'], 'foo%20bar']], result: ['å', 'foo bar'] },
    ],
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => mapValues(values(ctx), (x) => (isPlainString(x) ? urlUnquote(x) : undefined));
    },
  }),

  isFunction('is-uri', 'uri', 'True when the value (or the first element of a list) is a URI.', [
    { expression: ['is-uri', ['uri', 'foo:bar']], result: true },
    { expression: ['is-uri', 'foo:bar'], result: false },
    { expression: ['is-uri', ['list', ['uri', 'foo:bar'], 12345]], result: true },
    { expression: ['is-uri', ['list', 1, ['uri', 'foo:bar']]], result: false },
  ]),

  expression({
    name: 'uuid',
    family: FAMILY,
    params: [optional('VALUES', 'value')],
    description: 'A new random (version 4) UUID; with an argument, each UUID string as a UUID instead (other values are left out).',
    examples: [
      { expression: ['is-uuid', ['uuid']], result: true },
      { expression: ['uuid', 'abc98f65-ddf5-1234-a8f5-82f6d8e69726'], result: '~uabc98f65-ddf5-1234-a8f5-82f6d8e69726' },
      {
        expression: ['uuid', ['list', 'abc98f65-ddf5-1234-a8f5-82f6d8e601a8', 2, '9f598f65-eea5-4906-a8f5-82f6d8e69726']],
        result: ['~uabc98f65-ddf5-1234-a8f5-82f6d8e601a8', '~u9f598f65-eea5-4906-a8f5-82f6d8e69726'],
      },
    ],
    compile(b, cc) {
      const arg = b.opt('VALUES');
      if (arg === undefined) return () => new Uuid(randomUUID());
      const values = cc.expr(arg);
      return (ctx) =>
        mapValues(values(ctx), (x) => {
          if (isPlainString(x)) return parseUuid(x);
          return isTyped('uuid', x) ? x : undefined;
        });
    },
  }),

  isFunction('is-uuid', 'uuid', 'True when the value (or the first element of a list) is a UUID.', [
    { expression: ['is-uuid', ['uuid']], result: true },
    { expression: ['is-uuid', '~u9f598f65-eea5-4906-a8f5-82f6d8e69726'], result: true },
    { expression: ['is-uuid', 'some-string'], result: false },
    { expression: ['is-uuid', ['list', ['uuid'], '12345']], result: true },
    { expression: ['is-uuid', ['list', '12345', ['uuid']]], result: false },
  ]),

  expression({
    name: 'bytes',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Each string as bytes (UTF-8); bytes stay, other values are left out.',
    examples: [
      { expression: ['bytes', 'abc'], result: '~bYWJj' },
      { expression: ['bytes', ['list', 'abc', 1, 'å']], result: ['~bYWJj', '~bw6U='] },
    ],
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) =>
        mapValues(values(ctx), (x) => {
          if (isPlainString(x)) return new Bytes(new Uint8Array(Buffer.from(x, 'utf8')));
          return isTyped('bytes', x) ? x : undefined;
        });
    },
  }),

  expression({
    name: 'base64-encode',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Each bytes value as standard base64 text; other values are left out.',
    examples: [
      { expression: ['base64-encode', ['bytes', 'abc']], result: 'YWJj' },
      { expression: ['base64-encode', ['list', 1, ['bytes', 'abc'], 2, ['bytes', 'def'], 3]], result: ['YWJj', 'ZGVm'] },
    ],
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) =>
        mapValues(values(ctx), (x) => {
          const t = typedOf(x);
          return t instanceof Bytes ? t.base64() : undefined;
        });
    },
  }),

  expression({
    name: 'base64-decode',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Each base64 string (standard or URL-safe) decoded to bytes; other values and invalid base64 are left out.',
    examples: [
      { expression: ['base64-decode', 'YWJj'], result: '~bYWJj' },
      { expression: ['base64-decode', ['list', 1, 'YWJj', 2, 'ZGVm', 3]], result: ['~bYWJj', '~bZGVm'] },
    ],
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => mapValues(values(ctx), (x) => (isPlainString(x) ? parseBase64(x) : undefined));
    },
  }),

  isFunction('is-bytes', 'bytes', 'True when the value (or the first element of a list) is a bytes value.', [
    { expression: ['is-bytes', ['bytes', 'abc']], result: true },
    { expression: ['is-bytes', '~bYWJj'], result: true },
    { expression: ['is-bytes', 'some-string'], result: false },
    { expression: ['is-bytes', ['list', '~bYWJj', '12345']], result: true },
    { expression: ['is-bytes', ['list', '12345', '~bYWJj']], result: false },
  ]),

  expression({
    name: 'json',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Each value as JSON text with sorted keys; typed values are written as their plain text (no transit tags); a URI on its own is its text without quotes; nulls are left out.',
    examples: [
      { expression: ['json', 1], result: '1' },
      { expression: ['json', 'hello'], result: '"hello"' },
      {
        expression: ['json', ['list', 'abc', ['list', 1, 2, 3], { b: 2, a: 1 }, ['uri', 'http://www.example.org/'], 124.4, 12345]],
        result: ['"abc"', '[1, 2, 3]', '{"a": 1, "b": 2}', 'http://www.example.org/', '124.4', '12345'],
        note: 'A URI on its own gives its plain text, without quotes (as the public documentation shows).',
      },
    ],
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => mapValues(values(ctx), (x) => (x === null ? undefined : jsonFunctionText(x, false)));
    },
  }),

  expression({
    name: 'json-transit',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Each value as JSON text with sorted keys, typed values written as their tagged strings ("~r...", "~t...", ...); a URI on its own is its tagged string without quotes; nulls are left out.',
    examples: [
      { expression: ['json-transit', 1], result: '1' },
      { expression: ['json-transit', 'hello'], result: '"hello"' },
      {
        expression: ['json-transit', ['list', 'abc', ['list', 1, 2, 3], { b: 2, a: 1 }, ['uri', 'http://www.example.org/'], 124.4, 12345]],
        result: ['"abc"', '[1, 2, 3]', '{"a": 1, "b": 2}', '~rhttp://www.example.org/', '124.4', '12345'],
        note: 'A URI on its own gives its tagged string, without quotes (as the public documentation shows).',
      },
    ],
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => mapValues(values(ctx), (x) => (x === null ? undefined : jsonFunctionText(x, true)));
    },
  }),

  jsonParseFunction(
    'json-parse',
    false,
    'Each string parsed as JSON; invalid JSON and non-strings are left out, or replaced by DEFAULT (with _ bound to them).',
    [
      { expression: ['json-parse', '1'], result: 1 },
      { expression: ['json-parse', '"hello"'], result: 'hello' },
      { expression: ['json-parse', '{"a": 1, "b": 2}'], result: { a: 1, b: 2 } },
      { expression: ['json-parse', 'hello'], result: null },
      { expression: ['json-parse', ['list', 'hello', '123', 'null', '"abc"']], result: [123, null, 'abc'] },
      { expression: ['json-parse', 'no-value', 'hello'], result: 'no-value' },
      { expression: ['json-parse', 'no-value', 'null'], result: null },
    ],
  ),

  jsonParseFunction(
    'json-transit-parse',
    true,
    'Each string parsed as JSON with tagged strings read as typed values; invalid JSON and non-strings are left out, or replaced by DEFAULT.',
    [
      { expression: ['json-transit-parse', '1'], result: 1 },
      { expression: ['json-transit-parse', '"hello"'], result: 'hello' },
      { expression: ['is-uri', ['json-transit-parse', '"~rhttp://www.example.org/"']], result: true },
      { expression: ['json-transit-parse', 'hello'], result: null },
      { expression: ['json-transit-parse', ['list', 'hello', '123', 'null', '"abc"', '"~rhttp://example.org/"']], result: [123, null, 'abc', '~rhttp://example.org/'] },
      { expression: ['json-transit-parse', 'no-value', '~rhttp://example.org/'], result: 'no-value' },
      { expression: ['is-uri', ['json-transit-parse', 'no-value', '"~rhttp://example.org/"']], result: true },
    ],
  ),
];

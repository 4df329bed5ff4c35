// Miscellaneous: literal, tuples, hash128, is-changed, encrypt, decrypt (Fernet), phonenumber-parse,
// phonenumber-format.

import { Buffer } from 'node:buffer';
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import type { CountryCode, PhoneNumber } from 'libphonenumber-js/max';
import type { JsonObject } from '../../base/index.js';
import type { Ctx, RunState } from '../context.js';
import { isPathString } from '../paths.js';
import { expression, one, optional, zeroOrMore, type ArgNode, type CompileContext, type FunctionSpec } from '../registry.js';
import { Bytes, Uri, asList, decode, firstOf, isDict, isPlainString, mapValues, typedOf, valuesEqual, type DtlValue } from '../values.js';
import { withCurrent } from './util.js';

type Phones = typeof import('libphonenumber-js/max');
let phones: Phones | undefined;
/**
 * libphonenumber-js with its full metadata costs every thread that evaluates DTL (the hub's and each worker's) a fifth
 * of a second to load: it is loaded when a pipe first uses a phone-number function.
 */
const phoneLib = (): Phones => (phones ??= createRequire(import.meta.url)('libphonenumber-js/max') as Phones);
import { integerValue } from '../integers.js';
import { jsonText } from './web.js';

const FAMILY = 'misc';

// ---------------------------------------------------------------------------------------------------------------------
// MurmurHash3, x64 128-bit variant (the 128-bit result is h2 * 2^64 + h1, as the usual Python binding reports it)

const M64 = (1n << 64n) - 1n;
const C1 = 0x87c37b91114253d5n;
const C2 = 0x4cf5ad432745937fn;

function rotl64(x: bigint, r: bigint): bigint {
  return ((x << r) | (x >> (64n - r))) & M64;
}

function fmix64(k: bigint): bigint {
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & M64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & M64;
  k ^= k >> 33n;
  return k;
}

export function murmur3x64128(data: Uint8Array, seed: number): bigint {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const len = data.byteLength;
  const blocks = Math.floor(len / 16);
  let h1 = BigInt(seed >>> 0);
  let h2 = h1;
  for (let i = 0; i < blocks; i++) {
    let k1 = view.getBigUint64(i * 16, true);
    let k2 = view.getBigUint64(i * 16 + 8, true);
    k1 = (k1 * C1) & M64;
    k1 = rotl64(k1, 31n);
    k1 = (k1 * C2) & M64;
    h1 ^= k1;
    h1 = rotl64(h1, 27n);
    h1 = (h1 + h2) & M64;
    h1 = (h1 * 5n + 0x52dce729n) & M64;
    k2 = (k2 * C2) & M64;
    k2 = rotl64(k2, 33n);
    k2 = (k2 * C1) & M64;
    h2 ^= k2;
    h2 = rotl64(h2, 31n);
    h2 = (h2 + h1) & M64;
    h2 = (h2 * 5n + 0x38495ab5n) & M64;
  }
  const tail = blocks * 16;
  const rest = len - tail;
  let k1 = 0n;
  let k2 = 0n;
  for (let j = rest - 1; j >= 8; j--) k2 |= BigInt(data[tail + j] as number) << BigInt((j - 8) * 8);
  for (let j = Math.min(rest, 8) - 1; j >= 0; j--) k1 |= BigInt(data[tail + j] as number) << BigInt(j * 8);
  if (rest > 8) {
    k2 = (k2 * C2) & M64;
    k2 = rotl64(k2, 33n);
    k2 = (k2 * C1) & M64;
    h2 ^= k2;
  }
  if (rest > 0) {
    k1 = (k1 * C1) & M64;
    k1 = rotl64(k1, 31n);
    k1 = (k1 * C2) & M64;
    h1 ^= k1;
  }
  h1 ^= BigInt(len);
  h2 ^= BigInt(len);
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  return (h2 << 64n) | h1;
}

// ---------------------------------------------------------------------------------------------------------------------
// Fernet tokens (https://github.com/fernet/spec): 0x80 | timestamp (8 bytes, big-endian seconds) | IV (16) |
// AES-128-CBC ciphertext (PKCS#7 padding) | HMAC-SHA256 of all before (32), written as URL-safe base64.

interface FernetKey {
  readonly signing: Buffer;
  readonly encryption: Buffer;
}

/**
 * The Fernet key for a KEY argument: a proper Fernet key (URL-safe base64 of 32 bytes) is used as it is; any other
 * text is a password, and the key is the SHA-256 digest of its UTF-8 bytes.
 */
export function fernetKey(text: string): FernetKey {
  let raw: Buffer | undefined;
  if (/^[A-Za-z0-9_-]{43}=$/.test(text)) {
    const b = Buffer.from(text, 'base64url');
    if (b.length === 32) raw = b;
  }
  raw ??= createHash('sha256').update(text, 'utf8').digest();
  return { signing: raw.subarray(0, 16), encryption: raw.subarray(16, 32) };
}

export function fernetEncrypt(key: FernetKey, plaintext: Uint8Array, nowSeconds = Math.floor(Date.now() / 1000), iv: Buffer = randomBytes(16)): string {
  const head = Buffer.alloc(9);
  head[0] = 0x80;
  head.writeBigUInt64BE(BigInt(nowSeconds), 1);
  const cipher = createCipheriv('aes-128-cbc', key.encryption, iv);
  const body = Buffer.concat([head, iv, cipher.update(plaintext), cipher.final()]);
  const mac = createHmac('sha256', key.signing).update(body).digest();
  // URL-safe base64 with padding, as Fernet implementations write it.
  return Buffer.concat([body, mac]).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/** The plaintext of a Fernet token, or undefined when the token is malformed or was not made with this key. */
export function fernetDecrypt(key: FernetKey, token: string): Buffer | undefined {
  const text = token.trim();
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(text)) return undefined;
  const data = Buffer.from(text.replace(/=+$/, ''), 'base64url');
  if (data.length < 1 + 8 + 16 + 16 + 32 || data[0] !== 0x80 || (data.length - 57) % 16 !== 0) return undefined;
  const body = data.subarray(0, data.length - 32);
  const mac = createHmac('sha256', key.signing).update(body).digest();
  if (!timingSafeEqual(mac, data.subarray(data.length - 32))) return undefined;
  try {
    const decipher = createDecipheriv('aes-128-cbc', key.encryption, data.subarray(9, 25));
    return Buffer.concat([decipher.update(data.subarray(25, data.length - 32)), decipher.final()]);
  } catch {
    return undefined;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** What encrypt encrypts for a value: strings as UTF-8, bytes as they are, anything else as its transit JSON text. */
function plaintextOf(v: DtlValue): Uint8Array {
  if (isPlainString(v)) return Buffer.from(v, 'utf8');
  const t = typedOf(v);
  if (t instanceof Bytes) return t.bytes;
  return Buffer.from(jsonText(v, true), 'utf8');
}

/** A KEY argument: fixed when it is a literal string, else evaluated per entity (the last key is cached). */
function keyArg(cc: CompileContext, arg: ArgNode): (ctx: Ctx) => FernetKey | undefined {
  if (typeof arg.node === 'string' && !isPathString(arg.node)) {
    const key = fernetKey(arg.node);
    return () => key;
  }
  const e = cc.expr(arg);
  let lastText: string | undefined;
  let lastKey: FernetKey | undefined;
  return (ctx) => {
    const v = firstOf(e(ctx));
    if (!isPlainString(v)) return undefined;
    if (v !== lastText) {
      lastText = v;
      lastKey = fernetKey(v);
    }
    return lastKey;
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// is-changed: the previous version of the source entity comes from the pipe runner (dataset sources only)

/** Gives the previous version of a source entity (undefined or null when there is none). */
export type PreviousVersionLookup = (entity: JsonObject) => JsonObject | null | undefined;

const previousVersions = new WeakMap<RunState, PreviousVersionLookup>();

/** Let `is-changed` see previous versions of source entities in runs that use `state` (a dataset source's runner). */
export function setPreviousVersionLookup(state: RunState, lookup: PreviousVersionLookup): void {
  previousVersions.set(state, lookup);
}

// ---------------------------------------------------------------------------------------------------------------------
// Phone numbers

const PHONE_FORMATS = ['e164', 'rfc3966', 'national', 'international', 'national-e164', 'isocode', 'country-code'] as const;
type PhoneFormat = (typeof PHONE_FORMATS)[number];

/** RFC 3966 text as the common phone number libraries write it: "tel:+47-22-22-22-22" (with ";ext=..." if any). */
function rfc3966(p: PhoneNumber): string {
  const intl = p.format('INTERNATIONAL').replace(/\s*ext\..*$/, '');
  const digits = intl.replace(/^\+/, '').replace(/[^0-9]+/g, '-').replace(/^-|-$/g, '');
  return `tel:+${digits}${p.ext !== undefined && p.ext !== '' ? `;ext=${p.ext}` : ''}`;
}

function formatPhone(p: PhoneNumber, format: PhoneFormat): string | undefined {
  switch (format) {
    case 'e164':
      return p.number.replace(/^\+/, '');
    case 'rfc3966':
      return rfc3966(p);
    case 'national':
      return p.format('NATIONAL');
    case 'international':
      return p.format('INTERNATIONAL');
    case 'national-e164':
      return p.nationalNumber;
    case 'isocode':
      return p.country;
    case 'country-code':
      return p.countryCallingCode;
  }
}

/** The phone number a value stands for: a "tel:" URI (or "tel:" string). */
function phoneOf(v: DtlValue): PhoneNumber | undefined {
  const t = typedOf(v);
  const text = t instanceof Uri ? t.uri : isPlainString(v) ? v : undefined;
  if (text === undefined || !text.toLowerCase().startsWith('tel:')) return undefined;
  return phoneLib().parsePhoneNumberFromString(text.slice(4).replace(/;ext=/i, ' ext. ').replace(/;.*$/, ''));
}

export const miscFunctions: FunctionSpec[] = [
  expression({
    name: 'literal',
    family: FAMILY,
    params: [one('VALUE', 'literal')],
    description: 'Its argument exactly as written, not evaluated (so "_S.x" stays a string and a list stays a list).',
    examples: [
      { expression: ['literal', '_S.foo'], result: '_S.foo' },
      { expression: ['literal', { foo: 1, bar: 2 }], result: { foo: 1, bar: 2 } },
      { expression: ['literal', ['upper', 'hello']], result: ['upper', 'hello'] },
    ],
    json: 'yes',
    compile(b) {
      const value = b.one('VALUE').node as DtlValue;
      return () => value;
    },
  }),

  expression({
    name: 'tuples',
    family: FAMILY,
    params: [zeroOrMore('VALUES', 'value')],
    description: 'Every combination (the cartesian product) of the values of the arguments, as lists as long as the argument list; nulls are left out.',
    examples: [
      { expression: ['tuples'], result: [] },
      { expression: ['tuples', 'a', 'b', 'c'], result: [['a', 'b', 'c']] },
      { expression: ['tuples', ['list', 1, 2], 3], result: [[1, 3], [2, 3]] },
      {
        expression: ['tuples', ['list', 1, 2], ['list', 3, null, 4, 5]],
        result: [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]],
      },
    ],
    json: 'args',
    compile(b, cc) {
      const args = b.many('VALUES').map((a) => cc.expr(a));
      if (args.length === 0) return () => [];
      return (ctx) => {
        let out: DtlValue[][] = [[]];
        for (const arg of args) {
          const values = asList(arg(ctx)).filter((x) => x !== null);
          const next: DtlValue[][] = [];
          for (const prefix of out) for (const x of values) next.push([...prefix, x]);
          out = next;
          if (out.length === 0) break;
        }
        return out;
      };
    },
  }),

  expression({
    name: 'hash128',
    family: FAMILY,
    params: [one('ALGORITHM', 'string'), optional('SEED', 'integer'), one('VALUES', 'value')],
    description: 'The 128-bit MurmurHash3 of each string (UTF-8) or bytes value, as an integer (written as a plain JSON integer); other values are left out; the hashes of a list come as one list inside a list.',
    examples: [
      { expression: ['hash128', 'murmur3', 'abc'], result: 79267961763742113019008347020647561319n },
      {
        expression: ['hash128', 'murmur3', ['combine', 'abc', 123, 'def']],
        result: [[79267961763742113019008347020647561319n, 114697464648834432121201791580882983835n]],
        note: 'The hashes of a list come as one list inside a list (as the public documentation shows).',
      },
    ],
    compile(b, cc) {
      const algArg = b.one('ALGORITHM');
      if (algArg.node !== 'murmur3') cc.error(algArg, `unknown hash algorithm ${JSON.stringify(algArg.node)}; the only one is "murmur3"`);
      const seedArg = b.opt('SEED');
      const values = cc.expr(b.one('VALUES'));
      // A list of values gives its hashes as one list inside a list, as hub/dtl/dtl-functions-misc.rst shows:
      // ["hash128", "murmur3", ["combine", "abc", 123, "def"]] returns [[<hash of abc>, <hash of def>]].
      const hashAll = (v: DtlValue, seed: number): DtlValue => {
        const hashes = mapValues(v, (x) => {
          const t = typedOf(x);
          const data = isPlainString(x) ? Buffer.from(x, 'utf8') : t instanceof Bytes ? t.bytes : undefined;
          return data === undefined ? undefined : integerValue(murmur3x64128(data, seed));
        });
        return Array.isArray(v) ? [hashes] : hashes;
      };
      if (seedArg === undefined || typeof seedArg.node === 'number') {
        const seed = (seedArg?.node as number | undefined) ?? 0;
        return (ctx) => hashAll(values(ctx), seed);
      }
      const seedExpr = cc.expr(seedArg);
      return (ctx) => {
        const seed = firstOf(seedExpr(ctx));
        return typeof seed === 'number' && Number.isInteger(seed) ? hashAll(values(ctx), seed) : null;
      };
    },
  }),

  expression({
    name: 'is-changed',
    family: FAMILY,
    params: [one('FUNCTION', 'function')],
    description: 'Whether FUNCTION (with _ bound to the entity) differs between this and the previous version of the source entity; null when there is no previous version.',
    examples: [{ expression: ['is-changed', '_.name'], source: { _id: '1', name: 'a' }, result: null, note: 'Outside a dataset-sourced pipe there is no previous version.' }],
    json: 'yes',
    compile(b, cc) {
      const fn = cc.expr(b.one('FUNCTION'));
      return (ctx) => {
        const lookup = previousVersions.get(ctx.run);
        const current = ctx.root.source;
        if (lookup === undefined || !isDict(current)) return null;
        const previous = lookup(current as JsonObject);
        if (previous === undefined || previous === null) return null;
        if (current['_deleted'] === true || previous['_deleted'] === true) return true;
        return !valuesEqual(withCurrent(ctx, current, fn), withCurrent(ctx, decode(previous), fn));
      };
    },
  }),

  expression({
    name: 'encrypt',
    family: FAMILY,
    params: [one('KEY', 'value'), one('VALUES', 'value')],
    description: 'Each value encrypted as a Fernet token (a bytes value) with KEY: a Fernet key, or a password whose SHA-256 digest is the key.',
    examples: [
      { expression: ['decrypt', 'secret', ['encrypt', 'secret', ['list', 'a', 'b', 'c']]], result: ['a', 'b', 'c'] },
      { expression: ['is-bytes', ['encrypt', 'secret', 'a']], result: true },
    ],
    compile(b, cc) {
      const key = keyArg(cc, b.one('KEY'));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const k = key(ctx);
        if (k === undefined) return null;
        return mapValues(values(ctx), (x) => (x === null ? undefined : new Bytes(new Uint8Array(Buffer.from(fernetEncrypt(k, plaintextOf(x)), 'ascii')))));
      };
    },
  }),

  expression({
    name: 'decrypt',
    family: FAMILY,
    params: [one('KEY', 'value'), one('VALUES', 'value')],
    description: 'Each Fernet token (bytes or text) decrypted with KEY, as text (bytes when it is not UTF-8); tokens that do not verify are left out.',
    examples: [
      { expression: ['decrypt', 'secret', ['encrypt', 'secret', ['list', 'a', 'b', 'c']]], result: ['a', 'b', 'c'] },
      { expression: ['decrypt', 'other', ['encrypt', 'secret', 'a']], result: null },
    ],
    compile(b, cc) {
      const key = keyArg(cc, b.one('KEY'));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const k = key(ctx);
        if (k === undefined) return null;
        return mapValues(values(ctx), (x) => {
          const t = typedOf(x);
          const token = t instanceof Bytes ? Buffer.from(t.bytes).toString('latin1') : isPlainString(x) ? x : undefined;
          if (token === undefined) return undefined;
          const plain = fernetDecrypt(k, token);
          if (plain === undefined) return undefined;
          try {
            return strictUtf8.decode(plain);
          } catch {
            return new Bytes(new Uint8Array(plain));
          }
        });
      };
    },
  }),

  expression({
    name: 'phonenumber-parse',
    family: FAMILY,
    params: [optional('DEFAULT_REGION', 'string'), one('VALUES', 'value')],
    description: 'Each valid phone number (a string or number; DEFAULT_REGION such as "NO" supplies a missing country code) as an RFC 3966 "tel:" URI; others are left out.',
    examples: [
      { expression: ['phonenumber-parse', '+4722222222'], result: '~rtel:+47-22-22-22-22' },
      { expression: ['phonenumber-parse', 'NO', '22225555'], result: '~rtel:+47-22-22-55-55' },
      { expression: ['phonenumber-parse', 'NO', ['list', '22222222', '22225555']], result: ['~rtel:+47-22-22-22-22', '~rtel:+47-22-22-55-55'] },
    ],
    compile(b, cc) {
      const regionArg = b.opt('DEFAULT_REGION');
      let region: CountryCode | undefined;
      if (regionArg !== undefined) {
        const r = (regionArg.node as string).toUpperCase();
        if (phoneLib().isSupportedCountry(r)) region = r;
        else cc.error(regionArg, `unknown region ${JSON.stringify(regionArg.node)}; use a two-letter country code such as "NO"`);
      }
      const values = cc.expr(b.one('VALUES'));
      const parse = (x: DtlValue): Uri | undefined => {
        const text = isPlainString(x) ? x : typeof x === 'number' && Number.isInteger(x) ? String(x) : undefined;
        if (text === undefined) return undefined;
        const p = phoneLib().parsePhoneNumberFromString(text, region);
        return p !== undefined && p.isValid() ? new Uri(rfc3966(p)) : undefined;
      };
      return (ctx) => mapValues(values(ctx), parse);
    },
  }),

  expression({
    name: 'phonenumber-format',
    family: FAMILY,
    params: [one('FORMAT', 'string'), one('VALUES', 'value')],
    description: 'Each "tel:" phone number as text: e164, rfc3966, national, international, national-e164, isocode or country-code; other values are left out.',
    examples: [
      { expression: ['phonenumber-format', 'e164', '~rtel:+47-22-22-22-22'], result: '4722222222' },
      { expression: ['phonenumber-format', 'national-e164', '~rtel:+47-22-22-22-22'], result: '22222222' },
      { expression: ['phonenumber-format', 'national', '~rtel:+47-22-22-22-22'], result: '22 22 22 22' },
      { expression: ['phonenumber-format', 'international', '~rtel:+47-22-22-22-22'], result: '+47 22 22 22 22' },
      { expression: ['phonenumber-format', 'rfc3966', '~rtel:+47-22-22-22-22'], result: 'tel:+47-22-22-22-22' },
      { expression: ['phonenumber-format', 'isocode', '~rtel:+47-22-22-22-22'], result: 'NO' },
      { expression: ['phonenumber-format', 'country-code', '~rtel:+47-22-22-22-22'], result: '47' },
      { expression: ['phonenumber-format', 'e164', ['list', '~rtel:+47-22-22-22-22', '~rtel:+47-22-22-55-55']], result: ['4722222222', '4722225555'] },
    ],
    json: 'yes',
    compile(b, cc) {
      const formatArg = b.one('FORMAT');
      const format = formatArg.node as PhoneFormat;
      if (!PHONE_FORMATS.includes(format)) cc.error(formatArg, `unknown phone number format ${JSON.stringify(formatArg.node)}; use one of ${PHONE_FORMATS.join(', ')}`);
      const values = cc.expr(b.one('VALUES'));
      return (ctx) =>
        mapValues(values(ctx), (x) => {
          const p = phoneOf(x);
          return p === undefined ? undefined : formatPhone(p, format);
        });
    },
  }),
];

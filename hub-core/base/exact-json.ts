// Integers of any size, exactly, in JSON text.
//
// The entity data model's integers are unlimited (hub/documentation/data-management/entity-data-model.rst, "Integer:
// The range of this data type is unlimited"), and the service writes them as plain JSON numbers (hash128's 128-bit
// hashes, for one). JSON.parse would round an integer beyond ±2^53, so such a literal is read as a BigInt instead (the
// reviver sees the literal's source text); integers within ±2^53 stay numbers, so a bigint always means "too large
// for a number". JSON.stringify writes a BigInt back as its plain digits (below).

/** A JSON integer literal's text: what a bigint is read from and written as. */
const INTEGER_LITERAL = /^-?\d+$/;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

interface RawJsonApi {
  rawJSON(text: string): object;
}

// JSON.stringify throws on a BigInt unless it has a toJSON; a raw JSON value (Node's JSON.rawJSON) is written as the
// digits themselves. Installed once for the process, so that every writer of entities (storage, the API, expected
// files, the outbox, previews) writes the same plain integer without each having to know about big integers.
const bigIntPrototype = BigInt.prototype as unknown as { toJSON?: (this: bigint) => unknown };
if (bigIntPrototype.toJSON === undefined) {
  const raw = JSON as unknown as RawJsonApi;
  Object.defineProperty(bigIntPrototype, 'toJSON', {
    value(this: bigint): unknown {
      return raw.rawJSON(this.toString());
    },
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

/**
 * True when the text holds a run of 16 or more digits: only then can it hold an integer beyond ±2^53 (which has at
 * least 16 digits). A run of 16 digits always covers one of the positions 15, 31, 47, ..., so only those are looked
 * at, and the run around a digit found there measured: a small part of the cost of parsing the text.
 */
export function hasLongDigitRun(text: string): boolean {
  const n = text.length;
  for (let i = 15; i < n; i += 16) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) continue;
    let start = i;
    while (start > 0) {
      const d = text.charCodeAt(start - 1);
      if (d < 0x30 || d > 0x39) break;
      start--;
    }
    let end = i + 1;
    while (end < n) {
      const d = text.charCodeAt(end);
      if (d < 0x30 || d > 0x39) break;
      end++;
    }
    if (end - start >= 16) return true;
  }
  return false;
}

/** JSON.parse's reviver that reads an integer literal beyond ±2^53 as a BigInt (the literal's exact digits). */
export function bigIntegerReviver(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || Number.isSafeInteger(value)) return value;
  const source = context?.source;
  return source !== undefined && INTEGER_LITERAL.test(source) ? BigInt(source) : value;
}

/** JSON.parse, with integers beyond ±2^53 read exactly as BigInts. Text without a long digit run takes the plain parse. */
export function parseJson(text: string): unknown {
  if (!hasLongDigitRun(text)) return JSON.parse(text);
  return JSON.parse(text, bigIntegerReviver as (this: unknown, key: string, value: unknown) => unknown);
}

/** A whole number as the hub holds it: a number within ±2^53, a bigint beyond. */
export function integerValue(n: bigint): number | bigint {
  return n >= -MAX_SAFE && n <= MAX_SAFE ? Number(n) : n;
}

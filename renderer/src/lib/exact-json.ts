// The hub's answers with integers of any size kept exact (the entity model's integers are unlimited; hash128 gives
// 128-bit ones): an integer literal beyond ±2^53 is read as a BigInt (the reviver sees the literal's source text),
// and JSON.stringify writes a BigInt back as its digits (JSON.rawJSON), so that every view showing a value as JSON
// shows the digits the hub sent. The hub does the same (hub-core/base/exact-json.ts).

interface JsonWithRaw {
  rawJSON?: (text: string) => unknown;
}

const INTEGER_LITERAL = /^-?\d+$/;
const LONG_DIGIT_RUN = /\d{16}/;

const bigIntPrototype = BigInt.prototype as unknown as { toJSON?: (this: bigint) => unknown };
const raw = (JSON as unknown as JsonWithRaw).rawJSON;
if (bigIntPrototype.toJSON === undefined) {
  Object.defineProperty(bigIntPrototype, 'toJSON', {
    value(this: bigint): unknown {
      return raw ? raw(this.toString()) : this.toString();
    },
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

function reviver(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || Number.isSafeInteger(value)) return value;
  const source = context?.source;
  return source !== undefined && INTEGER_LITERAL.test(source) ? BigInt(source) : value;
}

/** JSON.parse, with integers beyond ±2^53 read exactly (only text with a run of 16 digits can hold one). */
export function parseExactJson(text: string): unknown {
  return LONG_DIGIT_RUN.test(text) ? JSON.parse(text, reviver as (this: unknown, key: string, value: unknown) => unknown) : JSON.parse(text);
}

// Configuration JSON that keeps float literals with a zero fraction inside transforms.
//
// DTL tells a float from an integer (["is-float", 1.0] is true, ["is-float", 1] false), but JSON.parse reads 1.0 as
// the integer 1. Configuration text is therefore parsed with the literal's source text at hand: inside a `transform`,
// a number written with a fraction or an exponent whose value is whole (1.0, 2.50e1) becomes `JSON.rawJSON(text)`.
// JSON.stringify writes such a value back exactly as it was written, so the configuration store keeps "1.0", the API
// gives "1.0" back, and the DTL compiler reads it as that number with its float-ness (see `floatLiteralText`).
// Everywhere else (pump settings, sources, sinks) numbers stay plain numbers.
// Integers beyond ±2^53 are read exactly, as BigInts, everywhere (exact-json.ts): embedded entities and DTL literals.
import { bigIntegerReviver, hasLongDigitRun, parseJson } from './exact-json.js';
import { withoutBom } from './text-file.js';

/** A raw JSON value (Node's JSON.rawJSON): a number literal kept as written. */
interface RawJson {
  readonly rawJSON: string;
}

interface JsonWithRaw {
  rawJSON(text: string): RawJson;
  isRawJSON(value: unknown): value is RawJson;
}

const RAW = JSON as unknown as Partial<JsonWithRaw>;
const SUPPORTED = typeof RAW.rawJSON === 'function' && typeof RAW.isRawJSON === 'function';

/** A whole number written as a float somewhere in the text (1.0, 3.00, 1e3): only then is the slower parse needed. */
const FLOAT_WHOLE = /\d\.0+(?![0-9])|\d[eE][+-]?\d/;

/** The text of a float literal with a zero fraction kept in configuration, or undefined for any other value. */
export function floatLiteralText(value: unknown): string | undefined {
  return SUPPORTED && (RAW as JsonWithRaw).isRawJSON(value) ? (value as RawJson).rawJSON : undefined;
}

/** Parse configuration text (an entity or a list), keeping the float literals of transforms (see above). */
export function parseConfigText(text: string): unknown {
  text = withoutBom(text);
  if (!SUPPORTED || !FLOAT_WHOLE.test(text)) return parseJson(text);
  const raw = RAW as JsonWithRaw;
  const big = hasLongDigitRun(text);
  const reviver = (key: string, value: unknown, context?: { source?: string }): unknown => {
    const source = context?.source;
    if (typeof value === 'number' && Number.isInteger(value) && source !== undefined && /[.eE]/.test(source)) return raw.rawJSON(source);
    return big ? bigIntegerReviver(key, value, context) : value;
  };
  const parsed: unknown = JSON.parse(text, reviver as (this: unknown, key: string, value: unknown) => unknown);
  return keepInTransforms(parsed, false);
}

/** Raw numbers stay only inside a `transform` value; elsewhere they become numbers again. */
function keepInTransforms(value: unknown, inTransform: boolean): unknown {
  const text = floatLiteralText(value);
  if (text !== undefined) return inTransform ? value : Number(text);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = keepInTransforms(value[i], inTransform);
    return value;
  }
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    for (const k of Object.keys(obj)) obj[k] = keepInTransforms(obj[k], inTransform || k === 'transform');
    return obj;
  }
  return value;
}

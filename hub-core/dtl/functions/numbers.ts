// Numbers and casts: integer, decimal, float, boolean, hex, is-integer, is-decimal, is-float, is-boolean.
//
// The casts convert each non-null value; a value that cannot be converted is left out, or replaced by DEFAULT
// (evaluated with _ bound to it). Strings are read with surrounding whitespace ignored (except by boolean); typed
// values other than decimals (URIs, datetimes, ...) and booleans are never numbers.

import type { Expr } from '../context.js';
import { floatLiteralText } from '../../base/index.js';
import { expression, one, optional, type FunctionExample, type FunctionSpec } from '../registry.js';
import { Decimal, firstOf, isPlainString, kindOf, mapValues, typedOf, type DtlValue, type ValueKind } from '../values.js';
import { withCurrent } from './util.js';
import { integerValue } from '../integers.js';

const FAMILY = 'numbers';

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;
const HEX_TEXT = /^\s*0[xX]([0-9a-fA-F]+)\s*$/;
const FLOAT_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The integer of "0x..." text read as two's complement over its digits ("0x00ff" is 255, "0xff" is -1). */
function hexTextValue(digits: string): bigint {
  const v = BigInt('0x' + digits);
  const bits = BigInt(digits.length * 4);
  return v >= 1n << (bits - 1n) ? v - (1n << bits) : v;
}

/** The integer of a value as a bigint: integer numbers, and strings of decimal digits or "0x" hex digits. */
function exactInteger(v: DtlValue): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : undefined;
  if (!isPlainString(v)) return undefined;
  if (INTEGER_TEXT.test(v)) return BigInt(v.trim());
  const hex = HEX_TEXT.exec(v);
  return hex === null ? undefined : hexTextValue(hex[1] as string);
}

/**
 * A value as an integer of any size (exactly: a bigint beyond ±2^53): numbers and decimals truncated toward zero,
 * strings of digits (or "0x" hex) parsed; else undefined.
 */
export function toInteger(v: DtlValue): number | bigint | undefined {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return undefined;
    const n = Math.trunc(v);
    return Number.isSafeInteger(n) ? n : BigInt(n);
  }
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string') {
    if (INTEGER_TEXT.test(v)) return integerValue(BigInt(v.trim()));
    const hex = HEX_TEXT.exec(v);
    if (hex !== null) return integerValue(hexTextValue(hex[1] as string));
  }
  const t = typedOf(v);
  return t instanceof Decimal ? integerValue(t.truncate()) : undefined;
}

/** A value as a decimal: numbers by their shortest text (2.2 is 2.2), decimal text parsed; else undefined. */
export function toDecimal(v: DtlValue): DtlValue | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? Decimal.fromNumber(v) : undefined;
  if (typeof v === 'bigint') return Decimal.fromBigInt(v);
  if (isPlainString(v)) return Decimal.parse(v.trim());
  return typedOf(v) instanceof Decimal ? v : undefined;
}

/** A value as a float: numbers themselves, decimals rounded to the nearest float, number text parsed; else undefined. */
export function toFloat(v: DtlValue): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'bigint') return Number(v);
  if (isPlainString(v)) {
    const text = v.trim();
    return FLOAT_TEXT.test(text) ? Number(text) : undefined;
  }
  const t = typedOf(v);
  if (!(t instanceof Decimal)) return undefined;
  const n = t.toNumber();
  return Number.isFinite(n) ? n : undefined;
}

/** A value as a boolean: booleans themselves, "true"/"false" in any case; else undefined. */
export function toBoolean(v: DtlValue): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (!isPlainString(v)) return undefined;
  const lower = v.toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : undefined;
}

/** Two's complement hex text with whole bytes, as few as hold the sign: 1 is "0x01", 255 "0x00ff", -1 "0xff". */
export function hexText(n: bigint): string {
  let bytes = 1;
  while (n < -(1n << BigInt(bytes * 8 - 1)) || n >= 1n << BigInt(bytes * 8 - 1)) bytes++;
  const v = n < 0n ? (1n << BigInt(bytes * 8)) + n : n;
  return '0x' + v.toString(16).padStart(bytes * 2, '0');
}

function cast(name: string, description: string, convert: (v: DtlValue) => DtlValue | undefined, examples: FunctionExample[]): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [optional('DEFAULT', 'default'), one('VALUES', 'value')],
    description,
    examples,
    json: name === 'decimal' ? undefined : 'args',
    compile(b, cc) {
      const defArg = b.opt('DEFAULT');
      const def: Expr | undefined = defArg === undefined ? undefined : cc.expr(defArg);
      const values = cc.expr(b.one('VALUES'));
      if (def === undefined) return (ctx) => mapValues(values(ctx), convert);
      return (ctx) => mapValues(values(ctx), (x) => (x === null ? undefined : (convert(x) ?? withCurrent(ctx, x, def))));
    },
  });
}

/**
 * The first value of a literal argument written as a float with a zero fraction (1.0, or ["list", 1.0, ...]): its
 * float-ness is known only from the configuration text (config-json.ts), the value itself is the number.
 */
function literalFloatFirst(node: unknown): boolean {
  if (floatLiteralText(node) !== undefined) return true;
  return Array.isArray(node) && node[0] === 'list' && node.length > 1 && floatLiteralText(node[1]) !== undefined;
}

function isKind(name: string, kind: ValueKind, description: string, examples: FunctionExample[]): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description,
    examples,
    json: 'yes',
    compile(b, cc) {
      const arg = b.one('VALUES');
      const values = cc.expr(arg);
      if (literalFloatFirst(arg.node)) {
        const answer = kind === 'float';
        return () => answer;
      }
      return (ctx) => kindOf(firstOf(values(ctx))) === kind;
    },
  });
}

export const numberFunctions: FunctionSpec[] = [
  cast('integer', 'Each value as an integer; values that cannot be converted are left out, or replaced by DEFAULT (with _ bound to them).', toInteger, [
    { expression: ['integer', '1'], result: 1 },
    { expression: ['integer', ['list', '1', '~rhttp://www.example.org/', 124.4, 12345]], result: [1, 124, 12345] },
    { expression: ['integer', ['integer', 0], ['list', '1', '~rhttp://www.example.org/', '10^2', 12345]], result: [1, 0, 0, 12345] },
    {
      expression: ['integer', ['string', '_.'], ['list', '1', '~rhttp://www.example.org/', '10^2', 12345]],
      result: [1, 'http://www.example.org/', '10^2', 12345],
    },
    { expression: ['integer', '0xff'], result: -1 },
  ]),
  cast('decimal', 'Each value as an exact decimal; values that cannot be converted are left out, or replaced by DEFAULT (with _ bound to them).', toDecimal, [
    { expression: ['decimal', '1.0'], result: '~f1.0' },
    { expression: ['decimal', ['list', '1.0', '~rhttp://www.example.org/', 2.2, 'one']], result: ['~f1.0', '~f2.2'] },
    { expression: ['decimal', ['string', 'n/a'], ['list', '1.0', 2.5, '~rhttp://www.example.org/']], result: ['~f1.0', '~f2.5', 'n/a'] },
  ]),
  cast('float', 'Each value as a float; values that cannot be converted are left out, or replaced by DEFAULT (with _ bound to them).', toFloat, [
    { expression: ['float', '1.5'], result: 1.5 },
    { expression: ['float', ['list', '1.5', '~rhttp://www.example.org/', 2.2, 'one']], result: [1.5, 2.2] },
    { expression: ['float', ['boolean', false], ['list', '~f124.4', 'FALSE']], result: [124.4, false] },
  ]),
  cast('boolean', 'Each value as a boolean ("true"/"false" in any case); others are left out, or replaced by DEFAULT (with _ bound to them).', toBoolean, [
    { expression: ['boolean', 'false'], result: false },
    { expression: ['boolean', ['list', 'true', '~rhttp://www.example.org/', 'True', false, 1234]], result: [true, true, false] },
    { expression: ['boolean', ['string', 'n/a'], ['list', 'true', '~rhttp://www.example.org/', '124.4']], result: [true, 'n/a', 'n/a'] },
  ]),
  expression({
    name: 'hex',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'Each integer (or integer text) as two\'s complement hex text in whole bytes ("0x00ff"); other values are left out.',
    examples: [
      { expression: ['hex', 255], result: '0x00ff' },
      { expression: ['hex', -1], result: '0xff' },
      { expression: ['hex', ['list', 1, '~rhttp://www.example.org/', 124.4, 12345]], result: ['0x01', '0x3039'] },
    ],
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) =>
        mapValues(values(ctx), (x) => {
          const n = exactInteger(x);
          return n === undefined ? undefined : hexText(n);
        });
    },
  }),
  isKind('is-integer', 'integer', 'True when the value (or the first value of a list) is an integer number.', [
    { expression: ['is-integer', 1], result: true },
    { expression: ['is-integer', ['list', '1', 2]], result: false },
  ]),
  isKind('is-decimal', 'decimal', 'True when the value (or the first value of a list) is a decimal.', [
    { expression: ['is-decimal', ['decimal', '1.23']], result: true },
    { expression: ['is-decimal', 1.5], result: false },
  ]),
  isKind('is-float', 'float', 'True when the value (or the first value of a list) is a number with a fraction.', [
    { expression: ['is-float', 1.5], result: true },
    { expression: ['is-float', ['decimal', '1.23']], result: false },
  ]),
  isKind('is-boolean', 'boolean', 'True when the value (or the first value of a list) is true or false.', [
    { expression: ['is-boolean', false], result: true },
    { expression: ['is-boolean', 'True'], result: false },
  ]),
];

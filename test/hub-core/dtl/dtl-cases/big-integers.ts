// Integers beyond ±2^53 in DTL. hub/documentation/data-management/entity-data-model.rst: "Integer: An integer value.
// The range of this data type is unlimited"; its "Mixed type ordering" puts Integer, Float and Decimal under one
// bullet ("compatible and internally orderable", sorted together by value). hub/dtl/dtl-functions-math.rst gives the
// operators' meaning (VALUE1 + VALUE2, ...); `/` gives a float (["/", 10, 20] is 0.5 there), `%` the remainder.
// hub/dtl/dtl-functions-numbers.rst: `integer` translates values to integers, `is-integer` is true for an integer.
// The expressions are written as in a pipe's configuration (JSON text, read as the hub reads it), so the literals
// beyond ±2^53 are read exactly; the results were worked out by hand:
//   2^53 - 1 = 9007199254740991, + 2 = 9007199254740993;  2^32 * 2^32 = 2^64 = 18446744073709551616;
//   (2^64 + 1) % 10 = 7 (its last digit);  2^64 / 4 = 2^62 = 4611686018427387904 (a float, exact: a power of two);
//   12345678901234567890123 rounded to -3 digits = 12345678901234567890000;  2^64 - 1 as two's complement needs nine
//   bytes: 0x00ffffffffffffffff;  1.5e22 = 15000000000000000000000 > 12345678901234567890123.
import type { JsonValue } from '../../../../hub-core/base/index.js';
import { parseConfigText } from '../../../../hub-core/base/index.js';
import type { ExpressionTable } from './types.js';

/** An expression as written in a pipe's transform. */
const written = (text: string): JsonValue => (parseConfigText(`{"transform": ${text}}`) as { transform: JsonValue }).transform;

const BIG = 12345678901234567890123n;

export const BIG_INTEGERS: ExpressionTable = {
  '+': [
    { expr: written('["+", 9007199254740991, 2]'), result: 9007199254740993n },
    { expr: written('["+", 12345678901234567890123, -12345678901234567890123]'), result: 0 },
    { expr: written('["+", 12345678901234567890123, 0.5]'), result: 1.2345678901234568e22 },
    { expr: written('["+", 12345678901234567890123, ["decimal", "0.5"]]'), result: '~f12345678901234567890123.5' },
  ],
  '-': [{ expr: written('["-", 9007199254740993, 9007199254740992]'), result: 1 }],
  '*': [{ expr: written('["*", 4294967296, 4294967296]'), result: 18446744073709551616n }],
  '/': [
    { expr: written('["/", 18446744073709551616, 4]'), result: 4611686018427387904 },
    { expr: written('["/", 18446744073709551616, 0]'), result: null },
  ],
  '%': [
    { expr: written('["%", 18446744073709551617, 10]'), result: 7 },
    { expr: written('["%", -18446744073709551617, 10]'), result: 3 },
  ],
  '^': [
    { expr: written('["^", 2, 64]'), result: 18446744073709551616n },
    { expr: written('["^", 2, -1]'), result: 0.5 },
  ],
  plus: [{ expr: written('["plus", 1, ["list", 9007199254740992, 12345678901234567890123, "x"]]'), result: [9007199254740993n, 12345678901234567890124n] }],
  minus: [{ expr: written('["minus", 12345678901234567890123, 12345678901234567890123]'), result: 0 }],
  multiply: [{ expr: written('["multiply", -1, 12345678901234567890123]'), result: -BIG }],
  divide: [{ expr: written('["divide", 4, 18446744073709551616]'), result: 4611686018427387904 }],
  mod: [{ expr: written('["mod", 10, 18446744073709551617]'), result: 7 }],
  abs: [{ expr: written('["abs", -12345678901234567890123]'), result: BIG }],
  round: [{ expr: written('["round", -3, 12345678901234567890123]'), result: 12345678901234567890000n }],
  sum: [{ expr: written('["sum", ["list", 9007199254740991, 9007199254740991, 1]]'), result: 18014398509481983n }],
  integer: [
    { expr: written('["integer", "12345678901234567890123"]'), result: BIG },
    { expr: written('["integer", ["decimal", "12345678901234567890123.9"]]'), result: BIG },
    { expr: written('["integer", 12345678901234567890123]'), result: BIG },
  ],
  'is-integer': [
    { expr: written('["is-integer", 12345678901234567890123]'), result: true },
    { expr: written('["is-integer", ["hash128", "murmur3", "abc"]]'), result: true },
  ],
  'is-float': [{ expr: written('["is-float", 12345678901234567890123]'), result: false }],
  'is-decimal': [{ expr: written('["is-decimal", ["hash128", "murmur3", "abc"]]'), result: false }],
  decimal: [{ expr: written('["decimal", 12345678901234567890123]'), result: '~f12345678901234567890123' }],
  float: [{ expr: written('["float", 18446744073709551616]'), result: 2 ** 64 }],
  hex: [{ expr: written('["hex", 18446744073709551615]'), result: '0x00ffffffffffffffff' }],
  string: [{ expr: written('["string", 12345678901234567890123]'), result: '12345678901234567890123' }],
  json: [
    { expr: written('["json", 12345678901234567890123]'), result: '12345678901234567890123' },
    { expr: written('["json", {"h": 12345678901234567890123}]'), result: '{"h": 12345678901234567890123}' },
  ],
  'json-parse': [{ expr: written('["json-parse", "[12345678901234567890123]"]'), result: [BIG] }],
  eq: [
    { expr: written('["eq", 12345678901234567890123, 12345678901234567890123]'), result: true },
    { expr: written('["eq", 12345678901234567890123, 12345678901234567890124]'), result: false },
    { expr: written('["eq", 12345678901234567890123, ["decimal", "12345678901234567890123.0"]]'), result: true },
    { expr: written('["eq", 1, ["integer", "0x01"]]'), result: true },
  ],
  gt: [
    { expr: written('["gt", 12345678901234567890124, 12345678901234567890123]'), result: true },
    { expr: written('["gt", 12345678901234567890123, 1.5e22]'), result: false },
    { expr: written('["gt", 12345678901234567890123, "a"]'), result: false },
  ],
  lt: [{ expr: written('["lt", -12345678901234567890123, -9007199254740991]'), result: true }],
  sorted: [
    {
      expr: written('["sorted", ["list", 12345678901234567890123, "a", 1.5, ["decimal", "12345678901234567890122.5"], 1, null]]'),
      result: [null, 1, 1.5, '~f12345678901234567890122.5', BIG, 'a'],
    },
  ],
  max: [{ expr: written('["max", ["list", 1, 12345678901234567890123, 9007199254740991]]'), result: BIG }],
  distinct: [{ expr: written('["distinct", ["list", 12345678901234567890123, 12345678901234567890123, ["decimal", "12345678901234567890123"]]]'), result: [BIG] }],
  in: [{ expr: written('["in", 12345678901234567890123, ["list", 1, 12345678901234567890123]]'), result: true }],
};

// Math: the operators + - * / % ^ (one value each side), their map-style word forms plus minus multiply divide mod
// pow (one operand applied to every value of a list), and abs ceil floor round sqrt sin cos tan.
//
// Numbers: integers and floats are JSON numbers, integers beyond ±2^53 bigints (integers.ts); decimals are `Decimal`
// values (tagged "~f..."). Integer with integer gives an exact integer of any size (except `/`, which always gives a
// float, and a negative power); anything with a float
// gives a float; anything with a decimal gives a decimal, computed exactly (a float operand is taken by its shortest
// text, 0.1 as 0.1). Decimal division, roots and non-integer powers keep 28 significant digits, rounded half to even.
// Booleans, strings and other values are not numbers. A result that is not a finite real number (division by zero,
// the root of a negative number, an overflow) is null.

import type { Ctx, Expr } from '../context.js';
import { expression, valuesFunction, one, optional, type FunctionExample, type FunctionSpec } from '../registry.js';
import { Decimal, firstOf, mapValues, typedOf, type DtlValue, type RoundingMode } from '../values.js';
import { flooredMod, integerOf, integerPower, integerValue } from '../integers.js';

const FAMILY = 'math';

type Num = number | bigint | Decimal;

/** The number a value stands for (a JSON number, a big integer or a decimal), else undefined. */
function numberOf(v: DtlValue | undefined): Num | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string' || typeof v === 'object') {
    const t = typedOf(v ?? null);
    return t instanceof Decimal ? t : undefined;
  }
  return undefined;
}

function asDecimal(n: Num): Decimal {
  return typeof n === 'number' ? Decimal.fromNumber(n) : typeof n === 'bigint' ? Decimal.fromBigInt(n) : n;
}

/** A float result, or undefined when it is not a finite number. */
function finite(n: number): number | undefined {
  return Number.isFinite(n) ? n : undefined;
}

type BinaryOp = (a: Num, b: Num) => Num | undefined;

/**
 * An operation on numbers of any kind: with a decimal, exactly on decimals; on two integers, exactly on integers (a
 * result beyond ±2^53 is a big integer); otherwise on floats. `small` is the plain number operation, tried first on
 * two numbers (its result stands unless both are integers and it is not an integer within ±2^53: 2^53 + 1 is exact).
 */
function numericOp(
  small: (a: number, b: number) => number | undefined,
  integers: (a: bigint, b: bigint) => Num | undefined,
  decimals: (a: Decimal, b: Decimal) => Decimal | undefined,
): BinaryOp {
  return (a, b) => {
    if (typeof a === 'number' && typeof b === 'number') {
      const r = small(a, b);
      if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || (r !== undefined && Number.isSafeInteger(r))) return r;
    }
    if (a instanceof Decimal || b instanceof Decimal) return decimals(asDecimal(a), asDecimal(b));
    const x = integerOf(a);
    const y = integerOf(b);
    if (x !== undefined && y !== undefined) return integers(x, y);
    return small(Number(a), Number(b));
  };
}

const add = numericOp((a, b) => finite(a + b), (a, b) => integerValue(a + b), (a, b) => a.add(b));

const subtract = numericOp((a, b) => finite(a - b), (a, b) => integerValue(a - b), (a, b) => a.subtract(b));

const multiply = numericOp((a, b) => finite(a * b), (a, b) => integerValue(a * b), (a, b) => a.multiply(b));

/** Division of integers gives a float (as with numbers), taken from the exact quotient. */
const divide = numericOp(
  (a, b) => (b === 0 ? undefined : finite(a / b)),
  (a, b) => {
    if (b === 0n) return undefined;
    const x = Number(a);
    const y = Number(b);
    // Within ±2^53 both convert exactly and the float division rounds once; beyond, the exact quotient is rounded.
    return finite(Number.isSafeInteger(x) && Number.isSafeInteger(y) ? x / y : (asDecimal(a).divide(asDecimal(b), 20)?.toNumber() ?? NaN));
  },
  (a, b) => a.divide(b),
);

/** The remainder with the sign of the divisor (floored division), as for integers in most data languages. */
const modulo = numericOp(
  (a, b) => {
    if (b === 0) return undefined;
    let r = a % b;
    if (r !== 0 && r < 0 !== b < 0) r += b;
    return finite(r === 0 ? 0 : r);
  },
  (a, b) => {
    const r = flooredMod(a, b);
    return r === undefined ? undefined : integerValue(r);
  },
  (a, b) => a.mod(b),
);

/** An integer to a non-negative integer power is an exact integer (while it stays of a size one can hold). */
const power = numericOp(
  (a, b) => (a === 0 && b < 0 ? undefined : finite(a ** b)),
  (a, b) => {
    const r = integerPower(a, b);
    if (r !== undefined) return integerValue(r);
    return a === 0n && b < 0n ? undefined : finite(Number(a) ** Number(b));
  },
  (a, b) => a.pow(b),
);

// ---------------------------------------------------------------------------------------------------------------------
// Operators: one value on each side (the first of a list); null when either side is not a number

function operator(name: string, op: BinaryOp, left: string, right: string, description: string, examples: FunctionExample[]): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [one(left, 'value'), one(right, 'value')],
    description,
    examples,
    compile(b, cc) {
      const x = cc.expr(b.one(left));
      const y = cc.expr(b.one(right));
      return (ctx) => {
        const a = numberOf(firstOf(x(ctx)));
        if (a === undefined) return null;
        const c = numberOf(firstOf(y(ctx)));
        if (c === undefined) return null;
        return op(a, c) ?? null;
      };
    },
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// Word forms: the first argument (the first of a list) applied to each number of VALUES; other values are left out

function mapped(name: string, op: BinaryOp, first: string, description: string, examples: FunctionExample[]): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [one(first, 'value'), one('VALUES', 'value')],
    description,
    examples,
    compile(b, cc) {
      const operand = cc.expr(b.one(first));
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => {
        const p = numberOf(firstOf(operand(ctx)));
        if (p === undefined) return null;
        if (isZero(p) && (op === divide || op === modulo)) return null;
        return mapValues(values(ctx), (x) => {
          const n = numberOf(x);
          return n === undefined ? undefined : op(n, p);
        });
      };
    },
  });
}

function isZero(n: Num): boolean {
  return typeof n === 'number' ? n === 0 : typeof n === 'bigint' ? n === 0n : n.isZero();
}

// ---------------------------------------------------------------------------------------------------------------------
// One-number functions, mapped over VALUES

function unary(name: string, fn: (n: Num) => Num | undefined, description: string, examples: FunctionExample[]): FunctionSpec {
  return valuesFunction({
    name,
    family: FAMILY,
    description,
    examples,
    make: (values) => (ctx) =>
      mapValues(values(ctx), (x) => {
        const n = numberOf(x);
        return n === undefined ? undefined : fn(n);
      }),
  });
}

function floatFunction(fn: (x: number) => number): (n: Num) => number | undefined {
  return (n) => finite(fn(n instanceof Decimal ? n.toNumber() : Number(n)));
}

/** Largest |DIGITS| accepted by ceil, floor and round. */
const MAX_DIGITS = 1000;

/** Round one number to `digits` fraction digits: integers stay integers, DIGITS 0 gives an integer. */
function roundNumber(n: Num, digits: number, mode: RoundingMode): Num | undefined {
  if (typeof n === 'bigint') return digits >= 0 ? n : integerValue(Decimal.fromBigInt(n).round(digits, mode).truncate());
  if (typeof n === 'number') {
    if (Number.isSafeInteger(n) && digits >= 0) return n;
    const r = Decimal.fromNumber(n).round(digits, mode);
    return digits === 0 || Number.isSafeInteger(n) ? integerValue(r.truncate()) : r.toNumber();
  }
  const r = n.round(digits, mode);
  return digits === 0 ? integerValue(r.truncate()) : r;
}

function rounding(name: string, mode: RoundingMode, description: string, examples: FunctionExample[]): FunctionSpec {
  return expression({
    name,
    family: FAMILY,
    params: [optional('DIGITS', 'integer'), one('VALUES', 'value')],
    description,
    examples,
    compile(b, cc) {
      const digitsArg = b.opt('DIGITS');
      const digitsExpr: Expr | undefined = digitsArg === undefined ? undefined : cc.expr(digitsArg);
      const values = cc.expr(b.one('VALUES'));
      const digitsOf = (ctx: Ctx): number | undefined => {
        if (digitsExpr === undefined) return 0;
        const d = numberOf(firstOf(digitsExpr(ctx)));
        if (d === undefined) return undefined;
        const i = typeof d === 'number' ? d : typeof d === 'bigint' ? NaN : d.isInteger() ? d.toNumber() : NaN;
        return Number.isInteger(i) && Math.abs(i) <= MAX_DIGITS ? i : undefined;
      };
      return (ctx) => {
        const digits = digitsOf(ctx);
        if (digits === undefined) return null;
        return mapValues(values(ctx), (x) => {
          const n = numberOf(x);
          return n === undefined ? undefined : roundNumber(n, digits, mode);
        });
      };
    },
  });
}

const DIGITS_NOTE = 'DIGITS (default 0) may be negative; DIGITS 0 gives integers, other values keep their type.';

export const mathFunctions: FunctionSpec[] = [
  operator('+', add, 'VALUE1', 'VALUE2', 'VALUE1 plus VALUE2 (the first value of a list); null unless both are numbers.', [
    { expression: ['+', 10, 3], result: 13 },
    { expression: ['+', 10, ['list', 10, 20, 30]], result: 20 },
    { expression: ['+', '~f0.1', '~f0.2'], result: '~f0.3' },
  ]),
  operator('-', subtract, 'VALUE1', 'VALUE2', 'VALUE1 minus VALUE2 (the first value of a list); null unless both are numbers.', [
    { expression: ['-', 1, ['list', 1, 2, 3]], result: 0 },
    { expression: ['-', 10, 12], result: -2 },
  ]),
  operator('*', multiply, 'VALUE', 'MULTIPLIER', 'VALUE times MULTIPLIER (the first value of a list); null unless both are numbers.', [
    { expression: ['*', 2, ['list', 2, 4, 6]], result: 4 },
    { expression: ['*', ['list', 2.3, 14], 2], result: 4.6 },
  ]),
  operator('/', divide, 'DIVIDEND', 'DIVISOR', 'DIVIDEND divided by DIVISOR (the first value of a list); null for division by zero or non-numbers.', [
    { expression: ['/', 10, 20], result: 0.5 },
    { expression: ['/', ['list', 3, 8], ['list', -2, 6]], result: -1.5 },
    { expression: ['/', 5, 0], result: null },
    { expression: ['/', '~f1', 3], result: '~f0.3333333333333333333333333333' },
  ]),
  operator('%', modulo, 'DIVIDEND', 'DIVISOR', 'The remainder of DIVIDEND divided by DIVISOR, with the sign of DIVISOR; null for zero or non-numbers.', [
    { expression: ['%', 5, 3], result: 2 },
    { expression: ['%', ['list', 5, 8, 9], ['list', 3, -2.3]], result: 2 },
  ]),
  operator('^', power, 'VALUE', 'EXPONENT', 'VALUE raised to the power EXPONENT (the first value of a list); null when that is not a real number.', [
    { expression: ['^', 5, 2], result: 25 },
    { expression: ['^', ['list', 2, 8, 9], 3], result: 8 },
  ]),

  mapped('plus', add, 'INCREMENT', 'Each number of VALUES plus INCREMENT; other values are left out.', [
    { expression: ['plus', 10, ['list', 1, 2, 3]], result: [11, 12, 13] },
    { expression: ['plus', 10, 10], result: 20 },
  ]),
  mapped('minus', subtract, 'DECREMENT', 'Each number of VALUES minus DECREMENT; other values are left out.', [
    { expression: ['minus', 1, ['list', 1, 2, 3]], result: [0, 1, 2] },
    { expression: ['minus', 10, 12], result: 2 },
  ]),
  mapped('multiply', multiply, 'MULTIPLIER', 'Each number of VALUES times MULTIPLIER; other values are left out.', [
    { expression: ['multiply', 2, ['list', 2, 4, 6]], result: [4, 8, 12] },
    { expression: ['multiply', 2.3, 2], result: 4.6 },
  ]),
  mapped('divide', divide, 'DIVISOR', 'Each number of DIVIDENDS divided by DIVISOR; null when DIVISOR is zero or not a number.', [
    { expression: ['divide', 2, ['list', 2, 4, 6]], result: [1, 2, 3] },
    { expression: ['divide', 10, 20], result: 2 },
    { expression: ['divide', ['list', 2, 8], 3], result: 1.5 },
  ]),
  mapped('mod', modulo, 'DIVISOR', 'The remainder of each number of VALUES divided by DIVISOR; null when DIVISOR is zero or not a number.', [
    { expression: ['mod', 2, ['list', 2, 5, 6]], result: [0, 1, 0] },
    { expression: ['mod', 3, 5], result: 2 },
  ]),
  mapped('pow', power, 'EXPONENT', 'Each number of VALUES raised to the power EXPONENT; other values are left out.', [
    { expression: ['pow', 2, ['list', 2, 5, 6]], result: [4, 25, 36] },
    { expression: ['pow', 3, 10], result: 1000 },
  ]),

  unary('abs', (n) => (typeof n === 'number' ? Math.abs(n) : typeof n === 'bigint' ? (n < 0n ? -n : n) : n.abs()), 'The absolute value of each number, of the same type; other values are left out.', [
    { expression: ['abs', ['list', -2, 4, -6]], result: [2, 4, 6] },
    { expression: ['abs', -2.23], result: 2.23 },
    { expression: ['abs', '~f-1.50'], result: '~f1.50' },
  ]),
  rounding('ceil', 'ceil', `Each number rounded up to DIGITS fraction digits. ${DIGITS_NOTE}`, [
    { expression: ['ceil', ['list', 2.2, 4.778, 6]], result: [3, 5, 6] },
    { expression: ['ceil', 1, ['list', 2.2, 4.778, 6]], result: [2.2, 4.8, 6] },
    { expression: ['ceil', 2, '~f2.299'], result: '~f2.30' },
  ]),
  rounding('floor', 'floor', `Each number rounded down to DIGITS fraction digits. ${DIGITS_NOTE}`, [
    { expression: ['floor', ['list', 2.2, 4.778, 6]], result: [2, 4, 6] },
    { expression: ['floor', 1, ['list', 2.2, 4.778, 6]], result: [2.2, 4.7, 6] },
    { expression: ['floor', 2, 2.299], result: 2.29 },
  ]),
  rounding('round', 'half-even', `Each number rounded to the nearest at DIGITS fraction digits, ties to even. ${DIGITS_NOTE}`, [
    { expression: ['round', ['list', 2.2, 3.5, 4.5]], result: [2, 4, 4] },
    { expression: ['round', 1, ['list', 2.2, 4.778, 6]], result: [2.2, 4.8, 6] },
    { expression: ['round', 2, '~f2.299'], result: '~f2.30' },
  ]),
  unary(
    'sqrt',
    (n) => (n instanceof Decimal ? n.sqrt() : n < 0 ? undefined : Math.sqrt(Number(n))),
    'The square root of each number (a decimal for a decimal, else a float); null for a negative number.',
    [
      { expression: ['sqrt', ['list', 4, 9, 16]], result: [2, 3, 4] },
      { expression: ['sqrt', -2], result: null },
    ],
  ),
  unary('sin', floatFunction(Math.sin), 'The sine of each number (in radians), as a float; other values are left out.', [
    { expression: ['sin', 0], result: 0 },
    { expression: ['sin', ['list', 0, 1.5707963267948966]], result: [0, 1] },
  ]),
  unary('cos', floatFunction(Math.cos), 'The cosine of each number (in radians), as a float; other values are left out.', [
    { expression: ['cos', ['list', 0, 3.141592653589793]], result: [1, -1] },
  ]),
  unary('tan', floatFunction(Math.tan), 'The tangent of each number (in radians), as a float; other values are left out.', [
    { expression: ['tan', ['list', 0, 0.7853981633974483]], result: [0, 0.9999999999999999] },
  ]),
];

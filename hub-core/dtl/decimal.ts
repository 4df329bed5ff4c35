// The exact decimal value (`~f`): arithmetic, rounding, powers and roots.

import { Decimal as DecimalJs } from 'decimal.js';
import { TypedValue } from './typed-values.js';

const DECIMAL_TEXT = /^([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$/;
/**
 * The most digits a decimal's exponent may add before or after the point. "1e99999999" would otherwise be a
 * 100-million-digit integer (41 s to build, more for each sum); past this bound the text is not a decimal number.
 */
export const MAX_DECIMAL_EXPONENT = 100_000;

/** An exact decimal number: `mantissa * 10^-scale` (scale >= 0). Trailing zeros are kept, "1.50" stays "1.50". */
export class Decimal extends TypedValue {
  readonly kind = 'decimal';
  constructor(
    readonly mantissa: bigint,
    readonly scale: number,
    raw?: string,
  ) {
    super();
    this.tag = raw;
  }
  /** Parse decimal text ("-1.50", "2", "1e3", ".5"); undefined when it is not a finite decimal number. */
  static parse(text: string): Decimal | undefined {
    const m = DECIMAL_TEXT.exec(text);
    if (m === null) return undefined;
    const int = m[2] ?? '';
    const frac = m[3] ?? m[4] ?? '';
    if (int === '' && frac === '') return undefined;
    let mantissa = BigInt((int || '0') + frac);
    const exponent = m[5] !== undefined ? Number(m[5]) : 0;
    if (Math.abs(exponent) > MAX_DECIMAL_EXPONENT) return undefined;
    let scale = frac.length - exponent;
    if (scale < 0) {
      mantissa *= 10n ** BigInt(-scale);
      scale = 0;
    }
    if (m[1] === '-') mantissa = -mantissa;
    return new Decimal(mantissa, scale);
  }
  static fromNumber(n: number): Decimal {
    if (Number.isInteger(n) && Number.isSafeInteger(n)) return new Decimal(BigInt(n), 0);
    const d = Decimal.parse(String(n));
    if (d === undefined) throw new RangeError(`${n} is not a finite number`);
    return d;
  }
  static fromBigInt(n: bigint): Decimal {
    return new Decimal(n, 0);
  }
  toNumber(): number {
    return Number(this.plain());
  }
  /** Integer part, truncated toward zero. */
  truncate(): bigint {
    return this.mantissa / 10n ** BigInt(this.scale);
  }
  isInteger(): boolean {
    return this.mantissa % 10n ** BigInt(this.scale) === 0n;
  }
  compare(other: Decimal): number {
    const [a, b] = align(this, other);
    return a === b ? 0 : a < b ? -1 : 1;
  }
  add(other: Decimal): Decimal {
    const [a, b, scale] = alignScale(this, other);
    return new Decimal(a + b, scale);
  }
  subtract(other: Decimal): Decimal {
    const [a, b, scale] = alignScale(this, other);
    return new Decimal(a - b, scale);
  }
  multiply(other: Decimal): Decimal {
    return new Decimal(this.mantissa * other.mantissa, this.scale + other.scale);
  }
  negate(): Decimal {
    return new Decimal(-this.mantissa, this.scale);
  }
  isZero(): boolean {
    return this.mantissa === 0n;
  }
  isNegative(): boolean {
    return this.mantissa < 0n;
  }
  abs(): Decimal {
    return this.mantissa < 0n ? this.negate() : this;
  }
  /**
   * The quotient, or undefined when dividing by zero. An exact quotient keeps the scale of `this` minus the divisor's
   * scale where it can (6.0 / 2 is 3.0, 1 / 4 is 0.25); any other is rounded half-to-even to `precision` significant
   * digits (1 / 3 is 0.333...3 with 28 threes).
   */
  divide(other: Decimal, precision = DECIMAL_PRECISION): Decimal | undefined {
    if (other.mantissa === 0n) return undefined;
    if (this.mantissa === 0n) return new Decimal(0n, Math.max(0, this.scale - other.scale));
    const negative = this.mantissa < 0n !== other.mantissa < 0n;
    const num = this.mantissa < 0n ? -this.mantissa : this.mantissa;
    const den = other.mantissa < 0n ? -other.mantissa : other.mantissa;
    const ideal = this.scale - other.scale;
    // Pick the result scale so that the integer quotient has more than `precision` digits.
    let scale = precision + 1 - (digitCount(num) - digitCount(den)) + ideal;
    if (scale < 0) scale = 0;
    const k = scale - ideal; // quotient * 10^scale = num * 10^k / den
    const n = k >= 0 ? num * 10n ** BigInt(k) : num;
    const d = k >= 0 ? den : den * 10n ** BigInt(-k);
    let q = n / d;
    let sticky = n % d !== 0n;
    const extra = digitCount(q) - precision;
    if (extra > 0 && (sticky || q % 10n ** BigInt(extra) !== 0n)) {
      // Inexact: round to `precision` significant digits, half to even.
      const unit = 10n ** BigInt(extra);
      const rem = q % unit;
      q /= unit;
      const twice = rem * 2n;
      if (twice > unit || (twice === unit && (sticky || q % 2n === 1n))) q += 1n;
      sticky = true;
      let s = scale - extra;
      if (s < 0) {
        q *= 10n ** BigInt(-s);
        s = 0;
      }
      return new Decimal(negative ? -q : q, s);
    }
    if (sticky) {
      // Inexact with no more digits than the precision (only when the scale was clamped at zero).
      const twice = (n % d) * 2n;
      if (twice > d || (twice === d && q % 2n === 1n)) q += 1n;
      return new Decimal(negative ? -q : q, scale);
    }
    // Exact: drop trailing zeros down to the ideal scale (never below zero).
    const floor = Math.max(ideal, 0);
    while (scale > floor && q % 10n === 0n) {
      q /= 10n;
      scale--;
    }
    return new Decimal(negative ? -q : q, scale);
  }
  /** The remainder of dividing by `other`, with the sign of `other` (floored division); undefined for zero. */
  mod(other: Decimal): Decimal | undefined {
    if (other.mantissa === 0n) return undefined;
    const [a, b, scale] = alignScale(this, other);
    let r = a % b;
    if (r !== 0n && r < 0n !== b < 0n) r += b;
    return new Decimal(r, scale);
  }
  /**
   * Rounded to `digits` fraction digits (negative: to tens, hundreds, ...). The result has exactly max(digits, 0)
   * fraction digits ("2.2" to 2 digits is "2.20").
   */
  round(digits: number, mode: RoundingMode): Decimal {
    const target = Math.max(digits, 0);
    if (digits >= this.scale) return new Decimal(this.mantissa * 10n ** BigInt(target - this.scale), target);
    const unit = 10n ** BigInt(this.scale - digits);
    let q = this.mantissa / unit;
    const r = this.mantissa % unit;
    if (r !== 0n) {
      if (mode === 'floor') {
        if (r < 0n) q -= 1n;
      } else if (mode === 'ceil') {
        if (r > 0n) q += 1n;
      } else if (mode === 'half-even') {
        const twice = (r < 0n ? -r : r) * 2n;
        if (twice > unit || (twice === unit && q % 2n !== 0n)) q += r < 0n ? -1n : 1n;
      }
    }
    return digits < 0 ? new Decimal(q * 10n ** BigInt(-digits), 0) : new Decimal(q, digits);
  }
  /**
   * `this` raised to an integer power: exact for a positive power of a modest size, otherwise rounded to `precision`
   * significant digits. Undefined for zero raised to a negative power.
   */
  powInteger(n: number, precision = DECIMAL_PRECISION): Decimal | undefined {
    if (n === 0) return new Decimal(1n, 0);
    if (this.mantissa === 0n) return n < 0 ? undefined : new Decimal(0n, 0);
    const size = Math.abs(n) * digitCount(this.mantissa < 0n ? -this.mantissa : this.mantissa);
    if (n > 0 && size <= 10_000) return new Decimal(this.mantissa ** BigInt(n), this.scale * n);
    if (n < 0 && size <= 10_000) return new Decimal(1n, 0).divide(new Decimal(this.mantissa ** BigInt(-n), this.scale * -n), precision);
    return Decimal.fromLibrary(this.toLibrary(precision).pow(n));
  }
  /** `this` raised to any decimal power, to `precision` significant digits; undefined when not a real number. */
  pow(exponent: Decimal, precision = DECIMAL_PRECISION): Decimal | undefined {
    if (exponent.isInteger() && exponent.abs().compare(new Decimal(1_000_000n, 0)) <= 0) {
      return this.powInteger(Number(exponent.truncate()), precision);
    }
    if (this.mantissa < 0n) return undefined;
    if (this.mantissa === 0n) return exponent.mantissa < 0n ? undefined : new Decimal(0n, 0);
    return Decimal.fromLibrary(this.toLibrary(precision).pow(exponent.toLibrary(precision)));
  }
  /** The square root to `precision` significant digits (exact roots are exact); undefined for a negative number. */
  sqrt(precision = DECIMAL_PRECISION): Decimal | undefined {
    if (this.mantissa < 0n) return undefined;
    return Decimal.fromLibrary(this.toLibrary(precision).sqrt());
  }
  private toLibrary(precision: number): DecimalJs {
    return new (libraryContext(precision))(this.plain());
  }
  /** Undefined past the bound of a decimal's exponent too: 1.5^100000000 has 28 digits and an exponent of 17,609,125. */
  private static fromLibrary(d: DecimalJs): Decimal | undefined {
    return d.isFinite() && Math.abs(d.e) <= MAX_DECIMAL_EXPONENT ? Decimal.parse(d.toFixed()) : undefined;
  }
  /** Plain text with all the digits of the scale ("1.50"). */
  plain(): string {
    const neg = this.mantissa < 0n;
    let digits = (neg ? -this.mantissa : this.mantissa).toString();
    if (this.scale > 0) {
      digits = digits.padStart(this.scale + 1, '0');
      digits = digits.slice(0, digits.length - this.scale) + '.' + digits.slice(digits.length - this.scale);
    }
    return (neg ? '-' : '') + digits;
  }
  /** Text without trailing fraction zeros and without "-0": equal numbers give equal text. */
  normalized(): string {
    let m = this.mantissa;
    let s = this.scale;
    while (s > 0 && m % 10n === 0n) {
      m /= 10n;
      s--;
    }
    if (m === 0n) return '0';
    return new Decimal(m, s).plain();
  }
  protected format(): string {
    return '~f' + this.plain();
  }
}

/** Significant digits kept by inexact decimal division, roots and powers (as the usual decimal context does). */
export const DECIMAL_PRECISION = 28;

export type RoundingMode = 'half-even' | 'ceil' | 'floor' | 'trunc';

function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

const libraryContexts = new Map<number, typeof DecimalJs>();

function libraryContext(precision: number): typeof DecimalJs {
  let c = libraryContexts.get(precision);
  if (c === undefined) {
    c = DecimalJs.clone({ precision, rounding: DecimalJs.ROUND_HALF_EVEN, toExpNeg: -9e15, toExpPos: 9e15 });
    libraryContexts.set(precision, c);
  }
  return c;
}

function align(a: Decimal, b: Decimal): [bigint, bigint] {
  const [x, y] = alignScale(a, b);
  return [x, y];
}

function alignScale(a: Decimal, b: Decimal): [bigint, bigint, number] {
  if (a.scale === b.scale) return [a.mantissa, b.mantissa, a.scale];
  if (a.scale < b.scale) return [a.mantissa * 10n ** BigInt(b.scale - a.scale), b.mantissa, b.scale];
  return [a.mantissa, b.mantissa * 10n ** BigInt(a.scale - b.scale), a.scale];
}

// Integers of any size (the entity data model's integers are unlimited: hub/documentation/data-management/
// entity-data-model.rst). A whole number within ±2^53 is a JSON number; beyond it a bigint (base/exact-json.ts reads
// JSON text that way). Arithmetic on two integers is exact and gives an integer of the same kind as any other.

import { integerValue } from '../base/index.js';
import type { DtlValue } from './typed-values.js';

export { integerValue };

/** The integer a value stands for, as a bigint: a bigint, or a number within ±2^53 (larger numbers are floats). */
export function integerOf(v: DtlValue | undefined): bigint | undefined {
  if (typeof v === 'bigint') return v;
  return typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : undefined;
}

/** The remainder with the sign of the divisor (floored division); undefined for a zero divisor. */
export function flooredMod(a: bigint, b: bigint): bigint | undefined {
  if (b === 0n) return undefined;
  const r = a % b;
  return r !== 0n && r < 0n !== b < 0n ? r + b : r;
}

/** Bits of the largest exact power computed; beyond it a power is taken as a float (and overflows to null). */
const MAX_POWER_BITS = 100_000;

/** `a` raised to a non-negative integer power, exactly; undefined when the result would be too large to hold. */
export function integerPower(a: bigint, b: bigint): bigint | undefined {
  if (b < 0n) return undefined;
  const magnitude = a < 0n ? -a : a;
  if (magnitude <= 1n) return b === 0n ? 1n : a === -1n && b % 2n === 1n ? -1n : magnitude === 0n ? 0n : 1n;
  if (BigInt(magnitude.toString(2).length) * b > BigInt(MAX_POWER_BITS)) return undefined;
  return a ** b;
}

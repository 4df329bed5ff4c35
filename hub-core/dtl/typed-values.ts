// The typed (non-JSON) DTL values: namespaced identifiers, datetimes, bytes, UUIDs and URIs (decimals: decimal.ts).

import { Buffer } from 'node:buffer';
import type { JsonPrimitive } from '../base/index.js';

export type TypedKind = 'ni' | 'datetime' | 'decimal' | 'bytes' | 'uuid' | 'uri';

/** Base of the typed (non-JSON) values. Instances are immutable. */
export abstract class TypedValue {
  abstract readonly kind: TypedKind;
  /** The tagged JSON form; for a value read from JSON, the exact text it was read from. */
  protected tag: string | undefined;
  tagged(): string {
    if (this.tag === undefined) this.tag = this.format();
    return this.tag;
  }
  /** The text after the two-character tag. */
  text(): string {
    return this.tagged().slice(2);
  }
  toJSON(): string {
    return this.tagged();
  }
  toString(): string {
    return this.tagged();
  }
  protected abstract format(): string;
}

export type DtlValue = JsonPrimitive | TypedValue | DtlValue[] | DtlDict;
export interface DtlDict {
  [key: string]: DtlValue;
}

// ---------------------------------------------------------------------------------------------------------------------
// The typed values

/** A namespaced identifier, `~:ns:id` (or `~:id` in the global namespace). */
export class Ni extends TypedValue {
  readonly kind = 'ni';
  /** Everything after "~:", i.e. "ns:id". */
  readonly body: string;
  constructor(body: string, raw?: string) {
    super();
    this.body = body;
    this.tag = raw;
  }
  static of(namespace: string | null, id: string): Ni {
    return new Ni(namespace === null ? id : `${namespace}:${id}`);
  }
  /** The namespace, or null for the global namespace. */
  get namespace(): string | null {
    const i = this.body.indexOf(':');
    return i < 0 ? null : this.body.slice(0, i);
  }
  get id(): string {
    const i = this.body.indexOf(':');
    return i < 0 ? this.body : this.body.slice(i + 1);
  }
  protected format(): string {
    return '~:' + this.body;
  }
}

/** A UTC instant with nanosecond precision: `epochMs` (whole milliseconds, floored) plus `nanos` (0..999999). */
export class DateTime extends TypedValue {
  readonly kind = 'datetime';
  constructor(
    readonly epochMs: number,
    readonly nanos = 0,
    /** True for a date value written without a time ("~t2015-12-31"). */
    readonly dateOnly = false,
    raw?: string,
  ) {
    super();
    this.tag = raw;
  }
  static fromEpochNanos(ns: bigint): DateTime {
    const ms = ns >= 0n ? ns / 1_000_000n : -((-ns + 999_999n) / 1_000_000n);
    return new DateTime(Number(ms), Number(ns - ms * 1_000_000n));
  }
  get epochNanos(): bigint {
    return BigInt(this.epochMs) * 1_000_000n + BigInt(this.nanos);
  }
  /** Nanoseconds within the second, 0..999999999. */
  get fraction(): number {
    const msInSecond = ((this.epochMs % 1000) + 1000) % 1000;
    return msInSecond * 1_000_000 + this.nanos;
  }
  compare(other: DateTime): number {
    if (this.epochMs !== other.epochMs) return this.epochMs < other.epochMs ? -1 : 1;
    return this.nanos === other.nanos ? 0 : this.nanos < other.nanos ? -1 : 1;
  }
  /** ISO text without the tag; the fraction has up to nine digits and no trailing zeros. */
  iso(): string {
    const d = new Date(this.epochMs);
    const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
    if (this.dateOnly) return date;
    let frac = '';
    const f = this.fraction;
    if (f !== 0) frac = '.' + pad(f, 9).replace(/0+$/, '');
    return `${date}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}${frac}Z`;
  }
  /** The same instant as a canonical key (always nine fraction digits). */
  canonical(): string {
    const d = new Date(this.epochMs);
    return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(this.fraction, 9)}Z`;
  }
  protected format(): string {
    return '~t' + this.iso();
  }
}

/** Binary data, written as standard base64. */
export class Bytes extends TypedValue {
  readonly kind = 'bytes';
  constructor(
    readonly bytes: Uint8Array,
    raw?: string,
  ) {
    super();
    this.tag = raw;
  }
  base64(): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('base64');
  }
  compare(other: Bytes): number {
    return Buffer.compare(this.bytes, other.bytes);
  }
  protected format(): string {
    return '~b' + this.base64();
  }
}

/** A UUID; `hex` is the lower-case canonical text. */
export class Uuid extends TypedValue {
  readonly kind = 'uuid';
  readonly hex: string;
  constructor(hex: string, raw?: string) {
    super();
    this.hex = hex.toLowerCase();
    this.tag = raw;
  }
  protected format(): string {
    return '~u' + this.hex;
  }
}

/** A URI; no escaping is applied to the text. */
export class Uri extends TypedValue {
  readonly kind = 'uri';
  constructor(
    readonly uri: string,
    raw?: string,
  ) {
    super();
    this.tag = raw;
  }
  protected format(): string {
    return '~r' + this.uri;
  }
}

function pad(n: number, width: number): string {
  const s = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? '-' + s : s;
}

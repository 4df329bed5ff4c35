// Transit encoding: typed values to tagged JSON strings (encode) and back (decode).

import type { JsonObject, JsonValue } from '../base/index.js';
import { TypedValue, type DtlDict, type DtlValue } from './typed-values.js';
import { setProperty, typedOf } from './value-kinds.js';

/**
 * Write a value as JSON: typed values become their tagged strings. Containers are copied only when something inside
 * them changes, so plain JSON comes back as the very same object.
 */
export function encode(v: DtlValue): JsonValue {
  if (typeof v !== 'object' || v === null) return v;
  if (v instanceof TypedValue) return v.tagged();
  if (Array.isArray(v)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = v[i] as DtlValue;
      const e = encode(x);
      if (e !== x && out === undefined) out = v.slice(0, i) as JsonValue[];
      if (out !== undefined) out.push(e);
    }
    return out ?? (v as JsonValue[]);
  }
  let out: JsonObject | undefined;
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const x = v[k] as DtlValue;
    const e = encode(x);
    if (e !== x && out === undefined) {
      out = {};
      for (let j = 0; j < i; j++) setProperty(out, keys[j] as string, v[keys[j] as string] as JsonValue);
    }
    if (out !== undefined) setProperty(out, k, e);
  }
  return out ?? (v as JsonObject);
}

/** Read JSON into typed values: every valid tagged string becomes a `TypedValue`. Copies only what changes. */
export function decode(v: JsonValue): DtlValue {
  if (typeof v === 'string') return typedOf(v) ?? v;
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    let out: DtlValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = v[i] as JsonValue;
      const d = decode(x);
      if (d !== x && out === undefined) out = v.slice(0, i);
      if (out !== undefined) out.push(d);
    }
    return out ?? v;
  }
  let out: DtlDict | undefined;
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const x = v[k] as JsonValue;
    const d = decode(x);
    if (d !== x && out === undefined) {
      out = {};
      for (let j = 0; j < i; j++) setProperty(out, keys[j] as string, v[keys[j] as string] as JsonValue);
    }
    if (out !== undefined) setProperty(out, k, d);
  }
  return out ?? v;
}

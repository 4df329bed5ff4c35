// Property accessors for property names known at compile time.
//
// A closure such as `(o) => o[key]` is shared by every call site that creates it, so its inline cache sees all the
// keys and object shapes of the whole transform and soon goes megamorphic. A small function made per call site, with
// the name written into its body as a string literal, keeps a cache of its own and stays fast. The name is embedded
// with JSON.stringify, which always yields a valid, inert JavaScript string literal.

import { getProperty, setProperty, type DtlDict, type DtlValue } from './values.js';

const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));

export type Getter = (o: DtlDict) => DtlValue | undefined;
export type Setter = (o: DtlDict, v: DtlValue) => void;

// Where code generation is not allowed (a content security policy without 'unsafe-eval'), plain closures are used.
let generate = true;

/** Reads an own property (undefined when missing). */
export function propertyGetter(key: string): Getter {
  if (INHERITED.has(key)) return (o) => getProperty(o, key);
  if (generate) {
    try {
      return new Function('o', `return o[${JSON.stringify(key)}];`) as Getter;
    } catch {
      generate = false;
    }
  }
  return (o) => o[key];
}

/** Writes an own property. */
export function propertySetter(key: string): Setter {
  if (key === '__proto__') return (o, v) => setProperty(o, key, v);
  if (generate) {
    try {
      return new Function('o', 'v', `o[${JSON.stringify(key)}] = v;`) as Setter;
    } catch {
      generate = false;
    }
  }
  return (o, v) => {
    o[key] = v;
  };
}

import type { JsonObject } from '../base/index.js';

interface PropertyStats {
  types: Set<string>;
  count: number;
  nested?: Map<string, PropertyStats>;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'string' && v.length > 1 && v[0] === '~') {
    const tag = v[1];
    if (tag === 't') return 'datetime';
    if (tag === 'f') return 'decimal';
    if (tag === ':') return 'nsid';
    if (tag === 'u') return 'uuid';
    if (tag === 'r') return 'uri';
    if (tag === 'b') return 'bytes';
  }
  return typeof v;
}

/** Describe the properties seen in a sample of entities, as a JSON-schema-like object. */
export function sampleSchema(entities: Iterable<JsonObject>, keysOnly: boolean): JsonObject {
  const root = new Map<string, PropertyStats>();
  let total = 0;
  const visit = (obj: JsonObject, into: Map<string, PropertyStats>): void => {
    for (const [k, v] of Object.entries(obj)) {
      let s = into.get(k);
      if (!s) into.set(k, (s = { types: new Set(), count: 0 }));
      s.count++;
      const values = Array.isArray(v) ? v : [v];
      if (Array.isArray(v)) s.types.add('array');
      for (const item of values) {
        s.types.add(typeOf(item));
        if (item !== null && typeof item === 'object' && !Array.isArray(item)) visit(item, (s.nested ??= new Map()));
      }
    }
  };
  for (const e of entities) {
    total++;
    visit(e, root);
  }
  const render = (m: Map<string, PropertyStats>): JsonObject => {
    const props: JsonObject = {};
    for (const k of [...m.keys()].sort()) {
      const s = m.get(k)!;
      const out: JsonObject = { types: [...s.types].sort(), 'sample-count': s.count };
      if (s.nested) out['properties'] = render(s.nested);
      props[k] = out;
    }
    return props;
  };
  if (keysOnly) return { 'sample-size': total, keys: [...root.keys()].sort() };
  return { 'sample-size': total, type: 'object', properties: render(root) };
}

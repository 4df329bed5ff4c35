import { canonicalJson, type JsonValue } from '../base/index.js';
import { badRequest } from '../base/index.js';

/** An index expression `_S.<property>[.<property>...]`, as declared in a dataset sink's `indexes`. */
export interface IndexExpression {
  text: string;
  path: string[];
}

export function parseIndexExpression(text: string): IndexExpression {
  if (typeof text !== 'string' || !text.startsWith('_S.') || text.length <= 3) {
    throw badRequest(`unsupported index expression ${JSON.stringify(text)}`, 'an index is written as "_S.<property>"');
  }
  return { text, path: splitPath(text.slice(3)) };
}

/** Split a dotted path; an element containing a dot is written in single quotes. */
export function splitPath(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === "'") {
      const end = path.indexOf("'", i + 1);
      if (end < 0) throw badRequest(`unterminated quote in path ${JSON.stringify(path)}`);
      out.push(path.slice(i + 1, end));
      i = end + 1;
      if (i < path.length && path[i] === '.') i++;
    } else {
      let end = path.indexOf('.', i);
      if (end < 0) end = path.length;
      out.push(path.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

/** Values of a path in an entity, mapping over lists and flattening; nulls are dropped. */
export function pathValues(entity: unknown, path: readonly string[]): JsonValue[] {
  let current: unknown[] = [entity];
  for (const key of path) {
    const next: unknown[] = [];
    for (const v of current) {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        const child = (v as Record<string, unknown>)[key];
        if (Array.isArray(child)) next.push(...child);
        else if (child !== undefined) next.push(child);
      }
    }
    current = next;
  }
  const flat: JsonValue[] = [];
  const push = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(push);
    else if (v !== null && v !== undefined) flat.push(v as JsonValue);
  };
  current.forEach(push);
  return flat;
}

/** The distinct index keys (canonical JSON) an entity contributes to an index. */
export function indexKeys(entity: unknown, path: readonly string[]): string[] {
  return [...new Set(pathValues(entity, path).map((v) => canonicalJson(v)))];
}

export interface SubsetQuery {
  expression: string;
  key: string;
}

/** Parse a subset expression `["eq", "_S.<property>", <value>]` (either operand order). */
export function parseSubset(subset: unknown): SubsetQuery {
  let expr = subset;
  if (typeof subset === 'string') {
    try {
      expr = JSON.parse(subset);
    } catch {
      throw badRequest('subset is not valid JSON', 'expected a URL-encoded expression like ["eq", "_S.type", "person"]');
    }
  }
  if (!Array.isArray(expr) || expr.length !== 3 || expr[0] !== 'eq') {
    throw badRequest('unsupported subset expression', 'expected ["eq", "_S.<property>", <value>]');
  }
  const [, a, b] = expr as [string, unknown, unknown];
  const isIndex = (v: unknown): v is string => typeof v === 'string' && v.startsWith('_S.');
  if (isIndex(a)) return { expression: a, key: canonicalJson(b) };
  if (isIndex(b)) return { expression: b, key: canonicalJson(a) };
  throw badRequest('unsupported subset expression', 'one side of "eq" must be "_S.<property>"');
}

// Search across the stored configuration: which pipes read, write or join a dataset, call a DTL function, use a
// system, a secret or an environment variable. A pure function over configuration entities; each match says where in
// the entity it is (a path of keys and list positions), so the workbench can open the config at that place.

import { configKind, type ConfigEntity, type ConfigKind } from './config-store.js';
import { isJsonObject, type JsonValue } from '../base/index.js';

export const CONFIG_REFERENCE_KINDS = ['dataset', 'function', 'system', 'secret', 'env'] as const;
export type ConfigReferenceKind = (typeof CONFIG_REFERENCE_KINDS)[number];

/** What the entity does with the thing it names. */
export type ConfigReferenceRole = 'reads' | 'writes' | 'joins' | 'calls' | 'uses';

export type ConfigPath = (string | number)[];

export interface ConfigReference {
  kind: ConfigReferenceKind;
  name: string;
  role: ConfigReferenceRole;
  /** Keys and list positions from the entity's root to the value that names it ([] for an implied default). */
  path: ConfigPath;
  /** The path as text: `source.datasets[1]`, `transform.rules.default[2]`. */
  where: string;
}

export interface ConfigSearchHit {
  kind: ConfigKind;
  id: string;
  matches: ConfigReference[];
}

export interface ConfigSearchQuery {
  /** Matched against the names referred to (case-insensitive); empty: every reference of the asked kinds. */
  q: string;
  /** Only these kinds of reference (default: all). */
  kinds?: readonly ConfigReferenceKind[];
  /** The whole name must equal `q` (still case-insensitive), not just contain it. */
  exact?: boolean;
}

export function pathText(path: ConfigPath): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][\w-]*$/.test(p) ? (out === '' ? p : `.${p}`) : `[${JSON.stringify(p)}]`;
  return out;
}

const VARIABLE = { secret: /\$SECRET\(([^)]*)\)/g, env: /\$ENV\(([^)]*)\)/g } as const;

/** The dataset id of a `datasets` entry ("orders o" names dataset orders with alias o). */
const datasetOfEntry = (entry: string): string => entry.trim().split(/\s+/)[0] ?? '';

/**
 * Every reference one configuration entity makes. `functions` are the DTL function names: a list in a transform
 * whose first element is one of them is a call.
 */
export function configReferences(entity: ConfigEntity, functions: ReadonlySet<string>): ConfigReference[] {
  const out: ConfigReference[] = [];
  const add = (kind: ConfigReferenceKind, name: string, role: ConfigReferenceRole, path: ConfigPath): void => {
    if (name !== '') out.push({ kind, name, role, path, where: pathText(path) });
  };
  const isPipe = configKind(entity) === 'pipe';

  // Variables and secrets may be anywhere (a system's url, a pipe's source, the node metadata).
  const variables = (value: JsonValue, path: ConfigPath): void => {
    if (typeof value === 'string') {
      for (const kind of ['secret', 'env'] as const) for (const m of value.matchAll(VARIABLE[kind])) add(kind, m[1]!.trim(), 'uses', path);
    } else if (Array.isArray(value)) value.forEach((v, i) => variables(v, [...path, i]));
    else if (isJsonObject(value)) for (const [k, v] of Object.entries(value)) variables(v, [...path, k]);
  };

  // The datasets and systems a source or sink (or a conditional's alternatives) names.
  const endpoint = (value: JsonValue, path: ConfigPath, role: 'reads' | 'writes'): void => {
    if (Array.isArray(value)) value.forEach((v, i) => endpoint(v, [...path, i], role));
    if (!isJsonObject(value)) return;
    for (const [k, v] of Object.entries(value)) {
      if (k === 'entities' && role === 'reads') continue; // an embedded source's data, not settings
      if (k === 'dataset' && typeof v === 'string') add('dataset', v, role, [...path, k]);
      else if (k === 'datasets' && Array.isArray(v)) v.forEach((d, i) => typeof d === 'string' && add('dataset', datasetOfEntry(d), role, [...path, k, i]));
      else if (k === 'system' && typeof v === 'string') add('system', v, 'uses', [...path, k]);
      else endpoint(v, [...path, k], role);
    }
  };

  // A transform: DTL calls, joined datasets (hops' and apply-hops' `datasets`, lookup-entity's first argument) and
  // the systems of transforms that call out (http, rest).
  const transform = (value: JsonValue, path: ConfigPath): void => {
    if (Array.isArray(value)) {
      const head = value[0];
      if (typeof head === 'string' && functions.has(head)) {
        add('function', head, 'calls', path);
        if (head === 'lookup-entity' && typeof value[1] === 'string') add('dataset', value[1], 'joins', [...path, 1]);
      }
      value.forEach((v, i) => transform(v, [...path, i]));
      return;
    }
    if (!isJsonObject(value)) return;
    for (const [k, v] of Object.entries(value)) {
      if (k === 'datasets' && Array.isArray(v)) v.forEach((d, i) => typeof d === 'string' && add('dataset', datasetOfEntry(d), 'joins', [...path, k, i]));
      else if (k === 'system' && typeof v === 'string') add('system', v, 'uses', [...path, k]);
      else transform(v, [...path, k]);
    }
  };

  if (isPipe) {
    const source = entity['source'];
    if (source !== undefined) endpoint(source, ['source'], 'reads');
    const t = entity['transform'];
    if (t !== undefined) transform(t, ['transform']);
    const sink = entity['sink'];
    if (sink !== undefined) endpoint(sink, ['sink'], 'writes');
    // A pipe without a sink, or with a dataset sink that names no dataset, writes the dataset of its own id.
    const sinkObject = isJsonObject(sink) ? sink : undefined;
    if (sinkObject === undefined || ((sinkObject['type'] ?? 'dataset') === 'dataset' && sinkObject['dataset'] === undefined)) {
      add('dataset', entity._id, 'writes', sinkObject === undefined ? [] : ['sink']);
    }
  } else {
    // A system's own references are its variables; one system may name another (a url system's proxy, say).
    for (const [k, v] of Object.entries(entity)) if (k === 'system' && typeof v === 'string') add('system', v, 'uses', [k]);
  }
  variables(entity, []);
  return out;
}

const KIND_ORDER: Record<ConfigKind, number> = { pipe: 0, system: 1, metadata: 2 };

/** The entities whose references match the query, pipes first, each with the matching references in config order. */
export function searchConfigs(entities: readonly ConfigEntity[], query: ConfigSearchQuery, functions: ReadonlySet<string>): ConfigSearchHit[] {
  const q = query.q.trim().toLowerCase();
  const kinds = new Set(query.kinds && query.kinds.length > 0 ? query.kinds : CONFIG_REFERENCE_KINDS);
  const matches = (name: string): boolean => q === '' || (query.exact ? name.toLowerCase() === q : name.toLowerCase().includes(q));
  const hits: ConfigSearchHit[] = [];
  for (const entity of entities) {
    const found = configReferences(entity, functions).filter((r) => kinds.has(r.kind) && matches(r.name));
    if (found.length > 0) hits.push({ kind: configKind(entity), id: entity._id, matches: found });
  }
  return hits.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

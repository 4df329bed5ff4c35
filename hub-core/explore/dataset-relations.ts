// Where a property's namespaced identifiers point: `~:ns:id` names entity `ns:id` of the datasets behind namespace
// `ns` (a dataset of that name, and the dataset the pipe of that id writes), and resolves when one of them holds it.

import type { DatasetStore } from '../storage/index.js';
import type { PipeRegistry } from '../pipes/index.js';
import { effectivePipeConfig } from '../pipes/index.js';
import { parseTagged } from '../dtl/index.js';
import { badRequest } from '../base/index.js';
import { parseJson } from '../base/index.js';

export interface NamespaceRelation {
  namespace: string;
  /** Datasets the namespace points into (those that exist). */
  datasets: string[];
  /** Identifiers of this namespace among the property's values. */
  values: number;
  /** How many of them name an entity (not deleted) in one of the datasets. */
  resolved: number;
  /** A few that do not resolve. */
  unresolved: string[];
}

/** The steps of a profile path: keys, and '[]' for "each item of the list". */
function steps(path: string): string[] {
  const out: string[] = [];
  for (const part of path.split('.')) {
    const m = /^(.*?)((?:\[\])*)$/.exec(part)!;
    if (m[1] === '') throw badRequest(`invalid property path ${JSON.stringify(path)}`, 'write nested keys as a.b and list items as a[]');
    out.push(m[1]!);
    for (let i = 0; i < m[2]!.length / 2; i++) out.push('[]');
  }
  return out;
}

function valuesAt(v: unknown, path: readonly string[], i: number, out: unknown[]): void {
  if (i === path.length) {
    out.push(v);
    return;
  }
  const step = path[i]!;
  if (step === '[]') {
    if (Array.isArray(v)) for (const x of v) valuesAt(x, path, i + 1, out);
  } else if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.hasOwn(v, step)) {
    valuesAt((v as Record<string, unknown>)[step], path, i + 1, out);
  }
}

export function namespaceRelations(datasets: DatasetStore, pipes: PipeRegistry, dataset: string, path: string): NamespaceRelation[] {
  const ds = datasets.require(dataset);
  const at = steps(path);
  const targets = new Map<string, string[]>();
  const targetsOf = (ns: string): string[] => {
    let t = targets.get(ns);
    if (t === undefined) {
      const names = new Set<string>();
      if (ns !== '' && datasets.get(ns)) names.add(ns);
      const pipe = ns === '' ? undefined : pipes.get(ns);
      if (pipe) {
        const sink = effectivePipeConfig(pipe).sink;
        if (sink.type === 'dataset' && typeof sink['dataset'] === 'string' && datasets.get(sink['dataset'])) names.add(sink['dataset']);
      }
      t = [...names].sort();
      targets.set(ns, t);
    }
    return t;
  };
  const found = new Map<string, NamespaceRelation>();
  for (const page of ds.readJson({ history: false, deleted: false })) {
    for (const json of page) {
      const values: unknown[] = [];
      valuesAt(parseJson(json), at, 0, values);
      for (const v of values) {
        if (typeof v !== 'string') continue;
        const ni = parseTagged(v);
        if (ni?.kind !== 'ni') continue;
        const body = ni.text();
        const colon = body.indexOf(':');
        const ns = colon > 0 ? body.slice(0, colon) : '';
        let rel = found.get(ns);
        if (!rel) {
          rel = { namespace: ns, datasets: targetsOf(ns), values: 0, resolved: 0, unresolved: [] };
          found.set(ns, rel);
        }
        rel.values++;
        const hit = rel.datasets.some((d) => {
          const e = datasets.get(d)?.get(body);
          return e !== undefined && !e._deleted;
        });
        if (hit) rel.resolved++;
        else if (rel.unresolved.length < 5 && !rel.unresolved.includes(v)) rel.unresolved.push(v);
      }
    }
  }
  return [...found.values()].sort((a, b) => b.values - a.values);
}

// Which pipes feed which: a pipe is upstream of another when its dataset sink writes a dataset the other reads (its
// source) or joins (hops and other `datasets` lists in its transform).
import { pipeDependencies, type EffectivePipe } from './pipe-config.js';
import { isJsonObject, type JsonValue } from '../base/index.js';

function joinedDatasets(value: JsonValue | undefined): string[] {
  const out: string[] = [];
  const walk = (v: JsonValue | undefined): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isJsonObject(v)) {
      const ds = v['datasets'];
      if (Array.isArray(ds)) for (const d of ds) if (typeof d === 'string') out.push(d.trim().split(/\s+/)[0]!);
      Object.values(v).forEach(walk);
    }
  };
  walk(value);
  return out;
}

/** For each pipe, the other pipes upstream of it (directly). */
export function upstreamPipes(pipes: ReadonlyMap<string, EffectivePipe>): Map<string, Set<string>> {
  const writers = new Map<string, string[]>();
  for (const [id, p] of pipes) {
    const ds = p.sink.type === 'dataset' && typeof p.sink['dataset'] === 'string' ? p.sink['dataset'] : undefined;
    if (ds !== undefined) writers.set(ds, [...(writers.get(ds) ?? []), id]);
  }
  const out = new Map<string, Set<string>>();
  for (const [id, p] of pipes) {
    const up = new Set<string>();
    for (const ds of [...pipeDependencies(p), ...joinedDatasets(p['transform'])]) for (const w of writers.get(ds) ?? []) if (w !== id) up.add(w);
    out.set(id, up);
  }
  return out;
}

/** True when `from` is (transitively) upstream of `to`. */
export function isUpstreamOf(upstream: ReadonlyMap<string, ReadonlySet<string>>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [to];
  while (stack.length > 0) {
    const id = stack.pop()!;
    for (const u of upstream.get(id) ?? []) {
      if (u === from) return true;
      if (!seen.has(u)) {
        seen.add(u);
        stack.push(u);
      }
    }
  }
  return false;
}

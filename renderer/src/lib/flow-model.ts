// The flow graph as data: every pipe and dataset a node, an edge from each dataset a pipe reads to the pipe, from the
// pipe to the dataset its sink writes, and a dashed edge for each dataset its transform joins (hops, apply-hops,
// lookup-entity). Pure: no DOM, no layout, so it is tested on its own and shared with the layout worker.
import type { DatasetInfo } from '../../../hub-core/storage/index.js';
import type { PipeInfo } from '../../../hub-core/pipes/index.js';

export type PipeStatus = 'ok' | 'running' | 'failed' | 'config-error' | 'disabled';

export interface FlowNode {
  /** `pipe:<id>` or `dataset:<id>`: pipes and datasets may share ids. */
  key: string;
  kind: 'pipe' | 'dataset' | 'group';
  id: string;
  /** Pipes: what the source and sink are when not a dataset ("embedded → dataset"). */
  detail: string;
  status: PipeStatus;
  /** Datasets named by a pipe that do not exist (yet). */
  missing: boolean;
  /** Pipes: the system their source (or else their sink) names, if any. */
  system?: string;
  /** Group boxes: how many pipes and datasets they fold. */
  count?: { pipes: number; datasets: number };
  /** A system's box (grouped by system): of the pipes that read from the system, or of those that write to it. */
  role?: 'reads' | 'writes';
}

export interface FlowEdge {
  key: string;
  from: string;
  to: string;
  kind: 'reads' | 'writes' | 'joins';
}

export interface FlowModel {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(v: unknown): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** "orders o" names dataset "orders" with alias "o". */
function datasetName(spec: string): string {
  return spec.trim().split(/\s+/)[0] ?? '';
}

/** Datasets a source reads: `dataset`, the `datasets` of merge/union sources, and every conditional alternative. */
export function sourceDatasets(source: unknown): string[] {
  const out: string[] = [];
  const walk = (s: unknown, depth: number): void => {
    if (!isObject(s) || depth > 4) return;
    const type = typeof s['type'] === 'string' ? s['type'] : 'dataset';
    if (type === 'dataset' && typeof s['dataset'] === 'string') out.push(s['dataset']);
    if (Array.isArray(s['datasets'])) for (const d of s['datasets']) if (typeof d === 'string') out.push(datasetName(d));
    if (type === 'conditional' && isObject(s['alternatives'])) for (const alt of Object.values(s['alternatives'])) walk(alt, depth + 1);
  };
  walk(source, 0);
  return [...new Set(out.filter((d) => d !== ''))];
}

/** Datasets a DTL transform joins: hops/apply-hops specs' `datasets` and lookup-entity's dataset. */
export function joinedDatasets(transform: unknown): string[] {
  const out: string[] = [];
  const spec = (v: unknown): void => {
    if (isObject(v) && Array.isArray(v['datasets'])) for (const d of v['datasets']) if (typeof d === 'string') out.push(datasetName(d));
  };
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      const head = v[0];
      if (head === 'hops') v.slice(1).forEach(spec);
      else if (head === 'apply-hops') v.slice(2).forEach(spec);
      else if (head === 'lookup-entity' && typeof v[1] === 'string') out.push(v[1]);
      v.forEach(walk);
    } else if (isObject(v)) Object.values(v).forEach(walk);
  };
  walk(transform);
  return [...new Set(out.filter((d) => d !== ''))];
}

/** One word for a pipe's state; config errors win over a failed run, which wins over running and disabled. */
export function pipeStatus(pipe: PipeInfo, failed: ReadonlySet<string>): PipeStatus {
  if (!pipe.runtime['is-valid-config']) return 'config-error';
  if (failed.has(pipe._id)) return 'failed';
  if (pipe.runtime['is-running']) return 'running';
  // A manual pump is not switched off: it runs when asked.
  if (pipe.runtime['is-disabled'] && pipe.config.effective.pump['mode'] !== 'manual') return 'disabled';
  return 'ok';
}

export const pipeKey = (id: string): string => `pipe:${id}`;
export const datasetKey = (id: string): string => `dataset:${id}`;

/** Build the whole graph. `failed` holds the pipes whose last run failed (read from their pumps). */
export function buildFlowModel(pipes: readonly PipeInfo[], datasets: readonly DatasetInfo[], failed: ReadonlySet<string> = new Set()): FlowModel {
  const nodes = new Map<string, FlowNode>();
  const edges = new Map<string, FlowEdge>();
  const existing = new Set(datasets.map((d) => d._id));
  const dataset = (id: string): string => {
    const key = datasetKey(id);
    if (!nodes.has(key)) nodes.set(key, { key, kind: 'dataset', id, detail: '', status: 'ok', missing: !existing.has(id) });
    return key;
  };
  const edge = (from: string, to: string, kind: FlowEdge['kind']): void => {
    const key = `${kind}:${from}->${to}`;
    if (!edges.has(key)) edges.set(key, { key, from, to, kind });
  };
  for (const d of datasets) if (!d._id.startsWith('system:')) dataset(d._id);
  for (const p of [...pipes].sort((a, b) => a._id.localeCompare(b._id))) {
    const eff = p.config.effective;
    const key = pipeKey(p._id);
    const reads = sourceDatasets(eff.source);
    const sinkDataset = eff.sink.type === 'dataset' && typeof eff.sink['dataset'] === 'string' ? eff.sink['dataset'] : null;
    const detail = [reads.length === 0 ? eff.source.type : '', sinkDataset === null ? `→ ${eff.sink.type}` : ''].filter((s) => s !== '').join(' ');
    const system = [eff.source['system'], eff.sink['system']].find((v): v is string => typeof v === 'string');
    nodes.set(key, { key, kind: 'pipe', id: p._id, detail, status: pipeStatus(p, failed), missing: false, ...(system ? { system } : {}) });
    for (const d of reads) edge(dataset(d), key, 'reads');
    for (const d of joinedDatasets(p.config.original['transform'])) if (!reads.includes(d)) edge(dataset(d), key, 'joins');
    if (sinkDataset !== null) edge(key, dataset(sinkDataset), 'writes');
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}

/**
 * The part of the graph around one node: what flows into it and what flows out of it, up to `depth` pipes away in
 * each direction (the datasets in between included). Nodes that are neither upstream nor downstream are left out.
 */
export function neighbourhood(model: FlowModel, focus: string, depth = 2): FlowModel {
  if (!model.nodes.some((n) => n.key === focus)) return { nodes: [], edges: [] };
  const out = new Map<string, FlowEdge[]>();
  const into = new Map<string, FlowEdge[]>();
  for (const e of model.edges) {
    out.set(e.from, [...(out.get(e.from) ?? []), e]);
    into.set(e.to, [...(into.get(e.to) ?? []), e]);
  }
  // Pipe and dataset nodes alternate, so `depth` pipes away is 2 * depth edges.
  const reach = (next: (key: string) => string[]): Set<string> => {
    const found = new Set<string>([focus]);
    let frontier = [focus];
    for (let step = 0; step < depth * 2 && frontier.length > 0; step++) {
      frontier = frontier.flatMap(next).filter((k) => !found.has(k));
      for (const k of frontier) found.add(k);
    }
    return found;
  };
  const keep = new Set([...reach((k) => (out.get(k) ?? []).map((e) => e.to)), ...reach((k) => (into.get(k) ?? []).map((e) => e.from))]);
  return { nodes: model.nodes.filter((n) => keep.has(n.key)), edges: model.edges.filter((e) => keep.has(e.from) && keep.has(e.to)) };
}

/** The node itself and the nodes one edge away from it, either way. */
export function directNeighbours(model: FlowModel, key: string): Set<string> {
  const out = new Set<string>([key]);
  for (const e of model.edges) {
    if (e.from === key) out.add(e.to);
    if (e.to === key) out.add(e.from);
  }
  return out;
}

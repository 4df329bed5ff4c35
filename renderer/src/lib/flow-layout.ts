// Positions for the flow graph, computed by dagre left to right. A graph of a few hundred pipes takes dagre a few
// hundred milliseconds, so the component runs this in a worker (flow-layout.worker.ts) and only once per model.
import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';
import type { FlowModel } from './flow-model';

export interface PlacedNode {
  key: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface FlowLayout {
  nodes: PlacedNode[];
  /** Edge key → polyline points. */
  edges: { key: string; points: { x: number; y: number }[] }[];
  width: number;
  height: number;
}

const CHAR = 7;

export function nodeSize(kind: 'pipe' | 'dataset', id: string, detail: string): { width: number; height: number } {
  const chars = Math.max(id.length, detail.length);
  return { width: Math.min(260, Math.max(90, chars * CHAR + 28)), height: kind === 'pipe' ? (detail ? 42 : 32) : 28 };
}

export function layoutFlow(model: FlowModel): FlowLayout {
  const g = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>();
  g.setGraph({ rankdir: 'LR', nodesep: 14, ranksep: 56, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of model.nodes) g.setNode(n.key, nodeSize(n.kind, n.id, n.detail));
  for (const e of model.edges) g.setEdge(e.from, e.to, {});
  dagre.layout(g);
  const nodes = model.nodes.map((n) => {
    const p = g.node(n.key);
    return { key: n.key, x: p.x ?? 0, y: p.y ?? 0, width: p.width, height: p.height };
  });
  const edges = model.edges.map((e) => ({ key: e.key, points: (g.edge(e.from, e.to)?.points ?? []).map((p) => ({ x: p.x, y: p.y })) }));
  const label = g.graph();
  return { nodes, edges, width: label.width ?? 0, height: label.height ?? 0 };
}

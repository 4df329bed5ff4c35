// What the flow graph draws, as plain objects made once per model and layout (no reactive state per node), in the order
// they are drawn: the nodes in view first, nearest the middle first, then the rest. The component adds them over a few
// frames (DRAW_CHUNK a frame) so that no frame builds hundreds of nodes at once, and gives node text only to the nodes
// in and around the view (textWindow): at Fit the nodes are boxes, their names drawn at screen size by flow-labels.ts.
import type { FlowEdge, FlowModel, FlowNode } from './flow-model';
import { idLines, type FlowLayout, type PlacedNode } from './flow-layout';

/** Nodes added per frame; their edges come with them. */
export const DRAW_CHUNK = 90;

export interface DrawNode {
  node: FlowNode;
  p: PlacedNode;
  transform: string;
  rx: number;
  /** The accessible name (the drawn text may be cut). */
  title: string;
  lines: string[];
  /** y of the first text line. */
  top: number;
}

export interface DrawEdge {
  edge: FlowEdge;
  d: string;
}

export interface View {
  x: number;
  y: number;
  k: number;
}

export interface Size {
  width: number;
  height: number;
}

/** A rectangle in graph coordinates. */
export interface Area {
  l: number;
  t: number;
  r: number;
  b: number;
}

const STATUS_TEXT: Record<FlowNode['status'], string> = {
  ok: 'idle',
  running: 'running',
  failed: 'last run failed',
  'config-error': 'config errors',
  disabled: 'disabled',
};

export function nodeTitle(n: FlowNode): string {
  if (n.kind === 'group' && n.role) return `pipes that ${n.role === 'reads' ? 'read from' : 'write to'} ${n.id}: ${n.detail.slice(n.role.length + 3)}; opens on click`;
  if (n.kind === 'group') return `group ${n.id}: ${n.detail}; opens on click`;
  if (n.kind === 'dataset') return `dataset ${n.id}${n.missing ? ' (not created yet)' : ''}`;
  return `pipe ${n.id}, ${STATUS_TEXT[n.status]}${n.detail ? `, ${n.detail}` : ''}`;
}

function path(points: { x: number; y: number }[]): string {
  return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
}

/** The part of the graph a `size` canvas shows at `view`, grown by `margin` times its size on every side. */
export function viewArea(view: View, size: Size, margin = 0): Area {
  const w = size.width / view.k;
  const h = size.height / view.k;
  const l = -view.x / view.k;
  const t = -view.y / view.k;
  return { l: l - w * margin, t: t - h * margin, r: l + w * (1 + margin), b: t + h * (1 + margin) };
}

export const inArea = (p: PlacedNode, a: Area): boolean => p.x + p.width / 2 >= a.l && p.x - p.width / 2 <= a.r && p.y + p.height / 2 >= a.t && p.y - p.height / 2 <= a.b;

/** Whether `inner` lies wholly inside `outer`. */
export const within = (inner: Area, outer: Area): boolean => inner.l >= outer.l && inner.t >= outer.t && inner.r <= outer.r && inner.b <= outer.b;

/**
 * The order to draw a layout's nodes in: those in view (at `view`, or at Fit when there is none yet) first, nearest its
 * middle first. Made once per layout: a new order for the same nodes would move every node in the page.
 */
export function drawRank(layout: FlowLayout, view: View | null, size: Size): Map<string, number> {
  const area = view && size.width > 0 ? viewArea(view, size) : { l: 0, t: 0, r: layout.width, b: layout.height };
  const cx = (area.l + area.r) / 2;
  const cy = (area.t + area.b) / 2;
  const ranked = layout.nodes.map((p) => ({ key: p.key, rank: (inArea(p, area) ? 0 : 1e9) + Math.hypot(p.x - cx, p.y - cy) }));
  ranked.sort((a, b) => a.rank - b.rank);
  return new Map(ranked.map((r, i) => [r.key, i]));
}

export interface DrawList {
  nodes: DrawNode[];
  /** Each edge right after the later of its two ends. */
  edges: DrawEdge[];
  /** edgesUpTo[i]: how many edges to draw with the first i nodes. */
  edgesUpTo: number[];
}

/** The nodes and edges to draw, in the order of `rank`. */
export function drawList(model: FlowModel, layout: FlowLayout, rank: ReadonlyMap<string, number>): DrawList {
  const placed = new Map(layout.nodes.map((p) => [p.key, p]));
  const nodes: DrawNode[] = [];
  for (const n of model.nodes) {
    const p = placed.get(n.key);
    if (!p) continue;
    const lines = idLines(n.id);
    nodes.push({
      node: n,
      p,
      transform: `translate(${p.x - p.width / 2},${p.y - p.height / 2})`,
      rx: n.kind === 'dataset' ? 14 : n.kind === 'group' ? 10 : 6,
      title: nodeTitle(n),
      lines,
      top: n.detail ? 17 : p.height / 2 + 4 - (lines.length - 1) * 7.5,
    });
  }
  const at = (key: string): number => rank.get(key) ?? Number.MAX_SAFE_INTEGER;
  nodes.sort((a, b) => at(a.node.key) - at(b.node.key));
  const position = new Map(nodes.map((it, i) => [it.node.key, i]));
  const points = new Map(layout.edges.map((e) => [e.key, e.points]));
  const byEnd: DrawEdge[][] = nodes.map(() => []);
  for (const e of model.edges) {
    const pts = points.get(e.key);
    const from = position.get(e.from);
    const to = position.get(e.to);
    if (pts && pts.length > 1 && from !== undefined && to !== undefined) byEnd[Math.max(from, to)]!.push({ edge: e, d: path(pts) });
  }
  const edgesUpTo = [0];
  for (const list of byEnd) edgesUpTo.push(edgesUpTo.at(-1)! + list.length);
  return { nodes, edges: byEnd.flat(), edgesUpTo };
}

/** Everything a model draws: two models with the same signature draw the same (a poll that changed nothing). */
export function modelSignature(m: FlowModel): string {
  const nodes = m.nodes.map((n) => `${n.key}|${n.status}|${n.detail}|${n.missing}|${n.system ?? ''}|${n.count ? `${n.count.pipes},${n.count.datasets}` : ''}`);
  return `${nodes.join('\n')}\n--\n${m.edges.map((e) => e.key).join('\n')}`;
}

/** A label line cut to a node's width, for text at the graph's scale. */
export function cut(text: string, width: number): string {
  const max = Math.floor((width - 16) / 7);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

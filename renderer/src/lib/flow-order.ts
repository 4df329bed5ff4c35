// The order of the nodes within each rank, for dagre's `customOrder`: dagre's own crossing reduction sweeps up and down
// until four sweeps in a row found nothing better, which on a grouped graph (one part of some hundred nodes, boxes
// linking everything, thousands of dummy nodes on the long edges) is most of a layout's seconds. Here dagre makes its
// first order (a depth-first walk), then a fixed few barycenter sweeps run, and the order with the fewest crossings
// is kept. A small graph keeps dagre's own order: it is quick there, and found a crossing or two fewer.
import type { EdgeLabel, Graph, GraphLabel, LayoutOptions, NodeLabel } from '@dagrejs/dagre';

export type OrderGraph = Graph<GraphLabel, NodeLabel, EdgeLabel>;
export type Order = (graph: OrderGraph, opts?: LayoutOptions) => void;

/** Crossings between two neighbouring ranks: the inversions among the edges sorted by their upper end (Fenwick tree). */
function layerCrossings(g: OrderGraph, upper: string[], lower: string[]): number {
  const pos = new Map(lower.map((v, i) => [v, i]));
  const ends: [number, number, number][] = [];
  upper.forEach((v, i) => {
    for (const e of g.outEdges(v) ?? []) {
      const j = pos.get(e.w);
      if (j !== undefined) ends.push([i, j, g.edge(e)?.weight ?? 1]);
    }
  });
  ends.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const tree = new Float64Array(lower.length + 1);
  let total = 0;
  let seen = 0;
  for (const [, j, w] of ends) {
    let below = 0;
    for (let k = j + 1; k > 0; k -= k & -k) below += tree[k]!;
    total += w * (seen - below);
    seen += w;
    for (let k = j + 1; k <= lower.length; k += k & -k) tree[k]! += w;
  }
  return total;
}

function crossings(g: OrderGraph, layers: string[][]): number {
  let n = 0;
  for (let r = 1; r < layers.length; r++) n += layerCrossings(g, layers[r - 1]!, layers[r]!);
  return n;
}

/** Each node of `layer` moved to the weighted mean place of its neighbours in `fixed`; a node without any keeps its place. */
function sweepLayer(g: OrderGraph, layer: string[], fixed: string[], down: boolean): string[] {
  const pos = new Map(fixed.map((v, i) => [v, i]));
  const scale = fixed.length / Math.max(layer.length, 1);
  const keyed = layer.map((v, i) => {
    let sum = 0;
    let weight = 0;
    for (const e of (down ? g.inEdges(v) : g.outEdges(v)) ?? []) {
      const p = pos.get(down ? e.v : e.w);
      if (p === undefined) continue;
      const w = g.edge(e)?.weight ?? 1;
      sum += p * w;
      weight += w;
    }
    return { v, at: weight > 0 ? sum / weight : i * scale, i };
  });
  keyed.sort((a, b) => a.at - b.at || a.i - b.i);
  return keyed.map((k) => k.v);
}

/** `sweeps` sweeps once the ranked graph (dummy nodes included) has more than `small` nodes; dagre's own below. */
export function boundedOrder(sweeps: number, small: number): (g: OrderGraph, order: Order) => void {
  return (g, order) => {
    if (g.nodeCount() <= small) return void order(g);
    order(g, { disableOptimalOrderHeuristic: true });
    const layers: string[][] = [];
    for (const v of g.nodes()) {
      const n = g.node(v);
      if (n.rank === undefined) continue;
      (layers[n.rank] ??= [])[n.order ?? 0] = v;
    }
    let current = layers.map((l) => (l ?? []).filter((v) => v !== undefined));
    let best = current;
    let fewest = crossings(g, current);
    for (let s = 0; s < sweeps && fewest > 0; s++) {
      const down = s % 2 === 0;
      const next = current.map((l) => l.slice());
      if (down) for (let r = 1; r < next.length; r++) next[r] = sweepLayer(g, next[r]!, next[r - 1]!, true);
      else for (let r = next.length - 2; r >= 0; r--) next[r] = sweepLayer(g, next[r]!, next[r + 1]!, false);
      current = next;
      const n = crossings(g, current);
      if (n < fewest) [best, fewest] = [current, n];
    }
    for (const layer of best) layer.forEach((v, i) => (g.node(v).order = i));
  };
}

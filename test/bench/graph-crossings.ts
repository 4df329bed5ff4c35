// Edge crossings of a laid out flow graph, a measure of how readable a layout is (graph-bench.ts): every pair of
// segments, of two different edges, that properly cross (touching at an end, as edges meeting at a node do, is not a
// crossing). Quadratic in segments, with a bounding-box test first: a few hundred milliseconds at 500 nodes.
export interface Polyline {
  points: { x: number; y: number }[];
}

export function countCrossings(edges: readonly Polyline[]): number {
  const segs: { edge: number; a: { x: number; y: number }; b: { x: number; y: number } }[] = [];
  edges.forEach((e, edge) => {
    for (let i = 1; i < e.points.length; i++) segs.push({ edge, a: e.points[i - 1]!, b: e.points[i]! });
  });
  const side = (p: { x: number; y: number }, q: { x: number; y: number }, r: { x: number; y: number }): number => Math.sign((q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x));
  let n = 0;
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    for (let j = i + 1; j < segs.length; j++) {
      const t = segs[j]!;
      if (s.edge === t.edge) continue;
      if (Math.max(s.a.x, s.b.x) < Math.min(t.a.x, t.b.x) || Math.max(t.a.x, t.b.x) < Math.min(s.a.x, s.b.x)) continue;
      if (Math.max(s.a.y, s.b.y) < Math.min(t.a.y, t.b.y) || Math.max(t.a.y, t.b.y) < Math.min(s.a.y, s.b.y)) continue;
      if (side(s.a, s.b, t.a) * side(s.a, s.b, t.b) < 0 && side(t.a, t.b, s.a) * side(t.a, t.b, s.b) < 0) n++;
    }
  }
  return n;
}

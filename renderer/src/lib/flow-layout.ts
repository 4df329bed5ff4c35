// Positions for the flow graph, computed by dagre left to right. Each connected part of the graph is laid out on its
// own and the parts are packed in rows about as wide as the view is (a project is mostly many separate chains: one
// dagre run over all of them stacks them into a tall thin strip, and takes several times longer). A graph of a few
// hundred pipes still takes a few hundred milliseconds of CPU, so the component has the parts laid out by a few workers
// at once (flow-layout-pool.ts, flow-layout.worker.ts), and only once per model.
import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';
import type { FlowModel } from './flow-model';
import { boundedOrder, type Order, type OrderGraph } from './flow-order';
import { chipForms, type ChipSize } from './flow-chip-forms';

export interface PlacedNode {
  key: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The width the node's label may take: the node and the free space beside it (across ranks, or to the next node). */
  room: number;
}

export interface FlowLayout {
  nodes: PlacedNode[];
  /** Edge key → polyline points. */
  edges: { key: string; points: { x: number; y: number }[] }[];
  width: number;
  height: number;
}

const CHAR = 7;
const MARGIN = 16;
const GAP = 48;
/** Between ranks (left to right: columns), px; between the nodes of a rank top down. */
const RANK_GAP = 56;
const NODE_GAP_TB = 24;
/** The widest gap widen() makes: about two long labels. */
const MAX_SPREAD = 600;

const MAX_WIDTH = 300;
/** The height a group box takes in its rank, left to right (see dagreRun). */
const BOX_ROOM = 150;
/** Barycenter sweeps for a part with group boxes: more found no fewer crossings on the generated 300-pipe project. */
const ORDER_SWEEPS = 32;
/** Below this many ranked nodes (dummy nodes included), dagre's own order. */
const ORDER_SMALL = 600;

/** A node's id in one line, or two split at a `-`, `_`, `.` or `:` near the middle when one line would pass MAX_WIDTH. */
export function idLines(id: string): string[] {
  const perLine = Math.floor((MAX_WIDTH - 28) / CHAR);
  if (id.length <= perLine) return [id];
  let best = -1;
  for (let i = 1; i < id.length - 1; i++) if (/[-_.:]/.test(id[i]!) && Math.abs(i - id.length / 2) < Math.abs(best - id.length / 2)) best = i;
  const at = best > 0 && best < perLine && id.length - best - 1 <= perLine ? best + 1 : Math.ceil(id.length / 2);
  return [id.slice(0, at), id.slice(at)];
}

export function nodeSize(kind: 'pipe' | 'dataset' | 'group', id: string, detail: string): { width: number; height: number } {
  const lines = idLines(id);
  const chars = Math.max(...lines.map((l) => l.length), detail.length);
  const extra = (lines.length - 1) * 15;
  if (kind === 'group') return { width: Math.min(MAX_WIDTH, Math.max(120, chars * CHAR + 36)), height: 52 + extra };
  return { width: Math.min(MAX_WIDTH, Math.max(90, chars * CHAR + 28)), height: (kind === 'pipe' ? (detail ? 42 : 32) : 28) + extra };
}

/** The connected parts of the graph, biggest first, each as a model of its own. */
export function components(model: FlowModel): FlowModel[] {
  const parent = new Map(model.nodes.map((n) => [n.key, n.key]));
  const root = (k: string): string => {
    let r = k;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(k, r);
    return r;
  };
  for (const e of model.edges) if (parent.has(e.from) && parent.has(e.to)) parent.set(root(e.from), root(e.to));
  const parts = new Map<string, FlowModel>();
  for (const n of model.nodes) {
    const r = root(n.key);
    if (!parts.has(r)) parts.set(r, { nodes: [], edges: [] });
    parts.get(r)!.nodes.push(n);
  }
  for (const e of model.edges) if (parent.has(e.from)) parts.get(root(e.from))?.edges.push(e);
  return [...parts.values()].sort((a, b) => b.nodes.length - a.nodes.length);
}

/**
 * One connected part laid out by dagre, with its top left corner at 0,0: left to right, or top down when that comes
 * closer to the view's shape where left to right is a strip many times wider or higher than the view (a long chain; a
 * few ranks of many nodes, as grouped boxes are). Still much higher than the view, it is spread sideways.
 */
export function layoutPart(model: FlowModel, aspect: number): FlowLayout {
  if (model.nodes.some((n) => n.kind === 'group')) return layoutGrouped(model, aspect);
  const across = dagreLayout(model, 'LR');
  const ratio = across.width / Math.max(across.height, 1);
  if (ratio < aspect * 3 && ratio > aspect / 3) return widen(model, across, 'LR', aspect);
  const down = dagreLayout(model, 'TB');
  const off = (l: FlowLayout): number => Math.abs(Math.log(l.width / Math.max(l.height, 1) / aspect));
  return off(down) < off(across) ? widen(model, down, 'TB', aspect) : widen(model, across, 'LR', aspect);
}

/**
 * A part with group boxes, in one dagre run instead of two: the boxes tie many chains into one part (by system, the
 * reading and the writing pipes of a system are in two boxes, so that part has no cycles through them: flow-groups.ts;
 * a name prefix's box may still hold pipes from along a chain). Ranks and order do not depend on the direction, so
 * the direction is chosen between them and the positions (chooseDirection), from the ranks' sizes; the order of a
 * big part is found by barycenter sweeps (flow-order.ts) instead of dagre's until-nothing-improves ones, the ranks by
 * a tight tree instead of network simplex.
 */
function layoutGrouped(model: FlowModel, aspect: number): FlowLayout {
  const laid = dagreRun(model, 'LR', RANK_GAP, (g) => chooseDirection(g, aspect));
  const l = stretch(model, widen(model, laid.layout, laid.rankdir, aspect), aspect);
  return laid.rankdir === 'LR' ? roomForChips(model, l, aspect) : l;
}

/** The canvas height at Fit the chips are given room for, px: the Graph view's on a 1440×900 window, less Fit's margin. */
const FIT_HEIGHT = 620;
/** Between two chips side by side, and one above another, px. */
const CHIP_GAP = { x: 10, y: 2 };

/**
 * Left to right, the boxes where flows start (the systems pipes read from) and where they end (those pipes write to).
 * At Fit each box is drawn as a chip at screen size with its whole name and count (flow-chips.ts), much bigger than
 * the box at the graph's scale: those boxes are taken into a first and a last column of their own, as wide as their
 * chips are at the zoom Fit will take (for a FIT_HEIGHT canvas of the view's shape), in as few sub-columns as the chips
 * need to lie one above another, each box in the middle of an equal share of the height, in the order they had. The
 * columns are then spread evenly over the view's width (at least RANK_GAP apart); edges follow, an edge's end at a
 * moved box moving with it.
 */
function roomForChips(model: FlowModel, l: FlowLayout, aspect: number): FlowLayout {
  const groups = new Set(model.nodes.filter((n) => n.kind === 'group').map((n) => n.key));
  const into = new Set(model.edges.map((e) => e.to));
  const outOf = new Set(model.edges.map((e) => e.from));
  const starts = l.nodes.filter((n) => groups.has(n.key) && !into.has(n.key) && outOf.has(n.key));
  const stops = l.nodes.filter((n) => groups.has(n.key) && into.has(n.key) && !outOf.has(n.key));
  if (starts.length + stops.length < 3) return l;
  const atEnds = new Set([...starts, ...stops].map((n) => n.key));
  const byX = new Map<number, PlacedNode[]>();
  for (const n of l.nodes) if (!atEnds.has(n.key)) byX.set(Math.round(n.x), [...(byX.get(Math.round(n.x)) ?? []), n]);
  const column = (nodes: PlacedNode[], end: boolean): { column: PlacedNode[]; left: number; right: number; forms: ChipSize[][] | null } => {
    const sorted = nodes.sort((a, b) => a.y - b.y);
    const byKey = new Map(model.nodes.map((n) => [n.key, n]));
    const left = Math.min(...sorted.map((n) => n.x - n.width / 2));
    const right = Math.max(...sorted.map((n) => n.x + n.width / 2));
    return { column: sorted, left, right, forms: end ? sorted.map((n) => chipForms(byKey.get(n.key)!)) : null };
  };
  const columns = [
    ...(starts.length > 0 ? [column(starts, true)] : []),
    ...[...byX.entries()].sort((a, b) => a[0] - b[0]).map(([, nodes]) => column(nodes, false)),
    ...(stops.length > 0 ? [column(stops, true)] : []),
  ];
  if (columns.length < 2 || columns.every((c) => c.forms === null)) return l;
  const fitWidth = FIT_HEIGHT * aspect;
  const others = columns.reduce((a, c) => a + (c.forms === null ? c.right - c.left : 0), 0) + (columns.length - 1) * RANK_GAP;
  // An end column's width on screen (px) and sub-columns at zoom k, in the chip form that takes least width (the
  // fuller one on a tie); then the zoom Fit takes with the columns that wide: a few rounds settle both.
  const onScreen = (forms: ChipSize[][], k: number): { px: number; subs: number } => {
    let best = { px: Infinity, subs: 1 };
    for (let f = 0; f < forms[0]!.length; f++) {
      const sizes = forms.map((fs) => fs[f]!);
      const subs = Math.max(1, Math.ceil((sizes.length * (Math.max(...sizes.map((s) => s.height)) + CHIP_GAP.y)) / Math.max(l.height * k, 1) - 1e-9));
      const px = subs * (Math.max(...sizes.map((s) => s.width)) + CHIP_GAP.x);
      if (px < best.px) best = { px, subs };
    }
    return best;
  };
  let k = FIT_HEIGHT / l.height;
  let ends: ({ px: number; subs: number } | null)[] = [];
  for (let round = 0; round < 4; round++) {
    ends = columns.map((c) => (c.forms === null ? null : onScreen(c.forms, k)));
    const px = ends.reduce((a, e) => a + (e?.px ?? 0), 0);
    k = Math.min(FIT_HEIGHT / l.height, Math.max(fitWidth - px, fitWidth * 0.2) / others);
  }
  const widths = columns.map((c, i) => (ends[i] ? ends[i].px / k : c.right - c.left));
  const gap = Math.max(RANK_GAP, (fitWidth / k - widths.reduce((a, w) => a + w, 0)) / (columns.length - 1));
  // Old x → new x, piecewise linear: each column's band onto its new band, the gaps between them onto the new gaps.
  const bands: { from: number; to: number; left: number; right: number }[] = [];
  const lefts: number[] = [];
  let x = 0;
  columns.forEach((c, i) => {
    lefts.push(x);
    // The end columns' boxes are placed below; the x of everything else maps from the middle columns' bands.
    if (!c.forms) bands.push({ from: c.left, to: c.right, left: x, right: x + widths[i]! });
    x += widths[i]! + gap;
  });
  const width = x - gap;
  const mapX = (v: number): number => {
    if (bands.length === 0) return v;
    let i = 0;
    while (i < bands.length - 1 && v > bands[i]!.to) i++;
    const b = bands[i]!;
    if (v >= b.from && v <= b.to) return b.left + ((v - b.from) / Math.max(b.to - b.from, 1e-9)) * (b.right - b.left);
    if (v < b.from) {
      const a = bands[i - 1];
      return a ? a.right + ((v - a.to) / Math.max(b.from - a.to, 1e-9)) * (b.left - a.right) : b.left - (b.from - v);
    }
    return b.right + (v - b.to);
  };
  const moved = new Map<string, { x: number; y: number }>();
  columns.forEach((c, i) => {
    const e = ends[i];
    if (!e) return;
    const sub = widths[i]! / e.subs;
    const every = l.height / c.column.length;
    c.column.forEach((n, j) => moved.set(n.key, { x: lefts[i]! + ((j % e.subs) + 0.5) * sub, y: (j + 0.5) * every }));
  });
  const old = new Map(l.nodes.map((n) => [n.key, n]));
  const nodes = l.nodes.map((n) => {
    const to = moved.get(n.key) ?? { x: mapX(n.x), y: n.y };
    return { ...n, ...to, room: n.width + gap };
  });
  const edges = l.edges.map((edge, i) => {
    const { from, to } = model.edges[i]!;
    const last = edge.points.length - 1;
    const end = (key: string, p: { x: number; y: number }): { x: number; y: number } | null => {
      const [was, now] = [old.get(key), moved.get(key)];
      return was && now ? { x: now.x + p.x - was.x, y: now.y + p.y - was.y } : null;
    };
    const points = edge.points.map((p, j) => (j === 0 ? end(from, p) : j === last ? end(to, p) : null) ?? { x: mapX(p.x), y: p.y });
    return { key: edge.key, points };
  });
  return { nodes, edges, width, height: l.height };
}

/**
 * A layout narrower than the view (at Fit, fitted by its height) spread sideways, up to twice as wide, instead of a
 * further dagre run: every x grows by the same factor, so nothing new crosses, and the boxes side by side get the room
 * their labels need. An edge's ends stay where they met their node's border.
 */
function stretch(model: FlowModel, l: FlowLayout, aspect: number): FlowLayout {
  const k = Math.min(2, (aspect * 0.9 * l.height) / Math.max(l.width, 1));
  if (k <= 1.05) return l;
  const at = new Map(l.nodes.map((n) => [n.key, n.x]));
  const nodes = l.nodes.map((n) => ({ ...n, x: n.x * k, room: n.width + (n.room - n.width) * k }));
  const edges = l.edges.map((e, i) => {
    const { from, to } = model.edges[i]!;
    const last = e.points.length - 1;
    const x = (p: { x: number }, j: number): number => {
      const end = j === 0 ? at.get(from) : j === last ? at.get(to) : undefined;
      return end === undefined ? p.x * k : end * k + (p.x - end);
    };
    return { key: e.key, points: e.points.map((p, j) => ({ x: x(p, j), y: p.y })) };
  });
  return { nodes, edges, width: l.width * k, height: l.height };
}

/** Left to right or top down for the ranked, ordered graph `g`, by the same rule as layoutPart; `g` is set for it. */
function chooseDirection(g: OrderGraph, aspect: number): 'LR' | 'TB' {
  const ranks: { across: number; along: number; widest: number; highest: number }[] = [];
  for (const v of g.nodes()) {
    const n = g.node(v);
    if (n.rank === undefined) continue;
    const r = (ranks[n.rank] ??= { across: 0, along: 0, widest: 0, highest: 0 });
    const [w, h] = [n.width ?? 0, n.height ?? 0];
    r.across += h + 14;
    r.along += w + NODE_GAP_TB;
    r.widest = Math.max(r.widest, w);
    r.highest = Math.max(r.highest, h);
  }
  const used = ranks.filter((r) => r !== undefined);
  const gaps = Math.max(used.length - 1, 0) * (RANK_GAP / 2);
  const lr = (used.reduce((a, r) => a + r.widest, 0) + gaps) / Math.max(...used.map((r) => r.across), 1);
  const tb = Math.max(...used.map((r) => r.along), 1) / Math.max(used.reduce((a, r) => a + r.highest, 0) + gaps, 1);
  const off = (ratio: number): number => Math.abs(Math.log(ratio / aspect));
  if ((lr < aspect * 3 && lr > aspect / 3) || off(lr) <= off(tb)) return 'LR';
  // dagre has halved ranksep by now (it makes room for edge labels between ranks).
  Object.assign(g.graph(), { rankdir: 'TB', nodesep: NODE_GAP_TB, ranksep: RANK_GAP / 2 });
  return 'TB';
}

/**
 * A part much higher than the view is fitted by its height, leaving the view's width empty while the labels of nodes
 * side by side crowd each other: the gap between them (columns left to right, the nodes of a rank top down) grows to
 * spread the part over most of that width (up to MAX_SPREAD).
 */
function widen(model: FlowModel, l: FlowLayout, rankdir: 'LR' | 'TB', aspect: number): FlowLayout {
  if (l.width / Math.max(l.height, 1) >= aspect / 2) return l;
  const count = new Map<number, number>();
  for (const n of l.nodes) {
    const k = Math.round(rankdir === 'LR' ? n.x : n.y);
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  const side = rankdir === 'LR' ? count.size : Math.max(...count.values());
  if (side < 2) return l;
  const base = rankdir === 'LR' ? RANK_GAP : NODE_GAP_TB;
  return dagreLayout(model, rankdir, Math.min(MAX_SPREAD, base + (l.height * aspect * 0.9 - l.width) / (side - 1)));
}

/** `gap` is the space between nodes side by side: between ranks left to right, between the nodes of a rank top down. */
function dagreLayout(model: FlowModel, rankdir: 'LR' | 'TB', gap = rankdir === 'LR' ? RANK_GAP : NODE_GAP_TB): FlowLayout {
  return dagreRun(model, rankdir, gap).layout;
}

/** As dagreLayout; `ordered` may turn the direction once the ranks and order are known (layoutGrouped). */
function dagreRun(model: FlowModel, rankdir: 'LR' | 'TB', gap: number, ordered?: (g: OrderGraph) => 'LR' | 'TB'): { layout: FlowLayout; rankdir: 'LR' | 'TB' } {
  const g = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>();
  const grouped = model.nodes.some((n) => n.kind === 'group');
  // Network simplex ranks a grouped part no better than a tight tree here and takes most of a second doing it.
  const ranker = grouped ? { ranker: 'tight-tree' as const } : {};
  g.setGraph(rankdir === 'LR' ? { rankdir, nodesep: 14, ranksep: gap, marginx: 0, marginy: 0, ...ranker } : { rankdir, nodesep: gap, ranksep: RANK_GAP, marginx: 0, marginy: 0, ...ranker });
  g.setDefaultEdgeLabel(() => ({}));
  const sizes = new Map(model.nodes.map((n) => [n.key, nodeSize(n.kind, n.id, n.detail)]));
  // A group box takes BOX_ROOM of its rank's height in the layout (it is drawn its own size, in the middle of it): at
  // Fit its name and count are drawn at screen size (flow-chips.ts), which a column of boxes side by side crowds.
  for (const n of model.nodes) g.setNode(n.key, n.kind === 'group' ? { ...sizes.get(n.key)!, height: Math.max(BOX_ROOM, sizes.get(n.key)!.height) } : sizes.get(n.key)!);
  for (const e of model.edges) g.setEdge(e.from, e.to, {});
  const order = boundedOrder(ORDER_SWEEPS, ORDER_SMALL);
  let dir = rankdir;
  const customOrder = (inner: OrderGraph, first: Order): void => {
    order(inner, first);
    dir = ordered?.(inner) ?? rankdir;
  };
  dagre.layout(g, grouped ? { customOrder } : {});
  const nodes = model.nodes.map((n) => {
    const p = g.node(n.key);
    return { key: n.key, x: p.x ?? 0, y: p.y ?? 0, width: p.width, height: sizes.get(n.key)!.height, room: p.width + (dir === rankdir ? gap : NODE_GAP_TB) };
  });
  const edges = model.edges.map((e) => ({ key: e.key, points: (g.edge(e.from, e.to)?.points ?? []).map((p) => ({ x: p.x, y: p.y })) }));
  const label = g.graph();
  return { layout: { nodes, edges, width: label.width ?? 0, height: label.height ?? 0 }, rankdir: dir };
}

/** Lay out the whole graph for a view `aspect` times as wide as it is high. */
export function layoutFlow(model: FlowModel, aspect = 1.7): FlowLayout {
  return packParts(
    components(model).map((part) => layoutPart(part, aspect)),
    aspect,
  );
}

/** Parts laid out on their own (biggest first), packed in rows about `aspect` times as wide as they are high. */
export function packParts(parts: FlowLayout[], aspect = 1.7): FlowLayout {
  const area = parts.reduce((a, p) => a + (p.width + GAP) * (p.height + GAP), 0);
  const rowWidth = Math.max(Math.sqrt(area * aspect), ...parts.map((p) => p.width));
  const out: FlowLayout = { nodes: [], edges: [], width: 0, height: 0 };
  // Rows, filled left to right in the order of size; a row is as high as its highest part.
  let x = MARGIN;
  let y = MARGIN;
  let rowHeight = 0;
  for (const p of parts) {
    if (x > MARGIN && x + p.width > rowWidth + MARGIN) {
      x = MARGIN;
      y += rowHeight + GAP;
      rowHeight = 0;
    }
    for (const n of p.nodes) out.nodes.push({ ...n, x: n.x + x, y: n.y + y });
    for (const e of p.edges) out.edges.push({ key: e.key, points: e.points.map((q) => ({ x: q.x + x, y: q.y + y })) });
    out.width = Math.max(out.width, x + p.width + MARGIN);
    rowHeight = Math.max(rowHeight, p.height);
    x += p.width + GAP;
  }
  out.height = y + rowHeight + MARGIN;
  return out;
}

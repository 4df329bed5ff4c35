// Level of detail for the flow graph's labels. Zoomed in, each node carries its whole label, drawn at the graph's scale.
// Zoomed out, text at the graph's scale would shrink below what anyone can read, so the labels are drawn at screen
// size instead: shortened to the room around their node (the middle of a long id left out: its start names the
// domain, its end the step), and only as many as fit without overlapping, chosen in order of importance.
import type { FlowNode } from './flow-model';
import { idLines, type PlacedNode } from './flow-layout';
import { shorten } from './flow-chip-forms';

export { shorten };

/** Below this zoom the nodes' own text would be under ~10 px: the screen-size labels take over. */
export const DETAIL_ZOOM = 0.8;

/** A 12 px character's width, on the wide side: the collision boxes must not come out narrower than the text. */
const CHAR_PX = 7.4;
const LINE_PX = 16;

type Box = { l: number; t: number; r: number; b: number };

export interface ScreenLabel {
  key: string;
  x: number;
  y: number;
  /** One line, or two where the node's id is drawn in two (flow-layout.ts idLines). */
  lines: string[];
  kind: FlowNode['kind'];
}

/**
 * The labels to draw at screen size for the view `view` of a `width` × `height` canvas: at most one per node,
 * none overlapping another or a group's chip (`chips`), nodes in `first` before groups, pipes and then datasets.
 */
export function screenLabels(
  nodes: readonly FlowNode[],
  placed: ReadonlyMap<string, PlacedNode>,
  view: { x: number; y: number; k: number },
  size: { width: number; height: number },
  first: ReadonlySet<string> = new Set(),
  chips: ReadonlyMap<string, { box: Box }> = new Map(),
): ScreenLabel[] {
  const rank = (n: FlowNode): number => (first.has(n.key) ? 0 : n.kind === 'group' ? 1 : n.kind === 'pipe' ? 2 : 3);
  // Group boxes drawn as chips (flow-chips.ts) carry their own name: the labels keep out of them.
  const taken: Box[] = [...chips.values()].map((c) => c.box);
  const out: ScreenLabel[] = [];
  for (const n of [...nodes].sort((a, b) => rank(a) - rank(b))) {
    const p = placed.get(n.key);
    if (!p || chips.has(n.key)) continue;
    const x = p.x * view.k + view.x;
    const y = p.y * view.k + view.y;
    if (x < -100 || y < -20 || x > size.width + 100 || y > size.height + 20) continue;
    // A long id in two lines where there is height for them, else in one line, shortened in the middle if need be.
    const two = idLines(n.id).length === 2 && p.height * view.k >= 2 * LINE_PX - 4;
    const fits = (room: number): { lines: string[]; box: Box } | null => {
      const chars = Math.floor(room / CHAR_PX);
      // Fewer characters than this say nothing ("ti…g"): no label then.
      if (chars < 12 && n.kind !== 'group') return null;
      const lines = n.kind === 'group' ? [`${n.id} (${n.count?.pipes ?? 0} pipes)`] : two ? idLines(n.id).map((l) => shorten(l, chars)) : [shorten(n.id, chars)];
      if (lines[0] === '') return null;
      const half = (Math.max(...lines.map((l) => l.length)) * CHAR_PX) / 2 + 3;
      const box = { l: x - half, t: y - (LINE_PX * lines.length) / 2, r: x + half, b: y + (LINE_PX * lines.length) / 2 };
      return taken.some((o) => box.l < o.r && box.r > o.l && box.t < o.b && box.b > o.t) ? null : { lines, box };
    };
    // The whole id where it clears the labels placed before it (a label may reach past its node's room into free
    // space), else as long as the room beside the node allows, else only as wide as the node, else left out.
    const room = p.room * view.k;
    const label = fits((n.id.length + 1) * CHAR_PX) ?? fits(Math.max(150, room)) ?? fits(Math.max(100, room)) ?? fits(p.width * view.k);
    if (!label) continue;
    const { lines, box } = label;
    taken.push(box);
    out.push({ key: n.key, x, y, lines, kind: n.kind });
  }
  return out;
}

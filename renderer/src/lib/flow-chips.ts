// Level of detail for the flow graph's group boxes. Zoomed out (below DETAIL_ZOOM) a box at the graph's scale is a few
// pixels under the labels around it; the box is drawn at screen size instead, as a chip with the group's name and
// count, and the other labels keep out of it (flow-labels.ts). Chips that would cover one another: the groups with
// more pipes keep the full chip, the others take a one-line one (the name shortened if need be), then a narrow one
// (the shortened name over the count), else none (the box at the graph's scale, with a label if one fits).
import type { FlowNode } from './flow-model';
import type { PlacedNode } from './flow-layout';
import { shorten } from './flow-labels';

const CHAR_PX = 7.4;

export interface GroupChip {
  key: string;
  /** Size on screen, px; centred on the node. */
  width: number;
  height: number;
  name: string;
  /** The count line ("5 pipes, 3 datasets"); empty in the one-line chip, which says "name (5)". */
  count: string;
  /** The chip on screen, for the labels to keep out of. */
  box: { l: number; t: number; r: number; b: number };
}

/** The chips to draw for the groups in view at `view`, none covering another. */
export function groupChips(
  nodes: readonly FlowNode[],
  placed: ReadonlyMap<string, PlacedNode>,
  view: { x: number; y: number; k: number },
  size: { width: number; height: number },
): Map<string, GroupChip> {
  const groups = nodes.filter((n) => n.kind === 'group').sort((a, b) => (b.count?.pipes ?? 0) - (a.count?.pipes ?? 0) || a.id.localeCompare(b.id));
  // Full chips for the first groups can crowd out every neighbour in a row of groups: placed again starting from the
  // narrower forms, the placement that shows the most groups wins (the richer one on a tie).
  let best = new Map<string, GroupChip>();
  for (let richest = 0; richest < FORMS; richest++) {
    const chips = placeChips(groups, placed, view, size, richest);
    if (chips.size > best.size) best = chips;
  }
  return best;
}

const FORMS = 5;

function placeChips(
  groups: readonly FlowNode[],
  placed: ReadonlyMap<string, PlacedNode>,
  view: { x: number; y: number; k: number },
  size: { width: number; height: number },
  richest: number,
): Map<string, GroupChip> {
  const out = new Map<string, GroupChip>();
  const taken: GroupChip['box'][] = [];
  for (const n of groups) {
    const p = placed.get(n.key);
    if (!p) continue;
    const x = p.x * view.k + view.x;
    const y = p.y * view.k + view.y;
    if (x < -150 || y < -40 || x > size.width + 150 || y > size.height + 40) continue;
    const forms = [
      { name: n.id, count: n.detail, width: Math.max(n.id.length, n.detail.length) * CHAR_PX + 20, height: 36 },
      { name: `${n.id} (${n.count?.pipes ?? 0})`, count: '', width: (n.id.length + 5) * CHAR_PX + 16, height: 20 },
      // Crowded: the name shortened in the middle (its start and end tell groups apart).
      { name: `${shorten(n.id, 14)} (${n.count?.pipes ?? 0})`, count: '', width: (Math.min(14, n.id.length) + 5) * CHAR_PX + 12, height: 20 },
      // Packed side by side (a row of groups at Fit): narrow, the shortened name over the count.
      { name: shorten(n.id, 9), count: `${n.count?.pipes ?? 0} pipes`, width: Math.max(Math.min(9, n.id.length), 8) * CHAR_PX + 10, height: 32 },
      { name: shorten(n.id, 6), count: `(${n.count?.pipes ?? 0})`, width: Math.max(Math.min(6, n.id.length) * CHAR_PX + 8, 60), height: 32 },
    ];
    for (const f of forms.slice(richest)) {
      // Never smaller than the box itself at this zoom.
      const width = Math.max(f.width, p.width * view.k);
      const height = Math.max(f.height, p.height * view.k);
      const box = { l: x - width / 2, t: y - height / 2, r: x + width / 2, b: y + height / 2 };
      if (taken.some((o) => box.l < o.r + 2 && box.r > o.l - 2 && box.t < o.b + 2 && box.b > o.t - 2)) continue;
      taken.push(box);
      out.set(n.key, { key: n.key, width, height, name: f.name, count: f.count, box });
      break;
    }
  }
  return out;
}

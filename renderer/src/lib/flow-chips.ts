// Level of detail for the flow graph's group boxes. Zoomed out (below DETAIL_ZOOM) a box at the graph's scale is a few
// pixels under the labels around it; the box is drawn at screen size instead, as a chip with the group's name and
// count, and the other labels keep out of it (flow-labels.ts). Chips that would cover one another: the groups with
// more pipes keep the full chip, the others take a narrower form (flow-chip-forms.ts), or one beside the box. A
// system's chip always shows the whole name (the layout makes room for it at Fit: flow-layout.ts); every chip says how
// many pipes its group holds; one that finds no free room at all is drawn in its smallest form over the others.
import type { FlowNode } from './flow-model';
import type { PlacedNode } from './flow-layout';
import { chipForms, type Form } from './flow-chip-forms';

export interface GroupChip {
  key: string;
  /** Size on screen, px; centred on the node, or moved by dx, dy (screen px) where it found no room there. */
  width: number;
  height: number;
  dx: number;
  dy: number;
  name: string;
  /** The count line ("5 pipes, 3 datasets"); empty in the one-line chips, which say "name (5)" or "5 pipes". */
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
  // Full chips for the first groups can crowd out every neighbour in a column of groups: placed again starting from the
  // narrower forms, the placement with the fewest chips drawn over others wins, then the one with the fewest chips
  // moved off their box (the richer one on a tie).
  let best: ReturnType<typeof placeChips> | null = null;
  const worse = (a: ReturnType<typeof placeChips>, b: ReturnType<typeof placeChips>): boolean => a.over > b.over || (a.over === b.over && a.beside > b.beside);
  for (let richest = 0; richest < FORMS; richest++) {
    const next = placeChips(groups, placed, view, size, richest);
    if (best === null || worse(best, next)) best = next;
    if (best.over === 0 && best.beside === 0) break;
  }
  return best?.chips ?? new Map();
}

const FORMS = 6;

const overlaps = (a: GroupChip['box'], o: GroupChip['box']): boolean => a.l < o.r + 1 && a.r > o.l - 1 && a.t < o.b + 1 && a.b > o.t - 1;

function chipAt(key: string, f: Form, x: number, y: number, p: PlacedNode, k: number, dx = 0, dy = 0): GroupChip {
  // Never smaller than the box itself at this zoom.
  const width = Math.max(f.width, p.width * k);
  const height = Math.max(f.height, p.height * k);
  const [cx, cy] = [x + dx, y + dy];
  return { key, width, height, dx, dy, name: f.name, count: f.count, box: { l: cx - width / 2, t: cy - height / 2, r: cx + width / 2, b: cy + height / 2 } };
}

function placeChips(
  groups: readonly FlowNode[],
  placed: ReadonlyMap<string, PlacedNode>,
  view: { x: number; y: number; k: number },
  size: { width: number; height: number },
  richest: number,
): { chips: Map<string, GroupChip>; over: number; beside: number } {
  const out = new Map<string, GroupChip>();
  let over = 0;
  let beside = 0;
  const taken: GroupChip['box'][] = [];
  for (const n of groups) {
    const p = placed.get(n.key);
    if (!p) continue;
    const x = p.x * view.k + view.x;
    const y = p.y * view.k + view.y;
    if (x < -150 || y < -40 || x > size.width + 150 || y > size.height + 40) continue;
    const all = chipForms(n);
    const forms = all.slice(Math.min(richest, all.length - 1));
    const free = (c: GroupChip): boolean => !taken.some((o) => overlaps(c.box, o));
    // On the box, the richest form that clears the others; else one just beside the box; else the one-line form over
    // the others, rather than a group with its name cut.
    let placedChip = forms.map((f) => chipAt(n.key, f, x, y, p, view.k)).find(free);
    if (!placedChip) beside++;
    for (const f of forms) {
      if (placedChip) break;
      const c = chipAt(n.key, f, x, y, p, view.k);
      const [w, h] = [c.width + 3, c.height + 3];
      placedChip = ([[0, -h], [0, h], [-w, 0], [w, 0]] as const).map(([dx, dy]) => chipAt(n.key, f, x, y, p, view.k, dx, dy)).find(free);
    }
    if (!placedChip) over++;
    placedChip ??= chipAt(n.key, forms[forms.length - 1]!, x, y, p, view.k);
    taken.push(placedChip.box);
    out.set(n.key, placedChip);
  }
  return { chips: out, over, beside };
}

// Folding the flow graph: the pipes of one system (two boxes: those reading it, those writing to it), or of one name
// prefix (`hr-employee-*`), become one box that shows how many pipes and datasets it holds. A dataset folds with them when every pipe that touches it is in the same
// group; edges to the outside are drawn from the box. Pure, like flow-model.ts.
import type { FlowEdge, FlowModel, FlowNode } from './flow-model';

/** `none`, `system`, or `prefix-<n>`: the first n parts of a pipe id split at `-`, `_`, `.` or `:`. */
export type GroupMode = 'none' | 'system' | 'prefix-1' | 'prefix-2' | 'prefix-3';

export const GROUP_MODES: { mode: GroupMode; label: string }[] = [
  { mode: 'none', label: 'No grouping' },
  { mode: 'system', label: 'By system' },
  { mode: 'prefix-1', label: 'By name prefix (1 part)' },
  { mode: 'prefix-2', label: 'By name prefix (2 parts)' },
  { mode: 'prefix-3', label: 'By name prefix (3 parts)' },
];

export const groupKey = (name: string): string => `group:${name}`;
/**
 * Grouped by system, the pipes that write to a system get a box of their own, drawn where the flows end: one box for
 * both would be where the flows start and end at once, tying every chain through it into cycles (a long, tangled
 * layout that takes seconds). Reading the graph left to right, a system is a source on the left and a target on the
 * right, as in a data-flow diagram.
 */
export const writersKey = (name: string): string => `group:${name} (written)`;

/** The group a pipe belongs to under `mode`, as its shown name (`hr-employee-*`, a system id), or null. */
export function groupOf(node: FlowNode, mode: GroupMode): string | null {
  if (node.kind !== 'pipe' || mode === 'none') return null;
  if (mode === 'system') return node.system ?? null;
  const parts = Number(mode.slice('prefix-'.length));
  const m = new RegExp(`^((?:[^-_.:]+[-_.:]){${parts}})`).exec(node.id);
  return m ? `${m[1]}*` : null;
}

export interface GroupedModel {
  model: FlowModel;
  /** Node key (of the model before folding) → the key of the box that holds it. */
  folded: Map<string, string>;
}

/**
 * Fold `model` by `mode`. A group of a single pipe stays unfolded, and so do the groups named in `opened` (by box key):
 * a box opens on click.
 */
export function groupModel(model: FlowModel, mode: GroupMode, opened: ReadonlySet<string> = new Set()): GroupedModel {
  const folded = new Map<string, string>();
  if (mode === 'none') return { model, folded };
  const members = new Map<string, string[]>();
  for (const n of model.nodes) {
    const g = groupOf(n, mode);
    if (g !== null) members.set(g, [...(members.get(g) ?? []), n.key]);
  }
  // Pipes that read a dataset (not the system) write to it: by system, they fold into the system's box of writers.
  const readsData = new Set(mode === 'system' ? model.edges.filter((e) => e.kind === 'reads').map((e) => e.to) : []);
  const names = new Map<string, string>();
  for (const [g, keys] of members) {
    if (keys.length < 2 || opened.has(groupKey(g)) || opened.has(writersKey(g))) continue;
    for (const k of keys) {
      const box = readsData.has(k) ? writersKey(g) : groupKey(g);
      folded.set(k, box);
      names.set(box, g);
    }
  }
  if (folded.size === 0) return { model, folded };
  // A dataset folds into a box when all the pipes around it are in that one box.
  const around = new Map<string, Set<string>>();
  for (const e of model.edges) {
    const [d, p] = e.from.startsWith('dataset:') ? [e.from, e.to] : [e.to, e.from];
    if (!around.has(d)) around.set(d, new Set());
    around.get(d)!.add(folded.get(p) ?? p);
  }
  for (const [d, boxes] of around) {
    const [only] = boxes;
    if (boxes.size === 1 && only?.startsWith('group:')) folded.set(d, only);
  }
  const counts = new Map<string, { pipes: number; datasets: number }>();
  for (const [k, g] of folded) {
    const c = counts.get(g) ?? { pipes: 0, datasets: 0 };
    if (k.startsWith('pipe:')) c.pipes++;
    else c.datasets++;
    counts.set(g, c);
  }
  const nodes: FlowNode[] = [];
  const placedBoxes = new Set<string>();
  for (const n of model.nodes) {
    const g = folded.get(n.key);
    if (g === undefined) nodes.push(n);
    else if (!placedBoxes.has(g)) {
      placedBoxes.add(g);
      const count = counts.get(g)!;
      const role = mode !== 'system' ? undefined : g === writersKey(names.get(g)!) ? 'writes' : 'reads';
      const what = `${count.pipes} ${count.pipes === 1 ? 'pipe' : 'pipes'}${count.datasets > 0 ? `, ${count.datasets} datasets` : ''}`;
      const detail = role === undefined ? what : `${role} · ${what}`;
      nodes.push({ key: g, kind: 'group', id: names.get(g)!, detail, status: 'ok', missing: false, count, ...(role ? { role } : {}) });
    }
  }
  const edges = new Map<string, FlowEdge>();
  for (const e of model.edges) {
    const from = folded.get(e.from) ?? e.from;
    const to = folded.get(e.to) ?? e.to;
    if (from === to) continue;
    const key = `${e.kind}:${from}->${to}`;
    if (!edges.has(key)) edges.set(key, { key, from, to, kind: e.kind });
  }
  return { model: { nodes, edges: [...edges.values()] }, folded };
}

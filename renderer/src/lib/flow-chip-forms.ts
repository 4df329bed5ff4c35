// What a group's chip at Fit says, in the forms it may take, and its size on screen (flow-chips.ts places them; the
// layout makes room for them: flow-layout.ts).
import type { FlowNode } from './flow-model';

/** A 12 px character's width, on the wide side: a chip must not come out narrower than its text. */
const CHAR_PX = 7.4;

export type ChipSize = { width: number; height: number };
export type Form = ChipSize & { name: string; count: string };

/**
 * Richest first; every one shows the group's whole name (a shortened one cannot tell systems apart), says how many pipes
 * it holds and, for a system's box, whether they read from it or write to it.
 */
export function chipForms(n: FlowNode): Form[] {
  const count = String(n.count?.pipes ?? 0);
  const pipes = `${count} ${count === '1' ? 'pipe' : 'pipes'}`;
  const second = n.role ? `${n.role} · ${pipes}` : n.detail;
  const line = n.role ? `${n.id} · ${n.role} ${count}` : `${n.id} (${count})`;
  return [
    { name: n.id, count: second, width: Math.max(n.id.length, second.length) * CHAR_PX + 20, height: 36 },
    // One line: the count (and what the pipes do) after the name.
    { name: line, count: '', width: line.length * CHAR_PX + 16, height: 18 },
  ];
}

// What a group's chip at Fit says, in the forms it may take, and its size on screen (flow-chips.ts places them; the
// layout makes room for them: flow-layout.ts).
import type { FlowNode } from './flow-model';

/** A 12 px character's width, on the wide side: a chip must not come out narrower than its text. */
const CHAR_PX = 7.4;

export type ChipSize = { width: number; height: number };
export type Form = ChipSize & { name: string; count: string };

/**
 * Richest first; every one says how many pipes the group holds. A system's box always shows the system's whole name (a
 * shortened one cannot tell systems apart; the layout makes room for it at Fit) and whether its pipes read from the
 * system or write to it.
 */
export function chipForms(n: FlowNode): Form[] {
  const count = String(n.count?.pipes ?? 0);
  const pipes = `${count} ${count === '1' ? 'pipe' : 'pipes'}`;
  const second = n.role ? `${n.role} · ${pipes}` : n.detail;
  const line = n.role ? `${n.id} · ${n.role} ${count}` : `${n.id} (${count})`;
  const whole: Form[] = [
    { name: n.id, count: second, width: Math.max(n.id.length, second.length) * CHAR_PX + 20, height: 36 },
    // One line: the count (and what the pipes do) after the name.
    { name: line, count: '', width: line.length * CHAR_PX + 16, height: 18 },
  ];
  if (n.role) return whole;
  // A name prefix's boxes (`hr-employee-*`), often a row of them side by side: crowded, the name shortened in the middle
  // (its start and end tell them apart), then over the count, then the count alone (the whole name in the title).
  return [
    ...whole,
    { name: `${shorten(n.id, 14)} (${count})`, count: '', width: (Math.min(14, n.id.length) + count.length + 3) * CHAR_PX + 12, height: 18 },
    { name: shorten(n.id, 9), count: pipes, width: Math.max(Math.min(9, n.id.length), pipes.length) * CHAR_PX + 10, height: 32 },
    { name: shorten(n.id, 6), count: pipes, width: Math.max(Math.min(6, n.id.length), pipes.length) * CHAR_PX + 8, height: 32 },
    { name: pipes, count: '', width: Math.max(60, pipes.length * CHAR_PX + 8), height: 18 },
  ];
}

/** `text` in at most `max` characters, the middle replaced by an ellipsis (labels too: flow-labels.ts). */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < 4) return '';
  const head = Math.ceil((max - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}

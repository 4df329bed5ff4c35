// Rows for a two-column diff built from the line diff in lib/format: runs of removed and added lines are
// paired up so a changed line sits next to its counterpart.
import { lineDiff } from '../../lib/format';

export interface SideRow {
  left: string | null;
  right: string | null;
  changed: boolean;
}

export function sideBySide(left: string, right: string): SideRow[] {
  const rows: SideRow[] = [];
  let lefts: string[] = [];
  let rights: string[] = [];
  const flush = (): void => {
    const n = Math.max(lefts.length, rights.length);
    for (let i = 0; i < n; i++) rows.push({ left: lefts[i] ?? null, right: rights[i] ?? null, changed: true });
    lefts = [];
    rights = [];
  };
  for (const line of lineDiff(left.replace(/\n$/, ''), right.replace(/\n$/, ''))) {
    if (line.op === '-') lefts.push(line.text);
    else if (line.op === '+') rights.push(line.text);
    else {
      flush();
      rows.push({ left: line.text, right: line.text, changed: false });
    }
  }
  flush();
  return rows;
}

export type FoldedRow = SideRow | { fold: number };

/** Unchanged runs further than `context` lines from a change collapse into one `{fold: n}` row. */
export function foldUnchanged(rows: SideRow[], context = 3): FoldedRow[] {
  const near = new Uint8Array(rows.length);
  rows.forEach((r, i) => {
    if (!r.changed) return;
    for (let k = Math.max(0, i - context); k <= Math.min(rows.length - 1, i + context); k++) near[k] = 1;
  });
  const out: FoldedRow[] = [];
  let hidden = 0;
  rows.forEach((r, i) => {
    if (near[i]) {
      if (hidden > 0) out.push({ fold: hidden });
      hidden = 0;
      out.push(r);
    } else hidden++;
  });
  if (hidden > 0) out.push({ fold: hidden });
  return out;
}

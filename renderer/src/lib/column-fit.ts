// Column widths for a fixed-layout table whose rows are rendered only in view (the pipe list): each column gets what
// its widest text needs when everything fits, the spare width shared out; when not, the narrow columns keep their
// whole text and the wide ones share what is left evenly (never below a column's minimum).

export interface ColumnNeed {
  /** Width of its widest content, padding included. */
  need: number;
  /** Never narrower (its heading). */
  min: number;
}

/** Widths in pixels that fill `available` (or exceed it only when the minimums do). */
export function fitColumns(columns: readonly ColumnNeed[], available: number): number[] {
  const want = columns.map((c) => Math.max(c.need, c.min));
  const total = want.reduce((a, b) => a + b, 0);
  if (total <= available) {
    // Spare width in proportion to what each needs, so the table spans the view.
    const spare = available - total;
    return want.map((w) => w + (spare * w) / total);
  }
  const widths = columns.map((c) => c.min);
  let left = available - widths.reduce((a, b) => a + b, 0);
  if (left <= 0) return widths;
  // Water-filling: the columns needing least beyond their minimum are served first.
  const order = columns.map((_, i) => i).sort((a, b) => want[a]! - columns[a]!.min - (want[b]! - columns[b]!.min));
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const share = left / (order.length - k);
    const extra = Math.min(want[i]! - widths[i]!, share);
    widths[i] = widths[i]! + extra;
    left -= extra;
  }
  return widths;
}

let canvas: HTMLCanvasElement | null = null;

/** A function measuring text in `font` (a CSS font shorthand), in pixels. */
export function textMeasurer(font: string): (text: string) => number {
  // One per font, its cache kept: the lists fit their columns again on every poll.
  let m = measurers.get(font);
  if (!m) measurers.set(font, (m = newMeasurer(font)));
  return m;
}
const measurers = new Map<string, (text: string) => number>();

function newMeasurer(font: string): (text: string) => number {
  canvas ??= document.createElement('canvas');
  const ctx = canvas.getContext('2d');
  if (!ctx) return (text) => text.length * 8;
  const cache = new Map<string, number>();
  return (text) => {
    let w = cache.get(text);
    if (w === undefined) {
      // The canvas is shared: measurers of other fonts may have set theirs since.
      if (ctx.font !== font) ctx.font = font;
      w = ctx.measureText(text).width;
      if (cache.size < 5000) cache.set(text, w);
    }
    return w;
  };
}

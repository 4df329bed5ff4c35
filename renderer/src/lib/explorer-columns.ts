// The explorer's columns: every key seen in the pages loaded so far (a key that first shows up deep in a dataset
// becomes a column when its page arrives), and the user's widths and hidden columns, remembered per dataset.
import { fitColumns } from './column-fit';

/** Bookkeeping hidden until asked for (the entity's JSON shows it): fewer cells keep scrolling smooth. */
const HIDDEN_BY_DEFAULT: ReadonlySet<string> = new Set(['_hash', '_previous', '_ts']);

export const DEFAULT_WIDTH = 180;
export const ID_WIDTH = 220;
export const MIN_WIDTH = 48;
export const MAX_WIDTH = 2000;

/** Keys in order of first appearance: `_id` first, other keys next, keys starting with `_` last. */
export class ColumnSet {
  private readonly seen = new Set<string>(['_id']);
  private plain: string[] = [];
  private internal: string[] = [];

  /** Takes the keys of `rows`; true when a new one appeared. */
  add(rows: readonly Record<string, unknown>[]): boolean {
    let grew = false;
    for (const row of rows) {
      for (const key in row) {
        if (this.seen.has(key)) continue;
        this.seen.add(key);
        (key.startsWith('_') ? this.internal : this.plain).push(key);
        grew = true;
      }
    }
    return grew;
  }

  list(): string[] {
    return ['_id', ...this.plain, ...this.internal];
  }
}

export interface ColumnLayout {
  /** Widths in pixels the user dragged columns to. */
  widths: Record<string, number>;
  /** Columns the user showed (true) or hid (false); others follow the default. */
  visible: Record<string, boolean>;
}

export function layoutKey(connection: string | null, dataset: string): string {
  return `datahub.explorer.columns:${connection ?? 'local'}:${dataset}`;
}

export function loadLayout(key: string): ColumnLayout {
  try {
    const raw = localStorage.getItem(key);
    const parsed = raw === null ? null : (JSON.parse(raw) as Partial<ColumnLayout>);
    return { widths: { ...(parsed?.widths ?? {}) }, visible: { ...(parsed?.visible ?? {}) } };
  } catch {
    return { widths: {}, visible: {} };
  }
}

export function saveLayout(key: string, layout: ColumnLayout): void {
  try {
    localStorage.setItem(key, JSON.stringify(layout));
  } catch {
    // storage full or blocked: the layout lasts until the page is left
  }
}

export function isVisible(layout: ColumnLayout, column: string): boolean {
  if (column === '_id') return true;
  return layout.visible[column] ?? !HIDDEN_BY_DEFAULT.has(column);
}

/** A bold 14 px heading character, on the wide side, and the room the heading's padding and grip take. */
const HEAD_CHAR = 8.6;
const HEAD_PAD = 36;
/** The heading's padding (its grip sits in the padding), and a pixel or two for rounding. */
const HEAD_ROOM = 17;
/** The `_id` column keeps its whole text up to this width, however narrow the window. */
const ID_KEEP = 260;
const NAME_FIT_MAX = 320;

/** A column's width: as dragged, else wide enough for its name (the part after its namespace, as shown), up to a limit. */
export function widthOf(layout: ColumnLayout, column: string): number {
  const dragged = layout.widths[column];
  if (dragged !== undefined) return dragged;
  if (column === '_id') return ID_WIDTH;
  return Math.max(DEFAULT_WIDTH, headingWidth(column));
}

/** What a column's heading needs: its name (the part after its namespace, as shown), up to a limit. */
export function headingWidth(column: string, measure: (name: string) => number = (name) => name.length * HEAD_CHAR + HEAD_PAD - HEAD_ROOM): number {
  return Math.min(NAME_FIT_MAX, Math.ceil(measure(column.slice(column.lastIndexOf(':') + 1)) + HEAD_ROOM));
}

/** A value column is never wider than this unless dragged (its cells show 160 characters at most). */
const VALUE_FIT_MAX = 420;

/**
 * Widths of the grid's columns: a dragged one as dragged; the others as wide as their heading and their widest value
 * (`valueWidth`, text only; `headWidth`, a bold name) need. When that is more than `available`, the widest give way
 * down to their heading (the value cut, whole on hover) before the grid scrolls sideways. Spare room is left spare: a column's width does not
 * depend on which others are shown.
 */
export function fitGridColumns(
  columns: readonly string[],
  dragged: Readonly<Record<string, number>>,
  valueWidth: (k: number) => number,
  headWidth: (name: string) => number,
  available: number,
): number[] {
  const needs = columns.map((c, k) => {
    const head = headingWidth(c, headWidth);
    const need = Math.min(VALUE_FIT_MAX, Math.max(head, Math.ceil(valueWidth(k)) + 18));
    return { need, min: c === '_id' ? Math.min(need, ID_KEEP) : head };
  });
  const free = columns.map((c) => dragged[c] === undefined);
  const room = available - columns.reduce((n, c) => n + (dragged[c] ?? 0), 0);
  const loose = needs.filter((_, k) => free[k]);
  const fitted = loose.reduce((n, x) => n + x.need, 0) <= room ? loose.map((x) => x.need) : fitColumns(loose, room);
  let i = 0;
  return columns.map((c, k) => (free[k] ? Math.round(fitted[i++]!) : dragged[c]!));
}

export function clampWidth(px: number): number {
  return Math.round(Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, px)));
}

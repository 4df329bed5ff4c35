// The explorer's columns: every key seen in the pages loaded so far (a key that first shows up deep in a dataset
// becomes a column when its page arrives), and the user's widths and hidden columns, remembered per dataset.

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
const NAME_FIT_MAX = 320;

/** A column's width: as dragged, else wide enough for its name (the part after its namespace, as shown), up to a limit. */
export function widthOf(layout: ColumnLayout, column: string): number {
  const dragged = layout.widths[column];
  if (dragged !== undefined) return dragged;
  if (column === '_id') return ID_WIDTH;
  const name = column.slice(column.lastIndexOf(':') + 1);
  return Math.max(DEFAULT_WIDTH, Math.min(NAME_FIT_MAX, Math.ceil(name.length * HEAD_CHAR + HEAD_PAD)));
}

export function clampWidth(px: number): number {
  return Math.round(Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, px)));
}

// The pipe list's column widths the user dragged, by column key, kept in localStorage: a heading's right edge drags to
// resize its column, a double-click drops the dragged width (the column fits its text again).
import type { SortKey } from './pipe-list';

const WIDTHS_KEY = 'datahub.pipes.column-widths';

type Widths = Partial<Record<SortKey, number>>;

function read(): Widths {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(WIDTHS_KEY) ?? '{}');
    return v !== null && typeof v === 'object' ? (v as Widths) : {};
  } catch {
    return {};
  }
}

export class UserWidths {
  widths = $state<Widths>(read());

  private set(next: Widths): void {
    this.widths = next;
    localStorage.setItem(WIDTHS_KEY, JSON.stringify(next));
  }

  /** Drag from a heading's edge (`start`: the column's width now). */
  startResize(event: PointerEvent, key: SortKey, start: number): void {
    event.preventDefault();
    event.stopPropagation();
    const startX = event.clientX;
    const target = event.currentTarget as HTMLElement;
    target.setPointerCapture(event.pointerId);
    const move = (e: PointerEvent): void => this.set({ ...this.widths, [key]: Math.max(40, Math.round(start + e.clientX - startX)) });
    const up = (): void => {
      target.removeEventListener('pointermove', move);
      target.removeEventListener('pointerup', up);
    };
    target.addEventListener('pointermove', move);
    target.addEventListener('pointerup', up);
  }

  reset(key: SortKey): void {
    const { [key]: _dropped, ...rest } = this.widths;
    this.set(rest);
  }
}

// The window of rows a long list keeps in the DOM (rows of one height, measured from a rendered row; spacer rows
// stand in for the rest). The window moves in steps of CHUNK rows, a chunk above and below the rows in view, and the
// scroll position is state only as the chunk at the top of the view: a scroll changes the DOM (and runs any reactive
// code) once every few dozen rows, and the frames between only move what is painted (test/bench/list-scroll-bench.ts).
export const CHUNK = 24;

export class RowWindow {
  rowHeight = $state(30);
  viewHeight = $state(800);
  private topChunk = $state(0);
  private readonly count: () => number;

  constructor(count: () => number) {
    this.count = count;
  }

  readonly start = $derived(Math.max(0, (this.topChunk - 1) * CHUNK));
  get end(): number {
    return Math.min(this.count(), (this.topChunk + 2 + Math.ceil(this.viewHeight / this.rowHeight / CHUNK)) * CHUNK);
  }

  scrolled(scrollTop: number): void {
    this.topChunk = Math.floor(scrollTop / this.rowHeight / CHUNK);
  }

  /** A rendered row's height: kept when it differs from the one assumed. */
  measured(height: number | undefined, scrollTop: number): void {
    if (!height || Math.abs(height - this.rowHeight) <= 0.5) return;
    this.rowHeight = height;
    this.scrolled(scrollTop);
  }
}

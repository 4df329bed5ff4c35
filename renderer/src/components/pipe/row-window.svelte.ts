// The window of rows a long list keeps in the DOM (rows of one height, measured from a rendered row; spacer rows
// stand in for the rest). Up to ALL_ROWS rows are all drawn: the browser then scrolls them without any script or
// DOM change at all, which a row window cannot match (test/bench/list-scroll-bench.ts). Past that the window moves in
// steps of CHUNK rows, a chunk above and below the rows in view, and the scroll position is state only as the chunk
// at the top of the view: a scroll changes the DOM (and runs any reactive code) once every few dozen rows.
export const CHUNK = 24;
export const ALL_ROWS = 500;

export class RowWindow {
  rowHeight = $state(30);
  viewHeight = $state(800);
  private topChunk = $state(0);
  private readonly count: () => number;

  constructor(count: () => number) {
    this.count = count;
  }

  /** Every row drawn: nothing to do on scroll. */
  get all(): boolean {
    return this.count() <= ALL_ROWS;
  }

  get start(): number {
    return this.all ? 0 : Math.max(0, (this.topChunk - 1) * CHUNK);
  }

  get end(): number {
    const n = this.count();
    return this.all ? n : Math.min(n, (this.topChunk + 2 + Math.ceil(this.viewHeight / this.rowHeight / CHUNK)) * CHUNK);
  }

  scrolled(scrollTop: number): void {
    // Read only past ALL_ROWS: a state change on every scroll event would run the list's effects for nothing.
    if (!this.all) this.topChunk = Math.floor(scrollTop / this.rowHeight / CHUNK);
  }

  /** A rendered row's height: kept when it differs from the one assumed (only a window needs it). */
  measured(height: number | undefined, scrollTop: number): void {
    if (this.all || !height || Math.abs(height - this.rowHeight) <= 0.5) return;
    this.rowHeight = height;
    this.scrolled(scrollTop);
  }
}

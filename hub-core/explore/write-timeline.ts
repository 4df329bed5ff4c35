// The writes of a dataset over time (entities added, changed, deleted per bucket of `_ts`), built from counts and
// kept up to date one write at a time. Bucket widths are each a multiple of the one before, so a timeline that
// outgrows its width merges its buckets exactly; the width depends only on the first and last write.

/** Bucket widths in microseconds: 1 s, 10 s, 1 min, 10 min, 1 h, 6 h, 1 day, 1 week, 4 weeks, 52 weeks. */
export const TIMELINE_WIDTHS = [1, 10, 60, 600, 3600, 6 * 3600, 86400, 7 * 86400, 28 * 86400, 364 * 86400].map((s) => s * 1_000_000);
export const TIMELINE_BUCKETS = 60;

export interface TimelineBucket {
  start: string;
  added: number;
  changed: number;
  deleted: number;
}

export class WriteTimeline {
  private level = 0;
  private lo = Number.POSITIVE_INFINITY;
  private hi = Number.NEGATIVE_INFINITY;
  private buckets = new Map<number, [number, number, number]>();

  /** The width for writes from `lo` to `hi` (microseconds). */
  static widthFor(lo: number, hi: number): number {
    return TIMELINE_WIDTHS.find((w) => Math.floor(hi / w) - Math.floor(lo / w) + 1 <= TIMELINE_BUCKETS) ?? TIMELINE_WIDTHS[TIMELINE_WIDTHS.length - 1]!;
  }

  /** Counts of one bucket, as an aggregate query gives them; the width must be widthFor(lo, hi) of all writes. */
  static fromBuckets(lo: number, hi: number, rows: readonly [number, number, number, number][]): WriteTimeline {
    const t = new WriteTimeline();
    t.lo = lo;
    t.hi = hi;
    t.level = TIMELINE_WIDTHS.indexOf(WriteTimeline.widthFor(lo, hi));
    for (const [b, added, changed, deleted] of rows) t.buckets.set(b, [added, changed, deleted]);
    return t;
  }

  add(ts: number, kind: 0 | 1 | 2): void {
    if (ts < this.lo) this.lo = ts;
    if (ts > this.hi) this.hi = ts;
    const width = WriteTimeline.widthFor(this.lo, this.hi);
    const level = TIMELINE_WIDTHS.indexOf(width);
    if (level > this.level) {
      const factor = width / TIMELINE_WIDTHS[this.level]!;
      const merged = new Map<number, [number, number, number]>();
      for (const [b, c] of this.buckets) {
        const nb = Math.floor(b / factor);
        const m = merged.get(nb) ?? [0, 0, 0];
        merged.set(nb, [m[0] + c[0], m[1] + c[1], m[2] + c[2]]);
      }
      this.buckets = merged;
      this.level = level;
    }
    const b = Math.floor(ts / TIMELINE_WIDTHS[this.level]!);
    const c = this.buckets.get(b) ?? [0, 0, 0];
    c[kind]++;
    this.buckets.set(b, c);
  }

  output(): { width: number; buckets: TimelineBucket[] } {
    const width = TIMELINE_WIDTHS[this.level]!;
    return {
      width: width / 1e6,
      buckets: [...this.buckets]
        .sort((a, b) => a[0] - b[0])
        .map(([b, [added, changed, deleted]]) => ({ start: new Date((b * width) / 1000).toISOString(), added, changed, deleted })),
    };
  }
}

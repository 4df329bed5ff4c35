// A polled list whose answer is mostly what it was: the rows that did not change keep their objects, so that a keyed
// {#each} leaves them alone (a new object would run every expression of its row again), and a list with no change at
// all stays the same array (nothing derived from it is worked out again).

export class UnchangedRows<T> {
  /** The JSON of each row last seen, by key. */
  private texts = new Map<string, { text: string; row: T }>();

  /** `ignored`: top-level keys that differ at every answer without a change (the time the answer was made). */
  constructor(
    private readonly key: (row: T) => string,
    private readonly ignored: readonly string[] = [],
  ) {}

  private text(row: T): string {
    if (this.ignored.length === 0) return JSON.stringify(row);
    const copy = { ...(row as Record<string, unknown>) };
    for (const k of this.ignored) delete copy[k];
    return JSON.stringify(copy);
  }

  /** `next`, with each row equal (as JSON) to the last one of its key replaced by that one; `previous` if all were. */
  merge(previous: readonly T[], next: readonly T[]): readonly T[] {
    const texts = new Map<string, { text: string; row: T }>();
    let same = previous.length === next.length;
    const out = next.map((row, i) => {
      const key = this.key(row);
      const text = this.text(row);
      const seen = this.texts.get(key);
      const kept = seen !== undefined && seen.text === text ? seen.row : row;
      texts.set(key, { text, row: kept });
      if (kept !== previous[i]) same = false;
      return kept;
    });
    this.texts = texts;
    return same ? previous : out;
  }
}

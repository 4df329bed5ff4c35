// Bounded-memory summaries for dataset profiles: value counts that are exact up to a bound and then turn into
// sketches (HyperLogLog for the number of distinct values, Misra-Gries for the most frequent ones), and histograms
// whose bins are powers of two wide, coarsened as the range grows.
//
// No npm package fitted: the maintained HyperLogLog packages need a native murmurhash module, and the rest are
// unmaintained or carry a whole library of data structures. Both sketches are a few lines each.

/** How many distinct values a property keeps exact counts for before it switches to sketches. */
export const EXACT_DISTINCT = 1000;
/** Counters of the Misra-Gries summary: every value more frequent than n/(TOP_CAPACITY+1) is in it. */
const TOP_CAPACITY = 200;
/** HyperLogLog with 2^12 registers: a standard error of about 1.6 %. */
const HLL_BITS = 12;
const HLL_SIZE = 1 << HLL_BITS;

/** 32-bit FNV-1a over UTF-16 code units, finished with murmur3's avalanche so all bits are usable. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class HyperLogLog {
  readonly registers = new Uint8Array(HLL_SIZE);

  add(key: string): void {
    const h = hash32(key);
    const idx = h >>> (32 - HLL_BITS);
    const rest = (h << HLL_BITS) >>> 0;
    const rank = rest === 0 ? 32 - HLL_BITS + 1 : Math.clz32(rest) + 1;
    if (rank > this.registers[idx]!) this.registers[idx] = rank;
  }

  estimate(): number {
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < HLL_SIZE; i++) {
      const r = this.registers[i]!;
      sum += 2 ** -r;
      if (r === 0) zeros++;
    }
    const alpha = 0.7213 / (1 + 1.079 / HLL_SIZE);
    const raw = (alpha * HLL_SIZE * HLL_SIZE) / sum;
    // Small ranges: linear counting is the better estimate.
    if (raw <= 2.5 * HLL_SIZE && zeros > 0) return Math.round(HLL_SIZE * Math.log(HLL_SIZE / zeros));
    return Math.round(raw);
  }
}

export interface TopValue {
  key: string;
  count: number;
}

/**
 * Counts of the values of one property. Exact (a map of every value) while there are at most EXACT_DISTINCT of them;
 * after that the distinct count is a HyperLogLog estimate and the top values a Misra-Gries summary, whose counts are
 * lower bounds. Removing a value is exact in the exact mode; in sketch mode it cannot be, and `remove` says so.
 */
export class ValueCounter {
  private exact: Map<string, number> | undefined = new Map();
  private hll: HyperLogLog | undefined;
  private top: Map<string, number> | undefined;

  get isExact(): boolean {
    return this.exact !== undefined;
  }

  add(key: string): void {
    if (this.exact) {
      this.exact.set(key, (this.exact.get(key) ?? 0) + 1);
      if (this.exact.size > EXACT_DISTINCT) this.toSketch();
      return;
    }
    this.hll!.add(key);
    const top = this.top!;
    const c = top.get(key);
    if (c !== undefined) top.set(key, c + 1);
    else if (top.size < TOP_CAPACITY) top.set(key, 1);
    else {
      for (const [k, n] of top) {
        if (n <= 1) top.delete(k);
        else top.set(k, n - 1);
      }
    }
  }

  /** Remove one occurrence; false when that cannot be done exactly (sketch mode). */
  remove(key: string): boolean {
    if (!this.exact) return false;
    const c = this.exact.get(key);
    if (c === undefined) return false;
    if (c <= 1) this.exact.delete(key);
    else this.exact.set(key, c - 1);
    return true;
  }

  /** Every value with its count, while exact. */
  entries(): IterableIterator<[string, number]> | undefined {
    return this.exact?.entries();
  }

  private toSketch(): void {
    const exact = this.exact!;
    this.hll = new HyperLogLog();
    for (const k of exact.keys()) this.hll.add(k);
    const sorted = [...exact].sort(byCount).slice(0, TOP_CAPACITY);
    this.top = new Map(sorted);
    this.exact = undefined;
  }

  distinct(): number {
    return this.exact ? this.exact.size : this.hll!.estimate();
  }

  /** The most frequent values, most frequent first (ties by key), at most `n`. */
  mostFrequent(n: number): TopValue[] {
    const entries = [...(this.exact ?? this.top!)].sort(byCount).slice(0, n);
    return entries.map(([key, count]) => ({ key, count }));
  }
}

function byCount(a: [string, number], b: [string, number]): number {
  return b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

/** Bins the histograms never exceed. */
export const MAX_BINS = 64;
/** The finest bin width: 2^MIN_EXP. */
const MIN_EXP = -20;

export interface HistogramBin {
  from: number;
  to: number;
  count: number;
}

/**
 * A histogram with bins 2^exp wide, aligned to multiples of their width. `exp` is always the smallest that covers
 * the range of the values seen with at most MAX_BINS bins, so it depends only on the minimum and the maximum, not on
 * the order the values came in. Counts can be taken away again exactly.
 */
export class DyadicHistogram {
  exp = MIN_EXP;
  private bins = new Map<number, number>();
  private lo = Number.POSITIVE_INFINITY;
  private hi = Number.NEGATIVE_INFINITY;

  add(v: number, by = 1): void {
    if (!Number.isFinite(v)) return;
    if (by > 0) {
      if (v < this.lo) this.lo = v;
      if (v > this.hi) this.hi = v;
      const old = this.exp;
      while (Math.floor(this.hi / 2 ** this.exp) - Math.floor(this.lo / 2 ** this.exp) + 1 > MAX_BINS) this.exp++;
      if (this.exp !== old) {
        // A bin of the old width lies wholly inside one bin of the new: no count moves across a boundary.
        const next = new Map<number, number>();
        const factor = 2 ** (this.exp - old);
        for (const [b, n] of this.bins) {
          const nb = Math.floor(b / factor);
          next.set(nb, (next.get(nb) ?? 0) + n);
        }
        this.bins = next;
      }
    }
    const b = Math.floor(v / 2 ** this.exp);
    const n = (this.bins.get(b) ?? 0) + by;
    if (n <= 0) this.bins.delete(b);
    else this.bins.set(b, n);
  }

  /** Dense bins from the first to the last non-empty one; `atLeast` widens them (integers: bins at least 1 wide). */
  output(atLeast = MIN_EXP): { width: number; bins: HistogramBin[] } | null {
    if (this.bins.size === 0) return null;
    // Bins numbered beyond 2^52 could not be told apart (b + 1 === b): values that large get wider bins.
    const magnitude = Math.max(Math.abs(this.lo), Math.abs(this.hi));
    const exact = magnitude > 0 && Number.isFinite(magnitude) ? Math.ceil(Math.log2(magnitude)) - 52 : MIN_EXP;
    const exp = Math.max(this.exp, atLeast, exact);
    const width = 2 ** exp;
    const merged = new Map<number, number>();
    const factor = 2 ** (exp - this.exp);
    for (const [b, n] of this.bins) {
      const nb = Math.floor(b / factor);
      merged.set(nb, (merged.get(nb) ?? 0) + n);
    }
    const keys = [...merged.keys()];
    const first = Math.min(...keys);
    const last = Math.max(...keys);
    const bins: HistogramBin[] = [];
    for (let i = 0; i <= last - first; i++) {
      const b = first + i;
      bins.push({ from: b * width, to: (b + 1) * width, count: merged.get(b) ?? 0 });
    }
    return { width, bins };
  }
}

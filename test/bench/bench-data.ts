// The bench's generated entities: deterministic (the same on every run), ~150 bytes of JSON each. A stream, so that
// ten million of them never sit in memory at once (test/bench/scale-bench.ts); bench.ts collects the smaller counts.

export interface BenchEntity {
  _id: string;
  name: string;
  email: string;
  age: number;
  city: string;
  tags: string[];
  active: boolean;
}

const FIRST = ['Alice', 'Bob', 'Carla', 'Dmitri', 'Eva', 'Farouk', 'Greta', 'Hiro', 'Ingrid', 'Jonas', 'Kari', 'Lars', 'Mona', 'Nils', 'Olga', 'Per'];
const LAST = ['Hansen', 'Johansen', 'Olsen', 'Larsen', 'Andersen', 'Pedersen', 'Nilsen', 'Kristiansen', 'Jensen', 'Karlsen', 'Berg', 'Haugen'];
const CITIES = ['Oslo', 'Bergen', 'Trondheim', 'Stavanger', 'Tromsø', 'Drammen', 'Fredrikstad', 'Kristiansand', 'Ålesund', 'Bodø'];
const TAGS = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'theta'];

/** Deterministic PRNG (mulberry32) so every run uses the same data. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Entities 0 .. count-1, one at a time. */
export function* benchEntityStream(count: number): Generator<BenchEntity, void, undefined> {
  const r = rng(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const width = Math.max(7, String(count - 1).length);
  for (let i = 0; i < count; i++) {
    const first = pick(FIRST);
    const last = pick(LAST);
    yield {
      _id: 'e' + String(i).padStart(width, '0'),
      name: `${first} ${last}`,
      email: `${first.toLowerCase()}.${last.toLowerCase()}${i}@example.com`,
      age: 18 + Math.floor(r() * 70),
      city: pick(CITIES),
      tags: [pick(TAGS), pick(TAGS)],
      active: r() < 0.7,
    };
  }
}

/** All of them in an array (counts that fit in memory). */
export function generate(count: number): BenchEntity[] {
  return Array.from(benchEntityStream(count));
}

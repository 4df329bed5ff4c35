// The layouts of the flow graph's connected parts, kept in localStorage between app opens: a part is laid out by dagre
// once, and the next open (or a project where only some parts changed) takes what is kept for the rest. A part is found
// by a hash of what its layout depends on (its nodes in order, with the text that sizes them, and its edges) and the
// view's shape it was made for; what the layout code makes is versioned by LAYOUT_VERSION. The store is read once,
// written a moment after it changed, and holds at most MAX_CHARS of JSON (least recently used parts dropped first).
import type { FlowLayout } from './flow-layout';
import type { FlowModel } from './flow-model';

/** Raise when flow-layout.ts lays a part out differently: what was kept before is dropped. */
export const LAYOUT_VERSION = 4;
const KEY = 'datahub.flow.parts';
/** About 1.5 MB of JSON: some thousands of nodes, far below what a browser allows an origin. */
const MAX_CHARS = 1_500_000;
const NEAR_ASPECT = 0.2;

interface Kept {
  aspect: number;
  layout: FlowLayout;
  /** When it was last used (a counter that grows), to drop the least recently used first. */
  used: number;
}

interface Stored {
  version: number;
  parts: Record<string, Kept[]>;
}

/** 53-bit hash of a string (cyrb53), in base 36. */
function hash(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** What a part's layout depends on, hashed: its nodes in order with the text that sizes them, and its edges. */
export function partKey(part: FlowModel): string {
  const nodes = part.nodes.map((n) => `${n.key}\u0001${n.kind}\u0001${n.id}\u0001${n.detail}`).join('\u0002');
  const edges = part.edges.map((e) => `${e.key}\u0001${e.from}\u0001${e.to}`).join('\u0002');
  return `${part.nodes.length}.${hash(`${nodes}\u0003${edges}`)}`;
}

const round = (v: number): number => Math.round(v * 10) / 10;

/** Coordinates to a tenth of a pixel: a third of the JSON, nothing anyone sees. */
function compact(l: FlowLayout): FlowLayout {
  return {
    nodes: l.nodes.map((n) => ({ ...n, x: round(n.x), y: round(n.y) })),
    edges: l.edges.map((e) => ({ key: e.key, points: e.points.map((p) => ({ x: round(p.x), y: round(p.y) })) })),
    width: l.width,
    height: l.height,
  };
}

export class PartStore {
  private parts: Map<string, Kept[]> | null = null;
  private clock = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null,
    private readonly key = KEY,
  ) {}

  private load(): Map<string, Kept[]> {
    if (this.parts) return this.parts;
    this.parts = new Map();
    try {
      const v = JSON.parse(this.storage?.getItem(this.key) ?? 'null') as Stored | null;
      if (v && v.version === LAYOUT_VERSION && typeof v.parts === 'object') {
        for (const [k, kept] of Object.entries(v.parts)) if (Array.isArray(kept)) this.parts.set(k, kept);
        this.clock = Math.max(0, ...[...this.parts.values()].flat().map((k) => k.used));
      }
    } catch {
      // Unreadable or switched off: start empty.
    }
    return this.parts;
  }

  /** The layout kept for the part `key` made for a view of a shape near `aspect`. */
  get(key: string, aspect: number): FlowLayout | undefined {
    const hit = this.load()
      .get(key)
      ?.find((k) => Math.abs(Math.log(k.aspect / aspect)) <= NEAR_ASPECT);
    if (hit) hit.used = ++this.clock;
    return hit?.layout;
  }

  put(key: string, aspect: number, layout: FlowLayout): void {
    const parts = this.load();
    const others = (parts.get(key) ?? []).filter((k) => Math.abs(Math.log(k.aspect / aspect)) > NEAR_ASPECT);
    parts.set(key, [...others, { aspect, layout: compact(layout), used: ++this.clock }]);
    this.saveSoon();
  }

  private saveSoon(): void {
    if (this.timer !== null || !this.storage) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.save();
    }, 300);
  }

  /** Write the store, the most recently used parts first until MAX_CHARS. */
  save(): void {
    if (!this.parts || !this.storage) return;
    const entries = [...this.parts].flatMap(([k, kept]) => kept.map((x) => ({ k, x, json: JSON.stringify(x) })));
    entries.sort((a, b) => b.x.used - a.x.used);
    const parts: Record<string, Kept[]> = {};
    let chars = 0;
    for (const e of entries) {
      chars += e.json.length + e.k.length + 8;
      if (chars > MAX_CHARS) break;
      (parts[e.k] ??= []).push(e.x);
    }
    try {
      this.storage.setItem(this.key, JSON.stringify({ version: LAYOUT_VERSION, parts } satisfies Stored));
    } catch {
      // Full or switched off: the layouts are made again next time.
      this.storage.removeItem(this.key);
    }
  }
}

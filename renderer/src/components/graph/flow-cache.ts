// What the flow graph keeps between visits, for the app's lifetime: the layout pool (its workers started on the first
// visit, while the pipes are still being read, and kept), the last layouts by the structure they were made for, and the
// last pipes and datasets read (by the graph, or by the app for its sidebar). The layouts of the graph's connected parts
// are also kept between app opens (lib/flow-part-store.ts): a graph whose parts were all laid out before is packed at
// once, and a changed one lays out only its new parts. The graph starts from those lists and
// reads them again behind. The app's lists are laid out in the workers as soon as they are read (prefetch), so that even
// a first visit draws at once; a layout under way is shared, not made twice.
import { LayoutPool } from '../../lib/flow-layout-pool';
import { components, packParts, type FlowLayout } from '../../lib/flow-layout';
import { PartStore, partKey } from '../../lib/flow-part-store';
import { buildFlowModel, type FlowModel } from '../../lib/flow-model';
import type { DatasetInfo, PipeInfo } from '../../lib/types';
import type { LastRun } from '../pipe/pipe-pump';

const KEEP_LAYOUTS = 8;

let pool: LayoutPool | null = null;

export function layoutPool(): LayoutPool {
  pool ??= new LayoutPool(() => new Worker(new URL('../../lib/flow-layout.worker.ts', import.meta.url), { type: 'module' }));
  return pool;
}

export interface CachedLayout {
  layout: FlowLayout;
  ms: number;
  workers: number;
  /** How many of its connected parts dagre laid out for it (the others were kept from before: flow-part-store.ts). */
  laid: number;
  parts: number;
  /** Only some of the parts, packed, while the others are still being laid out (the whole one follows). */
  partial?: boolean;
}

/** Sees the parts of a layout under way, packed, as they come (the graph draws them before the rest is done). */
export type OnPartial = (r: CachedLayout) => void;

let store: PartStore | null = null;
const partStore = (): PartStore => (store ??= new PartStore(typeof localStorage === 'undefined' ? null : localStorage));

/** What a layout depends on in a model: its nodes (with the text that sizes them) and edges, not their colours. */
export const layoutStructure = (m: FlowModel): string => `${m.nodes.map((n) => `${n.key}|${n.detail}`).join('\n')}\n--\n${m.edges.map((e) => e.key).join('\n')}`;

/**
 * A layout made for a view of one shape serves a view of a shape near it (parts packed a little wider or narrower than
 * they could be): a window resized a little, or the canvas guessed before it was shown, lays out nothing again.
 */
const NEAR_ASPECT = 0.2;
const near = (a: number, b: number): boolean => Math.abs(Math.log(a / b)) <= NEAR_ASPECT;

interface Entry {
  structure: string;
  aspect: number;
  value: CachedLayout;
}
// Most recently used last.
let layouts: Entry[] = [];
/** Layouts being made, to be shared by whoever asks for the same structure meanwhile, with the parts made so far. */
const pending: { structure: string; aspect: number; result: Promise<CachedLayout>; partial: CachedLayout | null; watchers: OnPartial[] }[] = [];

export function cachedLayout(structure: string, aspect: number): CachedLayout | undefined {
  const hit = layouts.find((e) => e.structure === structure && near(e.aspect, aspect));
  if (hit) layouts = [...layouts.filter((e) => e !== hit), hit];
  return hit?.value;
}

export function cacheLayout(structure: string, aspect: number, value: CachedLayout): void {
  layouts = [...layouts.filter((e) => e.structure !== structure || !near(e.aspect, aspect)), { structure, aspect, value }].slice(-KEEP_LAYOUTS);
}

/**
 * The layout of `model` made of parts kept from before (this visit, or an earlier app open), or undefined when one of
 * its parts must be laid out. Cheap: the model split into parts, hashed and packed (a few ms for 500 nodes).
 */
export function layoutAtOnce(model: FlowModel, structure: string, aspect: number): CachedLayout | undefined {
  const hit = cachedLayout(structure, aspect);
  if (hit) return hit;
  const t0 = performance.now();
  const parts = components(model);
  const kept = parts.map((p) => partStore().get(partKey(p), aspect));
  if (kept.some((l) => l === undefined)) return undefined;
  const value = { layout: packParts(kept as FlowLayout[], aspect), ms: performance.now() - t0, workers: 0, laid: 0, parts: parts.length };
  cacheLayout(structure, aspect, value);
  return value;
}

/**
 * The layout of `model` for a view `aspect` times as wide as high: from the cache, from a request under way, or made
 * (only its parts that were not kept laid out, in the workers). `onPartial` sees the parts there are so far, packed,
 * each time one more comes (at once if some came before it asked): the smallest come first.
 */
export function layoutFor(model: FlowModel, structure: string, aspect: number, onPartial?: OnPartial): Promise<CachedLayout> {
  const going = pending.find((p) => p.structure === structure && near(p.aspect, aspect));
  if (going) {
    if (onPartial) {
      going.watchers.push(onPartial);
      if (going.partial) onPartial(going.partial);
    }
    return going.result;
  }
  const now = layoutAtOnce(model, structure, aspect);
  if (now) return Promise.resolve(now);
  const t0 = performance.now();
  // Plain objects: state proxies cannot be posted to a worker.
  const parts = components(JSON.parse(JSON.stringify(model)) as FlowModel);
  const keys = parts.map(partKey);
  const kept = keys.map((k) => partStore().get(k, aspect));
  const missing = parts.filter((_, i) => kept[i] === undefined);
  const where = kept.flatMap((l, i) => (l ? [] : [i]));
  const sofar = kept.slice();
  // The parts there are so far (kept, or laid out since), packed: a few ms.
  const publish = (): void => {
    const have = sofar.filter((l) => l !== undefined);
    if (have.length === 0 || have.length === parts.length) return;
    entry.partial = { layout: packParts(have, aspect), ms: performance.now() - t0, workers: 0, laid: have.length, parts: parts.length, partial: true };
    for (const w of entry.watchers) w(entry.partial);
  };
  const onPart = (k: number, made: FlowLayout): void => {
    sofar[where[k]!] = made;
    publish();
  };
  const entry: (typeof pending)[number] = {
    structure,
    aspect,
    partial: null,
    watchers: onPartial ? [onPartial] : [],
    result: layoutPool()
      .layoutParts(missing, aspect, onPart)
      .then((r) => {
        let next = 0;
        const all = kept.map((l, i) => {
          if (l) return l;
          const made = r.layouts[next++]!;
          partStore().put(keys[i]!, aspect, made);
          return made;
        });
        const value = { layout: packParts(all, aspect), ms: performance.now() - t0, workers: r.workers, laid: missing.length, parts: parts.length };
        cacheLayout(structure, aspect, value);
        return value;
      })
      .finally(() => pending.splice(pending.indexOf(entry), 1)),
  };
  pending.push(entry);
  publish();
  return entry.result;
}

/** The flow graph canvas's shape, before it is shown: the window less the sidebar, bars and hints around it. */
export const expectedAspect = (): number => Math.max(320, window.innerWidth - 260) / Math.max(240, window.innerHeight - 230);

let prefetchTimer: ReturnType<typeof setTimeout> | null = null;

/**
 * Lay out the whole graph of `s` right after the lists are read, so that the first visit to the graph finds it laid out
 * or under way. The page's part is small (the model, split into parts and posted: tens of ms for 300 pipes); the
 * workers do the rest, on other cores. A later call before the timer ran replaces the earlier one.
 */
function prefetch(s: FlowSnapshot): void {
  if (prefetchTimer !== null) clearTimeout(prefetchTimer);
  prefetchTimer = setTimeout(() => {
    prefetchTimer = null;
    const model = buildFlowModel(s.pipes, s.datasets, s.failed);
    if (model.nodes.length === 0 || typeof Worker !== 'function') return;
    layoutFor(model, layoutStructure(model), expectedAspect()).catch(() => {
      // The graph tries again when it is opened, and says what failed.
    });
  }, 0);
}

export interface FlowSnapshot {
  pipes: PipeInfo[];
  datasets: DatasetInfo[];
  failed: Set<string>;
}

let snapshot: FlowSnapshot | null = null;

export const lastFlowData = (): FlowSnapshot | null => snapshot;

export function keepFlowData(s: FlowSnapshot): void {
  snapshot = s;
}

/**
 * Lists the app read for itself (at start, after changes): the graph starts from them. Failed runs are those the pipe
 * list reports; for pipes it reports none of (the hosted service), those the graph found in their logs before.
 */
export function seedFlowData(pipes: PipeInfo[], datasets: DatasetInfo[]): void {
  const reported = pipes.filter((p) => (p.runtime['last-run'] as LastRun | null | undefined)?.status === 'failed').map((p) => p._id);
  const unreported = new Set(pipes.filter((p) => !('last-run' in p.runtime)).map((p) => p._id));
  const kept = [...(snapshot?.failed ?? [])].filter((id) => unreported.has(id));
  snapshot = { pipes, datasets, failed: new Set([...reported, ...kept]) };
  prefetch(snapshot);
}

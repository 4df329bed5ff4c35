// What the flow graph keeps between visits, for the app's lifetime: the layout pool (its workers started on the first
// visit, while the pipes are still being read, and kept), the last layouts by the structure they were made for, and the
// last pipes and datasets read (by the graph, or by the app for its sidebar). The graph starts from those lists and
// reads them again behind: a first visit lays out from the click on, a second one draws what it saw at once.
import { LayoutPool } from '../../lib/flow-layout-pool';
import type { FlowLayout } from '../../lib/flow-layout';
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
}

// Most recently used last.
const layouts = new Map<string, CachedLayout>();

/** The key of a layout: the model's structure (`structure`) and the view's shape, in tenths. */
export const layoutCacheKey = (structure: string, aspect: number): string => `${aspect.toFixed(1)}\n${structure}`;

export function cachedLayout(key: string): CachedLayout | undefined {
  const hit = layouts.get(key);
  if (hit) {
    layouts.delete(key);
    layouts.set(key, hit);
  }
  return hit;
}

export function cacheLayout(key: string, value: CachedLayout): void {
  layouts.delete(key);
  layouts.set(key, value);
  while (layouts.size > KEEP_LAYOUTS) layouts.delete(layouts.keys().next().value!);
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
}

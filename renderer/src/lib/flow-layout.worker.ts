// Lays out the connected parts of a flow model sent to it (flow-layout-pool.ts), off the UI thread, and says how long
// that took.
import { layoutPart } from './flow-layout';
import type { FlowModel } from './flow-model';

self.onmessage = (event: MessageEvent<{ id: number; parts: FlowModel[]; aspect: number }>) => {
  const { id, parts, aspect } = event.data;
  try {
    const t0 = performance.now();
    const layouts = parts.map((p) => layoutPart(p, aspect));
    self.postMessage({ id, layouts, ms: performance.now() - t0 });
  } catch (e) {
    self.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
};

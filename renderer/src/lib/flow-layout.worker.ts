// Lays out one flow model per message, off the UI thread, and says how long that took.
import { layoutFlow } from './flow-layout';
import type { FlowModel } from './flow-model';

self.onmessage = (event: MessageEvent<{ id: number; model: FlowModel; aspect?: number }>) => {
  const { id, model, aspect } = event.data;
  try {
    const t0 = performance.now();
    const layout = layoutFlow(model, aspect);
    self.postMessage({ id, layout, ms: performance.now() - t0 });
  } catch (e) {
    self.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
};

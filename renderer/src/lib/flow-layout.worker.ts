// Lays out one flow model per message, off the UI thread.
import { layoutFlow } from './flow-layout';
import type { FlowModel } from './flow-model';

self.onmessage = (event: MessageEvent<{ id: number; model: FlowModel }>) => {
  const { id, model } = event.data;
  try {
    self.postMessage({ id, layout: layoutFlow(model) });
  } catch (e) {
    self.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
};

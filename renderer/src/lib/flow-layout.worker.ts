// Lays out the connected parts of a flow model sent to it (flow-layout-pool.ts), off the UI thread: each part posted as
// soon as it is laid out, smallest first (the graph draws the parts as they come: the first ones come soonest), then a
// last message says how long all took.
import { layoutPart } from './flow-layout';
import type { FlowModel } from './flow-model';

self.onmessage = (event: MessageEvent<{ id: number; parts: FlowModel[]; aspect: number }>) => {
  const { id, parts, aspect } = event.data;
  try {
    const t0 = performance.now();
    const order = parts.map((_, i) => i).sort((a, b) => parts[a]!.nodes.length - parts[b]!.nodes.length);
    for (const part of order) self.postMessage({ id, part, layout: layoutPart(parts[part]!, aspect) });
    self.postMessage({ id, done: true, ms: performance.now() - t0 });
  } catch (e) {
    self.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
};

// The flow graph's layout on a few workers at once: the model's connected parts (a project is mostly many separate
// chains) are dealt out to up to MAX_WORKERS workers by size, laid out side by side, and packed when all are back. The
// wait is the biggest share instead of the sum; the UI thread only splits and packs. Without workers (or when one
// fails) the layout runs here.
import { components, layoutPart, packParts, type FlowLayout } from './flow-layout';
import type { FlowModel } from './flow-model';

const MAX_WORKERS = 4;

/** What a worker posts: one part laid out (`part`, its index in the request), the end (`done`), or an error. */
type Message = { id: number; part?: number; layout?: FlowLayout; done?: boolean; ms?: number; error?: string };
type Answer = { id: number; layouts?: FlowLayout[]; ms?: number; error?: string };
/** Called with each part as it arrives: its index in `parts` and its layout. */
export type OnPart = (index: number, layout: FlowLayout) => void;

export interface PoolResult {
  layout: FlowLayout;
  /** From the request until the last part was back (what the user waits), ms. */
  wallMs: number;
  /** The workers' own time, summed, ms; null when the layout ran on the UI thread. */
  workerMs: number | null;
  /** How many workers had parts to lay out (0: the UI thread did it). */
  workers: number;
}

export interface PartsResult {
  layouts: FlowLayout[];
  workerMs: number | null;
  workers: number;
}

export class LayoutPool {
  private workers: Worker[] | null = null;
  private next = 0;
  private readonly pending = new Map<number, (m: Message) => void>();

  constructor(private readonly make: () => Worker) {}

  private pool(): Worker[] {
    if (this.workers) return this.workers;
    const n = Math.max(1, Math.min(MAX_WORKERS, navigator.hardwareConcurrency || 2));
    const made: Worker[] = [];
    for (let i = 0; i < n; i++) {
      const w = this.make();
      w.onmessage = (ev: MessageEvent<Message>) => {
        const take = this.pending.get(ev.data.id);
        if (ev.data.done || ev.data.error !== undefined) this.pending.delete(ev.data.id);
        take?.(ev.data);
      };
      w.onerror = () => {
        for (const [id, done] of this.pending) done({ id, error: 'the layout worker failed' });
        this.pending.clear();
        this.terminate();
      };
      made.push(w);
    }
    this.workers = made;
    return made;
  }

  /** Start the workers (they load the layout code) before there is anything to lay out. */
  warm(): void {
    try {
      this.pool();
    } catch {
      // No workers here: layout() runs on the UI thread.
    }
  }

  async layout(model: FlowModel, aspect: number): Promise<PoolResult> {
    const t0 = performance.now();
    const r = await this.layoutParts(components(model), aspect);
    return { layout: packParts(r.layouts, aspect), wallMs: performance.now() - t0, workerMs: r.workerMs, workers: r.workers };
  }

  /** Each of `parts` (connected parts, biggest first) laid out on its own, in the same order; `onPart` sees each come. */
  async layoutParts(parts: FlowModel[], aspect: number, onPart?: OnPart): Promise<PartsResult> {
    const local = (): PartsResult => ({ layouts: parts.map((p) => layoutPart(p, aspect)), workerMs: null, workers: 0 });
    let workers: Worker[];
    try {
      workers = this.pool();
    } catch {
      return local();
    }
    // Biggest parts first, each to the worker with the fewest nodes so far; every worker's parts keep their order.
    const shares = workers.map(() => ({ nodes: 0, parts: [] as number[] }));
    parts.forEach((p, i) => {
      const least = shares.reduce((a, b) => (b.nodes < a.nodes ? b : a));
      least.nodes += p.nodes.length + p.edges.length;
      least.parts.push(i);
    });
    const answers = await Promise.all(
      shares.map((share, w) => {
        if (share.parts.length === 0) return Promise.resolve<Answer>({ id: -1, layouts: [], ms: 0 });
        const id = ++this.next;
        return new Promise<Answer>((resolve) => {
          const layouts: FlowLayout[] = [];
          this.pending.set(id, (m) => {
            if (m.part !== undefined && m.layout) {
              layouts[m.part] = m.layout;
              onPart?.(share.parts[m.part]!, m.layout);
            } else if (m.done) resolve({ id, layouts, ms: m.ms ?? 0 });
            else resolve({ id, error: m.error ?? 'unknown error' });
          });
          workers[w]!.postMessage({ id, parts: share.parts.map((i) => parts[i]!), aspect });
        });
      }),
    );
    if (answers.some((a) => a.error !== undefined || !a.layouts)) {
      if (answers.every((a) => a.error === 'the layout worker failed' || a.layouts)) return local();
      throw new Error(answers.find((a) => a.error !== undefined)?.error ?? 'unknown error');
    }
    const laid: FlowLayout[] = new Array<FlowLayout>(parts.length);
    shares.forEach((share, w) => share.parts.forEach((i, k) => (laid[i] = answers[w]!.layouts![k]!)));
    return { layouts: laid, workerMs: answers.reduce((a, b) => a + (b.ms ?? 0), 0), workers: shares.filter((x) => x.parts.length > 0).length };
  }

  terminate(): void {
    for (const w of this.workers ?? []) w.terminate();
    this.workers = null;
  }
}

// Bytes on disk of large datasets, counted off the event loop. SQLite's dbstat walks every page of a table to count
// them: a few milliseconds for a small dataset, seconds for one of millions of versions (2 s at 2,000,000 on the
// development machine), and the explorer and the Datasets list ask for it on every load. A dataset with more than
// BACKGROUND_FROM_VERSIONS stored versions is counted by a worker thread on a read-only connection of its own
// (disk-usage-worker.ts); until its answer the hub answers with the last count (or an estimate) scaled to the
// versions stored now.
import { Worker } from 'node:worker_threads';

/** Datasets with more stored versions than this are counted in the background (DATAHUB_DISK_COUNT_FROM_VERSIONS). */
export function backgroundFromVersions(): number {
  const n = Number(process.env['DATAHUB_DISK_COUNT_FROM_VERSIONS']);
  return Number.isInteger(n) && n >= 0 ? n : 100_000;
}

interface Answer {
  id: number;
  bytes?: number;
  error?: string;
}

/** One worker per database file, started when a count is asked for and ended after a while without one. */
export class DiskUsageCounter {
  private worker: Worker | undefined;
  private next = 1;
  private readonly pending = new Map<number, (bytes: number | undefined) => void>();

  constructor(private readonly file: string) {}

  /** The bytes of the pages `tables` use; undefined when the count failed (the dataset was deleted meanwhile, say). */
  count(tables: readonly string[]): Promise<number | undefined> {
    const worker = this.worker ?? this.start();
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      worker.ref();
      worker.postMessage({ id, tables });
    });
  }

  private start(): Worker {
    const worker = new Worker(new URL('./disk-usage-worker.js', import.meta.url), { workerData: { file: this.file } });
    worker.unref();
    const settle = (): void => {
      for (const resolve of this.pending.values()) resolve(undefined);
      this.pending.clear();
      if (this.worker === worker) this.worker = undefined;
    };
    worker.on('message', (a: Answer) => {
      const resolve = this.pending.get(a.id);
      this.pending.delete(a.id);
      if (this.pending.size === 0) worker.unref();
      resolve?.(a.error === undefined ? a.bytes : undefined);
    });
    worker.on('error', settle);
    worker.on('exit', settle);
    this.worker = worker;
    return worker;
  }

  close(): void {
    const w = this.worker;
    this.worker = undefined;
    if (w) void w.terminate();
  }
}

// The write-ahead log's checkpoints, off the hub's thread. By default SQLite checkpoints in the connection that
// commits, once the log passes 1,000 pages: the hub's thread, which also answers the API, then copies the log into
// the database file and syncs it in the middle of a large write (a write of 200,000 rows in parts: the parts took
// twice as long in total, p99 240 ms against 100–150 ms, with the checkpoints in them). Here the hub's connection
// does no checkpoint itself; its thread only looks at the log's size every CHECK_MS, and a worker thread with a
// connection of its own (wal-checkpoint-worker.ts) checkpoints once the log passes LOG_BYTES. A PASSIVE checkpoint
// waits for no one: the hub writes on meanwhile, and the log starts over from its beginning at the first write after
// a checkpoint that copied all of it. The worker starts when first needed and ends after a while without work.
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';

/** How often the hub's thread looks at the log's size. */
const CHECK_MS = 250;
/** The log's size from which a checkpoint runs (SQLite's own default: 1,000 pages of 4 KB). */
const LOG_BYTES = 4 * 1024 * 1024;

export class WalCheckpointer {
  private worker: Worker | undefined;
  private busy = false;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  /** Starts at once: from now on `db` does not checkpoint by itself. */
  constructor(
    private readonly db: Db,
    private readonly file: string,
  ) {
    db.pragma('wal_autocheckpoint = 0');
    this.timer = setInterval(() => this.check(), CHECK_MS);
    this.timer.unref();
  }

  private logBytes(): number {
    try {
      return statSync(`${this.file}-wal`).size;
    } catch {
      return 0;
    }
  }

  private check(): void {
    if (this.busy || this.closed || this.logBytes() < LOG_BYTES) return;
    const worker = this.worker ?? this.start();
    if (worker === undefined) return;
    this.busy = true;
    worker.ref();
    worker.postMessage('checkpoint');
  }

  private start(): Worker | undefined {
    let worker: Worker;
    try {
      worker = new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url), { workerData: { file: this.file } });
    } catch {
      // No worker threads here: the hub's connection checkpoints by itself again, as SQLite does by default.
      clearInterval(this.timer);
      if (this.db.open) this.db.pragma('wal_autocheckpoint = 1000');
      return undefined;
    }
    worker.unref();
    worker.on('message', () => {
      this.busy = false;
      worker.unref();
    });
    const gone = (): void => {
      this.busy = false;
      if (this.worker === worker) this.worker = undefined;
    };
    worker.on('error', gone);
    worker.on('exit', gone);
    this.worker = worker;
    return worker;
  }

  /** Before the hub's connection closes (which checkpoints what is left). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}

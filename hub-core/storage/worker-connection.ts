// A worker thread's own connection to the hub's database, and its end after a while without work: shared by the
// workers that count disk usage (disk-usage-worker.ts) and checkpoint the log (wal-checkpoint-worker.ts).
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const IDLE_MS = 30_000;

/** The connection to the file in this worker's workerData, and `rest()`: call it after each piece of work. */
export function workerConnection(options: { queryOnly?: boolean } = {}): { db: Database.Database; rest: () => void } {
  const db = new Database((workerData as { file: string }).file, { fileMustExist: true });
  if (options.queryOnly === true) db.pragma('query_only = 1');
  db.pragma('busy_timeout = 5000');
  let idle: ReturnType<typeof setTimeout> | undefined;
  const rest = (): void => {
    if (idle !== undefined) clearTimeout(idle);
    idle = setTimeout(() => {
      db.close();
      parentPort!.close();
    }, IDLE_MS);
  };
  rest();
  return { db, rest };
}

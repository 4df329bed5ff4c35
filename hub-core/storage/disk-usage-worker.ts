// The worker thread of DiskUsageCounter (disk-usage.ts): counts the bytes of the pages some tables use with SQLite's
// dbstat, on a connection of its own that only reads. It ends itself after a while without questions.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const IDLE_MS = 30_000;

interface Question {
  id: number;
  tables: string[];
}

const db = new Database((workerData as { file: string }).file, { fileMustExist: true });
db.pragma('query_only = 1');
db.pragma('busy_timeout = 5000');
let idle: ReturnType<typeof setTimeout> | undefined;
const rest = (): void => {
  if (idle !== undefined) clearTimeout(idle);
  idle = setTimeout(() => {
    db.close();
    parentPort!.close();
  }, IDLE_MS);
};

parentPort!.on('message', (q: Question) => {
  try {
    const marks = q.tables.map(() => '?').join(', ');
    const bytes = db.prepare(`SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE aggregate = 1 AND name IN (${marks})`).pluck().get(...q.tables) as number;
    parentPort!.postMessage({ id: q.id, bytes });
  } catch (e) {
    parentPort!.postMessage({ id: q.id, error: e instanceof Error ? e.message : String(e) });
  }
  rest();
});
rest();

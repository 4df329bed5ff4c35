// The worker thread of DiskUsageCounter (disk-usage.ts): counts the bytes of the pages some tables use with SQLite's
// dbstat, on a connection of its own that only reads. It ends itself after a while without questions.
import { parentPort } from 'node:worker_threads';
import { workerConnection } from './worker-connection.js';

interface Question {
  id: number;
  tables: string[];
}

const { db, rest } = workerConnection({ queryOnly: true });

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

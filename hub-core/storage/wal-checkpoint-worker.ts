// The worker thread of WalCheckpointer (wal-checkpointer.ts): a PASSIVE checkpoint of the hub's database on a
// connection of its own, each time it is asked. It ends itself after a while without work.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const IDLE_MS = 30_000;

const db = new Database((workerData as { file: string }).file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
let idle: ReturnType<typeof setTimeout> | undefined;
const rest = (): void => {
  if (idle !== undefined) clearTimeout(idle);
  idle = setTimeout(() => {
    db.close();
    parentPort!.close();
  }, IDLE_MS);
};

parentPort!.on('message', () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // The database is busy or going away: the next check asks again.
  }
  parentPort!.postMessage('done');
  rest();
});
rest();

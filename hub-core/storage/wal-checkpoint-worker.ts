// The worker thread of WalCheckpointer (wal-checkpointer.ts): a PASSIVE checkpoint of the hub's database on a
// connection of its own, each time it is asked. It ends itself after a while without work.
import { parentPort } from 'node:worker_threads';
import { workerConnection } from './worker-connection.js';

const { db, rest } = workerConnection();

parentPort!.on('message', () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // The database is busy or going away: the next check asks again.
  }
  parentPort!.postMessage('done');
  rest();
});

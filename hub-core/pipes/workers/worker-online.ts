// When a worker thread (a pipe worker, a preview worker) has started: resolves once it is online, rejects with the
// error that kept it from starting (an error after that is the caller's to handle). Never an unhandled rejection.
import type { Worker } from 'node:worker_threads';

export function whenOnline(worker: Worker): Promise<void> {
  let started = false;
  const online = new Promise<void>((resolve, reject) => {
    worker.once('online', () => {
      started = true;
      resolve();
    });
    worker.once('error', (e) => {
      if (!started) reject(e);
    });
  });
  online.catch(() => undefined);
  return online;
}

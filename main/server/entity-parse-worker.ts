import { parentPort } from 'node:worker_threads';
import { packOutcome, parseEntityBody } from './entity-parse.js';

// Parses and hashes entity batches off the main thread, so SQLite writes and parsing overlap.
parentPort!.on('message', (msg: { id: number; data: Uint8Array; first?: number }) => {
  try {
    parentPort!.postMessage({ id: msg.id, outcome: packOutcome(parseEntityBody(msg.data, msg.first)) });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, crash: e instanceof Error ? e.message : String(e) });
  }
});

import { parentPort } from 'node:worker_threads';
import { linesOutcome, packOutcome, parseEntityBody } from './entity-parse.js';
import { lowerThreadPriority } from './thread-priority.js';

// Parses and hashes entity batches off the main thread, so SQLite writes and parsing overlap. With `lines`, the
// entities come back as spool lines (one buffer, transferred), for the hub's thread to append to a push's spool file.
lowerThreadPriority();
parentPort!.on('message', (msg: { id: number; data: Uint8Array; first?: number; lines?: boolean }) => {
  try {
    const outcome = parseEntityBody(msg.data, msg.first);
    if (msg.lines === true) {
      const lines = linesOutcome(outcome);
      parentPort!.postMessage({ id: msg.id, lines }, lines.ok ? [lines.lines.bytes.buffer as ArrayBuffer] : []);
    } else parentPort!.postMessage({ id: msg.id, outcome: packOutcome(outcome) });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, crash: e instanceof Error ? e.message : String(e) });
  }
});

import { parentPort } from 'node:worker_threads';
import { linesOutcome, packOutcome, parseEntityBody } from './entity-parse.js';
import { BodyCutter, cutTransferList, type CutOptions } from './entity-cutter.js';
import { lowerThreadPriority } from './thread-priority.js';

// Parses and hashes entity batches off the main thread, so SQLite writes and parsing overlap. With `lines`, the
// entities come back as spool lines (one buffer, transferred), for the hub's thread to append to a push's spool file.
// With `cut`, the bytes of a streamed body are cut into parts of whole entities (entity-cutter.ts): the cut of one body
// stays in one worker from its first bytes to its last (or to `drop`).
interface ParseMessage {
  id: number;
  data: Uint8Array;
  first?: number;
  lines?: boolean;
}
interface CutMessage {
  id: number;
  cut: { body: number; data: Uint8Array; end: boolean; options?: CutOptions };
}
interface DropMessage {
  drop: number;
}

const cutters = new Map<number, BodyCutter>();

lowerThreadPriority();
parentPort!.on('message', (msg: ParseMessage | CutMessage | DropMessage) => {
  if ('drop' in msg) {
    cutters.delete(msg.drop);
    return;
  }
  try {
    if ('cut' in msg) {
      const { body, data, end, options } = msg.cut;
      let cutter = cutters.get(body);
      if (cutter === undefined) {
        if (options === undefined) throw new Error(`no cut in progress for body ${body}`);
        cutter = new BodyCutter(options);
        cutters.set(body, cutter);
      }
      const outcome = cutter.cut(data, end);
      if (end || !outcome.ok) cutters.delete(body);
      parentPort!.postMessage({ id: msg.id, cut: outcome }, cutTransferList(outcome));
      return;
    }
    const outcome = parseEntityBody(msg.data, msg.first);
    if (msg.lines === true) {
      const lines = linesOutcome(outcome);
      parentPort!.postMessage({ id: msg.id, lines }, lines.ok ? [lines.lines.bytes.buffer as ArrayBuffer] : []);
    } else parentPort!.postMessage({ id: msg.id, outcome: packOutcome(outcome) });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, crash: e instanceof Error ? e.message : String(e) });
  }
});

// Cutting a streamed JSON Push body into parts of whole entities, in a parser worker (entity-parse-worker.ts): the
// hub's thread hands over the raw bytes as they arrive and gets back parts, each one or two JSON arrays ready to parse,
// without looking at a byte itself. The worker keeps the state of the cut (an entity may span two deliveries) for as
// long as the push lasts.
import { EntitySplitter } from './entity-splitter.js';
import { HubError } from '../../hub-core/base/index.js';
import type { ParseFailure } from './entity-parse.js';

/** A part is cut once it holds about this many bytes or entities. */
const PART_BYTES = 2 * 1024 * 1024;
const PART_ENTITIES = 10_000;
/** From this size a part comes in two halves (two workers parse them at once). */
const SPLIT_PART = 512 * 1024;

export interface CutOptions {
  /** JSON lines: entities one after another rather than an array. */
  lines: boolean;
  /** The largest entity, in bytes. */
  elementLimit: number;
  /** Parts from SPLIT_PART on come in two halves. */
  split: boolean;
}

/** Entities of the body, one after another: `arrays[k]` is a JSON array of `counts[k]` of them. */
export interface CutPart {
  arrays: Uint8Array[];
  counts: number[];
}

export type CutOutcome = { ok: true; parts: CutPart[] } | { ok: false; failure: ParseFailure };

/** The state of one body's cut. */
export class BodyCutter {
  private readonly splitter: EntitySplitter;
  private elements: Buffer[] = [];
  private bytes = 0;
  private started = false;

  constructor(private readonly options: CutOptions) {
    this.splitter = new EntitySplitter(options.lines, options.elementLimit);
  }

  /** The next bytes of the body (`end`: the last ones): the parts completed by them, or why the body is refused. */
  cut(data: Uint8Array, end: boolean): CutOutcome {
    try {
      let chunk = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      // A byte order mark before the body is allowed, as in a small body.
      if (!this.started && chunk.length > 0) {
        this.started = true;
        if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
      }
      const out: Buffer[] = [];
      const parts: CutPart[] = [];
      this.splitter.push(chunk, out);
      for (const e of out) {
        this.elements.push(e);
        this.bytes += e.length;
        if (this.elements.length >= PART_ENTITIES || this.bytes >= PART_BYTES) parts.push(this.take());
      }
      if (end) {
        this.splitter.end();
        if (this.elements.length > 0) parts.push(this.take());
      }
      return { ok: true, parts };
    } catch (e) {
      if (e instanceof HubError) return { ok: false, failure: { status: e.status, error: e.message, detail: e.detail ?? '' } };
      throw e;
    }
  }

  private take(): CutPart {
    const elements = this.elements;
    const cut = this.options.split && elements.length >= 2 && this.bytes >= SPLIT_PART ? elements.length >> 1 : elements.length;
    this.elements = [];
    this.bytes = 0;
    if (cut === elements.length) return { arrays: [joinPart(elements, 0, cut)], counts: [cut] };
    return { arrays: [joinPart(elements, 0, cut), joinPart(elements, cut, elements.length)], counts: [cut, elements.length - cut] };
  }
}

/** Entities `from` to `to` (not included) as one JSON array, in memory of its own (it can be transferred). */
function joinPart(elements: readonly Buffer[], from: number, to: number): Uint8Array {
  let size = 2 + Math.max(0, to - from - 1);
  for (let i = from; i < to; i++) size += elements[i]!.length;
  const out = new Uint8Array(size);
  let at = 0;
  out[at++] = 0x5b; // [
  for (let i = from; i < to; i++) {
    if (i > from) out[at++] = 0x2c; // ,
    out.set(elements[i]!, at);
    at += elements[i]!.length;
  }
  out[at] = 0x5d; // ]
  return out;
}

/** The buffers a cut outcome can hand over instead of copying (each part's arrays own their memory). */
export function cutTransferList(outcome: CutOutcome): ArrayBuffer[] {
  return outcome.ok ? outcome.parts.flatMap((p) => p.arrays.map((a) => a.buffer as ArrayBuffer)) : [];
}

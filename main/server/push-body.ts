import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import type { EntityParserPool } from './entity-parser-pool.js';
import type { CutPart } from './entity-cutter.js';
import { HubError, PreparedEntities, type PreparedEntity } from '../../hub-core/base/index.js';
import type { SpoolLines } from '../../hub-core/storage/index.js';
import { textPartValidator } from './validators.js';

/** Bodies up to this size (or the body limit, when lower) are read whole and parsed at once; larger ones stream. */
export const STREAM_ABOVE = 8 * 1024 * 1024;
/** The largest streamed JSON Push body by default (`--push-limit`). */
export const DEFAULT_PUSH_LIMIT = 4 * 1024 * 1024 * 1024;
/** A streamed body goes to the worker that cuts it in slices of about this many bytes. */
const HAND_BYTES = 1024 * 1024;

const NDJSON = ['application/x-ndjson', 'application/jsonl', 'application/x-jsonlines', 'application/json-seq'];

/** A JSON Push body, not read yet: the route reads it whole or streams it. */
export class PushBody {
  constructor(
    readonly stream: Readable,
    /** JSON lines: entities one after another rather than an array. */
    readonly lines: boolean,
    readonly declaredLength: number | undefined,
  ) {}
}

/** In this plugin context JSON (and JSON lines, unless `lines` is false) bodies reach the route unread, as a {@link PushBody}. */
export function usePushBodyParser(app: FastifyInstance, { lines = true }: { lines?: boolean } = {}): void {
  app.removeContentTypeParser('application/json');
  const parser = (lines: boolean) => (req: { headers: Record<string, string | string[] | undefined> }, payload: Readable, done: (err: Error | null, body?: unknown) => void): void => {
    const header = req.headers['content-length'];
    const length = typeof header === 'string' && /^\d+$/.test(header) ? Number(header) : undefined;
    done(null, new PushBody(payload, lines, req.headers['content-encoding'] === undefined ? length : undefined));
  };
  app.addContentTypeParser('application/json', parser(false));
  if (lines) app.addContentTypeParser(NDJSON, parser(true));
}

/** The route's validator: the body is checked as it is read; params and query as usual. */
export const pushBodyValidator: FastifySchemaCompiler<unknown> = (def) => {
  if (def.httpPart !== 'body') return textPartValidator(def);
  return (data: unknown) =>
    data instanceof PushBody ? { value: data } : { error: new Error('the body must be JSON (Content-Type: application/json): an array of entities') };
};

export interface PushLimits {
  /** Bodies larger than this stream (and each entity must fit in it). */
  bodyLimit: number;
  /** The largest streamed body. */
  pushLimit: number;
  /** Bodies up to this size are read whole (STREAM_ABOVE unless given; never more than bodyLimit). */
  streamAbove?: number;
  /** The answer to a body over pushLimit (by default, one naming --push-limit). */
  tooLarge?: () => HubError;
}

/** Where a streamed body's parts go as they are parsed: a JSON Push's staged push, a dataset's staged write. */
export interface BodyStaging {
  /** Keep one part (one at a time). */
  add(entities: readonly PreparedEntity[]): Promise<void>;
  /** Entities are kept as they come: parts may come as spool lines made in a worker (addLines). */
  readonly passesThrough: boolean;
  addLines(parts: readonly SpoolLines[]): Promise<void>;
  discard(): Promise<void>;
}

export type PushBodyResult<S> = { whole: PreparedEntities } | { staged: S };

/**
 * Read a push body. A small one is read whole and parsed (in a worker when large enough) as before; a larger one, or
 * JSON lines, is cut into entities as it arrives, parsed a part at a time and handed to `stage()` part by part, so
 * memory stays bounded by the part size, not by the body. Nothing is written here: the caller commits the staged push.
 */
export async function readPushBody<S extends BodyStaging>(body: PushBody, parser: EntityParserPool, limits: PushLimits, stage: () => S): Promise<PushBodyResult<S>> {
  const whole = Math.min(limits.bodyLimit, limits.streamAbove ?? STREAM_ABOVE);
  const tooLarge = limits.tooLarge ?? (() => pushTooLarge(limits.pushLimit));
  if (body.declaredLength !== undefined && body.declaredLength > limits.pushLimit) throw tooLarge();
  const chunks = body.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const next = async (): Promise<Buffer | undefined> => {
    try {
      const r = await chunks.next();
      return r.done ? undefined : r.value;
    } catch (e) {
      if (e instanceof HubError) throw e;
      throw new HubError(400, 'the request body could not be read', e instanceof Error ? e.message : String(e));
    }
  };
  // The head: as much as a whole-body request may hold.
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes <= whole) {
    const chunk = await next();
    if (chunk === undefined) {
      ended = true;
      break;
    }
    head.push(chunk);
    headBytes += chunk.length;
  }
  if (ended && !body.lines) return { whole: await parser.parse(Buffer.concat(head, headBytes)) };

  const staged = stage();
  // The body is cut into parts of whole entities in a parser worker (entity-cutter.ts): this thread only gathers the
  // bytes as they arrive, hands them over a slice at a time and passes the parts on to be parsed.
  const cutter = parser.cutter({ lines: body.lines, elementLimit: limits.bodyLimit, split: true });
  let pending: Promise<void> | undefined;
  try {
    let first = 0;
    let received = 0;
    const flush = async (part: CutPart): Promise<void> => {
      const from = first;
      first += part.counts.reduce((a, b) => a + b, 0);
      // One part is parsed while the next is cut; at most one waits. The hub answers others between parts.
      if (pending) await pending;
      await new Promise<void>((resolve) => setImmediate(resolve));
      pending = staged.passesThrough ? spoolPart(parser, staged, part, from) : parsePart(parser, part, from).then((batch) => staged.add(batch.entities));
      // Awaited at the next part or the end; until then a failure must not count as unhandled.
      pending.catch(() => undefined);
    };
    const send = async (bytes: Uint8Array, end: boolean): Promise<void> => {
      for (const part of await cutter.cut(bytes, end)) await flush(part);
    };
    let gathered: Buffer[] = [];
    let gatheredBytes = 0;
    // The bytes gathered so far, copied into memory of their own that moves to the worker (a chunk Node read may share
    // its memory with others).
    const hand = async (end: boolean): Promise<void> => {
      const bytes = new Uint8Array(gatheredBytes);
      let at = 0;
      for (const c of gathered) {
        bytes.set(c, at);
        at += c.length;
      }
      gathered = [];
      gatheredBytes = 0;
      await send(bytes, end);
    };
    const feed = async (chunk: Buffer): Promise<void> => {
      received += chunk.length;
      if (received > limits.pushLimit) throw tooLarge();
      gathered.push(chunk);
      gatheredBytes += chunk.length;
      if (gatheredBytes >= HAND_BYTES) await hand(false);
    };
    // The head (up to 8 MB, read already) goes a slice at a time, then the rest as it arrives.
    for (const chunk of head) {
      for (let at = 0; at < chunk.length; at += HAND_BYTES) await feed(chunk.subarray(at, at + HAND_BYTES));
    }
    head.length = 0;
    if (!ended) {
      for (let chunk = await next(); chunk !== undefined; chunk = await next()) await feed(chunk);
    }
    await hand(true);
    if (pending) await pending;
    return { staged };
  } catch (e) {
    cutter.drop();
    // A part still being written would write to the spool after it was discarded.
    await pending?.catch(() => undefined);
    await staged.discard();
    // Leave the rest of the body unread: Node discards it once the answer is sent.
    throw e;
  }
}

/** A part is its entities joined anew: a byte offset in it is not one of the body, so only the bytes are named. */
function inPart(e: unknown, first: number, count: number): unknown {
  if (e instanceof HubError && e.message === 'malformed JSON') {
    const detail = (e.detail ?? '').replace(/: byte offset \d+ \(bytes ([0-9A-F ]+)\)/, ': the bytes $1');
    return new HubError(400, e.message, `in entities #${first} to #${first + count - 1}: ${detail}`);
  }
  return e;
}

/** Where each of a part's arrays starts in the body's numbering. */
function starts(part: CutPart, first: number): number[] {
  const out: number[] = [];
  let at = first;
  for (const n of part.counts) {
    out.push(at);
    at += n;
  }
  return out;
}

/** The first failure of a part's arrays (in the body's order), in the words of the body. */
function firstFailure<T>(results: PromiseSettledResult<T>[], part: CutPart, from: readonly number[]): T[] {
  for (let k = 0; k < results.length; k++) {
    const r = results[k]!;
    if (r.status === 'rejected') throw inPart(r.reason, from[k]!, part.counts[k]!);
  }
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

/** A part for a pipe that transforms what it receives: its arrays parsed at once, by two workers when there are two. */
async function parsePart(parser: EntityParserPool, part: CutPart, first: number): Promise<PreparedEntities> {
  const from = starts(part, first);
  const batches = firstFailure(await Promise.allSettled(part.arrays.map((data, k) => parser.parse(data, from[k], false))), part, from);
  return batches.length === 1 ? batches[0]! : new PreparedEntities(batches.flatMap((b) => b.entities));
}

/**
 * A part for a pipe without a transform: parsed into spool lines in the workers, its two halves at once, the hub's
 * thread only writing the bytes out.
 */
async function spoolPart(parser: EntityParserPool, staged: BodyStaging, part: CutPart, first: number): Promise<void> {
  const from = starts(part, first);
  const lines = firstFailure(await Promise.allSettled(part.arrays.map((data, k) => parser.parseLines(Buffer.from(data.buffer, data.byteOffset, data.byteLength), from[k]))), part, from);
  await staged.addLines(lines);
}


function pushTooLarge(limit: number): HubError {
  return new HubError(413, 'request body too large', `a JSON Push body may be at most ${limit} bytes (--push-limit); send it in several requests`);
}

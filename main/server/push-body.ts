import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import AjvCompiler from '@fastify/ajv-compiler';
import type { EntityParserPool } from './entity-parser-pool.js';
import { EntitySplitter } from './entity-splitter.js';
import { HubError } from '../../hub-core/base/index.js';
import type { PreparedEntities } from '../../hub-core/base/index.js';
import type { StagedPush } from '../../hub-core/pipes/index.js';
import type { SpoolLines } from '../../hub-core/storage/index.js';

/** Bodies up to this size (or the body limit, when lower) are read whole and parsed at once; larger ones stream. */
export const STREAM_ABOVE = 8 * 1024 * 1024;
/** The largest streamed JSON Push body by default (`--push-limit`). */
export const DEFAULT_PUSH_LIMIT = 4 * 1024 * 1024 * 1024;
/** A streamed push is parsed in parts of about this many bytes (or entities). */
const PART_BYTES = 2 * 1024 * 1024;
const PART_ENTITIES = 10_000;
const HEAD_SLICE = 1024 * 1024;
/** From this size a part is parsed in two halves by two workers. */
const SPLIT_PART = 512 * 1024;

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

/** In this plugin context JSON (and JSON lines) bodies reach the route unread, as a {@link PushBody}. */
export function usePushBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  const parser = (lines: boolean) => (req: { headers: Record<string, string | string[] | undefined> }, payload: Readable, done: (err: Error | null, body?: unknown) => void): void => {
    const header = req.headers['content-length'];
    const length = typeof header === 'string' && /^\d+$/.test(header) ? Number(header) : undefined;
    done(null, new PushBody(payload, lines, req.headers['content-encoding'] === undefined ? length : undefined));
  };
  app.addContentTypeParser('application/json', parser(false));
  app.addContentTypeParser(NDJSON, parser(true));
}

const defaultValidator = AjvCompiler()({}, { customOptions: { coerceTypes: 'array', allErrors: false } });

/** The route's validator: the body is checked as it is read; params and query as usual. */
export const pushBodyValidator: FastifySchemaCompiler<unknown> = (def) => {
  if (def.httpPart !== 'body') return defaultValidator(def);
  return (data: unknown) =>
    data instanceof PushBody ? { value: data } : { error: new Error('the body must be JSON (Content-Type: application/json): an array of entities') };
};

export interface PushLimits {
  /** Bodies larger than this stream (and each entity must fit in it). */
  bodyLimit: number;
  /** The largest streamed body. */
  pushLimit: number;
}

export type PushBodyResult = { whole: PreparedEntities } | { staged: StagedPush };

/**
 * Read a push body. A small one is read whole and parsed (in a worker when large enough) as before; a larger one, or
 * JSON lines, is cut into entities as it arrives, parsed a part at a time and handed to `stage()` part by part, so
 * memory stays bounded by the part size, not by the body. Nothing is written here: the caller commits the staged push.
 */
export async function readPushBody(body: PushBody, parser: EntityParserPool, limits: PushLimits, stage: () => StagedPush): Promise<PushBodyResult> {
  const whole = Math.min(limits.bodyLimit, STREAM_ABOVE);
  if (body.declaredLength !== undefined && body.declaredLength > limits.pushLimit) throw tooLarge(limits.pushLimit);
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
  try {
    const splitter = new EntitySplitter(body.lines, limits.bodyLimit);
    let part: Buffer[] = [];
    let partBytes = 0;
    let first = 0;
    let received = 0;
    let pending: Promise<void> | undefined;
    const flush = async (): Promise<void> => {
      const elements = part;
      const from = first;
      first += elements.length;
      part = [];
      partBytes = 0;
      // One part is parsed while the next is read; at most one waits. The hub answers others between parts (a part
      // of the first 8 MB, read at once, would otherwise follow the next without a turn of the event loop).
      if (pending) await pending;
      await new Promise<void>((resolve) => setImmediate(resolve));
      pending = staged.passesThrough ? spoolPart(parser, staged, elements, from) : parsePart(parser, elements, from).then((batch) => staged.add(batch.entities));
      // Awaited at the next part or the end; until then a failure must not count as unhandled.
      pending.catch(() => undefined);
    };
    const feed = async (chunk: Buffer, start: boolean): Promise<void> => {
      received += chunk.length;
      if (received > limits.pushLimit) throw tooLarge(limits.pushLimit);
      // A byte order mark before the body is allowed, as in a small body.
      const bytes = start && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? chunk.subarray(3) : chunk;
      const out: Buffer[] = [];
      splitter.push(bytes, out);
      for (const e of out) {
        part.push(e);
        partBytes += e.length;
        if (part.length >= PART_ENTITIES || partBytes >= PART_BYTES) await flush();
      }
    };
    const firstChunk = head.length > 0 ? Buffer.concat(head, headBytes) : Buffer.alloc(0);
    head.length = 0;
    // The head (up to 8 MB) is cut into entities a slice at a time, the hub answering others between slices.
    await feed(firstChunk.subarray(0, HEAD_SLICE), true);
    for (let at = HEAD_SLICE; at < firstChunk.length; at += HEAD_SLICE) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      await feed(firstChunk.subarray(at, at + HEAD_SLICE), false);
    }
    if (!ended) {
      for (let chunk = await next(); chunk !== undefined; chunk = await next()) await feed(chunk, false);
    }
    splitter.end();
    if (part.length > 0) await flush();
    if (pending) await pending;
    return { staged };
  } catch (e) {
    await staged.discard();
    // Leave the rest of the body unread: Node discards it once the answer is sent.
    throw e;
  }
}

/** Entities `from` to `to` (not included) as one JSON array. */
function joinPart(elements: readonly Buffer[], from = 0, to = elements.length): Buffer {
  const pieces: Buffer[] = [OPEN];
  for (let i = from; i < to; i++) {
    if (i > from) pieces.push(COMMA);
    pieces.push(elements[i]!);
  }
  pieces.push(CLOSE);
  return Buffer.concat(pieces);
}

/** A part is its entities joined anew: a byte offset in it is not one of the body, so only the bytes are named. */
function inPart(e: unknown, first: number, count: number): unknown {
  if (e instanceof HubError && e.message === 'malformed JSON') {
    const detail = (e.detail ?? '').replace(/: byte offset \d+ \(bytes ([0-9A-F ]+)\)/, ': the bytes $1');
    return new HubError(400, e.message, `in entities #${first} to #${first + count - 1}: ${detail}`);
  }
  return e;
}

async function parsePart(parser: EntityParserPool, elements: readonly Buffer[], first: number): Promise<PreparedEntities> {
  try {
    return await parser.parse(joinPart(elements), first);
  } catch (e) {
    throw inPart(e, first, elements.length);
  }
}

/**
 * A part for a pipe without a transform: parsed into spool lines in the workers, in two halves at once (the part is
 * cut between two entities here, where the cuts are known), the hub's thread only writing the bytes out.
 */
async function spoolPart(parser: EntityParserPool, staged: StagedPush, elements: readonly Buffer[], first: number): Promise<void> {
  let bytes = 0;
  for (const e of elements) bytes += e.length;
  const cut = elements.length >= 2 && bytes >= SPLIT_PART ? elements.length >> 1 : elements.length;
  const halves = cut < elements.length ? [joinPart(elements, 0, cut), joinPart(elements, cut)] : [joinPart(elements)];
  const lines = await Promise.allSettled(halves.map((data, k) => parser.parseLines(data, k === 0 ? first : first + cut)));
  for (let k = 0; k < lines.length; k++) {
    const r = lines[k]!;
    if (r.status === 'rejected') throw k === 0 ? inPart(r.reason, first, cut) : inPart(r.reason, first + cut, elements.length - cut);
  }
  await staged.addLines(lines.map((r) => (r as PromiseFulfilledResult<SpoolLines>).value));
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

function tooLarge(limit: number): HubError {
  return new HubError(413, 'request body too large', `a JSON Push body may be at most ${limit} bytes (--push-limit); send it in several requests`);
}

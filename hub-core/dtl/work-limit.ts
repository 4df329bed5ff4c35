// A bound on what one transform may do, so that a runaway rule (["map", ["range", 0, 2000], ["range", 0, 2000]]
// over many entities) fails its run in words instead of exhausting the process's memory. The evaluator counts work
// where values are made or visited one by one (list functions, function expressions, rule sets applied per value);
// every CHECK_EVERY units it looks at the V8 heap and at the time spent on the current entity. The checks cost a
// counter increment per unit; the heap and clock are read only at the checkpoints.

import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { HubError } from '../base/index.js';

/** What a transform's run state keeps for the bound (RunState in context.ts). */
export interface WorkState {
  work: number;
  nextCheck: number;
  /** When the current entity's first check ran; 0 until then (reset per entity). */
  entityStart: number;
  /** The bound on one entity when not {@link ENTITY_TIME_LIMIT_MS} (an explorer filter's is far tighter). */
  entityLimitMs?: number;
}

/** Work units between two checks of the heap and the clock. */
export const CHECK_EVERY = 1 << 16;
/** A transform stops once the heap holds more than this share of the process's heap limit. */
export const HEAP_SHARE = 0.5;
/**
 * A transform stops once one entity has taken this long: 10 s, or DATAHUB_ENTITY_TIME_LIMIT_MS (at least 500) for
 * a hub whose runaways should end sooner (the test suite's hubs; pipe and preview workers read the same variable).
 */
export const ENTITY_TIME_LIMIT_MS = entityTimeLimitMs(process.env);

export function entityTimeLimitMs(env: NodeJS.ProcessEnv): number {
  const n = Number(env['DATAHUB_ENTITY_TIME_LIMIT_MS']);
  return Number.isInteger(n) && n >= 500 ? n : 10_000;
}

/**
 * A transform went past the hub's bounds. Not a DtlRuntimeError: it is never one entity's error to record and go on
 * from, but stops the whole run (or preview) with a 422.
 */
export class DtlLimitError extends HubError {
  constructor(message: string, detail: string) {
    super(422, message, detail);
    this.name = 'DtlLimitError';
  }
}

/**
 * The longest string a transform may make, in characters. Strings are where the other bounds do not look: one native
 * call ("join" of a long list, "concat", "ljust" to a huge width) can build hundreds of megabytes and hold the event
 * loop for seconds between two checkpoints. So the functions that make strings ask first (`spendString`) and fail in
 * words past this length; within it, the characters count as work (one unit per 64), so the time bound sees them.
 */
export const MAX_STRING_LENGTH = 64 * 1024 * 1024;
const CHARS_PER_UNIT = 64;

/** Count a string of `length` characters a function is about to make (throws past {@link MAX_STRING_LENGTH}). */
export function spendString(run: WorkState, length: number, fn: string): void {
  if (length > MAX_STRING_LENGTH) {
    throw new DtlLimitError(
      'the transform makes a string longer than the hub allows',
      `"${fn}" would make a string of ${length} characters; the bound is ${MAX_STRING_LENGTH} (64 Mi) characters. Look for a "join" or "concat" over a list that grows with the data.`,
    );
  }
  if (length >= CHARS_PER_UNIT) spend(run, Math.floor(length / CHARS_PER_UNIT));
}

/** A tick for glob matchers (glob.ts): their steps count as work, one unit per 64, so the time bound sees a long match. */
export function matchTicks(run: WorkState): (steps: number) => void {
  return (steps) => spend(run, steps >> 6);
}

/** Count `units` of work for a transform's run (`ctx.run`). */
export function spend(run: WorkState, units: number): void {
  run.work += units;
  if (run.work >= run.nextCheck) checkpoint(run);
}

/** A full garbage collection, when this runtime lets us have one; null when it does not. */
let collect: (() => void) | null | undefined;
function fullCollection(): boolean {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    } catch {
      collect = null;
    }
  }
  if (!collect) return false;
  collect();
  return true;
}
let lastCollection = 0;
/** The bound stopped a transform since the last collection: its garbage must not stop the next one (a preview right after). */
let trippedSinceCollection = false;

/**
 * The heap is past the share a transform may bring it to (also checked by a pump before it writes a batch). The heap
 * counts garbage too (a run stopped earlier leaves a lot), so before saying so the heap is collected and measured
 * again, at most every 250 ms; in between, only a heap past the share by a margin counts.
 */
export function heapExhausted(): { used: number; limit: number } | undefined {
  let h = getHeapStatistics();
  if (h.used_heap_size <= h.heap_size_limit * HEAP_SHARE) return undefined;
  const now = Date.now();
  if (now - lastCollection >= 250 || trippedSinceCollection) {
    lastCollection = now;
    trippedSinceCollection = false;
    if (fullCollection()) h = getHeapStatistics();
    // Between collections only a heap a little past the share counts: V8's heap_size_limit includes the young
    // generation, so the old space (where a runaway's lists live) runs out well before the limit is reached (with
    // --max-old-space-size=256 the limit reads 448 MB and the process dies at about 270 MB).
  } else if (h.used_heap_size <= h.heap_size_limit * (HEAP_SHARE + 0.05)) return undefined;
  if (h.used_heap_size <= h.heap_size_limit * HEAP_SHARE) return undefined;
  trippedSinceCollection = true;
  return { used: h.used_heap_size, limit: h.heap_size_limit };
}

const mb = (bytes: number): string => `${Math.round(bytes / 1048576)} MB`;

export function memoryLimitError(heap: { used: number; limit: number }): DtlLimitError {
  return new DtlLimitError(
    'the transform needs more memory than the hub allows',
    `it brought the hub's memory to ${mb(heap.used)} of ${mb(heap.limit)} (the bound is ${Math.round(HEAP_SHARE * 100)} %); ` +
      'look for lists that grow with each other (a "map" or "range" inside another)',
  );
}

/**
 * The longest a transform may hold the thread that serves the hub's API without letting its event loop turn, once
 * {@link guardServingThread} was called there. The bound per entity does not cover it: a preview of 1000 entities
 * that take 9 s each, or a run on the hub's thread of a batch of such entities, would hold the thread for hours.
 * (Pipe workers need no such bound: a stop terminates them.) A little over the bound per entity, so that one entity
 * that runs away is reported as that.
 */
export const SERVING_THREAD_HOLD_MS = ENTITY_TIME_LIMIT_MS + 2000;
let lastTurn = 0;
let heartbeat: ReturnType<typeof setInterval> | undefined;

/** Bound how long any transform holds this thread (the one that answers the API) without a turn of its event loop. */
export function guardServingThread(): void {
  if (heartbeat !== undefined) return;
  lastTurn = Date.now();
  heartbeat = setInterval(() => (lastTurn = Date.now()), 25);
  heartbeat.unref();
}

/** Throws when a guarded thread has been held past {@link SERVING_THREAD_HOLD_MS} (also called around sleep). */
export function checkServingThread(run: WorkState, now = Date.now()): void {
  if (heartbeat === undefined || now - lastTurn <= SERVING_THREAD_HOLD_MS) return;
  throw new DtlLimitError(
    'the transform holds the hub too long',
    `it kept the thread that answers the hub's API busy for more than ${SERVING_THREAD_HOLD_MS / 1000} s without a pause (${run.work} steps); ` +
      'a preview, trace or run there is stopped, so the hub goes on answering. Look for slow rules over many entities, "sleep", or lists that grow with each other',
  );
}

function checkpoint(run: WorkState): void {
  run.nextCheck = run.work + CHECK_EVERY;
  const heap = heapExhausted();
  if (heap) throw memoryLimitError(heap);
  const now = Date.now();
  checkServingThread(run, now);
  const limit = run.entityLimitMs ?? ENTITY_TIME_LIMIT_MS;
  if (run.entityStart === 0) run.entityStart = now;
  else if (now - run.entityStart > limit) {
    throw new DtlLimitError(
      'the transform takes too long',
      `one entity took more than ${limit / 1000} s (${run.work} steps); look for lists that grow with each other (a "map" or "range" inside another)`,
    );
  }
}

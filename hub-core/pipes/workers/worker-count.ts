// How many worker threads run pipe transforms: the machine's cores (os.availableParallelism) unless set with
// `DATAHUB_PIPE_WORKERS` (the CLI's `--workers` sets it). 0 or 1 keeps every pipe on the hub's own thread, as before
// worker threads existed. `DATAHUB_PIPE_WORKER_MEMORY_MB` bounds each worker's heap (its old generation);
// `DATAHUB_PIPE_WORKER_NICE` is how far below the hub's thread the workers run (thread-priority.ts).

import { availableParallelism } from 'node:os';

export const WORKERS_ENV = 'DATAHUB_PIPE_WORKERS';
export const WORKER_MEMORY_ENV = 'DATAHUB_PIPE_WORKER_MEMORY_MB';
/** Each worker's old generation, unless set: a runaway transform meets the work bound (dtl/work-limit.ts) well before. */
export const DEFAULT_WORKER_MEMORY_MB = 1024;
export const WORKER_NICE_ENV = 'DATAHUB_PIPE_WORKER_NICE';
/**
 * The workers' nice value above the hub's thread, unless set (0 to 19). With fewer cores than workers plus the writer,
 * a writer that has to share its core holds every run up; 10 lets it have nearly a whole core when it needs one.
 */
export const DEFAULT_WORKER_NICE = 10;

/** A worker count as the user wrote it: a whole number from 0 to 64, or undefined when it is not one. */
export function parseWorkerCount(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,2}$/.test(text.trim())) return undefined;
  const n = Number(text.trim());
  return n <= 64 ? n : undefined;
}

/** The number of pipe workers this process uses. */
export function pipeWorkerCount(env: NodeJS.ProcessEnv = process.env): number {
  return parseWorkerCount(env[WORKERS_ENV]) ?? availableParallelism();
}

/** The heap bound of one worker, in MB. */
export function workerMemoryMb(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env[WORKER_MEMORY_ENV]);
  return Number.isInteger(n) && n >= 16 ? n : DEFAULT_WORKER_MEMORY_MB;
}

/** How much lower the workers' priority is (a nice value, 0 = the same as the hub's thread). */
export function workerNice(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[WORKER_NICE_ENV];
  const n = text === undefined || text.trim() === '' ? NaN : Number(text);
  return Number.isInteger(n) && n >= 0 && n <= 19 ? n : DEFAULT_WORKER_NICE;
}

// How many worker threads run pipe transforms: the machine's cores (os.availableParallelism) unless set with
// `DATAHUB_PIPE_WORKERS` (the CLI's `--workers` sets it). 0 or 1 keeps every pipe on the hub's own thread, as before
// worker threads existed. `DATAHUB_PIPE_WORKER_MEMORY_MB` bounds each worker's heap (its old generation).

import { availableParallelism } from 'node:os';

export const WORKERS_ENV = 'DATAHUB_PIPE_WORKERS';
export const WORKER_MEMORY_ENV = 'DATAHUB_PIPE_WORKER_MEMORY_MB';
/** Each worker's old generation, unless set: a runaway transform meets the work bound (dtl/work-limit.ts) well before. */
export const DEFAULT_WORKER_MEMORY_MB = 1024;

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

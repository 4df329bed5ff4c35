// The CLI's --workers option: how many pipe worker threads the hub uses (hub-core/pipes/workers/worker-count.ts).
import { parseWorkerCount, WORKERS_ENV } from '../../hub-core/pipes/index.js';

/** Sets the pipe worker count for hubs this process opens; throws a usage message for a bad value. */
export function setPipeWorkers(value: string): void {
  const n = parseWorkerCount(value);
  if (n === undefined) throw new Error(`--workers must be a whole number from 0 to 64, not ${JSON.stringify(value)}`);
  process.env[WORKERS_ENV] = String(n);
}

import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Nice 5: at equal demand the hub's thread gets about three times a worker's share of a core (a scheduler weight of
 * 1024 against 335), while the workers still get their part of a machine that other programs keep busy.
 */
const WORKER_NICE = 5;

/**
 * Give the calling worker thread a lower scheduling priority (Linux, where a thread has a nice value of its own), so
 * that the hub's thread, which answers every request, runs first when the cores are busy: a large push parsed in
 * workers then slows down other work less than it would at equal priority. Elsewhere, or when refused, nothing changes.
 */
export function lowerThreadPriority(): void {
  if (process.platform !== 'linux') return;
  try {
    // "/proc/thread-self" links to "<pid>/task/<tid>": the thread's own id, which setpriority takes as a process id.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0 && tid !== process.pid) setPriority(tid, WORKER_NICE);
  } catch {
    // No /proc, or not allowed: the thread keeps the process's priority.
  }
}

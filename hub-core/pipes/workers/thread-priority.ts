// A pipe worker runs below the hub's thread: that thread is the only writer every pipe waits for, and it serves the
// API and the UI. On Linux a thread's nice value is its own (setpriority on its thread id); elsewhere nothing changes.

import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Raise this thread's nice value by `nice` (lower priority); false where the OS does not allow it per thread. */
export function lowerThreadPriority(nice: number): boolean {
  if (process.platform !== 'linux' || nice <= 0) return false;
  try {
    // "<pid>/task/<tid>": the thread's own id, which setpriority takes on Linux.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, Math.min(19, nice));
    return true;
  } catch {
    return false;
  }
}

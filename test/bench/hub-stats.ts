// What the bench reads about the hub process from /proc (Linux): resident memory and CPU time, and RSS samples taken
// in a worker thread so a busy bench thread never delays them; and the size of a data folder on disk.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export const RSS_INTERVAL_MS = 50;

/** Bytes of every file below `dir`. */
export function folderBytes(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    n += st.isDirectory() ? folderBytes(p) : st.size;
  }
  return n;
}

export function readRssKB(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system, all threads) a process has used so far, from /proc/<pid>/stat (USER_HZ = 100). */
export function readCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Samples in a worker thread so a busy bench thread never delays them: flat [Date.now(), kB, ...]. */
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const samples = [];
const file = '/proc/' + workerData.pid + '/status';
const sample = () => {
  try {
    const m = /VmRSS:\\s+(\\d+)\\s+kB/.exec(readFileSync(file, 'utf8'));
    if (m) samples.push(Date.now(), Number(m[1]));
  } catch {}
};
sample();
const timer = setInterval(sample, workerData.interval);
parentPort.on('message', () => {
  clearInterval(timer);
  sample();
  parentPort.postMessage(samples);
});
`;

export class RssSampler {
  private readonly worker: Worker;
  constructor(pid: number) {
    this.worker = new Worker(SAMPLER, { eval: true, workerData: { pid, interval: RSS_INTERVAL_MS } });
  }
  private stopped: Promise<{ t: number; kB: number }[]> | undefined;

  /** The samples; a second call gives the same ones (the worker is gone by then). */
  stop(): Promise<{ t: number; kB: number }[]> {
    this.stopped ??= (async () => {
      const flat = await new Promise<number[]>((resolve, reject) => {
        this.worker.once('message', resolve);
        this.worker.once('error', reject);
        this.worker.postMessage('stop');
      });
      await this.worker.terminate();
      const out: { t: number; kB: number }[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) out.push({ t: flat[i]!, kB: flat[i + 1]! });
      return out;
    })();
    return this.stopped;
  }
}

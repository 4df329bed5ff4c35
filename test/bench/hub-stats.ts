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

/** CPU milliseconds (user + system) the process's own first thread (a hub's, answering the API) has used so far. */
export function readMainThreadCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
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

/**
 * The resident memory of a process by kind of mapping, from /proc/<pid>/smaps: the main malloc heap, anonymous
 * mappings (V8's heaps, malloc's other arenas, large allocations), file mappings (code, the SQLite -shm file), e.g.
 * "heap 40 MB, anonymous 400 MB (largest: 64 MB x3, ...), files 60 MB".
 */
export function describeMappings(pid: number): string {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return 'smaps unreadable';
  }
  const kinds = new Map<string, number>();
  const anon: { sizeKB: number; rssKB: number }[] = [];
  let kind = '';
  let sizeKB = 0;
  for (const line of text.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      const name = head[1]!.trim();
      kind = name === '' ? 'anonymous' : name.startsWith('[') ? name : 'files';
      continue;
    }
    const size = /^Size:\s+(\d+) kB/.exec(line);
    if (size) sizeKB = Number(size[1]);
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) {
      kinds.set(kind, (kinds.get(kind) ?? 0) + Number(rss[1]));
      if (kind === 'anonymous') anon.push({ sizeKB, rssKB: Number(rss[1]) });
    }
  }
  const mb = (kB: number): string => `${(kB / 1024).toFixed(0)} MB`;
  const largest = anon.sort((a, b) => b.rssKB - a.rssKB).slice(0, 6).map((a) => `${mb(a.rssKB)} of ${mb(a.sizeKB)}`);
  return [...kinds].sort((a, b) => b[1] - a[1]).filter(([, kB]) => kB >= 1024).map(([k, kB]) => (k === 'anonymous' ? `${k} ${mb(kB)} in ${anon.length} mappings (largest resident: ${largest.join(', ')})` : `${k} ${mb(kB)}`)).join('; ');
}

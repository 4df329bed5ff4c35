// Polls the hub's /api/health from a worker thread, so that the bench's own busy thread (it makes the push bodies)
// never delays a poll or the reading of its answer: the figures are the hub's.
import { Worker } from 'node:worker_threads';

export interface HealthPoll {
  /** Date.now() when the poll was sent. */
  t: number;
  ms: number;
  /** Why it failed, when it did. */
  error?: string;
}

const POLLER = `
const { parentPort, workerData } = require('node:worker_threads');
const polls = [];
let stop = false;
parentPort.on('message', () => (stop = true));
(async () => {
  while (!stop) {
    const t = Date.now();
    const h0 = performance.now();
    try {
      const res = await fetch(workerData.url, { headers: { authorization: 'Bearer ' + workerData.token }, signal: AbortSignal.timeout(120000) });
      await res.arrayBuffer();
      polls.push({ t, ms: performance.now() - h0, ...(res.ok ? {} : { error: 'status ' + res.status }) });
    } catch (e) {
      polls.push({ t, ms: performance.now() - h0, error: String((e && e.cause) || e) });
    }
    await new Promise((r) => setTimeout(r, workerData.interval));
  }
  parentPort.postMessage(polls);
})();
`;

export class HealthPoller {
  private readonly worker: Worker;
  private stopped: Promise<HealthPoll[]> | undefined;

  constructor(api: string, token: string, intervalMs = 100) {
    this.worker = new Worker(POLLER, { eval: true, workerData: { url: `${api}/health`, token, interval: intervalMs } });
  }

  /** Every poll made, in order; a second call gives the same ones. */
  stop(): Promise<HealthPoll[]> {
    this.stopped ??= (async () => {
      const polls = await new Promise<HealthPoll[]>((resolve, reject) => {
        this.worker.once('message', resolve);
        this.worker.once('error', reject);
        this.worker.postMessage('stop');
      });
      await this.worker.terminate();
      return polls;
    })();
    return this.stopped;
  }
}

export interface PollFigures {
  polls: number;
  failed: number;
  medianMs: number;
  p99Ms: number;
  maxMs: number;
  /** Share of the answered polls that took longer than 100 ms, in percent. */
  over100Pct: number;
}

/** The figures of the polls sent from `since` to `until` (Date.now()). */
export function pollFigures(polls: readonly HealthPoll[], since = 0, until = Infinity): PollFigures {
  const within = polls.filter((p) => p.t >= since && p.t < until);
  const ms = within.filter((p) => p.error === undefined).map((p) => p.ms).sort((a, b) => a - b);
  const at = (q: number): number => (ms.length === 0 ? NaN : ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!);
  const over = ms.filter((m) => m > 100).length;
  return { polls: ms.length, failed: within.length - ms.length, medianMs: at(0.5), p99Ms: at(0.99), maxMs: ms.length === 0 ? NaN : ms[ms.length - 1]!, over100Pct: ms.length === 0 ? NaN : (100 * over) / ms.length };
}

/** "n polls, median x ms, p99 y ms, slowest z ms, n over 100 ms (p %)" for the polls sent from `since` to `until` (Date.now()). */
export function describePolls(polls: readonly HealthPoll[], since = 0, until = Infinity): string {
  const failed = polls.filter((p) => p.t >= since && p.t < until && p.error !== undefined);
  const f = pollFigures(polls, since, until);
  if (f.polls === 0) return `no poll answered (${failed.length} failed)`;
  const over = Math.round((f.over100Pct * f.polls) / 100);
  const errors = failed.length > 0 ? `; ${failed.length} failed: ${[...new Set(failed.map((p) => p.error))].join('; ')}` : '';
  return `${f.polls} polls, median ${f.medianMs.toFixed(0)} ms, p99 ${f.p99Ms.toFixed(0)} ms, slowest ${f.maxMs.toFixed(0)} ms, ${over} over 100 ms (${f.over100Pct.toFixed(1)}%)${errors}`;
}

// What the flow graph draws, as read from the hub: pipes, datasets, and which pipes' last runs failed. A poll reads
// the lists again; failures are read from execution logs only where the pipe list does not report last runs.
/* eslint-disable svelte/prefer-svelte-reactivity -- these sets and maps are replaced whole (or are not state at all), never changed in place. */
import { api } from '../../lib/api';
import { encode, errorText } from '../../lib/format';
import type { DatasetInfo, PipeInfo } from '../../lib/types';
import { lastRunOfLog, type LastRun } from '../pipe/pipe-pump';
import { keepFlowData, lastFlowData } from './flow-cache';

const EXECUTION_LOG = 'system:pump_execution:';

export class FlowData {
  // Replaced whole at every poll: no deep proxies for hundreds of pipe configurations.
  pipes = $state.raw<PipeInfo[]>([]);
  datasets = $state.raw<DatasetInfo[]>([]);
  failed = $state<Set<string>>(new Set());
  loaded = $state(false);
  error = $state<string | null>(null);
  /** Pipes seen running at the last poll, and the last offset of each pipe's execution log then. */
  private running = new Set<string>();
  private lastLogged: Map<string, number | null> | null = null;

  /** Starts from what the last graph read (shown at once; load() reads it again). */
  constructor() {
    const last = lastFlowData();
    if (last) {
      this.pipes = last.pipes;
      this.datasets = last.datasets;
      this.failed = last.failed;
      this.loaded = true;
    }
  }

  async load(withPumps: boolean): Promise<void> {
    try {
      const [p, d] = await Promise.all([api<PipeInfo[]>('/pipes'), api<DatasetInfo[]>('/datasets')]);
      // A run that ended since the last poll may have failed (or stopped failing): read those again. A run
      // shows as a pipe that was running and is not, or as new entries in the pipe's execution log dataset.
      const logs = new Map(d.filter((x) => x._id.startsWith(EXECUTION_LOG)).map((x) => [x._id.slice(EXECUTION_LOG.length), x['max-updated']]));
      const lastLogged = this.lastLogged;
      const ended = p
        .filter((x) => !x.runtime['is-running'] && lastLogged !== null && (this.running.has(x._id) || (lastLogged.get(x._id) ?? null) !== (logs.get(x._id) ?? null)))
        .map((x) => x._id);
      this.running = new Set(p.filter((x) => x.runtime['is-running']).map((x) => x._id));
      this.lastLogged = logs;
      this.pipes = p;
      this.datasets = d;
      this.loaded = true;
      this.error = null;
      // This hub reports each pipe's last run in /pipes; a hub that does not (the hosted service) is asked per pipe,
      // at the first load and for pipes whose runs ended since the last poll.
      const unreported = new Set(p.filter((x) => !('last-run' in x.runtime)).map((x) => x._id));
      const reportedFailed = p.filter((x) => (x.runtime['last-run'] as LastRun | null | undefined)?.status === 'failed').map((x) => x._id);
      const toRead = withPumps ? [...unreported] : ended.filter((id) => unreported.has(id));
      const readFailed = toRead.length > 0 ? await readFailures(toRead) : [];
      const kept = [...this.failed].filter((id) => unreported.has(id) && !toRead.includes(id));
      const next = [...reportedFailed, ...kept, ...readFailed].sort();
      if (next.join('\n') !== [...this.failed].sort().join('\n')) this.failed = new Set(next);
      keepFlowData({ pipes: this.pipes, datasets: this.datasets, failed: this.failed });
    } catch (e) {
      this.error = errorText(e, 'Reading the pipes and datasets');
    }
  }
}

/** Which of `ids` had a failed last run, read from their execution logs (newest first), six pipes at a time. */
async function readFailures(ids: string[]): Promise<string[]> {
  const queue = [...ids];
  const found: string[] = [];
  const worker = async (): Promise<void> => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      try {
        const entries = await api<Record<string, unknown>[]>(`/pipes/${encode(id)}/log?reverse=true&limit=20`);
        if (lastRunOfLog(entries)?.status === 'failed') found.push(id);
      } catch {
        // A pipe whose log cannot be read keeps the colour its pipe information gives.
      }
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  return found;
}

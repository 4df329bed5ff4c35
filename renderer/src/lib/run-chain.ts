// Runs pipes of the local hub one after another (the enrich chain: the json source, then the DTL pipe), each to its
// end, and says what each run did in words.
import { localApi as api } from './api';
import { countText, encode } from './format';
import type { LastRun, PumpInfo } from '../components/pipe/pipe-pump';

const POLL_MS = 250;
const TIMEOUT_MS = 120_000;

/** Starts one run of the pipe and waits for it to end; its summary. */
export async function runToEnd(pipe: string): Promise<LastRun> {
  const path = `/pipes/${encode(pipe)}/pump`;
  const before = (await api<PumpInfo>(path)).runs ?? 0;
  await api(path, { method: 'POST', body: new URLSearchParams({ operation: 'start' }) });
  const until = Date.now() + TIMEOUT_MS;
  for (;;) {
    const p = await api<PumpInfo>(path);
    if ((p.runs ?? 0) > before && !p['is-running']) return p['last-run'] ?? {};
    if (Date.now() > until) throw new Error(`${pipe} did not finish its run within ${TIMEOUT_MS / 1000} s; it goes on in the background`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export function runText(pipe: string, run: LastRun): string {
  if (run.status === 'failed') return `${pipe} failed: ${run.reason_why_stopped ?? 'see its log'}`;
  return `${pipe} read ${countText(run.processed ?? 0)} and changed ${countText(run.changes ?? 0)}`;
}

/** Runs the pipes in order; stops at the first failed run. The result in words, and whether all went well. */
export async function runChain(pipes: readonly string[], onStep: (text: string) => void): Promise<{ ok: boolean; text: string }> {
  const done: string[] = [];
  for (const pipe of pipes) {
    onStep(`Running ${pipe}…`);
    const run = await runToEnd(pipe);
    done.push(runText(pipe, run));
    if (run.status === 'failed') return { ok: false, text: done.join('; ') };
  }
  return { ok: true, text: done.join('; ') };
}

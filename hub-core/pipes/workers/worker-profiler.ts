// The CPU profiler inside a pipe worker, for a job of a run started with profiler=true: an inspector session on the
// worker's own thread samples it from the job's opening to its end. One profiled run at a time in the hub
// (pump-profiler.ts), so one profiled job per worker at most.

import { Session } from 'node:inspector/promises';

export class WorkerProfiler {
  private readonly session = new Session();
  private readonly started: Promise<void>;

  constructor() {
    this.session.connect();
    this.started = (async () => {
      await this.session.post('Profiler.enable');
      // As on the hub's thread (pump-profiler.ts): fine enough for batches of a few milliseconds.
      await this.session.post('Profiler.setSamplingInterval', { interval: 500 });
      await this.session.post('Profiler.start');
    })();
  }

  /** Wait until sampling runs (before the job's first batch). */
  ready(): Promise<void> {
    return this.started;
  }

  /** Stop sampling: the profile, or undefined when the profiler failed. */
  async stop(): Promise<object | undefined> {
    try {
      await this.started;
      const { profile } = await this.session.post('Profiler.stop');
      await this.session.post('Profiler.disable');
      return profile;
    } catch {
      return undefined;
    } finally {
      this.session.disconnect();
    }
  }
}

// The CPU profiler on the thread that creates it, for a run started with profiler=true: an inspector session samples
// that thread (the hub's, or a pipe worker's for its job) until stopped. One profiled run at a time in the hub
// (pump-profiler.ts), so one profiler per thread at most.

import { Session } from 'node:inspector/promises';

export class ThreadProfiler {
  private readonly session = new Session();
  private readonly started: Promise<void>;

  constructor() {
    this.session.connect();
    this.started = (async () => {
      await this.session.post('Profiler.enable');
      // Microseconds between samples: fine enough for batches of a few milliseconds.
      await this.session.post('Profiler.setSamplingInterval', { interval: 500 });
      await this.session.post('Profiler.start');
    })();
  }

  /** Wait until sampling runs; rejects when the profiler could not start. */
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

// A clock a test moves by hand (hub-core/base/clock.ts): timers fire, in order, when `advance` passes their time.
import type { Clock, TimerHandle } from '../../hub-core/base/index.js';

export class ManualClock implements Clock {
  private time: number;
  private readonly timers: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return {
      cancel: () => {
        const i = this.timers.indexOf(timer);
        if (i >= 0) this.timers.splice(i, 1);
      },
    };
  }

  /** Move time forward by `ms`, firing every timer that falls due on the way (also those the firing ones set). */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers.splice(this.timers.indexOf(due), 1);
      this.time = Math.max(this.time, due.at);
      due.fn();
    }
    this.time = end;
  }

  /** Timers waiting. */
  get pending(): number {
    return this.timers.length;
  }
}

// Time as the pump scheduler sees it. The hub uses the system clock; a test can pass its own and move it forward, so
// that "nothing runs for a minute" takes no minute.

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Call `fn` once after `ms` milliseconds; the timer never keeps the process alive. */
  setTimer(fn: () => void, ms: number): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

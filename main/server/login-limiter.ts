import { HubError } from '../../hub-core/base/index.js';

/**
 * Limits password checks for POST /api/jwt: a few at a time (each costs scrypt's memory and CPU), and a number of
 * failures per account and window, after which that account's logins (right password or not) wait for the window.
 */
export class LoginLimiter {
  private inFlight = 0;
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxConcurrent = 4,
    private readonly maxFailures = 10,
    private readonly windowMs = 60_000,
  ) {}

  async attempt<T>(account: string, check: () => Promise<T | undefined>): Promise<T | undefined> {
    const now = Date.now();
    const recent = (this.failures.get(account) ?? []).filter((t) => t > now - this.windowMs);
    if (recent.length >= this.maxFailures) {
      const wait = Math.ceil((recent[0]! + this.windowMs - now) / 1000);
      throw new HubError(429, 'too many failed logins', `${recent.length} wrong passwords for this account within a minute; try again in ${wait} s`);
    }
    if (this.inFlight >= this.maxConcurrent) {
      throw new HubError(429, 'too many logins at once', `at most ${this.maxConcurrent} passwords are checked at a time; try again in a moment`);
    }
    // Count the attempt as a failure until it is known to be right, so parallel guesses cannot overrun the limit.
    recent.push(now);
    this.failures.set(account, recent);
    this.inFlight++;
    try {
      const result = await check();
      if (result !== undefined) recent.splice(recent.indexOf(now), 1);
      return result;
    } finally {
      this.inFlight--;
      if (recent.length === 0) this.failures.delete(account);
      this.prune(now);
    }
  }

  private prune(now: number): void {
    if (this.failures.size < 10_000) return;
    for (const [account, times] of this.failures) if (times.every((t) => t <= now - this.windowMs)) this.failures.delete(account);
  }
}

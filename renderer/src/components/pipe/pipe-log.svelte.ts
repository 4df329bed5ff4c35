// A pipe's execution log as the pipe page holds it: newest first, grown at the new end by polling (`since` the newest
// entry) and at the old end by "Load older" (`reverse` with `since` the oldest entry), per instance-api §4.1.
import { api } from '../../lib/api';
import { encode, errorText } from '../../lib/format';
import type { LogEntry } from './pipe-pump';

const PAGE = 200;
/** Most new entries read per poll request (a burst of runs between two polls is read in a few requests). */
const NEWER_PAGE = 1000;

export class PipeLog {
  /** Loaded entries, newest first. */
  entries = $state<LogEntry[]>([]);
  /** Whether the log may hold entries older than the loaded ones. */
  hasOlder = $state(false);
  loadingOlder = $state(false);
  loaded = $state(false);
  error = $state<string | null>(null);
  private busy = false;

  constructor(private readonly pipeId: string) {}

  private get path(): string {
    return `/pipes/${encode(this.pipeId)}/log`;
  }

  /** Read the newest page the first time, afterwards only what was added since the newest loaded entry. */
  async refresh(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      if (this.entries.length === 0) {
        const page = await api<LogEntry[]>(`${this.path}?reverse=true&limit=${PAGE}`);
        this.entries = page;
        this.hasOlder = page.length === PAGE;
      } else {
        for (;;) {
          const newest = this.entries[0]!._updated;
          const page = await api<LogEntry[]>(`${this.path}?since=${newest}&limit=${NEWER_PAGE}`);
          if (page.length > 0) this.entries = [...page.reverse(), ...this.entries];
          if (page.length < NEWER_PAGE) break;
        }
      }
      this.loaded = true;
      this.error = null;
    } catch (e) {
      this.error = errorText(e, 'Reading the execution log');
    } finally {
      this.busy = false;
    }
  }

  /** Read the page before the oldest loaded entry. */
  async loadOlder(): Promise<void> {
    const oldest = this.entries.at(-1);
    if (this.loadingOlder || oldest === undefined) return;
    this.loadingOlder = true;
    try {
      const page = await api<LogEntry[]>(`${this.path}?reverse=true&since=${oldest._updated}&limit=${PAGE}`);
      this.entries = [...this.entries, ...page];
      this.hasOlder = page.length === PAGE;
      this.error = null;
    } catch (e) {
      this.error = errorText(e, 'Reading older log entries');
    } finally {
      this.loadingOlder = false;
    }
  }
}

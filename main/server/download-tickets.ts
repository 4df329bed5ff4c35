// Downloads the explorer starts in two steps: POST checks the request and answers a ticket, the browser then fetches
// the file by the ticket as a plain link (its own download manager writes it to disk), while the page polls the
// ticket for the bytes sent so far and for an error in words. Nothing here holds file contents.
import { randomUUID } from 'node:crypto';
import { Transform, pipeline, type Readable } from 'node:stream';

export type DownloadState = 'ready' | 'streaming' | 'done' | 'failed' | 'cancelled';

export interface DownloadRequest {
  dataset: string;
  format: 'json' | 'csv';
  deleted: boolean;
  subset?: string;
  /** A saved remote instance connection; undefined for the local hub. */
  connection?: string;
  /** A registry of the Registry view ("local" or a saved registry connection) and the entry's instance id. */
  registry?: string;
  instanceId?: string;
}

export interface DownloadTicket extends DownloadRequest {
  id: string;
  file: string;
  state: DownloadState;
  bytes: number;
  error?: string;
  created: number;
  finished?: number;
}

/** How long an unused ticket stays valid, and how long a finished one can still be asked about. */
const UNUSED_MS = 10 * 60_000;
const FINISHED_MS = 10 * 60_000;
const MAX_TICKETS = 200;

export class DownloadTickets {
  private readonly tickets = new Map<string, DownloadTicket>();

  create(request: DownloadRequest, file: string): DownloadTicket {
    this.prune();
    const ticket: DownloadTicket = { ...request, id: randomUUID(), file, state: 'ready', bytes: 0, created: Date.now() };
    this.tickets.set(ticket.id, ticket);
    return ticket;
  }

  get(id: string): DownloadTicket | undefined {
    this.prune();
    return this.tickets.get(id);
  }

  fail(ticket: DownloadTicket, error: string): void {
    if (ticket.state === 'done' || ticket.state === 'failed' || ticket.state === 'cancelled') return;
    ticket.state = 'failed';
    ticket.error = error;
    ticket.finished = Date.now();
  }

  /**
   * The file stream with its bytes counted on the ticket. `closed` is called when the browser goes away; an error of
   * the source (or the browser leaving before the end) is recorded on the ticket in words.
   */
  track(ticket: DownloadTicket, source: Readable, onBrowserClose: (listener: () => void) => void): Readable {
    ticket.state = 'streaming';
    let ended = false;
    const counter = new Transform({
      transform(chunk: Buffer | string, _encoding, done) {
        ticket.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
        done(null, chunk);
      },
    });
    pipeline(source, counter, (error) => {
      if (!error) return;
      if (ended) return;
      this.fail(ticket, error.message);
    });
    counter.on('end', () => {
      ended = true;
      ticket.state = 'done';
      ticket.finished = Date.now();
    });
    onBrowserClose(() => {
      if (ticket.state !== 'streaming') return;
      if (ended) return;
      ticket.state = 'cancelled';
      ticket.error = 'the browser stopped the download before the end';
      ticket.finished = Date.now();
      counter.destroy();
    });
    return counter;
  }

  private prune(): void {
    const now = Date.now();
    for (const [id, t] of this.tickets) {
      const stale = t.finished !== undefined ? now - t.finished > FINISHED_MS : t.state === 'ready' && now - t.created > UNUSED_MS;
      if (stale) this.tickets.delete(id);
    }
    // Oldest first: a flood of unused tickets cannot grow the map without bound.
    for (const id of this.tickets.keys()) {
      if (this.tickets.size <= MAX_TICKETS) break;
      this.tickets.delete(id);
    }
  }
}

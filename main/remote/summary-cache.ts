// The notification summary of each portal connection, kept in the host's memory and refreshed incrementally: each
// read pulls only the entries changed since the last one (JSON Pull `since`), so frequent badge refreshes stay cheap.
import type { PortalClient } from './portal-client.js';
import type { SummaryEntry } from '../../hub-core/base/index.js';

interface State {
  since: number | undefined;
  entries: Map<string, SummaryEntry>;
}

export class SummaryCache {
  private readonly byConnection = new Map<string, State>();

  /** The current entries of a connection's summary (none deleted), after pulling what changed. */
  async read(connection: string, client: PortalClient): Promise<SummaryEntry[]> {
    const state = this.byConnection.get(connection) ?? { since: undefined, entries: new Map<string, SummaryEntry>() };
    const changes = await client.summaryChanges(state.since);
    if (changes.reset) state.entries.clear();
    for (const e of changes.entries) {
      if (e._deleted) state.entries.delete(e._id);
      else state.entries.set(e._id, e);
    }
    state.since = changes.since;
    this.byConnection.set(connection, state);
    return [...state.entries.values()];
  }

  /** Drops what is kept for connections that no longer exist. */
  prune(existing: (id: string) => boolean): void {
    for (const id of this.byConnection.keys()) if (!existing(id)) this.byConnection.delete(id);
  }
}

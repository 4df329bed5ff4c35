// How the dataset view reads its table: pages of entities from GET /datasets/<id>/entities, a window of them kept.
import { api } from '../../lib/api';
import { encode } from '../../lib/format';
import type { StoredEntity } from '../../lib/types';

export const PAGE = 200;
/** Rows kept in memory (and in the virtual list); pages beyond are dropped and read again when scrolled back to. */
export const MAX_ROWS = 30 * PAGE;
export const FOLLOW_MS = 2000;

export interface Page {
  /** The `since` that reads this page again, in the order shown. */
  since: number | undefined;
  rows: StoredEntity[];
}
export interface Dropped {
  since: number | undefined;
  count: number;
}

/** What one read asks for; `backwards` reads towards lower offsets. */
export interface PageQuery {
  since: number | undefined;
  limit: number;
  backwards: boolean;
  deleted: boolean;
  subset: string | null;
  /** The explorer's filters combined (profile-filters.ts), if any. */
  filter: string | undefined;
}

/**
 * Read a page. Null when `stale()` says a newer restart made it stale. A request that got no answer at all (a dropped
 * connection) is tried once more before the error is shown.
 */
export async function readPage(dataset: string, q: PageQuery, stale: () => boolean): Promise<StoredEntity[] | null> {
  const params = new URLSearchParams({ history: 'false', limit: String(q.limit), deleted: String(q.deleted) });
  if (q.since !== undefined) params.set('since', String(q.since));
  if (q.backwards) params.set('reverse', 'true');
  if (q.subset !== null) params.set('subset', q.subset);
  if (q.filter !== undefined) params.set('filter', q.filter);
  const url = `/datasets/${encode(dataset)}/entities?${params}`;
  let page: StoredEntity[];
  try {
    page = await api<StoredEntity[]>(url);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    await new Promise((r) => setTimeout(r, 500));
    if (stale()) return null;
    page = await api<StoredEntity[]>(url);
  }
  return stale() ? null : page;
}

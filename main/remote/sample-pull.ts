// Reading a sample of a pipe's input from a remote instance through its API: a pipe whose (real) source reads one
// dataset reads that dataset's latest, not deleted entities (JSON Pull, page by page with `since`); any other source
// (merge, union, an outside system) is read as the remote pipe's own source stage (GET /pipes/<id>/entities?stage=source).
// A DTL filter is applied here, on each entity as `_S`, so it works against any instance.

import { HubError } from '../../hub-core/base/index.js';
import { compileEntityFilter, type EntityFilter } from '../../hub-core/explore/index.js';
import { isJsonObject, type JsonObject } from '../../hub-core/base/index.js';
import { InstanceClient, messageOf } from './config-sync.js';

export interface SampleRequest {
  pipe: string;
  /** The pipe's real source (effective: `type` set). */
  source: JsonObject;
  count: number;
  /** A DTL predicate as JSON text. */
  filter: string | undefined;
}

export interface Sample {
  entities: JsonObject[];
  /** Where they were read, in words ("dataset people", "the source of pipe x"). */
  from: string;
  /** Entities looked at (the filter may have passed over some). */
  read: number;
}

const PAGE = 500;
/** A filter that matches nothing in this many entities gives up (a sample, not a scan of a whole instance). */
const MAX_SCANNED = 100_000;
/** Bookkeeping the instance adds to stored entities; an embedded source has no use for them. */
const INTERNAL = new Set(['_updated', '_ts', '_hash', '_previous', '_deleted']);

function asEntity(v: unknown): JsonObject | undefined {
  if (!isJsonObject(v) || typeof v['_id'] !== 'string' || v['_deleted'] === true) return undefined;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (!INTERNAL.has(k)) out[k] = x;
  return out;
}

export async function pullSample(client: InstanceClient, label: string, req: SampleRequest): Promise<Sample> {
  const filter: EntityFilter | undefined = req.filter === undefined ? undefined : compileEntityFilter(req.filter);
  const dataset = req.source['type'] === 'dataset' && typeof req.source['dataset'] === 'string' ? req.source['dataset'] : undefined;
  const entities: JsonObject[] = [];
  let read = 0;
  const take = (page: unknown[]): void => {
    for (const raw of page) {
      read++;
      const e = asEntity(raw);
      if (e !== undefined && (filter === undefined || filter.matches(e)) && entities.length < req.count) entities.push(e);
    }
  };
  const page = async (path: string, what: string): Promise<unknown[]> => {
    const r = await client.call('GET', path);
    if (r.status === 404) throw new HubError(404, `${label} has no ${what}`, messageOf(r.body));
    if (r.status !== 200 || !Array.isArray(r.body)) throw new HubError(502, `${label} answered ${r.status} to reading ${what}`, messageOf(r.body));
    return r.body;
  };
  if (dataset !== undefined) {
    const what = `dataset ${JSON.stringify(dataset)}`;
    let since: string | undefined;
    while (entities.length < req.count && read < MAX_SCANNED) {
      const params = new URLSearchParams({ history: 'false', deleted: 'false', limit: String(filter === undefined ? req.count : PAGE) });
      if (since !== undefined) params.set('since', since);
      const got = await page(`/datasets/${encodeURIComponent(dataset)}/entities?${params}`, what);
      take(got);
      const last = got[got.length - 1];
      const next = isJsonObject(last) && last['_updated'] !== undefined ? String(last['_updated']) : undefined;
      if (got.length === 0 || next === undefined || next === since) break;
      since = next;
    }
    return { entities, from: what, read };
  }
  // Another source: the remote pipe's source stage, read whole up to a bound (it has no `since` to page with).
  const what = `pipe ${JSON.stringify(req.pipe)} (its source stage)`;
  const limit = filter === undefined ? req.count : MAX_SCANNED;
  take(await page(`/pipes/${encodeURIComponent(req.pipe)}/entities?stage=source&limit=${limit}`, what));
  return { entities, from: `the source of pipe ${JSON.stringify(req.pipe)}`, read };
}

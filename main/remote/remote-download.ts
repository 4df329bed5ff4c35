// A dataset download from a remote instance, through the host (the token stays in the keychain). JSON is the
// instance's own JSON Pull stream passed through; CSV is built from pages of the latest versions read by `since`,
// so the host holds one page at a time however large the dataset is.
import { Readable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import { HubError, notFound } from '../../hub-core/base/index.js';
import { COLUMN_LOOKAHEAD, cellValue, inferColumns, isDeleted, propertyOf, type CellValue, type EntityObject } from '../server/formats/columns.js';
import { InstanceClient, messageOf } from './config-sync.js';
import { forward } from './instance-proxy.js';

export interface RemoteTarget {
  apiRoot: string;
  /** '' for none (a shared registry). */
  token: string;
  label: string;
}

export interface RemoteDownload {
  dataset: string;
  deleted: boolean;
  subset?: string;
  /** The entity stream's path below apiRoot, when it is not /datasets/<dataset>/entities (a registry's /data/...). */
  path?: string;
}

/** Entities per page read from the instance for a CSV. */
const PAGE = 1000;

function entitiesPath(d: RemoteDownload, extra: Record<string, string>): string {
  const params = new URLSearchParams({ history: 'false', deleted: String(d.deleted), ...extra });
  if (d.subset !== undefined) params.set('subset', d.subset);
  return `${d.path ?? `/datasets/${encodeURIComponent(d.dataset)}/entities`}?${params}`;
}

/** A 4xx of the instance stays a 4xx here (with its reason); anything else is the gateway's 502. */
function refused(target: RemoteTarget, status: number, what: string, body: unknown): HubError {
  const code = status >= 400 && status < 500 ? status : 502;
  return new HubError(code, `${target.label} answered ${status} to ${what}`, messageOf(body));
}

/** The dataset (and the subset, if any) exist on the instance: the download can start. */
export async function checkRemoteDownload(target: RemoteTarget, d: RemoteDownload): Promise<void> {
  const client = new InstanceClient(target.apiRoot, target.token);
  const info = await client.call('GET', `/datasets/${encodeURIComponent(d.dataset)}`);
  if (info.status === 404) throw notFound(`dataset ${JSON.stringify(d.dataset)}`, `${target.label} has no such dataset`);
  if (info.status !== 200) throw refused(target, info.status, 'the dataset information', info.body);
  if (d.subset !== undefined) {
    const probe = await client.call('GET', entitiesPath(d, { limit: '1' }));
    if (probe.status !== 200) throw refused(target, probe.status, 'the subset', probe.body);
  }
}

/** The instance's JSON array of the latest versions, as it streams in. */
export async function remoteJson(target: RemoteTarget, d: RemoteDownload, signal: AbortSignal): Promise<Readable> {
  const result = await forward({ method: 'GET', apiRoot: target.apiRoot, path: entitiesPath(d, {}), headers: {}, body: undefined, token: target.token, signal });
  if (result.kind === 'unreachable') throw new HubError(502, `${target.label} cannot be reached`, result.reason);
  if (result.kind === 'unauthorized') throw new HubError(502, `${target.label} rejected the stored token`, 'store a new token for this connection');
  if (result.status !== 200) {
    const chunks: Buffer[] = [];
    for await (const chunk of result.body) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep the text
    }
    throw refused(target, result.status, 'the entities', body);
  }
  return result.body;
}

async function* remotePages(target: RemoteTarget, d: RemoteDownload): AsyncGenerator<EntityObject[], void, undefined> {
  const client = new InstanceClient(target.apiRoot, target.token);
  let since: number | undefined;
  for (;;) {
    const r = await client.call('GET', entitiesPath(d, { limit: String(PAGE), ...(since !== undefined ? { since: String(since) } : {}) }));
    if (r.status !== 200) throw refused(target, r.status, 'a page of entities', r.body);
    if (!Array.isArray(r.body)) throw new HubError(502, `${target.label} answered a page of entities that is not a JSON array`);
    const page = r.body as EntityObject[];
    if (page.length === 0) return;
    yield page;
    const last = page[page.length - 1]!['_updated'];
    if (page.length < PAGE || typeof last !== 'number') return;
    since = last;
  }
}

async function* csvRecords(pages: AsyncIterable<EntityObject[]>): AsyncGenerator<readonly CellValue[], void, undefined> {
  async function* live(): AsyncGenerator<EntityObject, void, undefined> {
    for await (const page of pages) for (const e of page) if (!isDeleted(e)) yield e;
  }
  const entities = live();
  const first: EntityObject[] = [];
  for (let r = await entities.next(); ; r = await entities.next()) {
    if (r.done === true) break;
    first.push(r.value);
    if (first.length >= COLUMN_LOOKAHEAD) break;
  }
  const columns = inferColumns(first);
  const row = (e: EntityObject): CellValue[] => columns.map((c) => cellValue(propertyOf(e, c)));
  yield columns;
  for (const e of first) yield row(e);
  first.length = 0;
  for (let r = await entities.next(); r.done !== true; r = await entities.next()) yield row(r.value);
}

/** The instance's latest non-deleted versions as CSV, with the same columns and quoting as a local download. */
export function remoteCsv(target: RemoteTarget, d: RemoteDownload): Readable {
  const stringifier = stringify({
    delimiter: ',',
    quote: '"',
    escape: '"',
    record_delimiter: 'windows',
    quote_record_delimiter: true,
    cast: { boolean: (value: boolean) => (value ? 'true' : 'false') },
  });
  pipeline(Readable.from(csvRecords(remotePages(target, { ...d, deleted: false }))), stringifier, () => {});
  return stringifier;
}

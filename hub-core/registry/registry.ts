import type { Hub } from '../hub.js';
import type { Dataset } from '../storage/index.js';
import type { ConfigEntity } from '../config/index.js';
import { effectivePipeConfig } from '../pipes/index.js';
import { notFound } from '../base/index.js';
import { isJsonObject, type JsonObject } from '../base/index.js';

/**
 * The hub as a dataset registry (instance-api.md §1.5–1.7): which datasets it publishes and what it says about them.
 * A pipe with `metadata.registry` publishes its sink dataset; node metadata `registry.publish_all: true` publishes
 * every dataset but the system ones (`system:...`). Node metadata `registry.share: true` lets callers without a
 * token read the registry (the host enforces that). The instance id is the hub's stable node id.
 */

export interface RegistrySettings {
  publishAll: boolean;
  share: boolean;
}

export interface RegistryEntry extends JsonObject {
  instance_id: string;
  dataset_id: string;
  name: string;
  description: string | null;
  keywords: string[];
  license: string | null;
  /** The pipe that writes the dataset, when one does. */
  pipe: string | null;
  /** When the dataset was created (ISO 8601). */
  first_published: string;
  /** When the dataset last changed (ISO 8601); null while it is empty. */
  last_published: string | null;
  /** Live (not deleted) entities. */
  entities: number;
  /** Paths relative to the registry address: the entry with its preview, and the data as JSON Pull. */
  links: { preview: string; data: string };
}

export interface RegistryQuery {
  q?: string;
  keyword?: string;
  license?: string;
  offset?: number;
  limit?: number;
}

export interface RegistryPage extends JsonObject {
  instance_id: string;
  total: number;
  offset: number;
  limit: number;
  entries: RegistryEntry[];
}

export const PREVIEW_SIZE = 10;
export const DEFAULT_PAGE = 100;

interface Published {
  pipe: ConfigEntity | undefined;
  registry: JsonObject;
}

export function isSystemDataset(name: string): boolean {
  return name.startsWith('system:');
}

export class DatasetRegistry {
  constructor(private readonly hub: Hub) {}

  get instanceId(): string {
    return this.hub.nodeId;
  }

  settings(): RegistrySettings {
    const md = this.hub.metadata();
    const reg = isJsonObject(md['registry']) ? md['registry'] : {};
    return { publishAll: reg['publish_all'] === true, share: reg['share'] === true };
  }

  /** Published dataset names (existing datasets only), each with the pipe that writes it and its registry metadata. */
  private published(): Map<string, Published> {
    const writers = new Map<string, Published>();
    for (const id of this.hub.pipes.ids()) {
      const pipe = this.hub.pipes.get(id);
      if (!pipe) continue;
      const eff = effectivePipeConfig(pipe);
      const name = eff.sink.type === 'dataset' ? eff.sink['dataset'] : undefined;
      if (typeof name !== 'string') continue;
      const md = pipe['metadata'];
      const registry = isJsonObject(md) ? md['registry'] : undefined;
      const previous = writers.get(name);
      // A dataset written by several pipes: the one with registry metadata describes it.
      if (previous && !isJsonObject(registry)) continue;
      if (isJsonObject(registry)) writers.set(name, { pipe, registry });
      else if (registry === true) writers.set(name, { pipe, registry: {} });
      else writers.set(name, { pipe, registry: PUBLISH_ALL_ONLY });
    }
    const all = this.settings().publishAll;
    const out = new Map<string, Published>();
    for (const name of this.hub.datasets.names()) {
      if (isSystemDataset(name)) continue;
      const w = writers.get(name);
      if (w && w.registry !== PUBLISH_ALL_ONLY) out.set(name, w);
      else if (all) out.set(name, { pipe: w?.pipe, registry: {} });
    }
    return out;
  }

  isPublished(datasetId: string): boolean {
    return this.published().has(datasetId);
  }

  /** The published dataset ids, for markers in other lists. */
  publishedIds(): Set<string> {
    return new Set(this.published().keys());
  }

  list(query: RegistryQuery = {}): RegistryPage {
    const q = query.q?.trim().toLowerCase() ?? '';
    const keyword = query.keyword?.trim().toLowerCase();
    const license = query.license?.trim().toLowerCase();
    const matches: RegistryEntry[] = [];
    for (const [name, p] of this.published()) {
      const ds = this.hub.datasets.get(name);
      if (!ds) continue;
      const entry = this.describe(ds, p);
      if (keyword && !entry.keywords.some((k) => k.toLowerCase() === keyword)) continue;
      if (license && (entry.license ?? '').toLowerCase() !== license) continue;
      if (q && ![entry.dataset_id, entry.name, entry.description ?? '', ...entry.keywords].some((t) => t.toLowerCase().includes(q))) continue;
      matches.push(entry);
    }
    const offset = Math.max(0, query.offset ?? 0);
    const limit = Math.max(0, query.limit ?? DEFAULT_PAGE);
    return { instance_id: this.instanceId, total: matches.length, offset, limit, entries: matches.slice(offset, offset + limit) };
  }

  /** A published dataset by instance and dataset id; 404 for anything else, whatever the ids say. */
  dataset(instanceId: string, datasetId: string): Dataset {
    const missing = notFound('registry entry', `${JSON.stringify(datasetId)} is not a dataset this registry publishes`);
    if (instanceId !== this.instanceId || isSystemDataset(datasetId)) throw missing;
    if (!this.published().has(datasetId)) throw missing;
    const ds = this.hub.datasets.get(datasetId);
    if (!ds) throw missing;
    return ds;
  }

  /** One entry with `preview`: its first entities (the latest version of each, deleted ones left out). */
  entry(instanceId: string, datasetId: string): RegistryEntry & { preview: JsonObject[] } {
    const ds = this.dataset(instanceId, datasetId);
    const p = this.published().get(datasetId);
    const preview = ds.read({ history: false, deleted: false, limit: PREVIEW_SIZE }) as unknown as JsonObject[];
    return { ...this.describe(ds, p ?? { pipe: undefined, registry: {} }), preview };
  }

  private describe(ds: Dataset, p: Published): RegistryEntry {
    const info = ds.info();
    const reg = p.registry;
    const pipe = p.pipe;
    const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
    const keywords = Array.isArray(reg['keywords']) ? reg['keywords'].filter((k): k is string => typeof k === 'string') : [];
    const last = info['max-updated'] === null ? undefined : ds.read({ reverse: true, limit: 1 })[0];
    const id = encodeURIComponent(ds.name);
    return {
      instance_id: this.instanceId,
      dataset_id: ds.name,
      name: text(reg['name']) ?? text(pipe?.['name']) ?? ds.name,
      description: text(reg['description']) ?? text(pipe?.['description']) ?? null,
      keywords,
      license: text(reg['license']) ?? null,
      pipe: pipe?._id ?? null,
      first_published: info.created,
      last_published: last ? new Date(Math.floor(last._ts / 1000)).toISOString() : null,
      entities: info.count,
      links: { preview: `/entries/${this.instanceId}/${id}`, data: `/data/${this.instanceId}/${id}` },
    };
  }
}

/** Marks a dataset whose writing pipe has no registry metadata: published only under `publish_all`. */
const PUBLISH_ALL_ONLY: JsonObject = {};

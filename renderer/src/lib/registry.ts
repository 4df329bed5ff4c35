// What the Registry view reads from the host's /desktop/registries routes (shapes of hub-core/registry/registry.ts).
import type { RegistryEntry } from '../../../hub-core/registry/index';
import type { StoredEntity } from './types';

export type { RegistryEntry };

export interface RegistrySource {
  id: string;
  label: string;
  url: string;
  /** This hub's own registry. */
  local: boolean;
}

export interface RegistryPage {
  instance_id: string;
  total: number;
  offset: number;
  limit: number;
  entries: RegistryEntry[];
}

/** What the enrich route created. */
export interface Enriched {
  system: string;
  source: string;
  pipe: string;
  warnings: string[];
}

export type RegistryEntryWithPreview = RegistryEntry & { preview: StoredEntity[] };

/** The registry entry an item of the view points at: `<instance_id>/<dataset_id>` (instance ids hold no "/"). */
export function entryKey(e: Pick<RegistryEntry, 'instance_id' | 'dataset_id'>): string {
  return `${e.instance_id}/${e.dataset_id}`;
}

export function parseEntryKey(key: string | null): { instanceId: string; datasetId: string } | null {
  if (key === null) return null;
  const slash = key.indexOf('/');
  if (slash <= 0 || slash === key.length - 1) return null;
  return { instanceId: key.slice(0, slash), datasetId: key.slice(slash + 1) };
}

/** The entries' keywords, most used first, for the chips. */
export function keywordCounts(entries: readonly RegistryEntry[]): { keyword: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const e of entries) for (const k of e.keywords) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].map(([keyword, count]) => ({ keyword, count })).sort((a, b) => b.count - a.count || a.keyword.localeCompare(b.keyword));
}

/** A pipe id for an enriched dataset: the dataset id with "-enriched", characters an id cannot hold replaced. */
export function enrichedPipeId(datasetId: string): string {
  return `${datasetId.replace(/[\s/\\?#:]+/g, '-').replace(/^-+|-+$/g, '') || 'dataset'}-enriched`;
}

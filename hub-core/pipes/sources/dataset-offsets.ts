// Helpers of the sources that read several datasets: their position is a JSON object of per-dataset offsets.
import type { JsonObject } from '../../base/index.js';
import { isJsonObject } from '../../base/index.js';
import { HubError } from '../../base/index.js';
import { parseJson } from '../../base/index.js';
import type { Dataset } from '../../storage/index.js';
import type { EffectivePipe } from '../../config/index.js';

export type Offsets = Record<string, number>;

/** The `datasets` list of a multi-dataset source (ids; a "<id> <alias>" entry names the dataset by its first word). */
export function datasetIds(pipe: EffectivePipe): string[] {
  const list = pipe.source['datasets'];
  if (!Array.isArray(list) || list.length === 0 || !list.every((d): d is string => typeof d === 'string' && d.trim() !== '')) {
    throw new HubError(400, `a ${pipe.source.type} source needs "datasets": a non-empty list of dataset ids`);
  }
  return list.map((d) => d.trim().split(/\s+/)[0]!);
}

/** A stored position: a JSON object of dataset offsets; anything else starts every dataset from the beginning. */
export function parseOffsets(since: string | undefined): Offsets {
  if (since === undefined) return {};
  try {
    const v: unknown = JSON.parse(since);
    if (!isJsonObject(v)) return {};
    const out: Offsets = {};
    for (const [k, n] of Object.entries(v)) if (typeof n === 'number' && Number.isInteger(n) && n >= 0) out[k] = n;
    return out;
  } catch {
    return {};
  }
}

export function encodeOffsets(offsets: Offsets): string {
  return JSON.stringify(offsets);
}

/** One page of a dataset's changes after `since` (deletes included; latest versions unless `history`). */
export function readPage(ds: Dataset, since: number | undefined, limit: number, history = false): JsonObject[] {
  const page: JsonObject[] = [];
  for (const texts of ds.readJson({ ...(since !== undefined ? { since } : {}), history, deleted: true, limit })) {
    for (const text of texts) page.push(parseJson(text) as JsonObject);
  }
  return page;
}

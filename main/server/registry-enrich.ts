// The enrichment flow of instance-api.md §1.7 in one step: a `system:url` whose base_url is the registry address, a
// `json` source pipe reading `/data/<instance_id>/<dataset_id>` through it, and a DTL pipe on that dataset with
// `metadata.registry` (it publishes the result). Everything is checked before anything is stored, and what was
// stored is taken back out if a later step fails: the hub ends with all three or none.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hub } from '../../hub-core/hub.js';
import type { DatasetRegistry } from '../../hub-core/registry/index.js';
import type { ConfigEntity } from '../../hub-core/config/index.js';
import { HubError, badRequest, conflict } from '../../hub-core/base/index.js';
import { isComponentId } from '../../hub-core/config/index.js';
import type { RegistryClient } from '../remote/registry-client.js';

export interface EnrichRequest {
  instance_id: string;
  dataset_id: string;
  pipe_id: string;
  name?: string;
  description?: string;
  keywords?: string[];
  license?: string;
}

export type EnrichTarget =
  | { kind: 'local'; url: string; registry: DatasetRegistry; dataDir: string }
  | { kind: 'remote'; client: RegistryClient; token: string | null };

export interface EnrichResult {
  system: string;
  source: string;
  pipe: string;
  warnings: string[];
}

const SECRET = 'registry-token';

function idProblem(id: string): string | null {
  if (id.trim() !== id || id === '') return 'an id has no spaces at either end and is not empty';
  if (/\s/.test(id)) return 'an id has no spaces';
  if (!isComponentId(id)) return 'an id cannot hold "/", "\\", "?", "#", control characters or lone surrogates';
  return null;
}

/** The registry metadata the user filled in (empty fields left out). */
function registryMetadata(r: EnrichRequest): Record<string, unknown> {
  const text = (v: string | undefined): string | undefined => (v !== undefined && v.trim() !== '' ? v.trim() : undefined);
  const keywords = [...new Set((r.keywords ?? []).map((k) => k.trim()).filter((k) => k !== ''))];
  const name = text(r.name);
  const description = text(r.description);
  const license = text(r.license);
  return {
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(keywords.length > 0 ? { keywords } : {}),
    ...(license !== undefined ? { license } : {}),
  };
}

export async function enrich(hub: Hub, target: EnrichTarget, r: EnrichRequest): Promise<EnrichResult> {
  const problem = idProblem(r.pipe_id);
  if (problem) throw badRequest(`the pipe id ${JSON.stringify(r.pipe_id)} cannot be used`, problem);
  const ids = { system: `${r.pipe_id}-registry`, source: `${r.pipe_id}-source`, pipe: r.pipe_id };

  // 1. Nothing of the three may exist (pipes and systems share one namespace).
  const checkFree = (): void => {
    for (const id of Object.values(ids)) {
      const taken = hub.pipes.get(id) !== undefined ? 'pipe' : hub.config.get('system', id) !== undefined ? 'system' : null;
      if (taken) throw conflict(`${taken} ${JSON.stringify(id)} already exists`, `enriching creates ${ids.system}, ${ids.source} and ${ids.pipe}; pick another pipe id. Nothing was created.`);
    }
  };
  checkFree();

  // 2. The registry answers as one and still lists the entry (a 404 in words for anything it does not publish).
  const warnings: string[] = [];
  let baseUrl: string;
  let token: string | null;
  if (target.kind === 'local') {
    target.registry.entry(r.instance_id, r.dataset_id);
    baseUrl = target.url;
    if (target.registry.settings().share) token = null;
    else {
      token = readFileSync(join(target.dataDir, 'access-token'), 'utf8').trim();
      warnings.push("This hub's registry is not shared, so the system uses this hub's current admin token, which lasts until the hub restarts. Set registry.share: true in the node metadata to keep the chain working.");
    }
  } else {
    await target.client.entries('?limit=1');
    const entry = await target.client.entry(r.instance_id, r.dataset_id);
    if (entry['instance_id'] !== r.instance_id) throw new HubError(404, 'registry entry not found', `${target.client.label} answered an entry of another instance`);
    baseUrl = target.client.url;
    token = target.token;
  }

  // 3. Every configuration is valid before any is stored.
  const system = {
    _id: ids.system,
    type: 'system:url',
    name: `Registry for ${r.pipe_id}`,
    base_url: baseUrl,
    ...(token !== null ? { headers: { Authorization: `$SECRET(${SECRET})` } } : {}),
  };
  const source = {
    _id: ids.source,
    type: 'pipe',
    name: `${r.dataset_id} from the registry`,
    source: { type: 'json', system: ids.system, url: `/data/${encodeURIComponent(r.instance_id)}/${encodeURIComponent(r.dataset_id)}`, supports_since: true },
    sink: { type: 'dataset', dataset: ids.source },
  };
  const pipe = {
    _id: ids.pipe,
    type: 'pipe',
    ...(r.name !== undefined && r.name.trim() !== '' ? { name: r.name.trim() } : {}),
    source: { type: 'dataset', dataset: ids.source },
    transform: { type: 'dtl', rules: { default: [['copy', '*']] } },
    sink: { type: 'dataset', dataset: ids.pipe },
    metadata: { registry: registryMetadata(r) },
  };
  const systems: ConfigEntity[] = hub.systems.validate([system], false);
  const pipes: ConfigEntity[] = hub.pipes.validate([source, pipe], false);

  // 4. Store; on any failure take back what was stored. The ids are checked again: the registry was asked in
  // between, and a pipe created meanwhile must not be overwritten (nothing awaits from here on).
  checkFree();
  let systemSaved = false;
  try {
    hub.systems.save(systems);
    systemSaved = true;
    if (token !== null) hub.secrets.set({ [SECRET]: `Bearer ${token}` }, true, ids.system);
    hub.pipes.save(pipes);
  } catch (e) {
    for (const id of [ids.pipe, ids.source]) if (hub.pipes.get(id) !== undefined) hub.pipes.delete(id);
    if (systemSaved && hub.config.get('system', ids.system) !== undefined) hub.systems.delete(ids.system);
    throw e;
  }
  return { ...ids, warnings };
}

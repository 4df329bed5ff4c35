// Moves configuration between a remote instance and a local workspace folder: download (remote → files in the
// project layout), a per-pipe/system comparison, and upload of chosen local changes through the instance API.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { asConfigEntity, configKind, type ConfigEntity, type ConfigKind } from '../../hub-core/config/index.js';
import { configFilePath, configFileText } from '../../hub-core/config/index.js';
import { updatedFileText } from '../../hub-core/config/index.js';
import { workspaceNodeDir } from '../../hub-core/project/index.js';
import { readConfigFiles } from '../../hub-core/config/index.js';
import type { DownloadResult } from '../../hub-core/desktop-types.js';
import { canonicalJson, isJsonObject } from '../../hub-core/base/index.js';
import { HubError, badRequest } from '../../hub-core/base/index.js';
import { readTextFile } from '../../hub-core/base/index.js';

/** Remote env variables and the names of its secrets; kept beside the config, never loaded into the local hub. */
export const REMOTE_ENV_FILE = 'remote-env.json';

export interface RemoteEnv {
  env: Record<string, string>;
  /** Secret values cannot be read from an instance, only their names. */
  secrets: { node: string[]; systems: Record<string, string[]> };
}

export interface RemoteSnapshot extends RemoteEnv {
  entities: ConfigEntity[];
}

export type DiffStatus = 'added' | 'removed' | 'changed' | 'same';

/** What a sync item is: a pipe, a system, the node metadata, or the env variables (one item for all of them). */
export type SyncKind = ConfigKind | 'env';

/** The id of the one env item. */
export const ENV_ITEM = 'env';

/**
 * One pipe, system, the node metadata or the env variables, compared. "added" exists only locally, "removed" only
 * remotely. The hashes name the exact versions compared: an upload sends them back, and the host refuses it when
 * either side has changed since.
 */
export interface DiffItem {
  kind: SyncKind;
  id: string;
  status: DiffStatus;
  /** Text of the local file (as the workspace writes it), or null when absent. */
  local: string | null;
  remote: string | null;
  localHash: string | null;
  remoteHash: string | null;
  /** Env only: names an upload would delete on the remote (set there, absent from the local file). */
  removes?: string[];
}

/** Calls a remote instance's API with the connection's token; failures become HubErrors a user can read. */
export class InstanceClient {
  constructor(
    private readonly apiRoot: string,
    private readonly token: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const url = `${this.apiRoot.replace(/\/+$/, '')}${path}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          ...(this.token !== '' ? { authorization: `Bearer ${this.token}` } : {}),
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(60_000),
      });
    } catch (e) {
      const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : e instanceof Error ? e.message : String(e);
      throw new HubError(502, 'the remote instance cannot be reached', cause);
    }
    if (res.status === 401) {
      await res.body?.cancel();
      throw new HubError(502, 'the remote instance rejected the stored token', 'store a new token for this connection');
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON: keep the text for the message
    }
    return { status: res.status, body: parsed };
  }

  async get<T>(path: string): Promise<T> {
    const r = await this.call('GET', path);
    if (r.status !== 200) throw new HubError(502, `the remote instance answered ${r.status} to GET ${path}`, messageOf(r.body));
    return r.body as T;
  }
}

export function messageOf(body: unknown): string {
  if (isJsonObject(body) && typeof body['error'] === 'string') {
    return typeof body['detail'] === 'string' ? `${body['error']}: ${body['detail']}` : body['error'];
  }
  return typeof body === 'string' ? body.slice(0, 300) : JSON.stringify(body).slice(0, 300);
}

export const key = (kind: SyncKind, id: string): string => `${kind}:${id}`;

/** A short fingerprint of a version: equal content (whatever its formatting) gives the same value. */
export function versionHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 32);
}

/** Every pipe and system of the remote (all config groups), its metadata, env and secret names. */
export async function fetchRemote(client: InstanceClient): Promise<RemoteSnapshot> {
  const [defaultGroup, pipes, systems, env, nodeSecrets] = await Promise.all([
    client.get<unknown[]>('/config'),
    client.get<{ _id: string }[]>('/pipes'),
    client.get<{ _id: string }[]>('/systems'),
    client.get<Record<string, string>>('/env'),
    client.get<string[]>('/secrets'),
  ]);
  const entities = new Map<string, ConfigEntity>();
  defaultGroup.forEach((v, i) => {
    const e = asConfigEntity(v, `remote configuration entity #${i}`);
    entities.set(key(configKind(e), e._id), e);
  });
  // Pipes and systems of other config groups are not in GET /config; fetch them one by one.
  const missing = [
    ...pipes.filter((p) => !entities.has(key('pipe', p._id))).map((p) => ['pipe', p._id] as const),
    ...systems.filter((s) => !entities.has(key('system', s._id))).map((s) => ['system', s._id] as const),
  ];
  for (const [kind, id] of missing) {
    const e = asConfigEntity(await client.get<unknown>(`/${kind}s/${encodeURIComponent(id)}/config`), `remote ${kind} ${id}`);
    entities.set(key(kind, id), e);
  }
  const systemSecrets: Record<string, string[]> = {};
  for (const s of systems) {
    const r = await client.call('GET', `/systems/${encodeURIComponent(s._id)}/secrets`);
    if (r.status === 200 && Array.isArray(r.body)) systemSecrets[s._id] = r.body.filter((n): n is string => typeof n === 'string');
  }
  return { entities: sortEntities([...entities.values()]), env, secrets: { node: nodeSecrets, systems: systemSecrets } };
}

function sortEntities(list: ConfigEntity[]): ConfigEntity[] {
  const order: Record<ConfigKind, number> = { metadata: 0, system: 1, pipe: 2 };
  return list.sort((a, b) => order[configKind(a)] - order[configKind(b)] || a._id.localeCompare(b._id));
}

/** The folder a user named (or the hub's workspace), checked: absolute, and a folder. */
export function syncFolder(requested: string | undefined, workspaceDir: string | undefined, mustExist: boolean): string {
  const dir = requested ?? workspaceDir;
  if (dir === undefined || dir.trim() === '') {
    throw badRequest('no local folder', 'the hub was not opened on a workspace; name a folder to sync with');
  }
  if (!isAbsolute(dir)) throw badRequest(`the folder ${JSON.stringify(dir)} is not an absolute path`);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw badRequest(`${dir} is a file, not a folder`);
  if (mustExist && !existsSync(dir)) throw badRequest(`the folder ${dir} does not exist`, 'download the remote configuration into it first');
  return dir;
}

/** The node/ folder config files go in: the existing layout if there is one, else a new node/ child. */
function nodeDirFor(dir: string): string {
  const found = workspaceNodeDir(dir);
  if (found !== dir) return found;
  const hasLayout = ['pipes', 'systems', 'node-metadata.conf.json'].some((n) => existsSync(join(dir, n)));
  return hasLayout ? dir : join(dir, 'node');
}

export interface LocalEntity {
  entity: ConfigEntity;
  file: string;
}

export interface LocalFolder {
  entities: Map<string, LocalEntity>;
  /** The env variables of remote-env.json; null when the folder has none (then env is not compared). */
  env: Record<string, string> | null;
  problems: string[];
}

function readLocalEnv(nodeDir: string, problems: string[]): Record<string, string> | null {
  const file = join(nodeDir, REMOTE_ENV_FILE);
  if (!existsSync(file)) return null;
  try {
    const parsed: unknown = JSON.parse(readTextFile(file));
    const env = isJsonObject(parsed) ? parsed['env'] : undefined;
    if (!isJsonObject(env)) throw new Error('it needs an "env" object of name → value');
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) {
      if (typeof v !== 'string') throw new Error(`the value of ${JSON.stringify(k)} is not a string`);
      out[k] = v;
    }
    return out;
  } catch (e) {
    problems.push(`${REMOTE_ENV_FILE}: ${e instanceof Error ? e.message : String(e)}`);
    return null;
  }
}

/** The configuration files of a workspace folder, as the hub's workspace loader finds them, and its env file. */
export function readLocal(dir: string): LocalFolder {
  const nodeDir = nodeDirFor(dir);
  const read = readConfigFiles(nodeDir);
  const entities = new Map<string, LocalEntity>(read.entities.map(({ entity, file }) => [key(configKind(entity), entity._id), { entity, file }]));
  const problems = read.problems.map((p) => `${p.file}: ${p.msg}`);
  return { entities, env: readLocalEnv(nodeDir, problems), problems };
}

const sortedEnv = (env: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(env).sort(([a], [b]) => a.localeCompare(b)));
const envText = (env: Record<string, string>): string => `${JSON.stringify(sortedEnv(env), null, 2)}\n`;

/** The env item: compared only when the folder has an env file; secrets are never part of it. */
function envItem(local: Record<string, string>, remote: Record<string, string>): DiffItem {
  const same = canonicalJson(local) === canonicalJson(remote);
  return {
    kind: 'env',
    id: ENV_ITEM,
    status: same ? 'same' : 'changed',
    local: envText(local),
    remote: envText(remote),
    localHash: versionHash(local),
    remoteHash: versionHash(remote),
    removes: Object.keys(remote).filter((k) => !(k in local)).sort(),
  };
}

export function diff(local: LocalFolder, remote: RemoteSnapshot): DiffItem[] {
  const remoteByKey = new Map(remote.entities.map((e) => [key(configKind(e), e._id), e]));
  const keys = new Set([...remoteByKey.keys(), ...local.entities.keys()]);
  const items: DiffItem[] = [];
  for (const k of keys) {
    const l = local.entities.get(k)?.entity;
    const r = remoteByKey.get(k);
    const e = (l ?? r)!;
    const status: DiffStatus = !r ? 'added' : !l ? 'removed' : canonicalJson(l) === canonicalJson(r) ? 'same' : 'changed';
    items.push({
      kind: configKind(e),
      id: e._id,
      status,
      local: l ? configFileText(l) : null,
      remote: r ? configFileText(r) : null,
      localHash: l ? versionHash(l) : null,
      remoteHash: r ? versionHash(r) : null,
    });
  }
  if (local.env !== null) items.push(envItem(local.env, remote.env));
  const order: Record<SyncKind, number> = { metadata: 0, env: 1, system: 2, pipe: 3 };
  return items.sort((a, b) => order[a.kind] - order[b.kind] || a.id.localeCompare(b.id));
}

function writeAtomically(path: string, text: string): void {
  if (existsSync(path) && readTextFile(path) === text) return;
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export type { DownloadResult };

/**
 * Writes the remote configuration into the folder, one file per pipe/system in the workspace layout, plus the
 * env file. With `prune`, local pipes and systems the remote does not have are deleted (a file holding several
 * entities is kept).
 */
export function writeDownload(dir: string, remote: RemoteSnapshot, prune: boolean): DownloadResult {
  const nodeDir = nodeDirFor(dir);
  const local = readLocal(dir).entities;
  const written: string[] = [];
  const removed: string[] = [];
  const remoteKeys = new Set<string>();
  for (const e of remote.entities) {
    const k = key(configKind(e), e._id);
    remoteKeys.add(k);
    const existing = local.get(k);
    // Same content, other formatting: leave the user's file alone.
    if (existing && canonicalJson(existing.entity) === canonicalJson(e)) continue;
    // An entity already kept in a single-entity file stays in that file; otherwise the layout's name is used.
    const file = existing && fileHoldsOne(join(nodeDir, existing.file)) ? existing.file : configFilePath(configKind(e), e._id);
    const path = join(nodeDir, file);
    const before = existsSync(path) ? readTextFile(path) : null;
    const text = existing && file === existing.file ? updatedFileText(before ?? undefined, e) : configFileText(e);
    writeAtomically(path, text);
    if (before !== text) written.push(file);
  }
  if (prune) {
    for (const [k, l] of local) {
      if (remoteKeys.has(k) || !fileHoldsOne(join(nodeDir, l.file))) continue;
      rmSync(join(nodeDir, l.file), { force: true });
      removed.push(l.file);
    }
  }
  const envText = `${JSON.stringify({ env: remote.env, secrets: remote.secrets } satisfies RemoteEnv, null, 2)}\n`;
  writeAtomically(join(nodeDir, REMOTE_ENV_FILE), envText);
  const secretCount = remote.secrets.node.length + Object.values(remote.secrets.systems).reduce((n, s) => n + s.length, 0);
  return { folder: dir, nodeDir, written, removed, env: Object.keys(remote.env).length, secrets: secretCount };
}

function fileHoldsOne(path: string): boolean {
  try {
    return isJsonObject(JSON.parse(readTextFile(path)));
  } catch {
    return false;
  }
}

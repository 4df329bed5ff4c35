import type { Db } from '../storage/index.js';
import type { JsonObject } from '../base/index.js';
import { badRequest, notFound } from '../base/index.js';
import { isJsonObject } from '../base/index.js';
import { parseConfigText } from '../base/index.js';

/** What a configuration entity is, by its `type`: pipes, systems and the node metadata live apart. */
export type ConfigKind = 'pipe' | 'system' | 'metadata';

export interface ConfigEntity extends JsonObject {
  _id: string;
  type: string;
}

export function configKind(entity: { type?: unknown; _id?: unknown }): ConfigKind {
  const type = entity.type;
  if (type === 'pipe') return 'pipe';
  if (type === 'metadata') return 'metadata';
  if (typeof type === 'string' && type.startsWith('system:')) return 'system';
  throw badRequest(
    `unknown configuration type ${JSON.stringify(type)} for ${JSON.stringify(entity._id)}`,
    'a configuration entity has type "pipe", "metadata" or "system:<kind>"',
  );
}

export function configGroup(entity: JsonObject): string {
  const md = entity['metadata'];
  if (isJsonObject(md) && typeof md['$config-group'] === 'string') return md['$config-group'];
  return '';
}

export function asConfigEntity(value: unknown, where: string): ConfigEntity {
  if (!isJsonObject(value)) throw badRequest(`${where} is not a JSON object`);
  if (typeof value['_id'] !== 'string' || value['_id'].length === 0) throw badRequest(`${where} has no string "_id"`);
  if (typeof value['type'] !== 'string') throw badRequest(`${where} (${value['_id']}) has no string "type"`);
  return value as ConfigEntity;
}

/**
 * Refuse a request that holds one component id twice (even with `force`: the later would silently replace the
 * earlier, and one of the two is lost). Every element where the id occurs is named.
 */
export function refuseDuplicateIds(entities: readonly ConfigEntity[], kind: ConfigKind): void {
  const at = new Map<string, number[]>();
  entities.forEach((e, i) => at.set(e._id, [...(at.get(e._id) ?? []), i]));
  const twice = [...at].filter(([, where]) => where.length > 1);
  if (twice.length === 0) return;
  throw badRequest(
    `the same ${kind} id occurs more than once in the request: ${twice.map(([id]) => JSON.stringify(id)).join(', ')}`,
    twice.map(([id, where]) => `${id}: ${where.map((i) => `$[${i}]._id`).join(', ')}`).join('; ') + '; nothing was stored',
  );
}

export interface ConfigHistoryEntry extends JsonObject {
  _id: string;
  _updated: number;
  _ts: number;
  _deleted: boolean;
}

export type ConfigChange = { kind: ConfigKind; id: string; entity: ConfigEntity | undefined };

/** Stored configuration with a full history of every change. */
export class ConfigStore {
  private readonly listeners = new Set<(change: ConfigChange) => void>();

  constructor(private readonly db: Db) {}

  /** Be told of every stored change (after it is written); returns the unsubscribe function. */
  onChange(listener: (change: ConfigChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(change: ConfigChange): void {
    for (const l of this.listeners) l(change);
  }

  list(kind?: ConfigKind, group?: string): ConfigEntity[] {
    const where: string[] = [];
    const params: string[] = [];
    if (kind) {
      where.push('kind = ?');
      params.push(kind);
    }
    if (group !== undefined) {
      where.push('grp = ?');
      params.push(group);
    }
    const sql = `SELECT body FROM config ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY kind, id`;
    return (this.db.prepare(sql).pluck().all(...params) as string[]).map((b) => parseConfigText(b) as ConfigEntity);
  }

  groups(): string[] {
    return this.db.prepare('SELECT DISTINCT grp FROM config ORDER BY grp').pluck().all() as string[];
  }

  get(kind: ConfigKind, id: string): ConfigEntity | undefined {
    const body = this.db.prepare('SELECT body FROM config WHERE kind = ? AND id = ?').pluck().get(kind, id) as string | undefined;
    return body === undefined ? undefined : (parseConfigText(body) as ConfigEntity);
  }

  require(kind: ConfigKind, id: string): ConfigEntity {
    const e = this.get(kind, id);
    if (!e) throw notFound(`${kind} ${JSON.stringify(id)}`);
    return e;
  }

  /** Store one entity; returns false when it equals the stored one (nothing recorded). */
  put(entity: ConfigEntity): boolean {
    const kind = configKind(entity);
    const body = JSON.stringify(entity);
    const old = this.db.prepare('SELECT body FROM config WHERE kind = ? AND id = ?').pluck().get(kind, entity._id) as string | undefined;
    if (old === body) return false;
    const ts = Date.now() * 1000;
    this.db
      .prepare(
        `INSERT INTO config (kind, id, grp, body, updated_ts) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(kind, id) DO UPDATE SET grp = excluded.grp, body = excluded.body, updated_ts = excluded.updated_ts`,
      )
      .run(kind, entity._id, configGroup(entity), body, ts);
    this.db.prepare('INSERT INTO config_history (kind, id, deleted, ts, body) VALUES (?, ?, 0, ?, ?)').run(kind, entity._id, ts, body);
    this.emit({ kind, id: entity._id, entity });
    return true;
  }

  delete(kind: ConfigKind, id: string): boolean {
    const old = this.db.prepare('SELECT body FROM config WHERE kind = ? AND id = ?').pluck().get(kind, id) as string | undefined;
    if (old === undefined) return false;
    this.db.prepare('DELETE FROM config WHERE kind = ? AND id = ?').run(kind, id);
    this.db.prepare('INSERT INTO config_history (kind, id, deleted, ts, body) VALUES (?, ?, 1, ?, ?)').run(kind, id, Date.now() * 1000, old);
    this.emit({ kind, id, entity: undefined });
    return true;
  }

  history(id: string, options: { since?: number; limit?: number; reverse?: boolean }): ConfigHistoryEntry[] {
    const reverse = options.reverse === true;
    const since = options.since ?? (reverse ? Number.MAX_SAFE_INTEGER : -1);
    const rows = this.db
      .prepare(
        `SELECT seq, deleted, ts, body FROM config_history WHERE id = ? AND seq ${reverse ? '<' : '>'} ?
         ORDER BY seq ${reverse ? 'DESC' : 'ASC'} LIMIT ?`,
      )
      .all(id, since, options.limit ?? -1) as { seq: number; deleted: number; ts: number; body: string }[];
    return rows.map((r) => ({ ...(parseConfigText(r.body) as ConfigEntity), _updated: r.seq, _ts: r.ts, _deleted: r.deleted === 1 }));
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
}

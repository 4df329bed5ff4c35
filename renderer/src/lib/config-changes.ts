// Reading an imported node configuration (a JSON array or a zip of *.conf.json files, as GET /config exports it) and
// what applying it would change compared with the configuration the hub holds now.
import { strFromU8, unzipSync } from 'fflate';

export interface ConfigEntity {
  _id: string;
  type: string;
  [key: string]: unknown;
}

export type ConfigKind = 'pipe' | 'system' | 'metadata' | 'other';

export interface ConfigRef {
  kind: ConfigKind;
  id: string;
}

export interface ConfigChanges {
  added: ConfigRef[];
  changed: ConfigRef[];
  removed: ConfigRef[];
  unchanged: number;
}

export function kindOf(e: { type?: unknown }): ConfigKind {
  if (e.type === 'pipe') return 'pipe';
  if (e.type === 'metadata') return 'metadata';
  return typeof e.type === 'string' && e.type.startsWith('system:') ? 'system' : 'other';
}

function isEntity(v: unknown): v is ConfigEntity {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as ConfigEntity)._id === 'string' && typeof (v as ConfigEntity).type === 'string';
}

function entitiesOf(value: unknown, where: string): ConfigEntity[] {
  const list = Array.isArray(value) ? value : [value];
  list.forEach((v, i) => {
    if (!isEntity(v)) throw new Error(`${where}: entry ${i + 1} is not a configuration entity (an object with "_id" and "type")`);
  });
  return list as ConfigEntity[];
}

/** The entities of an imported file; throws an Error in words when the file is not a configuration. */
export function readConfigFile(name: string, bytes: Uint8Array): ConfigEntity[] {
  const isZip = bytes[0] === 0x50 && bytes[1] === 0x4b;
  if (!isZip) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(bytes));
    } catch (e) {
      throw new Error(`${name} is neither a zip archive nor valid JSON (${e instanceof Error ? e.message : String(e)})`);
    }
    return entitiesOf(parsed, name);
  }
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes);
  } catch (e) {
    throw new Error(`${name} is not a readable zip archive (${e instanceof Error ? e.message : String(e)})`);
  }
  const out: ConfigEntity[] = [];
  for (const [file, data] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
    if (!file.endsWith('.conf.json')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(strFromU8(data));
    } catch (e) {
      throw new Error(`${file} in ${name} is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
    }
    out.push(...entitiesOf(parsed, file));
  }
  if (out.length === 0) throw new Error(`${name} holds no *.conf.json files`);
  return out;
}

/** JSON with object keys sorted, so two entities compare equal whatever order their keys were written in. */
export function canonical(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (typeof v === 'object' && v !== null) {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  return JSON.stringify(sort(value));
}

const refKey = (e: ConfigEntity): string => `${kindOf(e)}\u0000${e._id}`;

/** What replacing `current` by `incoming` does: entities added, changed and removed, by kind and id. */
export function configChanges(current: readonly ConfigEntity[], incoming: readonly ConfigEntity[]): ConfigChanges {
  const now = new Map(current.map((e) => [refKey(e), e]));
  const next = new Map(incoming.map((e) => [refKey(e), e]));
  const ref = (e: ConfigEntity): ConfigRef => ({ kind: kindOf(e), id: e._id });
  const byId = (a: ConfigRef, b: ConfigRef): number => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id);
  const changes: ConfigChanges = { added: [], changed: [], removed: [], unchanged: 0 };
  for (const [key, e] of next) {
    const old = now.get(key);
    if (!old) changes.added.push(ref(e));
    else if (canonical(old) !== canonical(e)) changes.changed.push(ref(e));
    else changes.unchanged++;
  }
  for (const [key, e] of now) if (!next.has(key)) changes.removed.push(ref(e));
  changes.added.sort(byId);
  changes.changed.sort(byId);
  changes.removed.sort(byId);
  return changes;
}

/** The config group an entity belongs to ('' is the default group). */
export function groupOf(e: Record<string, unknown>): string {
  const md = e['metadata'];
  if (typeof md === 'object' && md !== null && !Array.isArray(md)) {
    const g = (md as Record<string, unknown>)['$config-group'];
    if (typeof g === 'string') return g;
  }
  return '';
}

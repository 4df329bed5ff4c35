import { existsSync, mkdirSync, renameSync, rmSync, statSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import type { Hub } from '../hub.js';
import { configKind, type ConfigChange, type ConfigEntity, type ConfigKind } from '../config/index.js';
import { configFilePath } from '../config/index.js';
import { updatedFileText } from '../config/index.js';
import { configFiles, readConfigFiles, type WorkspaceProblem } from '../config/index.js';
import { HubError } from '../base/index.js';
import { canonicalJson, isJsonObject } from '../base/index.js';
import { BOM, readTextFile, startsWithBom } from '../base/index.js';
import { parseJson } from '../base/index.js';

export type { WorkspaceProblem };

/** How often the folder is compared with what was last loaded, besides the file events. */
const RESCAN_MS = 2000;

export interface WorkspaceLoad {
  pipes: number;
  systems: number;
  metadata: boolean;
  env: number;
  problems: WorkspaceProblem[];
}

/** Of a project's entities, the given pipes, the systems they name (their id as a JSON string anywhere) and the rest. */
function onlyFor(entities: readonly ConfigEntity[], pipes: ReadonlySet<string>): ConfigEntity[] {
  const kept = entities.filter((e) => e.type === 'pipe' && pipes.has(e._id));
  const text = JSON.stringify(kept);
  return entities.filter((e) => (e.type === 'pipe' ? pipes.has(e._id) : e.type === 'metadata' || !e.type.startsWith('system:') || text.includes(JSON.stringify(e._id))));
}

/** The `node/` folder of a project: the folder itself, or its `node/` child when there is one. */
export function workspaceNodeDir(dir: string): string {
  // A single-file export (a JSON list of components, as the service's "download config" gives): its folder.
  if (existsSync(dir) && statSync(dir).isFile()) return dirname(dir);
  const child = join(dir, 'node');
  return existsSync(child) && statSync(child).isDirectory() ? child : dir;
}

/**
 * A project folder bound to a hub: its pipes, systems, metadata and test env are loaded into the hub, changes to the
 * files are reloaded, and configuration changed through the hub is written back to the same files.
 */
export class Workspace {
  readonly nodeDir: string;
  /** The file each entity was read from (or written to), by "<kind>:<id>". */
  private readonly files = new Map<string, string>();
  /** One watcher per folder (node/, pipes/, systems/), by folder relative to the node folder. */
  private readonly watchers = new Map<string, FSWatcher>();
  private rescanTimer: NodeJS.Timeout | undefined;
  /** The config files' names, sizes and times as last loaded or written: the periodic rescan compares with it. */
  private fingerprint = '';
  private unsubscribe: (() => void) | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private loading = false;
  private readonly ownWrites = new Map<string, string>();
  lastLoad: WorkspaceLoad | undefined;

  /** The one file of a single-file export opened as a workspace (relative to nodeDir), else undefined. */
  private readonly single: string | undefined;

  constructor(
    private readonly hub: Hub,
    dir: string,
  ) {
    if (!existsSync(dir)) throw new HubError(400, `workspace folder ${dir} does not exist`);
    const file = statSync(dir).isFile();
    if (!file && !statSync(dir).isDirectory()) throw new HubError(400, `workspace folder ${dir} does not exist`);
    this.nodeDir = workspaceNodeDir(dir);
    this.single = file ? basename(dir) : undefined;
  }

  /** The file (relative to the node folder) a component was read from or written to. */
  fileOf(kind: ConfigKind, id: string): string | undefined {
    return this.files.get(`${kind}:${id}`);
  }

  /** The config files this workspace reads: the node folder's, or the one file of a single-file export. */
  private configFiles(): string[] {
    return this.single !== undefined ? [this.single] : configFiles(this.nodeDir);
  }

  /** Load the folder, then keep the hub and the folder in step until close(). */
  open(options: { watch?: boolean } = {}): WorkspaceLoad {
    const result = this.load();
    this.unsubscribe = this.hub.config.onChange((c) => this.writeBack(c));
    if (options.watch !== false) {
      this.watchFolders();
      // Folders are watched, not files, so an editor's save by rename (vim, "safe write") or the hub's own atomic
      // write-back never leaves a watcher on a file that is gone. A rescan every RESCAN_MS catches what a file
      // system does not report (network drives, folders created later, lost events).
      this.rescanTimer = setInterval(() => this.rescan(), RESCAN_MS);
      this.rescanTimer.unref();
    }
    return result;
  }

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    clearInterval(this.rescanTimer);
    this.unsubscribe?.();
    clearTimeout(this.reloadTimer);
  }

  /** Watch the node folder and its pipes/ and systems/ folders (those that exist; the rescan adds later ones). */
  private watchFolders(): void {
    for (const sub of ['', 'pipes', 'systems']) {
      if (this.watchers.has(sub)) continue;
      const dir = sub === '' ? this.nodeDir : join(this.nodeDir, sub);
      if (!existsSync(dir)) continue;
      let watcher: FSWatcher;
      try {
        watcher = watch(dir, { persistent: false }, (_event, name) => this.changed(name === null ? null : sub === '' ? String(name) : `${sub}/${String(name)}`));
      } catch {
        continue;
      }
      watcher.on('error', () => {
        // The folder went (or was replaced): watch it again on the next rescan.
        watcher.close();
        if (this.watchers.get(sub) === watcher) this.watchers.delete(sub);
      });
      this.watchers.set(sub, watcher);
    }
  }

  /** A file event: reload shortly after (events come in bursts), unless it was our own write. */
  private changed(name: string | null): void {
    if (name !== null && !name.endsWith('.json')) {
      // A folder appearing (pipes/), our own temporary file or an editor's: only a folder needs a look now.
      if (name === 'pipes' || name === 'systems') this.watchFolders();
      return;
    }
    if (name !== null && this.isOwnWrite(name)) return;
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => this.reload(), 150);
    this.reloadTimer.unref();
  }

  private rescan(): void {
    this.watchFolders();
    if (this.currentFingerprint() !== this.fingerprint) this.reload();
  }

  private currentFingerprint(): string {
    const parts: string[] = [];
    for (const file of [...this.configFiles(), 'test-env.json']) {
      try {
        const st = statSync(join(this.nodeDir, file));
        parts.push(`${file}:${st.size}:${st.mtimeMs}`);
      } catch {
        // Not there (test-env.json is optional; a file may go while we look).
      }
    }
    return parts.join('|');
  }

  /** Told after every reload caused by a file change (the serving host prints its problems). */
  onReload: ((load: WorkspaceLoad) => void) | undefined;

  private reload(): void {
    try {
      const load = this.load();
      this.onReload?.(load);
    } catch {
      // A half-written file is read again on its next change event.
    }
  }

  /**
   * Read every config file and make the hub's configuration equal to it (pipes with errors are kept, flagged). With
   * `pipes`, only those pipes are loaded, with the systems they name and the node metadata (a test group's run: the
   * files are all read, and their problems all reported, but the hub holds only what the group needs).
   */
  load(options: { pipes?: ReadonlySet<string> } = {}): WorkspaceLoad {
    this.fingerprint = this.currentFingerprint();
    const read = readConfigFiles(this.nodeDir, this.single === undefined ? undefined : [this.single]);
    const problems = read.problems;
    const entities = options.pipes === undefined ? read.entities.map((r) => r.entity) : onlyFor(read.entities.map((r) => r.entity), options.pipes);
    const files = new Map(read.entities.map((r) => [`${configKind(r.entity)}:${r.entity._id}`, r.file]));
    // A file being saved (or briefly broken) keeps what was last loaded from it: its pipes and their pump state stay.
    for (const file of read.unreadable) {
      const kept = this.lastGood(file);
      if (kept.length === 0) continue;
      const problem = problems.find((p) => p.file === file);
      if (problem) problem.msg += ` (keeping ${kept.map((e) => e._id).join(', ')} as last loaded)`;
      for (const e of kept) {
        entities.push(e);
        files.set(`${configKind(e)}:${e._id}`, file);
      }
    }
    const env = this.readTestEnv(problems);
    this.loading = true;
    try {
      const changed: ConfigEntity[] = [];
      this.hub.config.transaction(() => {
        const wanted = new Set(entities.map((e) => `${configKind(e)}:${e._id}`));
        for (const old of this.hub.config.list()) {
          const kind = configKind(old);
          if (!wanted.has(`${kind}:${old._id}`)) this.hub.config.delete(kind, old._id);
        }
        for (const e of entities) if (this.hub.config.put(e)) changed.push(e);
      });
      // A pipe loaded before as it is now has its sink dataset in step already.
      for (const e of changed) if (configKind(e) === 'pipe') this.hub.pipes.save([e]);
      if (env) this.hub.env.set(env, false);
    } finally {
      this.loading = false;
    }
    this.files.clear();
    for (const [k, v] of files) this.files.set(k, v);
    this.lastLoad = {
      pipes: entities.filter((e) => e.type === 'pipe').length,
      systems: entities.filter((e) => configKind(e) === 'system').length,
      metadata: entities.some((e) => configKind(e) === 'metadata'),
      env: env ? Object.keys(env).length : 0,
      problems,
    };
    return this.lastLoad;
  }

  /** The entities last loaded from (or written to) a file, as the hub holds them. */
  private lastGood(file: string): ConfigEntity[] {
    const out: ConfigEntity[] = [];
    for (const [key, f] of this.files) {
      if (f !== file) continue;
      const sep = key.indexOf(':');
      const e = this.hub.config.get(key.slice(0, sep) as ConfigKind, key.slice(sep + 1));
      if (e) out.push(e);
    }
    return out;
  }

  private readTestEnv(problems: WorkspaceProblem[]): Record<string, string> | undefined {
    const file = join(this.nodeDir, 'test-env.json');
    if (!existsSync(file)) return undefined;
    try {
      const parsed: unknown = JSON.parse(readTextFile(file));
      if (!isJsonObject(parsed)) throw new Error('expected an object of variable names and values');
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(parsed)) env[k] = typeof v === 'string' ? v : JSON.stringify(v);
      return env;
    } catch (err) {
      problems.push({ file: 'test-env.json', msg: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
  }

  /**
   * Write a configuration change made through the hub back to its file (atomically; unchanged files untouched). A
   * file that holds several components (a list) is written back whole: the changed one replaced (or left out when
   * deleted), the others as they are.
   */
  private writeBack(change: ConfigChange): void {
    if (this.loading) return;
    const key = `${change.kind}:${change.id}`;
    // A single-file export takes new components into its list.
    const file = this.files.get(key) ?? this.single ?? configFilePath(change.kind, change.id);
    const path = join(this.nodeDir, file);
    const list = this.listIn(path);
    if (!change.entity) {
      if (list) {
        const rest = list.filter((e) => !this.isComponent(e, change.kind, change.id));
        if (rest.length !== list.length) this.writeFile(file, rest.length === 0 ? undefined : updatedFileText(readTextFile(path), rest));
      } else if (this.fileHoldsOnly(path, change.kind, change.id)) {
        this.writeFile(file, undefined);
      }
      this.files.delete(key);
      return;
    }
    const name = basename(file);
    if (Buffer.byteLength(name) > 255) {
      // Thrown inside the config transaction: nothing is stored either.
      throw new HubError(400, `the id of ${change.kind} ${JSON.stringify(change.id.slice(0, 40) + '…')} is too long for a workspace file`, `its file name ${name.slice(0, 40)}… has ${Buffer.byteLength(name)} bytes; file systems allow 255`);
    }
    const previous = existsSync(path) ? readTextFile(path) : undefined;
    let value: unknown = change.entity;
    if (list) {
      // A file holding several components is written back whole: the edited one replaced (or added), the others kept.
      const entity = change.entity;
      let found = false;
      const next = list.map((e) => {
        if (!this.isComponent(e, change.kind, change.id)) return e;
        found = true;
        return entity;
      });
      if (!found) next.push(entity);
      value = next;
    }
    // A new file for a pipe renamed or duplicated from one in this folder starts from that file's text (its layout).
    const text = updatedFileText(previous ?? (list ? undefined : this.layoutOf(change.kind, change.entity)), value);
    if (previous === text) return;
    this.writeFile(file, text);
    this.files.set(key, file);
  }

  /**
   * The text of the file of another entity of this kind that this one copies (the same configuration but for its id
   * and sink: a rename or a duplicate), when that file holds just it; else undefined.
   */
  private layoutOf(kind: ConfigKind, entity: ConfigEntity): string | undefined {
    const rest = (e: ConfigEntity): string => canonicalJson({ ...e, _id: undefined, sink: undefined });
    const wanted = rest(entity);
    for (const [key, file] of this.files) {
      if (!key.startsWith(`${kind}:`) || key === `${kind}:${entity._id}`) continue;
      const other = this.hub.config.get(kind, key.slice(kind.length + 1));
      if (!other || rest(other) !== wanted) continue;
      try {
        const text = readTextFile(join(this.nodeDir, file));
        const parsed: unknown = parseJson(text);
        if (isJsonObject(parsed) && canonicalJson(parsed) === canonicalJson(other)) return text;
      } catch {
        // Unreadable: no layout to copy.
      }
    }
    return undefined;
  }

  /** Replace a file atomically (undefined: delete it), remembering the write so its events are not reloads. */
  private writeFile(file: string, text: string | undefined): void {
    const path = join(this.nodeDir, file);
    if (text === undefined) {
      this.ownWrites.set(file, '');
      rmSync(path, { force: true });
    } else {
      mkdirSync(dirname(path), { recursive: true });
      const tmp = `${path}.tmp-${process.pid}`;
      // A file that starts with a byte order mark keeps it (its editor wrote it; readTextFile reads past it).
      writeFileSync(tmp, startsWithBom(path) ? BOM + text : text);
      this.ownWrites.set(file, text);
      renameSync(tmp, path);
    }
    this.fingerprint = this.currentFingerprint();
  }

  /** The components of a file that holds a list of them; undefined for any other file (or none). */
  private listIn(path: string): unknown[] | undefined {
    try {
      const parsed: unknown = JSON.parse(readTextFile(path));
      return Array.isArray(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  private isComponent(value: unknown, kind: ConfigKind, id: string): boolean {
    if (!isJsonObject(value) || value['_id'] !== id) return false;
    try {
      return configKind(value as ConfigEntity) === kind;
    } catch {
      return false;
    }
  }

  /** A file with several entities (an array) is not deleted for one of them. */
  private fileHoldsOnly(path: string, kind: ConfigKind, id: string): boolean {
    try {
      const parsed: unknown = JSON.parse(readTextFile(path));
      return isJsonObject(parsed) && parsed['_id'] === id && (kind === 'metadata' || parsed['type'] !== undefined);
    } catch {
      return false;
    }
  }

  /** Events caused by our own writes are not reloads: the hub already holds that content. */
  private isOwnWrite(name: string): boolean {
    const file = relative('.', name).replace(/\\/g, '/').replace(/\.tmp-\d+$/, '');
    if (!this.ownWrites.has(file)) return name.includes('.tmp-');
    const expected = this.ownWrites.get(file)!;
    const path = join(this.nodeDir, file);
    const now = existsSync(path) ? readTextFile(path) : '';
    if (now === expected) return true;
    this.ownWrites.delete(file);
    return false;
  }
}

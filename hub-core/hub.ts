import { SecretCipher } from './security/index.js';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { openDatabase, WalCheckpointer, type Db } from './storage/index.js';
import { DatasetStore } from './storage/index.js';
import { ConfigStore, configKind, asConfigEntity, type ConfigEntity } from './config/index.js';
import { EnvStore, KvStore, SecretStore } from './security/index.js';
import { UserStore } from './security/index.js';
import { PipeRegistry } from './pipes/index.js';
import { SystemRegistry } from './config/index.js';
import { JsonPushReceiver, stageDatasetWrite, type StagedDatasetWrite } from './pipes/index.js';
import { PumpService } from './pipes/index.js';
import { DatasetLookup } from './pipes/index.js';
import { CompactionService } from './storage/index.js';
import { DatasetProfiler } from './explore/index.js';
import { EntityFilters } from './explore/index.js';
import { RunAllService } from './pipes/index.js';
import { ConfigRejected, configValidationErrors } from './pipes/index.js';
import { HubError, badRequest } from './base/index.js';
import { isJsonObject, type JsonObject } from './base/index.js';
import type { NamespaceSettings } from './dtl/index.js';
import type { Clock } from './base/index.js';

export const NODE_VERSION = '0.1.0';

/** The embedded hub: one data directory, one SQLite file, every store the engine needs. */
export class Hub {
  readonly db: Db;
  /** Checkpoints the write-ahead log off this thread. */
  private readonly checkpointer: WalCheckpointer;
  readonly datasets: DatasetStore;
  readonly config: ConfigStore;
  readonly env: EnvStore;
  readonly secrets: SecretStore;
  readonly users: UserStore;
  readonly kv: KvStore;
  readonly pipes: PipeRegistry;
  readonly systems: SystemRegistry;
  readonly receiver: JsonPushReceiver;
  /** Dataset profiles (property statistics), cached by offset. */
  readonly profiles: DatasetProfiler;
  /** Reads of the latest entities that match a DTL predicate. */
  readonly filters: EntityFilters;
  /** Pump runs, schedules and state; automatic runs begin with startPumps(). */
  readonly pumps: PumpService;
  /** Runs of every pipe until nothing changes (`POST /pipes/run-all-pipes`, `datahub test`). */
  readonly runAll: RunAllService;
  /** Whole-log compaction on a schedule, and free pages given back to the OS. */
  readonly compaction: CompactionService;
  /** When the node (re)started: the process start, or the last restart through the API. */
  private started = new Date();
  readonly nodeId: string;

  /** `clock`: the time the pump scheduler goes by (the system clock unless a test moves its own). */
  constructor(
    readonly dataDir: string,
    options: {
      clock?: Clock;
      /** The key secret values are encrypted with, when the host keeps it (the OS keychain); else `<data>/secrets-key`. */
      secretsKey?: Buffer;
      /** False for a throwaway hub (a test run's temporary data dir): its commits are not synced to disk. */
      durable?: boolean;
    } = {},
  ) {
    this.db = openDatabase(join(dataDir, 'hub.db'), options.durable === false ? { durable: false } : {});
    this.checkpointer = new WalCheckpointer(this.db, join(dataDir, 'hub.db'));
    this.datasets = new DatasetStore(this.db);
    this.compaction = new CompactionService(this.db, this.datasets);
    this.config = new ConfigStore(this.db);
    this.env = new EnvStore(this.db);
    this.secrets = new SecretStore(this.db, SecretCipher.open(dataDir, options.secretsKey));
    this.users = new UserStore(this.db);
    this.kv = new KvStore(this.db);
    this.pipes = new PipeRegistry(this.config, this.datasets);
    this.systems = new SystemRegistry(this.config, this.secrets);
    this.profiles = new DatasetProfiler(this.datasets, join(dataDir, 'hub.db'));
    this.filters = new EntityFilters(this.db, this.datasets);
    this.pumps = new PumpService(
      this.db,
      this.datasets,
      this.pipes,
      this.config,
      dataDir,
      {
        lookup: new DatasetLookup(this.datasets, () => this.db.inTransaction),
        vars: { env: (name) => this.env.get(name), secret: (name, scope) => this.secrets.value(name, scope), mask: (text) => this.secrets.mask(text) },
        system: (id) => this.config.get('system', id),
        namespaces: (pipeId) => this.namespaceSettings(pipeId),
      },
      {
        onConfigChange: (listener) => void this.config.onChange(listener),
        onVariablesChange: (listener) => {
          this.env.onChange(listener);
          this.secrets.onChange(listener);
        },
      },
      options.clock,
    );
    this.pipes.attachPumps(this.pumps);
    this.receiver = new JsonPushReceiver(this.db, this.pipes, this.pumps.runtimes, this.config, join(dataDir, 'push-spool'));
    this.runAll = new RunAllService(this);
    let nodeId = this.kv.get('node_id');
    if (!nodeId) {
      nodeId = randomUUID();
      this.kv.set('node_id', nodeId);
    }
    this.nodeId = nodeId;
  }

  /**
   * A large batch posted to a dataset, kept as its body arrives and written when it is all there (next to the large
   * JSON Pushes, whose spool folder the receiver empties when the hub starts).
   */
  stagedWrite(datasetId: string): StagedDatasetWrite {
    return stageDatasetWrite(this.db, () => this.datasets.open(datasetId), join(this.dataDir, 'push-spool'));
  }

  get startTime(): Date {
    return this.started;
  }

  /** A restart through the API: the node start time moves, so clients waiting for the restart see it. */
  markStarted(): void {
    this.started = new Date(Math.max(Date.now(), this.started.getTime() + 1));
  }

  /**
   * Begin scheduled and startup pump runs (the serving host calls this; one-off CLI commands do not); `paused`: the
   * scheduler starts paused (see PumpScheduler.setPaused).
   */
  startPumps(options: { paused?: boolean } = {}): void {
    this.pumps.start(options);
    this.compaction.start();
  }

  /** Stop schedules and pump runs, waiting for runs to finish their current batch. */
  async stopPumps(): Promise<void> {
    await this.runAll.stop(10_000);
    await this.compaction.stop();
    await this.pumps.close();
  }

  /**
   * The node's namespaced identifiers for a pipe: on when the service metadata says so (a pipe may override it, see
   * pipe-runtime.ts), the pipe's namespaces are its id, prefixes from `namespaces.default`.
   */
  namespaceSettings(pipeId: string): NamespaceSettings {
    const md = this.metadata();
    const ns = isJsonObject(md['namespaces']) ? md['namespaces'] : {};
    const declared = isJsonObject(ns['default']) ? ns['default'] : {};
    const prefixes: Record<string, string> = {};
    for (const [k, v] of Object.entries(declared)) if (typeof v === 'string') prefixes[k] = v;
    return { enabled: md['namespaced_identifiers'] === true, identityNamespace: pipeId, propertyNamespace: pipeId, prefixes, pipeId };
  }

  /** Throws when the database cannot be read (the health check). */
  checkDatabase(): void {
    this.db.prepare('SELECT 1').get();
  }

  close(): void {
    void this.checkpointer.close();
    this.profiles.close();
    this.datasets.close();
    this.pumps.closeNow();
    if (this.db.open) this.db.close();
  }

  metadata(): ConfigEntity {
    return this.config.get('metadata', 'node') ?? { _id: 'node', type: 'metadata' };
  }

  setMetadata(value: unknown): ConfigEntity {
    if (!isJsonObject(value)) throw badRequest('metadata must be a JSON object');
    const entity = { ...value, _id: 'node', type: 'metadata' } as ConfigEntity;
    this.config.put(entity);
    return entity;
  }

  deleteMetadata(): void {
    this.config.delete('metadata', 'node');
  }

  /** The configuration of one group ('' is the default group) as an array. */
  groupConfig(group: string): ConfigEntity[] {
    const all = this.config.list(undefined, group);
    return all.sort((a, b) => kindOrder(a) - kindOrder(b) || a._id.localeCompare(b._id));
  }

  /** Replace all configuration of a group; validated as a whole before anything changes. */
  replaceGroupConfig(group: string, body: unknown, force: boolean): void {
    if (!Array.isArray(body)) throw badRequest('the configuration must be a JSON array of configuration entities');
    const entities = body.map((v, i) => asConfigEntity(v, `configuration entity #${i}`));
    const seen = new Set<string>();
    for (const e of entities) {
      const key = `${configKind(e)}:${e._id}`;
      if (seen.has(key)) throw badRequest(`duplicate configuration entity ${JSON.stringify(e._id)}`);
      seen.add(key);
      if (configKind(e) === 'metadata' && group !== '') {
        throw badRequest('the node metadata belongs to the default config group', 'send it with PUT /config or PUT /metadata, not with a config group');
      }
      const g = groupOf(e);
      if (g !== group) {
        throw badRequest(
          `${e._id} belongs to config group ${JSON.stringify(g)}, not ${JSON.stringify(group)}`,
          'set metadata.$config-group to the group being replaced',
        );
      }
    }
    if (!force) {
      const rejected = configValidationErrors(entities, (name) => this.env.get(name));
      if (rejected.length > 0) throw new ConfigRejected(rejected);
    }
    const pipes = this.pipes.validate(entities.filter((e) => configKind(e) === 'pipe'), force);
    const systems = this.systems.validate(entities.filter((e) => configKind(e) === 'system'), force);
    const metadata = entities.filter((e) => configKind(e) === 'metadata');
    if (metadata.some((m) => m._id !== 'node')) throw badRequest('the node metadata entity has "_id": "node"');
    this.config.transaction(() => {
      for (const old of this.config.list(undefined, group)) {
        const kind = configKind(old);
        if (!seen.has(`${kind}:${old._id}`) && !(kind === 'metadata' && group !== '')) this.config.delete(kind, old._id);
      }
      this.pipes.save(pipes);
      this.systems.save(systems);
      for (const m of metadata) this.config.put(m);
    });
  }

  status(): JsonObject {
    const mem = process.memoryUsage();
    return {
      node_id: this.nodeId,
      node_version: NODE_VERSION,
      node_start_time: this.startTime.toISOString(),
      node_uptime: Math.round((Date.now() - this.startTime.getTime()) / 1000),
      memory: { rss: mem.rss, heap_total: mem.heapTotal, heap_used: mem.heapUsed, external: mem.external, array_buffers: mem.arrayBuffers },
      datasets: this.datasets.names().length,
      pipes: this.pipes.ids().length,
      systems: this.systems.ids().length,
      pipe_workers: { ...this.pumps.workers.status() },
    };
  }
}

function kindOrder(e: ConfigEntity): number {
  const k = configKind(e);
  return k === 'metadata' ? 0 : k === 'system' ? 1 : 2;
}

function groupOf(e: JsonObject): string {
  const md = e['metadata'];
  return isJsonObject(md) && typeof md['$config-group'] === 'string' ? md['$config-group'] : '';
}

export { HubError };
